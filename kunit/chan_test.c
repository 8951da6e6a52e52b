// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: htmtrace channels (state machine, target registry, dump engine,
 * argument checks) against a small fake hypervisor.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <asm/hvcall.h>

#include "htmtrace.h"
#include "htm_internal.h"
#include "kunit_user.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/*
 * The fake: one HTM unit whatever the target, with the hypervisor's state
 * machine; the trace byte at offset o is fake_byte(o). Tests run one at a
 * time in their own kthread, and nothing calls the fake from elsewhere but
 * probe_work, which the tests flush, so plain statics do. STOP of a trace
 * that is not running answers H_STATE (one of the simulator's
 * alternatives).
 */
enum { FK_IDLE, FK_CONFIGURED, FK_TRACING, FK_STOPPED };

static struct {
	int state;
	unsigned int log2;
	size_t max_xfer;
	long xfer_rc;		/* ... what a longer DUMP_DATA gets (0: H_P5) */
	long start_stopped_rc;	/* START of a stopped trace: this, if set */
	unsigned int calls[16];
	unsigned int fail_op;
	unsigned int fail_after;
	long fail_rc;
	size_t short_xfer;	/* DUMP_DATA writes only this much, H_PARTIAL */
	u64 status_next;	/* STATUS iterator (+0x08) */
	long status_rc;		/* what STATUS answers after writing */
	unsigned long mode[2];	/* the last CONFIGURE's mask and value */
	unsigned int busy_dumps;	/* busy_op answers long busy, 100 ms */
	unsigned int busy_op;	/* ... DUMP_DATA if 0 */
	u64 data_end;		/* DUMP_DATA: H_NOT_AVAILABLE from here (0: size) */
	unsigned int dump_tracing;	/* DUMP_DATA calls while tracing */
	unsigned int unaligned;	/* DUMP_DATA not of whole pages, page-aligned */
	unsigned int info_blocks;	/* SYSPROC: blocks of one entry each */
	long info_na;		/* ... ended by this answer after them */
	u64 info_end;		/* ... else by this last iterator */
	long info_rc;		/* ... each but the last answered this */
	bool info_empty;	/* ... of no entry, the iterator still live */
	unsigned long caps_len;	/* the last CAPABILITIES length */
	struct htm_chan *probe_chan;	/* ... and then probe_work runs */
	bool probe_restart;	/* probe_work restarts the trace */
	unsigned int probe_dumps;	/* DUMP_DATA calls when it had the lock */
	unsigned int probe_status;	/* STATUS calls when it had the lock */
	unsigned int probe_info;	/* SYSPROC calls when it had the lock */
	bool probe_sync;	/* the busy answer waits (10 s at most) for it */
	int probe_ret;
} fk;

static struct work_struct probe_work;
static struct completion probe_done;

/* While a reader waits out a long-busy answer: can another take the lock? */
static void probe_fn(struct work_struct *work)
{
	struct htm_chan *chan = fk.probe_chan;

	if (fk.probe_restart) {
		fk.probe_ret = htm_chan_start(chan);
	} else {
		mutex_lock(&chan->lock);
		mutex_unlock(&chan->lock);
	}
	fk.probe_dumps = fk.calls[HTM_OP_DUMP_DATA];
	fk.probe_status = fk.calls[HTM_OP_STATUS];
	fk.probe_info = fk.calls[HTM_OP_DUMP_SYSPROC_CONF];
	complete(&probe_done);
}

static u8 fake_byte(u64 o)
{
	return (o * 7 + (o >> 12)) & 0xff;
}

static long fake_dump(unsigned long p1, unsigned long p2, unsigned long p3)
{
	u8 *dst = phys_to_virt(p1);
	u64 size = fk.data_end ?: 1ULL << fk.log2;
	size_t i;

	if (!PAGE_ALIGNED(p1) || !PAGE_ALIGNED(p2) || !PAGE_ALIGNED(p3))
		fk.unaligned++;
	if (fk.state == FK_TRACING)
		fk.dump_tracing++;
	if (fk.state != FK_STOPPED)
		return H_STATE;
	if (p3 >= size)
		return H_NOT_AVAILABLE;
	if (fk.max_xfer && p2 > fk.max_xfer)
		return fk.xfer_rc ?: H_P5;
	if (fk.short_xfer && fk.short_xfer < p2) {
		for (i = 0; i < fk.short_xfer && p3 + i < size; i++)
			dst[i] = fake_byte(p3 + i);
		return H_PARTIAL;
	}
	for (i = 0; i < p2 && p3 + i < size; i++)
		dst[i] = fake_byte(p3 + i);
	return H_SUCCESS;
}

static long fake_htm(unsigned long flags, unsigned long target,
		     unsigned long opword, unsigned long p1, unsigned long p2,
		     unsigned long p3)
{
	unsigned int op = HTM_OP_OF(opword);
	u8 *hdr;

	fk.calls[op & 15]++;
	if (op == fk.fail_op && fk.calls[op & 15] > fk.fail_after)
		return fk.fail_rc;
	if (fk.busy_dumps && op == (fk.busy_op ?: HTM_OP_DUMP_DATA)) {
		fk.busy_dumps--;
		if (fk.probe_chan)
			schedule_work(&probe_work);
		/*
		 * The probe is done by the time the caller sleeps, unless
		 * the caller holds the lock it takes: not a matter of speed.
		 */
		if (fk.probe_chan && fk.probe_sync)
			wait_for_completion_timeout(&probe_done, 10 * HZ);
		return H_LONG_BUSY_ORDER_100_MSEC;
	}

	switch (op) {
	case HTM_OP_CONFIGURE:
		if (fk.state != FK_IDLE)
			return H_STATE;
		fk.mode[0] = p1;
		fk.mode[1] = p2;
		fk.state = FK_CONFIGURED;
		return H_SUCCESS;
	case HTM_OP_START:
		if (fk.state == FK_STOPPED && fk.start_stopped_rc)
			return fk.start_stopped_rc;
		if (fk.state != FK_CONFIGURED && fk.state != FK_STOPPED)
			return H_STATE;
		fk.state = FK_TRACING;
		return H_SUCCESS;
	case HTM_OP_STOP:
		if (fk.state != FK_TRACING)
			return H_STATE;
		fk.state = FK_STOPPED;
		return H_SUCCESS;
	case HTM_OP_DECONFIGURE:
		if (fk.state == FK_IDLE)
			return H_STATE;
		fk.state = FK_IDLE;
		return H_SUCCESS;
	case HTM_OP_STATUS:
		hdr = phys_to_virt(p1);
		memset(hdr, 0, HTM_BLOCK_HDR_SIZE);
		hdr[HTM_STATUS_LOG2_SIZE] = fk.log2;
		*(__be64 *)(hdr + HTM_BLOCK_NEXT) = cpu_to_be64(fk.status_next);
		return fk.status_rc;
	case HTM_OP_DUMP_DATA:
		return fake_dump(p1, p2, p3);
	case HTM_OP_DUMP_SYSPROC_CONF:
		if (p3 >= fk.info_blocks)
			return fk.info_na ?: H_P6;
		hdr = phys_to_virt(p1);
		memset(hdr, 0, HTM_BLOCK_HDR_SIZE + HTM_SYSPROC_ENTRY_SIZE);
		*(__be64 *)(hdr + HTM_BLOCK_NEXT) =
			cpu_to_be64(p3 + 1 < fk.info_blocks || fk.info_na ?
				    p3 + 1 : fk.info_end);
		*(__be64 *)(hdr + HTM_BLOCK_NR_ENTRIES) =
			cpu_to_be64(fk.info_empty ? 0 : 1);
		hdr[HTM_BLOCK_HDR_SIZE] = p3;
		return p3 + 1 < fk.info_blocks ? fk.info_rc : H_SUCCESS;
	case HTM_OP_CAPABILITIES:
		fk.caps_len = p2;
		return H_SUCCESS;
	case HTM_OP_SETUP:
		return H_SUCCESS;
	default:
		return H_PARAMETER;
	}
}

