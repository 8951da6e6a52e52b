// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the dispatch trace log engine of htmtrace (ring arithmetic, the
 * adaptive period, the CPUs' rings of records and the reader that takes
 * them in turn, record encoding).
 */
#include <kunit/test.h>
#include <linux/htmtrace.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include <asm/paca.h>
#include <asm/time.h>

#include "htmtrace.h"
#include "dtl_internal.h"
#include "kunit_user.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct span_case {
	u64 last, cur, first, overwritten;
};

static const struct span_case span_cases[] = {
	{ 0, 0, 0, 0 },
	{ 0, 1, 0, 0 },
	{ 0, DTL_READABLE, 0, 0 },
	/* 85 logged: the oldest slot is being reused, entry 0 is gone */
	{ 0, DTL_ENTRIES, 1, 1 },
	{ 10, 200, 200 - DTL_READABLE, 200 - DTL_READABLE - 10 },
	{ 150, 200, 150, 0 },
	{ 200, 200, 200, 0 },
	{ 1ULL << 40, (1ULL << 40) + 1000, (1ULL << 40) + 1000 - 84, 1000 - 84 },
};

static void span_case_desc(const struct span_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "last %llu cur %llu", c->last,
		 c->cur);
}

KUNIT_ARRAY_PARAM(span, span_cases, span_case_desc);

static void dtl_spans(struct kunit *test)
{
	const struct span_case *c = test->param_value;
	u64 first, over;

	dtl_span(c->last, c->cur, &first, &over);
	KUNIT_EXPECT_EQ(test, first, c->first);
	KUNIT_EXPECT_EQ(test, over, c->overwritten);
	/* what is copied and what is lost add up to what was logged */
	KUNIT_EXPECT_EQ(test, (c->cur - first) + over, c->cur - c->last);
}

static void dtl_period_steps(struct kunit *test)
{
	u64 p = DTL_PERIOD_START;

	/* idle: doubles, up to the bound */
	KUNIT_EXPECT_EQ(test, dtl_next_period(p, 0), 2 * p);
	KUNIT_EXPECT_EQ(test, dtl_next_period(DTL_PERIOD_MAX, 0),
			DTL_PERIOD_MAX);
	/* on target: unchanged; twice the target: halved */
	KUNIT_EXPECT_EQ(test, dtl_next_period(p, DTL_PER_PERIOD), p);
	KUNIT_EXPECT_EQ(test, dtl_next_period(p, 2 * DTL_PER_PERIOD),
			p / 2);
	/* a trickle: grows, but at most twice a period */
	KUNIT_EXPECT_EQ(test, dtl_next_period(p, 1), 2 * p);
	/* a flood: the shortest period */
	KUNIT_EXPECT_EQ(test, dtl_next_period(p, 100000),
			DTL_PERIOD_MIN);
}

/*
 * The policy against steady rates, from a busy start and from idle: after
 * the first period, no period holds more than the ring can, and an idle
 * CPU settles at a few wakeups a second.
 */
static void dtl_period_rates(struct kunit *test)
{
	static const u64 rates[] = { 1000, 20000, 50000 };
	static const u64 starts[] = { DTL_PERIOD_START, DTL_PERIOD_MAX };
	unsigned int r, s, i;

	for (r = 0; r < ARRAY_SIZE(rates); r++) {
		for (s = 0; s < ARRAY_SIZE(starts); s++) {
			u64 p = starts[s], n;

			for (i = 0; i < 50; i++) {
				n = div_u64(rates[r] * p, NSEC_PER_SEC);
				if (i)
					KUNIT_EXPECT_LE_MSG(test, n,
							    DTL_READABLE,
							    "rate %llu start %llu period %u",
							    rates[r], starts[s], i);
				p = dtl_next_period(p, n);
			}
			/* settled: at most twice the target per period */
			KUNIT_EXPECT_LE(test, div_u64(rates[r] * p, NSEC_PER_SEC),
					2 * DTL_PER_PERIOD);
		}
	}
	{
		u64 p = DTL_PERIOD_START;

		for (i = 0; i < 20; i++)
			p = dtl_next_period(p, 0);
		KUNIT_EXPECT_EQ(test, p, DTL_PERIOD_MAX);
		KUNIT_EXPECT_LE(test, div64_u64(NSEC_PER_SEC, p), 10);
	}
}

static void put_entry(struct kunit *test, struct dtl_ring *ring, u8 fill,
		      bool fits)
{
	struct htmtrace_dtl_entry_rec rec = {
		.hdr = { HTMTRACE_DTL_REC_ENTRY, sizeof(rec), 1 },
	};

	memset(rec.entry, fill, sizeof(rec.entry));
	KUNIT_EXPECT_EQ(test, dtl_ring_put(ring, &rec), fits);
}

static void dtl_ring_records(struct kunit *test)
{
	u8 buf[128];
	struct dtl_ring ring = { .buf = buf, .size = sizeof(buf) };
	struct htmtrace_dtl_cpu ev = {
		.hdr = { HTMTRACE_DTL_REC_CPU, sizeof(ev), 1 },
		.event = HTMTRACE_DTL_CPU_JOINED,
	};
	struct htmtrace_dtl_entry_rec *got;
	unsigned int i;

	put_entry(test, &ring, 0xa1, true);
	put_entry(test, &ring, 0xa2, true);
	/* 16 bytes left: not a third entry, but a CPU record fits */
	put_entry(test, &ring, 0xa3, false);
	KUNIT_EXPECT_EQ(test, ring.head, 112);
	KUNIT_EXPECT_TRUE(test, dtl_ring_put(&ring, &ev));
	KUNIT_EXPECT_EQ(test, ring.head, 128);
	KUNIT_EXPECT_FALSE(test, dtl_ring_put(&ring, &ev));

	/* whole records only */
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 55), 0);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 56), 56);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 127), 112);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 4096), 128);
	/* the walk stops at the head it was given, read under the lock */
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, 112, 4096), 112);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, 56, 4096), 56);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, 0, 4096), 0);

	/* the reader takes the first entry and the CPU record ... */
	ring.tail = 56;
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 56), 56);
	ring.tail = 128;
	/* ... and the next entry straddles the end: 16 bytes, then 40 */
	ring.head = 112;
	ring.tail = 112;
	put_entry(test, &ring, 0xa4, true);
	KUNIT_EXPECT_EQ(test, ring.head, 168);
	KUNIT_EXPECT_EQ(test, dtl_ring_whole(&ring, ring.head, 4096), 56);
	got = (void *)(buf + 112);
	KUNIT_EXPECT_EQ(test, got->hdr.type, HTMTRACE_DTL_REC_ENTRY);
	KUNIT_EXPECT_EQ(test, got->hdr.len, 56);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, buf[120 + i], 0xa4);
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0xa4);
	/* the bytes after it are the first entry's, untouched */
	KUNIT_EXPECT_EQ(test, buf[40], 0xa1);
}