static const struct htmtrace_hv_ops fake_ops = {
	.name = "kunit",
	.htm = fake_htm,
};

static const struct htm_target t1 = { .type = 2, .node = 0x7ff1, .core = 1 };
static const struct htm_target t2 = { .type = 2, .node = 0x7ff1, .core = 2 };

static void chan_release(void *chan)
{
	htm_chan_deconfigure(chan);
	htm_chan_destroy(chan);
}

static struct htm_chan *new_chan(struct kunit *test)
{
	struct htm_chan *chan = htm_chan_create(0, &fake_ops);

	int ret;

	KUNIT_ASSERT_NOT_NULL(test, chan);
	ret = kunit_add_action_or_reset(test, chan_release, chan);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return chan;
}

/* The channels' readers, each as one open file of its channel. */
static struct {
	struct htm_chan *chan;
	struct htm_reader rd;
} readers[4];

static void reader_release(void *rd)
{
	htm_reader_release(rd);
}

/* @chan's reader, made on first use and released before the channel. */
static struct htm_reader *rd_of(struct kunit *test, struct htm_chan *chan)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(readers) && readers[i].chan; i++)
		if (readers[i].chan == chan)
			return &readers[i].rd;
	KUNIT_ASSERT_LT(test, i, ARRAY_SIZE(readers));
	readers[i].chan = chan;
	htm_reader_init(&readers[i].rd, chan);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, reader_release,
							&readers[i].rd), 0);
	return &readers[i].rd;
}

/* read() on @chan as its one open file does. */
static ssize_t chan_read(struct kunit *test, struct htm_chan *chan,
			 char __user *ubuf, size_t count, loff_t *pos,
			 unsigned int how)
{
	return htm_chan_read(rd_of(test, chan), ubuf, count, pos, how);
}

/* Configure @chan for @t with @flags and the default mode. */
static int configure(struct htm_chan *chan, const struct htm_target *t,
		     u32 flags)
{
	struct htm_config cfg = {
		.target = *t,
		.flags = flags,
		.mode_mask = -1ULL,
		.mode_value = -1ULL,
	};

	return htm_chan_configure(chan, &cfg);
}

static int chan_test_init(struct kunit *test)
{
	memset(readers, 0, sizeof(readers));
	memset(&fk, 0, sizeof(fk));
	INIT_WORK(&probe_work, probe_fn);
	init_completion(&probe_done);
	fk.log2 = 22;	/* 4 MiB: four chunks of the default bounce buffer */
	return 0;
}

static void chan_state_machine(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), -EBADFD);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), -EBADFD);
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), -EBADFD);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_CONFIGURED);
	KUNIT_EXPECT_EQ(test, configure(chan, &t2, 0), -EBADFD);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), -EBADFD);

	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), -EBADFD);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);	/* idempotent */
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 1);

	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), 0);	/* restart */
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), 0);	/* stops first */
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, fk.state, FK_IDLE);
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), -EBADFD);
}

static void chan_target_held_once(struct kunit *test)
{
	struct htm_chan *a = new_chan(test), *b = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(a, &t1, 0), 0);
	KUNIT_EXPECT_EQ(test, configure(b, &t1, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, b->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_CONFIGURE], 1);
	/* the registry is by target: a perf event owner is refused too */
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test), -EBUSY);

	KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(a), 0);
	KUNIT_EXPECT_EQ(test, configure(b, &t1, 0), 0);
}

/* GLOBAL overlaps every unit: refused before the hypervisor is asked. */
static void chan_target_global_overlaps(struct kunit *test)
{
	struct htm_target global = { .type = HTMTRACE_TYPE_GLOBAL, .node = 0x7ff1 };
	struct htm_target other = { .type = 1, .node = 3, .chip = 2, .core = 9 };

	KUNIT_ASSERT_EQ(test, htm_target_claim(&global, test), 0);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test + 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&other, test + 1), -EBUSY);
	htm_target_release(&global, test);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&other, test), 0);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&global, test + 1), -EBUSY);
	htm_target_release(&other, test);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&global, test + 1), 0);
	htm_target_release(&global, test + 1);
}

/*
 * The nest targets of one chip may be one unit (PowerVM has one nest HTM
 * per chip): a second holder is refused whatever core index it names.
 */
static void chan_target_nest_per_chip(struct kunit *test)
{
	struct htm_target n0 = { .type = HTMTRACE_TYPE_NEST, .node = 3, .chip = 2 };
	struct htm_target n5 = n0, other_chip = n0, core5 = n0;

	n5.core = 5;
	other_chip.chip = 1;
	core5.type = HTMTRACE_TYPE_CORE;
	core5.core = 5;
	KUNIT_ASSERT_EQ(test, htm_target_claim(&n0, test), 0);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&n5, test + 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&n0, test + 1), -EBUSY);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&other_chip, test + 1), 0);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&core5, test + 2), 0);
	htm_target_release(&n0, test);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&n5, test), 0);
	htm_target_release(&n5, test);
	htm_target_release(&other_chip, test + 1);
	htm_target_release(&core5, test + 2);
}

/* A failed CONFIGURE leaves the channel idle and the target free. */
static void chan_configure_error_unwinds(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	fk.fail_op = HTM_OP_CONFIGURE;
	fk.fail_rc = H_HARDWARE;
	KUNIT_EXPECT_EQ(test, configure(chan, &t1, 0), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test), 0);
	htm_target_release(&t1, test);

	fk.fail_rc = H_RESOURCE;
	KUNIT_EXPECT_EQ(test, configure(chan, &t1, 0), -ENOBUFS);
	fk.fail_op = 0;
	KUNIT_EXPECT_EQ(test, configure(chan, &t1, 0), 0);
}

/* A failed DECONFIGURE keeps the channel configured and its target held. */
static void chan_deconfigure_error_keeps(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	fk.fail_op = HTM_OP_DECONFIGURE;
	fk.fail_rc = H_STATE;
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_CONFIGURED);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test), -EBUSY);
	fk.fail_op = 0;
}

/* Read [pos, pos + len) with reads of @step; check bytes and positions. */
static void read_and_check(struct kunit *test, struct htm_chan *chan,
			   loff_t pos, size_t len, size_t step)
{
	char __user *ubuf = user_buf(test, step);
	u8 *kbuf = kunit_kmalloc(test, step, GFP_KERNEL);
	size_t done = 0, i;

	KUNIT_ASSERT_NOT_NULL(test, kbuf);
	while (done < len) {
		loff_t before = pos;
		ssize_t n = chan_read(test, chan, ubuf, min(step, len - done),
					  &pos, HTM_READ_MAY_STOP);

		KUNIT_ASSERT_GT(test, n, 0);
		KUNIT_ASSERT_EQ(test, pos, before + n);
		KUNIT_ASSERT_EQ(test, copy_from_user(kbuf, ubuf, n), 0);
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ_MSG(test, kbuf[i], fake_byte(before + i),
					    "offset %lld", before + i);
		done += n;
	}
}

static struct htm_chan *stopped_chan(struct kunit *test, u32 flags)
{
	struct htm_chan *chan = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, flags), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
	return chan;
}

static void chan_read_unaligned(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	u64 size = 1ULL << fk.log2;
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos;

	read_and_check(test, chan, 0, 3000, 1000);
	read_and_check(test, chan, 1, 5000, 7);
	/* across the boundary of two chunks, in one call and in several */
	read_and_check(test, chan, htm_bounce_size - 100, 300, 300);
	read_and_check(test, chan, htm_bounce_size - 1000, 4000, 333);
	read_and_check(test, chan, size - 129, 129, 4096);

	pos = size;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 10, &pos, HTM_READ_MAY_STOP), 0);
	KUNIT_EXPECT_EQ(test, pos, size);
	pos = size + 12345;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 10, &pos, HTM_READ_MAY_STOP), 0);
	KUNIT_EXPECT_EQ(test, pos, size + 12345);
	pos = -1;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 10, &pos, HTM_READ_MAY_STOP),
			-EINVAL);
}

/* A trace smaller than the bounce buffer: one chunk, then EOF. */
static void chan_read_small_buffer(struct kunit *test)
{
	struct htm_chan *chan;
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos;

	fk.log2 = 12;
	chan = stopped_chan(test, 0);
	read_and_check(test, chan, 0, 4096, 1000);
	pos = 4096;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos, HTM_READ_MAY_STOP),
			0);
	KUNIT_EXPECT_EQ(test, pos, 4096);
	pos = 4000;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos, HTM_READ_MAY_STOP),
			96);
	/*
	 * One DUMP_DATA, of a whole page however small the buffer; the end
	 * STATUS gave needs no hcall to find.
	 */
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 1);
	KUNIT_EXPECT_EQ(test, fk.unaligned, 0);
}

/*
 * A sequential read costs one DUMP_DATA per chunk, each of whole pages at a
 * page-aligned address, and none for the end STATUS gave.
 */
static void chan_read_one_hcall_per_chunk(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	u64 size = 1ULL << fk.log2;
	char __user *ubuf = user_buf(test, 65536);
	loff_t pos = 0;
	ssize_t n;

	do {
		n = chan_read(test, chan, ubuf, 65536, &pos, HTM_READ_MAY_STOP);
	} while (n > 0);
	KUNIT_EXPECT_EQ(test, n, 0);
	KUNIT_EXPECT_EQ(test, pos, size);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA],
			size / htm_bounce_size);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 1);
	KUNIT_EXPECT_EQ(test, fk.unaligned, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&chan->bytes_dumped), size);
}

/* The hypervisor refuses long transfers: the engine halves its chunk. */
/*
 * A length the hypervisor refuses, whichever parameter it names for it
 * (the length, the destination it spans, or none): halved until taken, and
 * remembered for the target: its next dump, on any channel, starts there.
 */
static void chan_read_shrinks_transfer(struct kunit *test)
{
	static const long rcs[] = { H_P5, H_P4, H_PARAMETER };
	const struct htm_target tx[] = {
		{ .type = 2, .node = 0x7ff2, .core = 1 },
		{ .type = 2, .node = 0x7ff2, .core = 2 },
		{ .type = 2, .node = 0x7ff2, .core = 3 },
	};
	struct htm_chan *first = new_chan(test), *next = new_chan(test);
	struct htm_chan *chan;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rcs); i++) {
		chan = first;
		KUNIT_ASSERT_EQ(test, configure(chan, &tx[i], 0), 0);
		KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
		KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
		fk.max_xfer = htm_bounce_size / 4;
		fk.xfer_rc = rcs[i];
		rd_of(test, chan)->gen = 0;	/* as lseek() unbinds it */
		read_and_check(test, chan, 0, 1ULL << fk.log2, 65536);
		KUNIT_EXPECT_EQ(test, chan->max_xfer, htm_bounce_size / 4);
		/* refused once at the full size and once at half of it */
		KUNIT_EXPECT_EQ(test, chan->stats.errors[htm_hv_rc_slot(rcs[i])],
				2);
		KUNIT_EXPECT_EQ(test, htm_target_xfer(&tx[i]),
				htm_bounce_size / 4);
		KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);

		/* the next dump of the target asks what worked at once */
		chan = next;
		KUNIT_ASSERT_EQ(test, configure(chan, &tx[i], 0), 0);
		KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
		KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
		rd_of(test, chan)->gen = 0;
		read_and_check(test, chan, 0, 1ULL << fk.log2, 65536);
		KUNIT_EXPECT_EQ(test, chan->stats.errors[htm_hv_rc_slot(rcs[i])],
				0);
		KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	}
}

/* A caller of the fake hypervisor for target t1, as the PMU's (atomic). */
static struct htm_caller atomic_caller(struct htm_hv_stats *stats)
{
	return (struct htm_caller){
		.hv = &fake_ops,
		.stats = stats,
		.target = &t1,
		.policy = &htm_hv_atomic_policy,
	};
}

/*
 * The PMU's dump: a chunk counted from the position itself (base), bounded
 * by the end wanted, not by a buffer size; H_P5 halves max_xfer until the
 * request fits, and the chunk still starts at the position.
 */
static void dump_chunk_from_base(struct kunit *test)
{
	struct htm_hv_stats stats = {};
	struct htm_caller c = atomic_caller(&stats);
	void *buf = (void *)__get_free_pages(GFP_KERNEL, 3);
	u64 pos = 3 * PAGE_SIZE;
	struct htm_chunk ck = {
		.buf = buf,
		.base = pos,
		.end = pos + 5 * PAGE_SIZE + 100,
	};
	size_t max_xfer = 16 * PAGE_SIZE, i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fk.state = FK_STOPPED;
	fk.log2 = 20;
	fk.max_xfer = 2 * PAGE_SIZE;
	memset(buf, 0xa5, 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, htm_dump_chunk(&c, &ck, pos, &max_xfer), 0);
	KUNIT_EXPECT_EQ(test, ck.start, pos);
	KUNIT_EXPECT_EQ(test, ck.len, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, max_xfer, 2 * PAGE_SIZE);
	/* asked 6 pages (the end, rounded up), then 6, 4 and 2 */
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 4);
	KUNIT_EXPECT_EQ(test, stats.errors[htm_hv_rc_slot(H_P5)], 3);
	for (i = 0; i < ck.len; i++)
		if (((u8 *)buf)[i] != fake_byte(pos + i))
			break;
	KUNIT_EXPECT_EQ(test, i, ck.len);
	KUNIT_EXPECT_EQ(test, fk.unaligned, 0);

	/* the last part: less than a page of trace, one whole page asked */
	memset(buf, 0xa5, 8 * PAGE_SIZE);
	ck.end = pos + 100;
	KUNIT_EXPECT_EQ(test, htm_dump_chunk(&c, &ck, pos, &max_xfer), 0);
	KUNIT_EXPECT_EQ(test, ck.len, 100);
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[PAGE_SIZE - 1],
			fake_byte(pos + PAGE_SIZE - 1));
	KUNIT_EXPECT_EQ(test, ((u8 *)buf)[PAGE_SIZE], 0xa5);
	/* nothing wanted: nothing asked */
	KUNIT_EXPECT_EQ(test, htm_dump_chunk(&c, &ck, pos + 100, &max_xfer),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 5);
	free_pages((unsigned long)buf, 3);
}

/*
 * No end known (STATUS gave no size): one page per DUMP_DATA, as htmdump.c
 * asks, so that no request reaches past a buffer the driver cannot size
 * (the hypervisor may answer it as success with only the part inside
 * written, or H_NOT_AVAILABLE for the whole of it).
 */