static void dtl_clock_record(struct kunit *test)
{
	struct htmtrace_dtl_clock rec;

	dtl_clock_rec(&rec, 123456789, 1000, 2000, 3000);
	KUNIT_EXPECT_EQ(test, rec.hdr.type, HTMTRACE_DTL_REC_CLOCK);
	KUNIT_EXPECT_EQ(test, rec.hdr.len, sizeof(rec));
	KUNIT_EXPECT_EQ(test, rec.hdr.len % 8, 0);
	KUNIT_EXPECT_EQ(test, rec.hdr.cpu, ~0U);
	KUNIT_EXPECT_EQ(test, rec.version, 1);
	KUNIT_EXPECT_EQ(test, rec.tb_freq, tb_ticks_per_sec);
	KUNIT_EXPECT_EQ(test, rec.timebase, 123456789);
	KUNIT_EXPECT_EQ(test, rec.monotonic_ns, 1000);
	KUNIT_EXPECT_EQ(test, rec.boottime_ns, 2000);
	KUNIT_EXPECT_EQ(test, rec.realtime_ns, 3000);
	KUNIT_EXPECT_LE(test, sizeof(rec), HTMTRACE_DTL_REC_MAX);
	KUNIT_EXPECT_EQ(test, sizeof(struct htmtrace_dtl_entry_rec),
			8 + HTMTRACE_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, sizeof(struct dtl_entry), HTMTRACE_DTL_ENTRY_SIZE);
}

static void dtl_config_checks(struct kunit *test)
{
	struct htmtrace_dtl_config cfg = { .mask = HTMTRACE_DTL_ALL };
	u32 size;
	unsigned int mask;

	KUNIT_ASSERT_EQ(test, dtl_config_check(&cfg, &size), 0);
	KUNIT_EXPECT_EQ(test, size, DTL_RING_KB_DEFAULT * 1024);
	/* every non-empty subset of the three events, nothing else */
	for (mask = 0; mask < 0x100; mask++) {
		cfg.mask = mask;
		KUNIT_EXPECT_EQ_MSG(test, dtl_config_check(&cfg, &size),
				    mask && mask <= HTMTRACE_DTL_ALL ? 0 : -EINVAL,
				    "mask %#x", mask);
	}
	cfg.mask = HTMTRACE_DTL_CEDE;
	/* ring sizes: bounds, and rounding up to a power of two */
	cfg.ring_kb = DTL_RING_KB_MIN - 1;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), -EINVAL);
	cfg.ring_kb = DTL_RING_KB_MIN;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), 0);
	KUNIT_EXPECT_EQ(test, size, DTL_RING_KB_MIN * 1024);
	cfg.ring_kb = 100;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), 0);
	KUNIT_EXPECT_EQ(test, size, 128 * 1024);
	cfg.ring_kb = DTL_RING_KB_MAX;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), 0);
	KUNIT_EXPECT_EQ(test, size, DTL_RING_KB_MAX * 1024);
	cfg.ring_kb = DTL_RING_KB_MAX + 1;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), -EINVAL);
	cfg.ring_kb = 0;
	/* KEEP is the one flag; reserved words must be zero */
	cfg.flags = HTMTRACE_DTL_F_KEEP;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), 0);
	cfg.flags = 2;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), -EINVAL);
	cfg.flags = 0;
	cfg.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, dtl_config_check(&cfg, &size), -EINVAL);
}

static u8 end_fake_mask(int cpu)
{
	return 0;
}

static const struct htmtrace_hv_ops end_fake_ops = {
	.name = "kunit",
	.dtl_mask = end_fake_mask,
};

/* A session for the test alone: no hotplug callbacks (dtl_init's). */
static void dtl_test_session(struct vpa_dtl *dtl)
{
	memset(dtl, 0, sizeof(*dtl));
	mutex_init(&dtl->lock);
	mutex_init(&dtl->read_lock);
	init_waitqueue_head(&dtl->wait);
}

/*
 * The session ends once: by its owner's close or by DECONFIGURE, never by
 * another file's close, and a second end finds nothing to end.
 */
static void dtl_end_once(struct kunit *test)
{
	struct vpa_dtl dtl;
	int owner, other;

	dtl_test_session(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
						&owner), 0);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_CONFIGURED);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &other), -EBADFD);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &owner), 0);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_IDLE);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), -EBADFD);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &owner), -EBADFD);
	/* configured to outlive its file: only a DECONFIGURE ends it */
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
						NULL), 0);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &owner), -EBADFD);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), -EBADFD);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/* Put one record of @cpu's into its ring; what dtl_put() said. */
static bool put_rec(struct vpa_dtl *dtl, int cpu, const void *rec)
{
	struct dtl_cpu *c = dtl->pcpu[cpu];
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&c->lock, flags);
	ok = dtl_put(dtl, c, rec);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return ok;
}