static void dump_chunk_unknown_end(struct kunit *test)
{
	struct htm_hv_stats stats = {};
	struct htm_caller c = atomic_caller(&stats);
	void *buf = (void *)__get_free_pages(GFP_KERNEL, 3);
	struct htm_chunk ck = { .buf = buf, .cap = 8 * PAGE_SIZE };
	size_t max_xfer = 16 * PAGE_SIZE;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fk.state = FK_STOPPED;
	fk.log2 = PAGE_SHIFT + 1;	/* two pages */
	KUNIT_EXPECT_EQ(test, htm_dump_chunk(&c, &ck, PAGE_SIZE + 128,
					     &max_xfer), 0);
	KUNIT_EXPECT_EQ(test, ck.start, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ck.len, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, max_xfer, 16 * PAGE_SIZE);
	/* the page past the end: the hypervisor's end, nothing spanned it */
	KUNIT_EXPECT_EQ(test, htm_dump_chunk(&c, &ck, 2 * PAGE_SIZE,
					     &max_xfer), -ENODATA);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 2);
	free_pages((unsigned long)buf, 3);
}

/* A failure mid-dump is an error, never EOF, and the position stays. */
static void chan_read_error_midway(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;

	fk.fail_op = HTM_OP_DUMP_DATA;
	fk.fail_after = 1;
	fk.fail_rc = H_HARDWARE;
	read_and_check(test, chan, 0, htm_bounce_size, PAGE_SIZE);
	pos = htm_bounce_size;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos, HTM_READ_MAY_STOP),
			-EIO);
	KUNIT_EXPECT_EQ(test, pos, htm_bounce_size);
	fk.fail_rc = H_P2;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos, HTM_READ_MAY_STOP),
			-EINVAL);
	fk.fail_op = 0;
	read_and_check(test, chan, pos, PAGE_SIZE, PAGE_SIZE);
}

static void chan_read_states(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;

	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos, HTM_READ_MAY_STOP),
			-ENODATA);
	KUNIT_ASSERT_EQ(test, configure(chan, &t1, HTMTRACE_CFG_WAIT), 0);
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos, HTM_READ_MAY_STOP),
			-ENODATA);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	/* configured to wait: a non-blocking read does not stop the trace */
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_NONBLOCK | HTM_READ_MAY_STOP),
			-EAGAIN);
	KUNIT_EXPECT_TRUE(test, !htm_chan_poll_mask(rd_of(test, chan)));
	KUNIT_EXPECT_EQ(test, fk.state, FK_TRACING);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	KUNIT_EXPECT_TRUE(test, htm_chan_poll_mask(rd_of(test, chan)) ==
				(EPOLLIN | EPOLLRDNORM));
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_NONBLOCK | HTM_READ_MAY_STOP), 1);
	KUNIT_EXPECT_EQ(test, pos, 1);
}

/* A reader that may not stop the trace gets -EPERM, and it goes on. */
static void chan_read_stop_needs_permission(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;

	KUNIT_EXPECT_TRUE(test,
			  htm_chan_poll_mask(rd_of(test, chan)) == (EPOLLERR | EPOLLHUP));
	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_EXPECT_TRUE(test,
			  htm_chan_poll_mask(rd_of(test, chan)) == (EPOLLERR | EPOLLHUP));
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos, 0), -EPERM);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 0);
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	/* a stopped trace needs no permission to be read */
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos, 0), 1);
}

/* Without the wait flag, reading a tracing channel stops it. */
static void chan_read_stops_trace(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_TRUE(test, htm_chan_poll_mask(rd_of(test, chan)) ==
				(EPOLLIN | EPOLLRDNORM));
	read_and_check(test, chan, 0, 256, 256);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 1);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
}

/*
 * STOP answered H_STATE (a no-wrap trace that stopped itself, under the
 * alternative where PowerVM says so): an error, and the channel is not
 * marked stopped. As htm-perf.c ("cannot dump a live buffer"), no
 * DUMP_DATA follows: a read sends STOP again and fails -EIO while it is
 * refused, a reader configured to wait fails -EIO; a STOP that succeeds
 * later makes the trace readable.
 */
static void chan_stop_refused_self_stopped(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	struct htmtrace_status st;
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, HTMTRACE_CFG_NOWRAP), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	fk.state = FK_STOPPED;
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, st.hv_flags, HTMTRACE_STATUS_STOP_REFUSED);
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_MAY_STOP), -EIO);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 2);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, pos, 0);
	/* the hypervisor takes a STOP again: the trace is readable */
	fk.state = FK_TRACING;
	read_and_check(test, chan, 0, 1ULL << fk.log2, 1 << 20);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 3);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
	KUNIT_EXPECT_EQ(test, fk.dump_tracing, 0);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.hv_flags, 0);
}

/*
 * STOP answered H_STATE while the trace runs (the hypervisor's alternative
 * stop_running=state, or an injected fault): the read fails -EIO with no
 * DUMP_DATA, a reader configured to wait too, and DECONFIGURE still gives
 * the target back.
 */
static void chan_stop_refused_running(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	struct htm_chan *wchan = new_chan(test);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	fk.fail_op = HTM_OP_STOP;
	fk.fail_rc = H_STATE;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_MAY_STOP), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 0);
	KUNIT_EXPECT_EQ(test, pos, 0);
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, fk.state, FK_IDLE);

	/* configured to wait: the refusal ends the wait, with -EIO */
	fk.fail_op = 0;
	KUNIT_ASSERT_EQ(test, configure(wchan, &t1, HTMTRACE_CFG_WAIT), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(wchan), 0);
	fk.fail_op = HTM_OP_STOP;
	KUNIT_EXPECT_EQ(test, htm_chan_stop(wchan), -EIO);
	KUNIT_EXPECT_EQ(test, chan_read(test, wchan, ubuf, 1, &pos,
					HTM_READ_MAY_STOP), -EIO);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 0);
	fk.fail_op = 0;
}

/*
 * Configured to wait: a tracing channel is never dumped, whatever is asked
 * of it; the read waits (here: -EAGAIN) until the driver stops it.
 */
static void chan_wait_never_dumps_running(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;
	int i;

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, HTMTRACE_CFG_WAIT |
					HTMTRACE_CFG_NOWRAP), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
						HTM_READ_NONBLOCK |
						HTM_READ_MAY_STOP), -EAGAIN);
	/* the hypervisor stops it by itself: the driver does not know */
	fk.state = FK_STOPPED;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_NONBLOCK | HTM_READ_MAY_STOP),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 0);
	fk.state = FK_TRACING;
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, fk.dump_tracing, 0);
}

/* A failed STOP does not strand the channel: DECONFIGURE still frees it. */
static void chan_deconfigure_after_failed_stop(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	fk.fail_op = HTM_OP_STOP;
	fk.fail_rc = H_HARDWARE;
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DECONFIGURE], 1);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test), 0);
	htm_target_release(&t1, test);
	fk.fail_op = 0;
}

/* H_PARTIAL is success on every op (htmdump.c, htm-perf.c). */
static void chan_partial_is_success(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);

	fk.fail_rc = H_PARTIAL;
	fk.fail_op = HTM_OP_CONFIGURE;
	KUNIT_EXPECT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_CONFIGURED);
	fk.state = FK_CONFIGURED;
	fk.fail_op = HTM_OP_START;
	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	fk.state = FK_TRACING;
	fk.fail_op = HTM_OP_STOP;
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
	fk.state = FK_STOPPED;
	fk.fail_op = HTM_OP_DECONFIGURE;
	KUNIT_EXPECT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	fk.fail_op = 0;
}

/*
 * H_PARTIAL on DUMP_DATA with fewer bytes written than asked: the bytes the
 * hypervisor wrote, then zeros; never what the bounce buffer held before.
 */
static void chan_read_partial_zero_filled(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	size_t chunk = htm_bounce_size, i;
	char __user *ubuf = user_buf(test, chunk);
	u8 *kbuf = kunit_kmalloc(test, chunk, GFP_KERNEL);
	loff_t pos;

	KUNIT_ASSERT_NOT_NULL(test, kbuf);
	/* what an earlier user of the pages might have left there */
	pos = 0;
	KUNIT_ASSERT_EQ(test, chan_read(test, chan, ubuf, 1, &pos, 0), 1);
	memset(rd_of(test, chan)->dump.buf, 0xa5, rd_of(test, chan)->dump.size);
	rd_of(test, chan)->dump.len = 0;
	fk.short_xfer = 4096;
	for (pos = 0; pos < 2 * chunk; ) {
		loff_t start = pos;
		ssize_t n = chan_read(test, chan, ubuf, chunk, &pos, HTM_READ_MAY_STOP);

		KUNIT_ASSERT_EQ(test, n, (ssize_t)chunk);
		KUNIT_ASSERT_EQ(test, copy_from_user(kbuf, ubuf, n), 0);
		for (i = 0; i < chunk; i++)
			KUNIT_ASSERT_EQ_MSG(test, kbuf[i],
					    i < 4096 ? fake_byte(start + i) : 0,
					    "offset %lld", start + i);
	}
}

/*
 * H_NOT_AVAILABLE on DUMP_DATA is the end of the data at any offset, the
 * buffer size notwithstanding (htmdump.c: "past end of file"): read()
 * returns 0 there, and STATUS says where the data ended.
 */
static void chan_read_not_available_is_end(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, HTMTRACE_CFG_NOWRAP);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	struct htmtrace_status st;
	loff_t pos = 0;

	fk.data_end = htm_bounce_size;
	read_and_check(test, chan, 0, htm_bounce_size, 1 << 20);
	pos = htm_bounce_size;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos,
					HTM_READ_MAY_STOP), 0);
	KUNIT_EXPECT_EQ(test, pos, htm_bounce_size);
	/* once known, the end costs no hcall */
	pos = 3 * htm_bounce_size;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos,
					HTM_READ_MAY_STOP), 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 2);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.hv_flags, HTMTRACE_STATUS_DATA_END);
	KUNIT_EXPECT_EQ(test, st.data_size, htm_bounce_size);
	KUNIT_EXPECT_EQ(test, st.buffer_size, 1ULL << fk.log2);
	KUNIT_EXPECT_EQ(test, htm_chan_size(chan), htm_bounce_size);

	/* at offset 0: an empty trace, not an error; a new START forgets */
	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
	WRITE_ONCE(rd_of(test, chan)->gen, 0);
	fk.fail_op = HTM_OP_DUMP_DATA;
	fk.fail_rc = H_NOT_AVAILABLE;
	pos = 0;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos,
					HTM_READ_MAY_STOP), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.hv_flags, HTMTRACE_STATUS_DATA_END);
	KUNIT_EXPECT_EQ(test, st.data_size, 0);
	fk.fail_op = 0;
}

/*
 * The dump does not depend on STATUS: a STATUS that fails, or gives no
 * usable size (llat, global, an odd byte), leaves the size unknown, and the
 * read goes on until the hypervisor says the data ends, a page a request
 * (no request may reach past an end it cannot know).
 */
static void chan_read_without_status(struct kunit *test)
{
	static const long rcs[] = { H_HARDWARE, H_NOT_AVAILABLE, H_STATE };
	u64 size = 1ULL << fk.log2;
	struct htmtrace_status st;
	struct htm_chan *chan;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rcs); i++) {
		memset(fk.calls, 0, sizeof(fk.calls));
		chan = stopped_chan(test, 0);
		fk.fail_op = HTM_OP_STATUS;
		fk.fail_rc = rcs[i];
		read_and_check(test, chan, 0, size, 1 << 20);
		KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA],
				size / PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
		KUNIT_EXPECT_EQ(test, st.buffer_size, 0);
		KUNIT_EXPECT_EQ(test, st.status_error, htm_hv_errno(rcs[i]) ==
				-ENODATA ? -ENODATA : -EIO);
		/* neither a size nor an end reached yet: SEEK_END cannot */
		KUNIT_EXPECT_EQ(test, htm_chan_size(chan), -ENODATA);
		fk.fail_op = 0;
		KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	}
}

/* A size byte that is no file size, or smaller than a record: unknown. */
static void chan_status_log2_checked(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	struct htmtrace_status st;
	loff_t pos = 0;

	fk.log2 = 63;
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.buffer_size, 0);
	KUNIT_EXPECT_EQ(test, st.status_error, 0);
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, 1, &pos,
					HTM_READ_MAY_STOP), 1);
	fk.log2 = 6;
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.buffer_size, 0);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(chan, &t1, 63), -EINVAL);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(chan, &t1, 0), -EINVAL);
}

/*
 * An information query's iteration ends at an iterator of 0 (htm-perf.c)
 * or -1 (htmdump.c), or at H_NOT_AVAILABLE after a first block (htm-perf.c),
 * or H_P6 or H_PARAMETER after a first block (the iterator past the table:
 * the blocks before are kept, as htmdump.c's reader has them); H_PARTIAL
 * blocks are kept (both). CAPABILITIES is asked for 0x80 bytes.
 */
static void chan_info_iteration_ends(struct kunit *test)
{
	/* 1, 2, 3: the call after the last block answers na[] */
	static const u64 ends[] = { 0, U64_MAX, 1, 2, 3 };
	static const long na[] = { 0, 0, H_NOT_AVAILABLE, H_P6, H_PARAMETER };
	static const long rcs[] = { H_SUCCESS, H_PARTIAL };
	const size_t block = HTM_BLOCK_HDR_SIZE + HTM_SYSPROC_ENTRY_SIZE;
	const unsigned int op = HTM_OP_DUMP_SYSPROC_CONF;
	struct htm_chan *chan = new_chan(test);
	unsigned int e, r, b;
	size_t len;
	u8 *data;

	fk.info_blocks = 3;
	for (e = 0; e < ARRAY_SIZE(ends); e++) {
		for (r = 0; r < ARRAY_SIZE(rcs); r++) {
			fk.info_na = na[e];
			fk.info_end = ends[e];
			fk.info_rc = rcs[r];
			KUNIT_ASSERT_EQ(test, htm_chan_info(chan, op, &t1,
							    (void **)&data,
							    &len), 0);
			KUNIT_EXPECT_EQ(test, len, 3 * block);
			for (b = 0; b < 3; b++)
				KUNIT_EXPECT_EQ(test, data[b * block +
							   HTM_BLOCK_HDR_SIZE],
						b);
			kvfree(data);
		}
	}
	/* H_NOT_AVAILABLE for the first block: no such data */
	fk.info_blocks = 0;
	fk.info_na = H_NOT_AVAILABLE;
	KUNIT_EXPECT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), -ENODATA);
	/* H_P6 or H_PARAMETER for the first block: an error, no end */
	fk.info_na = H_P6;
	KUNIT_EXPECT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), -EINVAL);
	fk.info_na = H_PARAMETER;
	KUNIT_EXPECT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), -EINVAL);
	KUNIT_ASSERT_EQ(test, htm_chan_info(chan, HTM_OP_CAPABILITIES, &t1,
					    (void **)&data, &len), 0);
	KUNIT_EXPECT_EQ(test, len, HTM_CAPS_SIZE);
	KUNIT_EXPECT_EQ(test, fk.caps_len, HTM_CAPS_SIZE);
	kvfree(data);
}

struct plan_case {
	u64 pos;
	size_t xfer;
	u64 hw_size;
	u64 start;
	size_t len;
	size_t serve;
};