/* One entry record of @cpu's, filled with @fill; what dtl_put() said. */
static bool put_cpu_entry(struct vpa_dtl *dtl, int cpu, u8 fill)
{
	struct htmtrace_dtl_entry_rec rec = {
		.hdr = { HTMTRACE_DTL_REC_ENTRY, sizeof(rec), cpu },
	};

	memset(rec.entry, fill, sizeof(rec.entry));
	return put_rec(dtl, cpu, &rec);
}

static void read_put(struct kunit *test, struct vpa_dtl *dtl, u8 fill)
{
	KUNIT_EXPECT_TRUE(test,
			  put_cpu_entry(dtl, cpumask_first(dtl->cpus), fill));
}

/*
 * A read copies to the user holding no lock: the session can end (the
 * owner's close, DECONFIGURE) while a reader is in a copy that never ends
 * (a page fault on userfaultfd or FUSE). That reader is detached: it keeps
 * the ring it copies from, and the next session's readers neither wait
 * for it nor are told EAGAIN while poll() says EPOLLIN. One reader copies
 * at a time, and poll() agrees with read() while one does; a failed copy
 * consumes nothing.
 */
static void dtl_read_copy_unlocked(struct kunit *test)
{
	const ssize_t rec = sizeof(struct htmtrace_dtl_entry_rec);
	struct dtl_claim claim, other, third;
	struct dtl_cpu *c;
	struct vpa_dtl dtl;
	int owner;
	u8 *src;

	dtl_test_session(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
					    &owner), 0);
	c = dtl.pcpu[cpumask_first(dtl.cpus)];
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	read_put(test, &dtl, 0xa1);
	read_put(test, &dtl, 0xa2);
	KUNIT_EXPECT_TRUE(test, dtl_poll_mask(&dtl) ==
				(EPOLLIN | EPOLLRDNORM));

	/* a copy that fails consumes nothing */
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, rec, true, &claim), rec);
	KUNIT_EXPECT_EQ(test, claim.cpu, c->cpu);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, -EFAULT, &claim), -EFAULT);
	KUNIT_EXPECT_EQ(test, c->ring.tail, 0);
	/* one that succeeds consumes what it claimed */
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &claim),
			2 * rec);
	KUNIT_EXPECT_EQ(test, claim.from.tail, 0);
	/* not the head, which the CPU's capture writes (a data race) */
	KUNIT_EXPECT_EQ(test, claim.from.head, 0);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, 2 * rec, &claim), 2 * rec);
	KUNIT_EXPECT_EQ(test, c->ring.tail, 2 * rec);
	KUNIT_EXPECT_EQ(test, atomic_read(&dtl.filled), 0);

	read_put(test, &dtl, 0xa3);
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &claim), rec);
	/* mid-copy: no lock held, so that nothing waits for the copy ... */
	KUNIT_ASSERT_FALSE(test, mutex_is_locked(&dtl.read_lock));
	KUNIT_ASSERT_FALSE(test, mutex_is_locked(&dtl.lock));
	/* ... but a second reader, who would read the same records */
	read_put(test, &dtl, 0xa4);
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other),
			-EAGAIN);
	/* and poll() says so: no EPOLLIN that read() would answer EAGAIN */
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	/* the owner's close ends the session at once, detaching the reader */
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &owner), 0);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_IDLE);
	KUNIT_EXPECT_FALSE(test, dtl.reading);
	KUNIT_EXPECT_TRUE(test, dtl_poll_mask(&dtl) ==
				(EPOLLERR | EPOLLHUP));
	/* the reader's source is still there (KASAN would say otherwise) */
	src = claim.from.buf + (claim.from.tail & (claim.from.size - 1));
	KUNIT_EXPECT_EQ(test, ((struct htmtrace_dtl_rec *)src)->len, rec);
	KUNIT_EXPECT_EQ(test, src[8], 0xa3);
	/*
	 * A new session meanwhile: its readers read, and poll() agrees,
	 * whatever the stuck reader of the last one does.
	 */
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
					    NULL), 0);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other),
			-EAGAIN);
	read_put(test, &dtl, 0xb1);
	KUNIT_EXPECT_TRUE(test, dtl_poll_mask(&dtl) ==
				(EPOLLIN | EPOLLRDNORM));
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other), rec);
	KUNIT_EXPECT_NE(test, other.gen, claim.gen);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	/* the stuck reader's copy ends: it frees its ring, touches nothing */
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, rec, &claim), rec);
	KUNIT_EXPECT_TRUE(test, dtl.reading);
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &third),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, rec, &other), rec);
	KUNIT_EXPECT_FALSE(test, dtl.reading);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	/* a new session's reader stuck as the session ends: the same again */
	read_put(test, &dtl, 0xb2);
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other), rec);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	KUNIT_EXPECT_FALSE(test, dtl.reading);
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &third),
			-ENODATA);
	src = other.from.buf + (other.from.tail & (other.from.size - 1));
	KUNIT_EXPECT_EQ(test, src[8], 0xb2);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, rec, &other), rec);
	KUNIT_EXPECT_FALSE(test, dtl.reading);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/*
 * Who holds a CPU's log: a kernel log is shared only where it lives as long
 * as the kernel (the native accounting's); one the kernel may free
 * (vcpudispatch_stats's) is another user's, whatever the mask; without a
 * kernel log, a mask that is not 0 is another user's.
 */
static void dtl_log_holders(struct kunit *test)
{
	u8 mask;

	for (mask = 0; mask <= HTMTRACE_DTL_ALL; mask++) {
		KUNIT_EXPECT_EQ(test, dtl_log_whose(true, true, mask),
				DTL_LOG_KERNEL);
		KUNIT_EXPECT_EQ(test, dtl_log_whose(true, false, mask),
				DTL_LOG_OTHER);
		KUNIT_EXPECT_EQ(test, dtl_log_whose(false, true, mask),
				mask ? DTL_LOG_OTHER : DTL_LOG_FREE);
		KUNIT_EXPECT_EQ(test, dtl_log_whose(false, false, mask),
				mask ? DTL_LOG_OTHER : DTL_LOG_FREE);
	}
}