static const struct plan_case plan_cases[] = {
	{ 0, 1 << 20, 4 << 20, 0, 1 << 20, 1 << 20 },
	{ 1, 1 << 20, 4 << 20, 0, 1 << 20, 1 << 20 },
	{ (1 << 20) - 1, 1 << 20, 4 << 20, 0, 1 << 20, 1 << 20 },
	{ 1 << 20, 1 << 20, 4 << 20, 1 << 20, 1 << 20, 1 << 20 },
	{ (3 << 20) + 5, 1 << 20, (3 << 20) + 65536, 3 << 20, 65536, 65536 },
	{ 70000, 65536, 1 << 20, 65536, 65536, 65536 },
	{ 4 << 20, 1 << 20, 4 << 20, 4 << 20, 1 << 20, 0 },	/* past the end */
	{ 12345, 1 << 20, 0, 0, 1 << 20, 1 << 20 },		/* size unknown */
	/* a buffer smaller than a page: a whole page is asked for */
	{ 0, 1 << 20, 2048, 0, PAGE_SIZE, 2048 },
	{ 0, 1 << 20, 4096, 0, PAGE_SIZE, 4096 },
	{ 4096, 1 << 20, 4096, 0, 1 << 20, 0 },			/* its end */
	{ 70000, 1 << 20, 65536, 0, 1 << 20, 0 },
};

static void plan_case_desc(const struct plan_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "pos %llu xfer %zu size %llu",
		 c->pos, c->xfer, c->hw_size);
}

KUNIT_ARRAY_PARAM(plan, plan_cases, plan_case_desc);

static void dump_plan(struct kunit *test)
{
	const struct plan_case *c = test->param_value;
	size_t len, serve;
	u64 start;

	serve = htm_dump_plan(c->pos, c->xfer, c->hw_size, &start, &len);
	KUNIT_EXPECT_EQ(test, start, c->start);
	KUNIT_EXPECT_EQ(test, len, c->len);
	KUNIT_EXPECT_EQ(test, serve, c->serve);
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(len));
}

static void config_checks(struct kunit *test)
{
	struct htmtrace_config ucfg = {
		.target = { .type = HTMTRACE_TYPE_CORE, .node = 1, .chip = 2,
			    .core = 3 },
		.flags = HTMTRACE_CFG_NOWRAP | HTMTRACE_CFG_WAIT,
	};
	struct htm_config cfg;
	struct htm_target t;

	KUNIT_ASSERT_EQ(test, htm_config_check(&ucfg, &cfg), 0);
	KUNIT_EXPECT_EQ(test, cfg.target.type, 2);
	KUNIT_EXPECT_EQ(test, cfg.target.node, 1);
	KUNIT_EXPECT_EQ(test, cfg.target.chip, 2);
	KUNIT_EXPECT_EQ(test, cfg.target.core, 3);
	KUNIT_EXPECT_EQ(test, cfg.flags, ucfg.flags);
	/* no mode given, no-wrap: all ones twice, as htmdump.c passes */
	KUNIT_EXPECT_EQ(test, cfg.mode_mask, -1ULL);
	KUNIT_EXPECT_EQ(test, cfg.mode_value, -1ULL);
	/* ... and zeros without no-wrap */
	ucfg.flags = HTMTRACE_CFG_WAIT;
	KUNIT_ASSERT_EQ(test, htm_config_check(&ucfg, &cfg), 0);
	KUNIT_EXPECT_EQ(test, cfg.mode_mask, 0);
	KUNIT_EXPECT_EQ(test, cfg.mode_value, 0);
	ucfg.flags = HTMTRACE_CFG_NOWRAP | HTMTRACE_CFG_WAIT;

	ucfg.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.reserved[1] = 0;
	ucfg.reserved0 = 1;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.reserved0 = 0;
	ucfg.flags = 1U << 7;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.flags = 0;
	/* a mode without the flag that says to use it */
	ucfg.mode_value = 5;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.flags = HTMTRACE_CFG_MODE;
	ucfg.mode_mask = 0xf0;
	KUNIT_ASSERT_EQ(test, htm_config_check(&ucfg, &cfg), 0);
	KUNIT_EXPECT_EQ(test, cfg.mode_mask, 0xf0);
	KUNIT_EXPECT_EQ(test, cfg.mode_value, 5);
	ucfg.flags = 0;
	ucfg.mode_mask = 0;
	ucfg.mode_value = 0;

	/* only hardware targets, and their reserved word must be zero */
	ucfg.target.kind = 1;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.kind = HTMTRACE_TARGET_HW;
	ucfg.target.reserved = 1;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.reserved = 0;

	ucfg.target.type = 0;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.type = 4;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.type = HTMTRACE_TYPE_NEST;
	ucfg.target.node = HTMTRACE_INDEX_MAX + 1;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.node = HTMTRACE_INDEX_MAX;
	ucfg.target.core = 0x10000;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), -EINVAL);
	ucfg.target.core = HTMTRACE_INDEX_MAX;
	KUNIT_EXPECT_EQ(test, htm_config_check(&ucfg, &cfg), 0);

	/* information queries take any 8-bit type, 0 included */
	ucfg.target.type = 0;
	KUNIT_EXPECT_EQ(test, htm_target_from_user(&ucfg.target, true, &t), 0);
	ucfg.target.type = 0x100;
	KUNIT_EXPECT_EQ(test, htm_target_from_user(&ucfg.target, true, &t),
			-EINVAL);
}

/* CONFIGURE passes the user's mode, or all ones twice without one. */
static void chan_configure_mode(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	struct htm_config cfg = {
		.target = t1,
		.flags = HTMTRACE_CFG_MODE,
		.mode_mask = 0x00ff00ff00ff00ffULL,
		.mode_value = 0x1234,
	};

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_EXPECT_EQ(test, fk.mode[0], -1UL);
	KUNIT_EXPECT_EQ(test, fk.mode[1], -1UL);
	KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_configure(chan, &cfg), 0);
	KUNIT_EXPECT_EQ(test, fk.mode[0], 0x00ff00ff00ff00ffUL);
	KUNIT_EXPECT_EQ(test, fk.mode[1], 0x1234UL);
}

/*
 * A file reads one trace: after a START or a DECONFIGURE from anywhere,
 * read() fails with -ESTALE and poll() says so, until the file is seeked
 * (htm_cdev_llseek() clears the binding as done here).
 */
static void chan_read_stale_generation(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	struct htm_reader *rd = rd_of(test, chan);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	struct htmtrace_status st;
	u64 gen;
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	gen = st.generation;
	KUNIT_EXPECT_EQ(test, htm_chan_read(rd, ubuf, 100, &pos, 0), 100);
	KUNIT_EXPECT_EQ(test, rd->gen, gen);
	/* a redundant STOP keeps the trace */
	KUNIT_EXPECT_EQ(test, htm_chan_stop(chan), 0);
	KUNIT_EXPECT_EQ(test, htm_chan_read(rd, ubuf, 100, &pos, 0), 100);

	KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_NE(test, st.generation, gen);
	KUNIT_EXPECT_TRUE(test, htm_chan_poll_mask(rd) == (EPOLLIN | EPOLLERR));
	KUNIT_EXPECT_EQ(test, htm_chan_read(rd, ubuf, 100, &pos,
					    HTM_READ_MAY_STOP), -ESTALE);
	/* the new trace was not stopped by the failed read */
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, pos, 200);

	/* after a seek, the file reads the trace that is there */
	WRITE_ONCE(rd->gen, 0);
	read_and_check(test, chan, 0, 300, 300);
	KUNIT_EXPECT_EQ(test, rd->gen, st.generation);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STOP], 2);

	KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_EXPECT_TRUE(test, htm_chan_poll_mask(rd) == (EPOLLIN | EPOLLERR));
	pos = 0;
	KUNIT_EXPECT_EQ(test, htm_chan_read(rd, ubuf, 1, &pos, 0), -ESTALE);
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	KUNIT_EXPECT_NE(test, st.generation, rd->gen);
	WRITE_ONCE(rd->gen, 0);
	KUNIT_EXPECT_EQ(test, htm_chan_read(rd, ubuf, 1, &pos, 0), -ENODATA);
	KUNIT_EXPECT_TRUE(test, htm_chan_poll_mask(rd) == (EPOLLERR | EPOLLHUP));
}

/*
 * Two files reading at different offsets each keep their own chunk: taking
 * turns costs one DUMP_DATA per chunk each, not one per read.
 */
static void chan_readers_keep_own_chunks(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	struct htm_reader *other = kunit_kzalloc(test, sizeof(*other),
						 GFP_KERNEL);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t a = 0, b = 2 * htm_bounce_size;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, other);
	htm_reader_init(other, chan);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, reader_release,
							other), 0);
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE,
						&a, 0),
				(ssize_t)PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, htm_chan_read(other, ubuf, PAGE_SIZE, &b,
						    0), (ssize_t)PAGE_SIZE);
	}
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&chan->bytes_dumped),
			32 * PAGE_SIZE);
}

/*
 * A reader waiting out a long-busy DUMP_DATA lets the channel's lock go:
 * another file gets it before the reader's next call, and the read then
 * completes; if the trace is restarted meanwhile, the read fails -ESTALE
 * instead of splicing the new trace in.
 */
static void chan_read_long_busy_lets_go(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);

	fk.busy_dumps = 1;
	fk.probe_chan = chan;
	read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);
	flush_work(&probe_work);
	KUNIT_EXPECT_EQ(test, fk.probe_dumps, 1);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 2);
	KUNIT_EXPECT_EQ(test, chan->stats.long_busy_sleeps, 1);
}

static void chan_read_long_busy_restarted(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = 0;

	fk.busy_dumps = 1;
	fk.probe_chan = chan;
	fk.probe_restart = true;
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos, 0),
			-ESTALE);
	flush_work(&probe_work);
	KUNIT_EXPECT_EQ(test, fk.probe_ret, 0);
	KUNIT_EXPECT_EQ(test, fk.probe_dumps, 1);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA], 1);
	KUNIT_EXPECT_EQ(test, pos, 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
}

/*
 * Every wait a read makes for the hypervisor lets the channel's lock go:
 * the STOP it sends a tracing channel, as well as the DUMP_DATA (above).
 * Another file takes the lock while the read sleeps, before any DUMP_DATA.
 * (The STATUS it asks for the size is not waited for: see
 * chan_status_busy_never_holds.)
 */
static void chan_read_waits_let_go(struct kunit *test)
{
	static const unsigned int ops[] = { HTM_OP_STOP };
	struct htm_chan *chan;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		memset(fk.calls, 0, sizeof(fk.calls));
		chan = new_chan(test);
		KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
		KUNIT_ASSERT_EQ(test, htm_chan_start(chan), 0);
		if (ops[i] == HTM_OP_STATUS)
			KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
		fk.busy_op = ops[i];
		fk.busy_dumps = 1;
		fk.probe_chan = chan;
		fk.probe_dumps = U32_MAX;
		read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);
		flush_work(&probe_work);
		KUNIT_EXPECT_EQ_MSG(test, fk.probe_dumps, 0, "op %u", ops[i]);
		KUNIT_EXPECT_EQ(test, chan->stats.long_busy_sleeps, 1);
		KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
		KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	}
}

/*
 * An iteration the hypervisor never ends is bounded by calls, not only by
 * bytes; a block of no entry ends it, whatever its iterator says.
 */
static void chan_info_bounded(struct kunit *test)
{
	const unsigned int op = HTM_OP_DUMP_SYSPROC_CONF;
	struct htm_chan *chan = new_chan(test);
	size_t len;
	u8 *data;

	fk.info_blocks = 100000;
	KUNIT_EXPECT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), -EIO);
	KUNIT_EXPECT_EQ(test, fk.calls[op], 4096);

	fk.calls[op] = 0;
	fk.info_empty = true;
	KUNIT_ASSERT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), 0);
	KUNIT_EXPECT_EQ(test, fk.calls[op], 1);
	KUNIT_EXPECT_EQ(test, len, HTM_BLOCK_HDR_SIZE);
	kvfree(data);
}

/* SETUP of a target a channel or a perf event holds: -EBUSY, not asked. */
static void chan_setup_claimed(struct kunit *test)
{
	struct htm_chan *chan = new_chan(test);
	struct htm_chan *other = new_chan(test);

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(other, &t1, 20), -EBUSY);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(chan, &t1, 20), -EBUSY);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_SETUP], 0);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(other, &t2, 20), 0);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&t2, test), 0);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(other, &t2, 20), -EBUSY);
	htm_target_release(&t2, test);
	KUNIT_ASSERT_EQ(test, htm_chan_deconfigure(chan), 0);
	KUNIT_EXPECT_EQ(test, htm_chan_setup(other, &t1, 20), 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_SETUP], 2);
	/* SETUP holds nothing after it */
	KUNIT_EXPECT_EQ(test, configure(other, &t1, 0), 0);
}

/*
 * The size query a read makes is optional (public callers never make it):
 * a long-busy answer is not waited for, the size stays unknown and the
 * dump goes on to the end the hypervisor gives. The STATUS ioctl waits,
 * without the channel's lock: another file takes it meanwhile.
 */
static void chan_status_busy_never_holds(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	struct htmtrace_status st;

	fk.busy_op = HTM_OP_STATUS;
	fk.busy_dumps = 2;
	read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 1);
	KUNIT_EXPECT_EQ(test, chan->stats.long_busy_sleeps, 0);
	KUNIT_EXPECT_EQ(test, chan->status_err, -EBUSY);
	KUNIT_EXPECT_EQ(test, fk.busy_dumps, 1);

	fk.probe_chan = chan;
	fk.probe_status = U32_MAX;
	KUNIT_ASSERT_EQ(test, htm_chan_status(chan, &st, NULL), 0);
	flush_work(&probe_work);
	KUNIT_EXPECT_EQ(test, fk.probe_status, 2);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 3);
	KUNIT_EXPECT_EQ(test, st.state, HTMTRACE_STATE_STOPPED);
	KUNIT_EXPECT_EQ(test, st.buffer_size, 1ULL << fk.log2);
	KUNIT_EXPECT_EQ(test, st.status_error, 0);
}

/*
 * A new trace on a stopped channel is configured again first, as htm-perf.c
 * does for every trace: START of a stopped trace, which no public caller
 * asks and PowerVM may refuse (here: H_STATE), is never asked. A CONFIGURE
 * that fails then leaves the channel idle, its target free.
 */
static void chan_restart_reconfigures(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	u64 gen = chan->gen;

	fk.start_stopped_rc = H_STATE;
	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DECONFIGURE], 1);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_CONFIGURE], 2);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_START], 2);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_GT(test, chan->gen, gen);
	KUNIT_EXPECT_EQ(test, fk.mode[0], -1UL);
	read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);

	fk.fail_op = HTM_OP_CONFIGURE;
	fk.fail_after = 2;
	fk.fail_rc = H_HARDWARE;
	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), -EIO);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, fk.state, FK_IDLE);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&t1, test), 0);
	htm_target_release(&t1, test);
	fk.fail_op = 0;
}

/*
 * One long-busy answer to the size query a read makes is no answer: the
 * size is asked again at the next chunk, and the dump goes on in whole
 * chunks, not a page per DUMP_DATA for the rest of the trace (the first
 * chunk, fetched while the size was unknown, is one page).
 */