/* A CPU's share of the session's ring. */
static void dtl_cpu_ring_shares(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(256 * 1024, 1), 256 * 1024);
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(256 * 1024, 2), 128 * 1024);
	/* shared evenly, rounded down to a power of two */
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(256 * 1024, 3), 64 * 1024);
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(256 * 1024, 8), 32 * 1024);
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(65536 * 1024, 1),
			65536 * 1024);
	/* never under the least (more than the session's ring then) */
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(4096, 2), DTL_CPU_RING_MIN);
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(256 * 1024, 2048),
			DTL_CPU_RING_MIN);
	KUNIT_EXPECT_EQ(test, dtl_cpu_ring_size(4096, 0), 4096);
	/* the least holds a CPU record and 72 entries */
	KUNIT_EXPECT_GE(test, DTL_CPU_RING_MIN,
			sizeof(struct htmtrace_dtl_cpu) +
			72 * sizeof(struct htmtrace_dtl_entry_rec));
}

/*
 * What a read gave: a record's type, CPU, (an entry's) fill byte, (a CPU
 * record's) event, (a LOST record's) why and count.
 */
struct got_rec {
	u16 type;
	u32 cpu;
	u8 fill;
	u32 event;
	u32 why;
	u64 count;
};

/*
 * Read the stream (O_NONBLOCK, @room at a time) until EAGAIN into @got;
 * the records read, or -1 if a read failed otherwise or a record was not
 * whole.
 */
static int read_recs(struct kunit *test, struct vpa_dtl *dtl, size_t room,
		     struct got_rec *got, int max)
{
	char __user *ubuf = user_buf(test, room);
	u8 *buf = kunit_kzalloc(test, room, GFP_KERNEL);
	ssize_t len, off;
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (;;) {
		len = dtl_read(dtl, ubuf, room, true);
		if (len == -EAGAIN)
			return n;
		if (len <= 0 || copy_from_user(buf, ubuf, len))
			return -1;
		for (off = 0; off < len; off += ((struct htmtrace_dtl_rec *)
						 (buf + off))->len) {
			const struct htmtrace_dtl_rec *hdr = (void *)(buf + off);

			if (hdr->len < sizeof(*hdr) || off + hdr->len > len ||
			    n == max)
				return -1;
			got[n].type = hdr->type;
			got[n].cpu = hdr->cpu;
			got[n].fill = hdr->type == HTMTRACE_DTL_REC_ENTRY ?
				      buf[off + sizeof(*hdr)] : 0;
			got[n].event = hdr->type == HTMTRACE_DTL_REC_CPU ?
				       ((const struct htmtrace_dtl_cpu *)hdr)->event : 0;
			got[n].why = hdr->type == HTMTRACE_DTL_REC_LOST ?
				     ((const struct htmtrace_dtl_lost *)hdr)->why : 0;
			got[n].count = hdr->type == HTMTRACE_DTL_REC_LOST ?
				       ((const struct htmtrace_dtl_lost *)hdr)->count : 0;
			n++;
		}
	}
}

/*
 * A session of every possible CPU, 4 KiB each, for a test of two (skipped
 * with one): the first two CPUs, and room for 128 records read.
 */
static struct got_rec *two_cpus(struct kunit *test, struct vpa_dtl *dtl,
				int *cpu0, int *cpu1)
{
	struct got_rec *got;

	*cpu0 = cpumask_first(cpu_possible_mask);
	*cpu1 = cpumask_next(*cpu0, cpu_possible_mask);
	if (*cpu1 >= nr_cpu_ids)
		kunit_skip(test, "one possible CPU");
	got = kunit_kcalloc(test, 128, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	dtl_test_session(dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096, NULL),
			0);
	return got;
}

/*
 * Each CPU's records go into a ring of its own: one CPU's full ring drops
 * no other CPU's records. A read takes the CPUs' records in turn, each
 * CPU's in order: a reader whose buffer holds one record at a time gets
 * the CPUs' alternately. poll() says when a ring holds any.
 */
static void dtl_read_cpus_in_turn(struct kunit *test)
{
	const size_t rec = sizeof(struct htmtrace_dtl_entry_rec);
	int i, n, full, cpu0, cpu1, seen0 = 0, seen1 = 0;
	struct got_rec *got;
	struct vpa_dtl dtl;

	got = two_cpus(test, &dtl, &cpu0, &cpu1);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, 0xa1));
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, 0xa2));
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu1, 0xb1));
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu1, 0xb2));
	KUNIT_EXPECT_EQ(test, atomic_read(&dtl.filled), 2);
	KUNIT_EXPECT_TRUE(test, dtl_poll_mask(&dtl) == (EPOLLIN | EPOLLRDNORM));

	/* room for one record a read: the CPUs in turn */
	n = read_recs(test, &dtl, rec, got, 128);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, got[0].cpu, cpu0);
	KUNIT_EXPECT_EQ(test, got[0].fill, 0xa1);
	KUNIT_EXPECT_EQ(test, got[1].cpu, cpu1);
	KUNIT_EXPECT_EQ(test, got[1].fill, 0xb1);
	KUNIT_EXPECT_EQ(test, got[2].fill, 0xa2);
	KUNIT_EXPECT_EQ(test, got[3].fill, 0xb2);
	KUNIT_EXPECT_EQ(test, atomic_read(&dtl.filled), 0);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));

	/* CPU 0's ring full: CPU 1's records still go in */
	for (full = 0; full < 128 && put_cpu_entry(&dtl, cpu0, full); full++)
		;
	KUNIT_EXPECT_EQ(test, full, DTL_CPU_RING_MIN / rec);
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu1, 0xb3));
	/* a read with room for all: every CPU's, each in order */
	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	KUNIT_ASSERT_EQ(test, n, full + 1);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, got[i].type, HTMTRACE_DTL_REC_ENTRY);
		if (got[i].cpu == cpu0)
			KUNIT_EXPECT_EQ(test, got[i].fill, seen0++);
		else if (got[i].cpu == cpu1 && !seen1++)
			KUNIT_EXPECT_EQ(test, got[i].fill, 0xb3);
		else
			KUNIT_FAIL(test, "record %d: cpu %u", i, got[i].cpu);
	}
	KUNIT_EXPECT_EQ(test, seen0, full);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/* Clocks before record @i of @got[0..@n). */
static int clocks_before(const struct got_rec *got, int i)
{
	int k, n = 0;

	for (k = 0; k < i; k++)
		n += got[k].type == HTMTRACE_DTL_REC_CLOCK;
	return n;
}

/*
 * Each START's clock record comes after each CPU's records of the captures
 * before it, those that waited for room included, and before the START's
 * own; meanwhile the START's records are kept, not dropped.
 */
static void dtl_read_start_clock(struct kunit *test)
{
	int i, n, old1, cpu0, cpu1;
	struct got_rec *got;
	struct dtl_cpu *c1;
	struct vpa_dtl dtl;

	got = two_cpus(test, &dtl, &cpu0, &cpu1);
	c1 = dtl.pcpu[cpu1];
	/* the last capture: an entry of CPU 0's; CPU 1's ring full ... */
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, 0xa1));
	for (old1 = 0; old1 < 128 && put_cpu_entry(&dtl, cpu1, old1); old1++)
		;
	/* ... and its OFFLINE record waiting for room */
	set_bit(HTMTRACE_DTL_CPU_OFFLINE, &dtl_pend_cur(c1)->events);

	mutex_lock(&dtl.read_lock);
	dtl_start_clock(&dtl);
	mutex_unlock(&dtl.read_lock);
	KUNIT_EXPECT_EQ(test, dtl.clock_last, 1);
	KUNIT_EXPECT_EQ(test, c1->gens, 0);
	KUNIT_EXPECT_EQ(test, dtl.pcpu[cpu0]->gens, 1);
	/* the START's entry of CPU 0's is kept; and again, a START later */
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, 0xa2));
	mutex_lock(&dtl.read_lock);
	dtl_start_clock(&dtl);
	mutex_unlock(&dtl.read_lock);
	KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, 0xa3));
	KUNIT_EXPECT_TRUE(test, dtl_poll_mask(&dtl) == (EPOLLIN | EPOLLRDNORM));

	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	/* a1, CPU 1's entries and OFFLINE, a clock, a2, a clock, a3 */
	KUNIT_ASSERT_EQ(test, n, old1 + 6);
	KUNIT_EXPECT_EQ(test, got[n - 4].type, HTMTRACE_DTL_REC_CLOCK);
	KUNIT_EXPECT_EQ(test, got[n - 4].cpu, ~0U);
	KUNIT_EXPECT_EQ(test, got[n - 3].fill, 0xa2);
	KUNIT_EXPECT_EQ(test, got[n - 2].type, HTMTRACE_DTL_REC_CLOCK);
	KUNIT_EXPECT_EQ(test, got[n - 1].fill, 0xa3);
	KUNIT_EXPECT_EQ(test, got[n - 5].cpu, cpu1);
	KUNIT_EXPECT_EQ(test, got[n - 5].type, HTMTRACE_DTL_REC_CPU);
	for (i = 0; i < n - 5; i++) {
		KUNIT_EXPECT_EQ(test, got[i].type, HTMTRACE_DTL_REC_ENTRY);
		if (got[i].cpu == cpu0)
			KUNIT_EXPECT_EQ(test, got[i].fill, 0xa1);
		else
			KUNIT_EXPECT_EQ(test, got[i].cpu, cpu1);
	}
	KUNIT_EXPECT_EQ(test, dtl.clock_first, 2);
	KUNIT_EXPECT_EQ(test, c1->gens, 2);
	KUNIT_EXPECT_TRUE(test, !dtl_poll_mask(&dtl));

	/*
	 * STARTs, an entry after each, none read: DTL_CLOCKS clock records
	 * wait; the STARTs after share the last one's
	 */
	for (i = 0; i < DTL_CLOCKS + 4; i++) {
		mutex_lock(&dtl.read_lock);
		dtl_start_clock(&dtl);
		mutex_unlock(&dtl.read_lock);
		KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu0, i));
	}
	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	KUNIT_ASSERT_EQ(test, n, 2 * DTL_CLOCKS + 4);
	for (i = 0; i < n; i++)
		if (got[i].type == HTMTRACE_DTL_REC_ENTRY)
			KUNIT_EXPECT_EQ_MSG(test, clocks_before(got, i),
					    min_t(int, got[i].fill + 1,
						  DTL_CLOCKS),
					    "entry %u", got[i].fill);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/* A hypervisor of the test's: one index and one event mask for every CPU. */
static u64 fake_index;
static u8 fake_mask;

static long fake_register(int cpu, phys_addr_t buf)
{
	fake_index = 0;
	return 0;
}

static long fake_unregister(int cpu)
{
	return 0;
}

static u64 fake_dtl_index(int cpu)
{
	return fake_index;
}

static u8 fake_dtl_mask(int cpu)
{
	return fake_mask;
}

static void fake_set_mask(int cpu, u8 mask)
{
	fake_mask = mask;
}

static const struct htmtrace_hv_ops fake_log_ops = {
	.name = "kunit",
	.register_dtl = fake_register,
	.unregister_dtl = fake_unregister,
	.dtl_index = fake_dtl_index,
	.dtl_mask = fake_dtl_mask,
	.dtl_set_mask = fake_set_mask,
};

/* The hypervisor logs entries up to index @to in @c's own buffer. */
static void fake_log(struct dtl_cpu *c, u64 to)
{
	struct dtl_entry *log = c->kernel_owned ?
				paca_ptrs[c->cpu]->dispatch_log : c->own;

	for (; fake_index < to; fake_index++) {
		memset(&log[fake_index % DTL_ENTRIES], 0, sizeof(*log));
		log[fake_index % DTL_ENTRIES].timebase =
			cpu_to_be64(1000 + fake_index);
	}
}