static void chan_read_size_busy_once(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);
	u64 size = 1ULL << fk.log2;
	char __user *ubuf = user_buf(test, PAGE_SIZE);
	loff_t pos = size;

	fk.busy_op = HTM_OP_STATUS;
	fk.busy_dumps = 1;
	read_and_check(test, chan, 0, size, 65536);
	KUNIT_EXPECT_EQ(test, chan_read(test, chan, ubuf, PAGE_SIZE, &pos,
					HTM_READ_MAY_STOP), 0);
	KUNIT_EXPECT_EQ(test, fk.busy_dumps, 0);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 2);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DUMP_DATA],
			1 + size / htm_bounce_size);
	KUNIT_EXPECT_EQ(test, chan->hw_size, size);
	/* the end is known: SEEK_END asks nothing more */
	KUNIT_EXPECT_EQ(test, htm_chan_size(chan), size);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_STATUS], 2);
}

/* Is @t held by another? Asked by claiming it, and given back if not. */
static bool target_held(const struct htm_target *t, const void *owner)
{
	if (htm_target_claim(t, owner))
		return true;
	htm_target_release(t, owner);
	return false;
}

/* START of a stopped channel, with a signal pending: see below. */
static int start_signalled(struct htm_chan *chan)
{
	int ret;

	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	ret = htm_chan_start(chan);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	return ret;
}

/*
 * START of a stopped channel is DECONFIGURE, CONFIGURE, START. A signal
 * during DECONFIGURE's long-busy wait leaves the stopped trace, and the
 * restarted call starts; once DECONFIGURE is done, the CONFIGURE after it
 * waits out the hypervisor whatever signal comes: an interrupted one would
 * leave the channel idle, and the restarted call would fail -EBADFD.
 */
static void chan_restart_signal(struct kunit *test)
{
	struct htm_chan *chan = stopped_chan(test, 0);

	fk.busy_op = HTM_OP_CONFIGURE;
	fk.busy_dumps = 1;
	KUNIT_EXPECT_EQ(test, start_signalled(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, fk.state, FK_TRACING);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_CONFIGURE], 3);
	KUNIT_EXPECT_EQ(test, fk.busy_dumps, 0);
	KUNIT_EXPECT_EQ(test, chan->stats.long_busy_sleeps, 1);
	KUNIT_EXPECT_TRUE(test, target_held(&t1, test));

	KUNIT_ASSERT_EQ(test, htm_chan_stop(chan), 0);
	fk.busy_op = HTM_OP_DECONFIGURE;
	fk.busy_dumps = 1;
	KUNIT_EXPECT_EQ(test, start_signalled(chan), -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_STOPPED);
	KUNIT_EXPECT_EQ(test, fk.state, FK_STOPPED);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DECONFIGURE], 2);
	KUNIT_EXPECT_TRUE(test, target_held(&t1, test));
	read_and_check(test, chan, 0, PAGE_SIZE, PAGE_SIZE);
	/* the restarted call */
	KUNIT_EXPECT_EQ(test, htm_chan_start(chan), 0);
	KUNIT_EXPECT_EQ(test, chan->state, HTMTRACE_STATE_TRACING);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_DECONFIGURE], 3);
	KUNIT_EXPECT_EQ(test, fk.calls[HTM_OP_CONFIGURE], 4);
}

/*
 * An information walk holds no lock of the channel's while the hypervisor
 * is long busy: another task takes the lock meanwhile, as debugfs config
 * and counters do, before the walk's next call; the walk's calls are
 * counted in the channel's counters at its end.
 */
static void chan_info_lets_go(struct kunit *test)
{
	const unsigned int op = HTM_OP_DUMP_SYSPROC_CONF;
	struct htm_chan *chan = new_chan(test);
	size_t len;
	u8 *data;

	KUNIT_ASSERT_EQ(test, configure(chan, &t1, 0), 0);
	fk.info_blocks = 3;
	fk.busy_op = op;
	fk.busy_dumps = 1;
	fk.probe_chan = chan;
	fk.probe_sync = true;
	fk.probe_info = U32_MAX;
	KUNIT_ASSERT_EQ(test, htm_chan_info(chan, op, &t1, (void **)&data,
					    &len), 0);
	flush_work(&probe_work);
	KUNIT_EXPECT_EQ(test, fk.probe_info, 1);
	/* the busy answer, then three blocks, the last one's iterator 0 */
	KUNIT_EXPECT_EQ(test, fk.calls[op], 4);
	KUNIT_EXPECT_EQ(test, len,
			3 * (HTM_BLOCK_HDR_SIZE + HTM_SYSPROC_ENTRY_SIZE));
	KUNIT_EXPECT_EQ(test, chan->stats.long_busy_sleeps, 1);
	KUNIT_EXPECT_EQ(test, chan->stats.hcalls, 4 + 1);	/* + CONFIGURE */
	kvfree(data);
}

static struct kunit_case htmtrace_chan_cases[] = {
	KUNIT_CASE(chan_read_long_busy_lets_go),
	KUNIT_CASE(chan_read_long_busy_restarted),
	KUNIT_CASE(chan_state_machine),
	KUNIT_CASE(chan_target_held_once),
	KUNIT_CASE(chan_target_global_overlaps),
	KUNIT_CASE(chan_target_nest_per_chip),
	KUNIT_CASE(chan_configure_error_unwinds),
	KUNIT_CASE(chan_deconfigure_error_keeps),
	KUNIT_CASE(chan_read_unaligned),
	KUNIT_CASE(chan_read_small_buffer),
	KUNIT_CASE(chan_read_one_hcall_per_chunk),
	KUNIT_CASE(chan_read_shrinks_transfer),
	KUNIT_CASE(dump_chunk_from_base),
	KUNIT_CASE(dump_chunk_unknown_end),
	KUNIT_CASE(chan_read_error_midway),
	KUNIT_CASE(chan_read_states),
	KUNIT_CASE(chan_read_stops_trace),
	KUNIT_CASE(chan_read_stop_needs_permission),
	KUNIT_CASE(chan_stop_refused_self_stopped),
	KUNIT_CASE(chan_stop_refused_running),
	KUNIT_CASE(chan_wait_never_dumps_running),
	KUNIT_CASE(chan_deconfigure_after_failed_stop),
	KUNIT_CASE(chan_partial_is_success),
	KUNIT_CASE(chan_read_partial_zero_filled),
	KUNIT_CASE(chan_read_not_available_is_end),
	KUNIT_CASE(chan_read_without_status),
	KUNIT_CASE(chan_status_log2_checked),
	KUNIT_CASE(chan_info_iteration_ends),
	KUNIT_CASE(chan_read_waits_let_go),
	KUNIT_CASE(chan_info_bounded),
	KUNIT_CASE(chan_setup_claimed),
	KUNIT_CASE(chan_status_busy_never_holds),
	KUNIT_CASE(chan_restart_reconfigures),
	KUNIT_CASE(chan_read_size_busy_once),
	KUNIT_CASE(chan_restart_signal),
	KUNIT_CASE(chan_info_lets_go),
	KUNIT_CASE_PARAM(dump_plan, plan_gen_params),
	KUNIT_CASE(config_checks),
	KUNIT_CASE(chan_configure_mode),
	KUNIT_CASE(chan_read_stale_generation),
	KUNIT_CASE(chan_readers_keep_own_chunks),
	{}
};

static struct kunit_suite htmtrace_chan_suite = {
	.name = "htmtrace_chan",
	.init = chan_test_init,
	.test_cases = htmtrace_chan_cases,
};

kunit_test_suite(htmtrace_chan_suite);