/*
 * A configured session of every possible CPU (4 KiB each), the test's
 * hypervisor reset. Return: its first CPU.
 */
static struct dtl_cpu *fake_session(struct kunit *test, struct vpa_dtl *dtl)
{
	fake_index = 0;
	fake_mask = 0;
	dtl_test_session(dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(dtl, &fake_log_ops,
					    cpu_possible_mask, 7, 4096, NULL),
			0);
	return dtl->pcpu[cpumask_first(dtl->cpus)];
}

/*
 * A configured session of every possible CPU (4 KiB each) whose first CPU
 * captures with mask 7, as dtl_cpu_begin() leaves it, but for its timer
 * (the test runs it by hand): into the kernel's log where the kernel has
 * one for good (the debug kernel's native accounting), else into its own
 * buffer. Return: that CPU.
 */
static struct dtl_cpu *fake_capture(struct kunit *test, struct vpa_dtl *dtl)
{
	struct dtl_entry *klog;
	struct dtl_cpu *c;

	c = fake_session(test, dtl);
	klog = READ_ONCE(paca_ptrs[c->cpu]->dispatch_log);
	KUNIT_ASSERT_TRUE(test, !klog || DTL_KLOG_LASTS);
	c->kernel_owned = klog;
	c->log = klog ? klog : c->own;
	c->saved_mask = 0;
	c->last = 0;
	c->last_tb = 0;
	fake_mask = 7;
	WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_CAPTURING);
	return c;
}

/* The CPU's capture timer fires (its callback, run by hand). */
static enum hrtimer_restart fire_timer(struct dtl_cpu *c)
{
	return ACCESS_PRIVATE(&c->timer, function)(&c->timer);
}

/*
 * A capture that one path ended is polled by none: a FLUSH's poll finds
 * another user's mask and ends the capture (one CPU_LOST record) while
 * the CPU's timer is still armed. When the timer fires, with the mask
 * still the other user's, and again once the other user put ours back and
 * entries were logged, it polls nothing: no second CPU_LOST, no entry
 * after it, and @other_change still says the mask was changed. The end
 * of the session adds no record either (a capture ends once).
 */
static void dtl_poll_ended_capture(struct kunit *test)
{
	struct got_rec *got;
	struct dtl_cpu *c;
	struct vpa_dtl dtl;
	int i, n;

	got = kunit_kcalloc(test, 128, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	c = fake_capture(test, &dtl);
	fake_log(c, 3);
	dtl_cpu_flush_ipi(c);
	KUNIT_EXPECT_EQ(test, c->entries, 3);
	/* another user narrows the mask; two more entries are logged */
	fake_mask = 1;
	fake_log(c, 5);
	dtl_cpu_flush_ipi(c);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), HTMTRACE_DTL_CPU_ENDED);
	KUNIT_EXPECT_EQ(test, c->other_change, DTL_OTHER_MASK);
	/* the CPU's timer fires: the mask is still theirs */
	KUNIT_EXPECT_EQ(test, fire_timer(c), HRTIMER_NORESTART);
	/* they put ours back, more entries are logged; the timer fires */
	fake_mask = 7;
	fake_log(c, 9);
	KUNIT_EXPECT_EQ(test, fire_timer(c), HRTIMER_NORESTART);
	KUNIT_EXPECT_EQ(test, c->other_change, DTL_OTHER_MASK);
	KUNIT_EXPECT_EQ(test, c->entries, 3);
	KUNIT_EXPECT_EQ(test, c->last, 3);
	dtl_cpu_end(c, HTMTRACE_DTL_CPU_OFFLINE);

	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	KUNIT_ASSERT_EQ(test, n, 4);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, got[i].type, HTMTRACE_DTL_REC_ENTRY);
	KUNIT_EXPECT_EQ(test, got[3].type, HTMTRACE_DTL_REC_CPU);
	KUNIT_EXPECT_EQ(test, got[3].event, HTMTRACE_DTL_CPU_LOST);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/* @n more entries logged in @c's log (its own buffer or the kernel's). */
static void fake_log_more(struct dtl_cpu *c, u64 n)
{
	fake_log(c, fake_index + n);
}

/*
 * Begin @c's capture as a START or the CPU's coming online does, with the
 * test's hypervisor (the kernel's log read alongside, if the kernel has
 * one, else the CPU's own buffer registered); its timer is stopped again
 * (the test polls by hand; a poll of the timer's meanwhile finds nothing
 * new).
 */
static void fake_begin(struct kunit *test, struct dtl_cpu *c)
{
	WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
	KUNIT_ASSERT_EQ(test, dtl_cpu_begin(c), 0);
	hrtimer_cancel(&c->timer);
	KUNIT_ASSERT_EQ(test, READ_ONCE(c->state), HTMTRACE_DTL_CPU_CAPTURING);
}

/* A START: its clock record, then every CPU's capture begins. */
static void fake_start(struct kunit *test, struct vpa_dtl *dtl,
		       struct dtl_cpu *c)
{
	mutex_lock(&dtl->read_lock);
	dtl_start_clock(dtl);
	mutex_unlock(&dtl->read_lock);
	fake_begin(test, c);
}

/*
 * Fill @c's ring to the last byte: entries, then a record of a type no
 * reader knows (skipped by its length) for the rest. Return: the entries.
 */
static int fill_ring(struct kunit *test, struct vpa_dtl *dtl,
		     struct dtl_cpu *c)
{
	struct {
		struct htmtrace_dtl_rec hdr;
		u8 pad[HTMTRACE_DTL_REC_MAX - 8];
	} filler = { .hdr = { 0x7f, 0, c->cpu } };
	int n;

	for (n = 0; put_cpu_entry(dtl, c->cpu, n); n++)
		;
	filler.hdr.len = c->ring.size - (c->ring.head - c->ring.tail);
	KUNIT_ASSERT_LE(test, filler.hdr.len, sizeof(filler));
	if (filler.hdr.len)
		KUNIT_ASSERT_TRUE(test, put_rec(dtl, c->cpu, &filler));
	return n;
}

/* @got[*i] is a CPU record of @event; then *i is past it. */
static void expect_cpu_rec(struct kunit *test, const struct got_rec *got,
			   int *i, u32 event)
{
	KUNIT_EXPECT_EQ_MSG(test, got[*i].type, HTMTRACE_DTL_REC_CPU,
			    "record %d", *i);
	KUNIT_EXPECT_EQ_MSG(test, got[*i].event, event, "record %d", *i);
	(*i)++;
}

/* @got[*i] is a LOST record of @count dropped entries; then *i is past it. */
static void expect_dropped(struct kunit *test, const struct got_rec *got,
			   int *i, u64 count)
{
	KUNIT_EXPECT_EQ_MSG(test, got[*i].type, HTMTRACE_DTL_REC_LOST,
			    "record %d", *i);
	KUNIT_EXPECT_EQ_MSG(test, got[*i].why, HTMTRACE_DTL_LOST_DROPPED,
			    "record %d", *i);
	KUNIT_EXPECT_EQ_MSG(test, got[*i].count, count, "record %d", *i);
	(*i)++;
}

/*
 * Captures across a START while the ring is full keep their order and
 * their ends. CPU X's ring full with capture A's records waiting (its
 * losses, OFFLINE); X back online: capture B, which drops 7 entries and
 * ends CPU_LOST (another user's mask); STOP; START: capture C, which drops
 * 11. B's LOST 7 and its CPU_LOST come before the START's CLOCK, C's
 * JOINED and LOST 11 after it: no loss is merged into another capture's.
 */
static void dtl_captures_across_start(struct kunit *test)
{
	struct got_rec *got;
	struct dtl_cpu *c;
	struct vpa_dtl dtl;
	int i, n, entries;

	got = kunit_kcalloc(test, 128, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	c = fake_session(test, &dtl);
	/* A: JOINED, a full ring, 3 entries dropped, OFFLINE: all waiting */
	fake_start(test, &dtl, c);
	entries = fill_ring(test, &dtl, c);
	fake_log_more(c, 3);
	dtl_cpu_flush_ipi(c);
	dtl_cpu_end(c, HTMTRACE_DTL_CPU_OFFLINE);
	/* B: the CPU back; 7 dropped; another user's mask ends it */
	fake_begin(test, c);
	fake_log_more(c, 7);
	dtl_cpu_flush_ipi(c);
	fake_mask = 1;
	dtl_cpu_flush_ipi(c);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), HTMTRACE_DTL_CPU_ENDED);
	/* they give the mask back; STOP */
	fake_mask = c->saved_mask | c->mask;
	dtl_cpu_end(c, 0);
	/* START: C, which drops 11 */
	fake_start(test, &dtl, c);
	fake_log_more(c, 11);
	dtl_cpu_flush_ipi(c);
	KUNIT_EXPECT_EQ(test, c->pend_n, 3);
	KUNIT_EXPECT_EQ(test, c->dropped, 3 + 7 + 11);

	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	KUNIT_ASSERT_EQ(test, n, entries + 11);
	i = 0;
	KUNIT_EXPECT_EQ(test, got[i++].type, HTMTRACE_DTL_REC_CLOCK);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_JOINED);
	for (; i < 2 + entries; i++)
		KUNIT_EXPECT_EQ(test, got[i].type, HTMTRACE_DTL_REC_ENTRY);
	KUNIT_EXPECT_EQ(test, got[i++].type, 0x7f);
	expect_dropped(test, got, &i, 3);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_OFFLINE);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_JOINED);
	expect_dropped(test, got, &i, 7);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_LOST);
	KUNIT_EXPECT_EQ(test, got[i++].type, HTMTRACE_DTL_REC_CLOCK);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_JOINED);
	expect_dropped(test, got, &i, 11);
	KUNIT_EXPECT_EQ(test, i, n);
	KUNIT_EXPECT_EQ(test, c->pend_n, 1);
	KUNIT_EXPECT_EQ(test, c->folded, 0);
	dtl_cpu_end(c, 0);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/*
 * The bound: with the ring full, a CPU goes offline and online
 * DTL_PENDING times; the capture that begins while DTL_PENDING captures'
 * records wait takes over the newest: one OFFLINE record fewer, its
 * JOINED and losses shared, @folded 1. Every other record is there, in
 * order.
 */
static void dtl_captures_beyond_bound(struct kunit *test)
{
	struct got_rec *got;
	struct dtl_cpu *c;
	struct vpa_dtl dtl;
	int i, k, n, entries;

	got = kunit_kcalloc(test, 128, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	c = fake_session(test, &dtl);
	fake_start(test, &dtl, c);
	entries = fill_ring(test, &dtl, c);
	/* capture k drops k + 1 entries, then the CPU goes offline */
	for (k = 0; k <= DTL_PENDING; k++) {
		if (k)
			fake_begin(test, c);
		fake_log_more(c, k + 1);
		dtl_cpu_flush_ipi(c);
		dtl_cpu_end(c, HTMTRACE_DTL_CPU_OFFLINE);
		KUNIT_EXPECT_EQ(test, c->pend_n, min(k + 1, DTL_PENDING));
	}
	KUNIT_EXPECT_EQ(test, c->folded, 1);

	n = read_recs(test, &dtl, 64 * 1024, got, 128);
	/*
	 * clock, JOINED, entries, filler; the first capture's LOST and
	 * OFFLINE; JOINED, LOST and OFFLINE of the DTL_PENDING - 1 after it
	 */
	KUNIT_ASSERT_EQ(test, n, 3 + entries + 2 + 3 * (DTL_PENDING - 1));
	i = 2 + entries + 1;
	expect_dropped(test, got, &i, 1);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_OFFLINE);
	for (k = 1; k < DTL_PENDING - 1; k++) {
		expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_JOINED);
		expect_dropped(test, got, &i, k + 1);
		expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_OFFLINE);
	}
	/* the last two captures as one */
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_JOINED);
	expect_dropped(test, got, &i, DTL_PENDING + DTL_PENDING + 1);
	expect_cpu_rec(test, got, &i, HTMTRACE_DTL_CPU_OFFLINE);
	KUNIT_EXPECT_EQ(test, i, n);
	KUNIT_EXPECT_EQ(test, c->pend_n, 1);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/*
 * The session's ring is shared among its CPUs: two CPUs of a 16 KiB ring
 * hold 8 KiB of records each (146 entries), not 16 KiB each.
 */
static void dtl_ring_kb_shared(struct kunit *test)
{
	const size_t rec = sizeof(struct htmtrace_dtl_entry_rec);
	cpumask_var_t two;
	struct vpa_dtl dtl;
	int cpu0, cpu1, n;

	cpu0 = cpumask_first(cpu_possible_mask);
	cpu1 = cpumask_next(cpu0, cpu_possible_mask);
	if (cpu1 >= nr_cpu_ids)
		kunit_skip(test, "one possible CPU");
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&two, GFP_KERNEL));
	cpumask_set_cpu(cpu0, two);
	cpumask_set_cpu(cpu1, two);
	dtl_test_session(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops, two, 7,
					    16 * 1024, NULL), 0);
	free_cpumask_var(two);
	KUNIT_EXPECT_EQ(test, cpumask_weight(dtl.cpus), 2);
	KUNIT_EXPECT_EQ(test, dtl.pcpu[cpu0]->ring.size, 8 * 1024);
	KUNIT_EXPECT_EQ(test, dtl.pcpu[cpu1]->ring.size, 8 * 1024);
	for (n = 0; put_cpu_entry(&dtl, cpu0, n); n++)
		;
	KUNIT_EXPECT_EQ(test, n, 8 * 1024 / rec);
	for (n = 0; put_cpu_entry(&dtl, cpu1, n); n++)
		;
	KUNIT_EXPECT_EQ(test, n, 8 * 1024 / rec);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

/*
 * A read takes at most one round more than there are CPUs (a round: one
 * CPU's records, or a clock record), however many are ready: 16 STARTs,
 * each followed by an entry of every CPU, are 16 * (1 + CPUs) rounds; a
 * read with room for all returns the first nr_cpu_ids + 1 records (a
 * round each here), and the next read goes on from there.
 */
static void dtl_read_rounds(struct kunit *test)
{
	const size_t rec = sizeof(struct htmtrace_dtl_entry_rec);
	size_t room = 64 * 1024;
	char __user *ubuf = user_buf(test, room);
	struct htmtrace_dtl_rec hdr;
	unsigned int cpu, g, ncpus;
	struct vpa_dtl dtl;
	ssize_t len;

	KUNIT_ASSERT_EQ(test, sizeof(struct htmtrace_dtl_clock), rec);
	dtl_test_session(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096, NULL),
			0);
	ncpus = cpumask_weight(dtl.cpus);
	for (g = 0; g < DTL_CLOCKS; g++) {
		mutex_lock(&dtl.read_lock);
		dtl_start_clock(&dtl);
		mutex_unlock(&dtl.read_lock);
		for_each_cpu(cpu, dtl.cpus)
			KUNIT_EXPECT_TRUE(test, put_cpu_entry(&dtl, cpu, g));
	}
	KUNIT_ASSERT_GT(test, DTL_CLOCKS * (1 + ncpus), nr_cpu_ids + 1);
	len = dtl_read(&dtl, ubuf, room, true);
	KUNIT_EXPECT_EQ(test, len, (ssize_t)((nr_cpu_ids + 1) * rec));
	/* the first round the clock record, the next an entry of START 0's */
	KUNIT_ASSERT_EQ(test, copy_from_user(&hdr, ubuf, sizeof(hdr)), 0);
	KUNIT_EXPECT_EQ(test, hdr.type, HTMTRACE_DTL_REC_CLOCK);
	KUNIT_ASSERT_EQ(test, copy_from_user(&hdr, ubuf + rec, sizeof(hdr)), 0);
	KUNIT_EXPECT_EQ(test, hdr.type, HTMTRACE_DTL_REC_ENTRY);
	/* the rest, a read at a time, each of at most nr_cpu_ids + 1 rounds */
	g = len / rec;
	while ((len = dtl_read(&dtl, ubuf, room, true)) > 0) {
		KUNIT_EXPECT_LE(test, len, (ssize_t)((nr_cpu_ids + 1) * rec));
		g += len / rec;
	}
	KUNIT_EXPECT_EQ(test, len, -EAGAIN);
	KUNIT_EXPECT_EQ(test, g, DTL_CLOCKS * (1 + ncpus));
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

static struct kunit_case htmtrace_dtl_cases[] = {
	KUNIT_CASE(dtl_ring_kb_shared),
	KUNIT_CASE(dtl_read_rounds),
	KUNIT_CASE(dtl_poll_ended_capture),
	KUNIT_CASE(dtl_captures_across_start),
	KUNIT_CASE(dtl_captures_beyond_bound),
	KUNIT_CASE(dtl_end_once),
	KUNIT_CASE(dtl_read_copy_unlocked),
	KUNIT_CASE(dtl_cpu_ring_shares),
	KUNIT_CASE(dtl_log_holders),
	KUNIT_CASE(dtl_read_cpus_in_turn),
	KUNIT_CASE(dtl_read_start_clock),
	KUNIT_CASE(dtl_config_checks),
	KUNIT_CASE_PARAM(dtl_spans, span_gen_params),
	KUNIT_CASE(dtl_period_steps),
	KUNIT_CASE(dtl_period_rates),
	KUNIT_CASE(dtl_ring_records),
	KUNIT_CASE(dtl_clock_record),
	{}
};

static struct kunit_suite htmtrace_dtl_suite = {
	.name = "htmtrace_dtl",
	.test_cases = htmtrace_dtl_cases,
};

kunit_test_suite(htmtrace_dtl_suite);
