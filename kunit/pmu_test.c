// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the perf PMUs' logic (config decoding, AUX run planning, the one
 * owner of a target and of the dispatch trace log).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/preempt.h>

#include <asm/hvcall.h>
#include <asm/paca.h>

#include "htmtrace.h"
#include "dtl_internal.h"
#include "htm_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void pmu_config_decode(struct kunit *test)
{
	struct htm_target t;

	/* htm_core, node 0x12, chip 0x34, core 0x56: the series' layout */
	KUNIT_ASSERT_EQ(test, htm_pmu_config_decode(0x0563412, &t), 0);
	KUNIT_EXPECT_EQ(test, t.type, 2);
	KUNIT_EXPECT_EQ(test, t.node, 0x41);
	KUNIT_EXPECT_EQ(test, t.chip, 0x63);
	KUNIT_EXPECT_EQ(test, t.core, 0x05);

	KUNIT_ASSERT_EQ(test, htm_pmu_config_decode(0xfffffff1, &t), -EINVAL);
	KUNIT_ASSERT_EQ(test, htm_pmu_config_decode(0x0fffff01, &t), 0);
	KUNIT_EXPECT_EQ(test, t.type, 1);
	KUNIT_EXPECT_EQ(test, t.node, 0xf0);
	KUNIT_EXPECT_EQ(test, t.chip, 0xff);
	KUNIT_EXPECT_EQ(test, t.core, 0xff);
	KUNIT_ASSERT_EQ(test, htm_pmu_config_decode(3, &t), 0);
	KUNIT_EXPECT_EQ(test, t.type, 3);
	KUNIT_EXPECT_EQ(test, t.node + t.chip + t.core, 0);

	/* types other than nest, core and llat; bits past 27 */
	KUNIT_EXPECT_EQ(test, htm_pmu_config_decode(0, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, htm_pmu_config_decode(4, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, htm_pmu_config_decode(0xf, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, htm_pmu_config_decode(BIT(28) | 2, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, htm_pmu_config_decode(BIT_ULL(63) | 2, &t),
			-EINVAL);
}

#define P	PAGE_SIZE

/*
 * AUX pages: 0-3 one run, 4-5 another, 6 alone, 7 continues 6 (runs
 * 0-3, 4-5, 6-7).
 */
static const phys_addr_t aux8[] = {
	0x100000, 0x100000 + P, 0x100000 + 2 * P, 0x100000 + 3 * P,
	0x900000, 0x900000 + P,
	0x500000, 0x500000 + P,
};

struct plan_case {
	const char *name;
	size_t off;
	size_t room;
	u64 left;
	size_t max_xfer;
	size_t len;
};

static const struct plan_case plan_cases[] = {
	{ "first run whole", 0, 8 * P, 100 * P, 64 * P, 4 * P },
	{ "from the middle of a run", P, 8 * P, 100 * P, 64 * P, 3 * P },
	{ "second run", 4 * P, 8 * P, 100 * P, 64 * P, 2 * P },
	{ "last run to the end", 6 * P, 8 * P, 100 * P, 64 * P, 2 * P },
	{ "room in whole pages", 0, 2 * P + 100, 100 * P, 64 * P, 2 * P },
	{ "no room for a page", 0, P - 1, 100 * P, 64 * P, 0 },
	{ "no room at all", 0, 0, 100 * P, 64 * P, 0 },
	{ "the transfer limit", 0, 8 * P, 100 * P, P, P },
	{ "the end of a trace", 0, 8 * P, 3 * P, 64 * P, 3 * P },
	{ "a trace smaller than a page", 0, 8 * P, 256, 64 * P, 256 },
	{ "a trace of unknown size", 0, 8 * P, U64_MAX, 64 * P, 4 * P },
	/* the hypervisor writes a whole page: the room must hold one */
	{ "the rest, less room than a page", 0, 300, 256, 64 * P, 0 },
	{ "the rest needs more room", 0, 200, 256, 64 * P, 0 },
	/* only a page-aligned address goes to the hypervisor */
	{ "unaligned, run has whole pages", 256, 8 * P, 100 * P, 64 * P, 0 },
	{ "unaligned at a run's last page", 3 * P + 256, 8 * P, 100 * P,
	  64 * P, 0 },
	{ "unaligned, the rest fits its page", 3 * P + 256, 8 * P, 128,
	  64 * P, 0 },
	{ "unaligned at the last page", 7 * P + 128, 8 * P, 2 * P, 64 * P, 0 },
};

static void plan_case_desc(const struct plan_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(plan, plan_cases, plan_case_desc);

static void pmu_aux_plan(struct kunit *test)
{
	const struct plan_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, htm_aux_plan(aux8, ARRAY_SIZE(aux8), c->off,
					   c->room, c->left, c->max_xfer),
			c->len);
}

/* Whatever the layout, the chunks of a dump tile the trace exactly. */
static void pmu_aux_plan_tiles(struct kunit *test)
{
	const size_t size = ARRAY_SIZE(aux8) * P;
	u64 left = 37 * P, done = 0;
	size_t off = 5 * P, len;
	unsigned int chunks = 0;

	while (left) {
		/* the reader drained: all but a byte is free */
		len = htm_aux_plan(aux8, ARRAY_SIZE(aux8), off, size - 1, left,
				   64 * P);
		KUNIT_ASSERT_GT(test, len, 0);
		KUNIT_EXPECT_EQ(test, len % P, 0);
		/* never across a run or the end of the area */
		KUNIT_EXPECT_LE(test, off + len, size);
		done += len;
		left -= len;
		off = (off + len) % size;
		chunks++;
	}
	KUNIT_EXPECT_EQ(test, done, 37 * P);
	/* 5, 6-7; four rounds of 0-3, 4-5, 6-7; then 0-1 */
	KUNIT_EXPECT_EQ(test, chunks, 2 + 4 * 3 + 1);
}

/* A target has one holder, a channel or a perf event, whichever came first. */
static void pmu_target_one_owner(struct kunit *test)
{
	const struct htm_target core = { .type = 2, .node = 1, .chip = 0,
					 .core = 9 };
	int channel, event;

	KUNIT_ASSERT_EQ(test, htm_target_claim(&core, &channel), 0);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&core, &event), -EBUSY);
	/* only the holder can let it go */
	htm_target_release(&core, &event);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&core, &event), -EBUSY);
	htm_target_release(&core, &channel);
	KUNIT_ASSERT_EQ(test, htm_target_claim(&core, &event), 0);
	KUNIT_EXPECT_EQ(test, htm_target_claim(&core, &channel), -EBUSY);
	htm_target_release(&core, &event);
}

/* A session for the test alone: no hotplug callbacks (dtl_init's). */
static void dtl_session_init(struct vpa_dtl *dtl)
{
	memset(dtl, 0, sizeof(*dtl));
	mutex_init(&dtl->lock);
	mutex_init(&dtl->read_lock);
	init_waitqueue_head(&dtl->wait);
}

static bool sink_begin(void *arg, bool last)
{
	return true;
}

static bool sink_put(void *arg, const void *rec)
{
	return true;
}

static void sink_end(void *arg, u64 dropped)
{
}

static const struct dtl_sink test_sink = {
	.begin = sink_begin,
	.put = sink_put,
	.end = sink_end,
};

/* A sink that keeps what it is given: how many records, and the last. */
struct kept_sink {
	unsigned int puts;
	struct htmtrace_dtl_cpu last;
};

static bool kept_put(void *arg, const void *rec)
{
	struct kept_sink *k = arg;
	const struct htmtrace_dtl_rec *hdr = rec;

	k->puts++;
	memset(&k->last, 0, sizeof(k->last));
	memcpy(&k->last, rec, min_t(size_t, hdr->len, sizeof(k->last)));
	return true;
}

static const struct dtl_sink kept_sink_ops = {
	.begin = sink_begin,
	.put = kept_put,
	.end = sink_end,
};

/* @rec is @cpu's JOINED record. */
static void expect_joined(struct kunit *test, const struct htmtrace_dtl_cpu *rec,
			  int cpu)
{
	KUNIT_EXPECT_EQ(test, rec->hdr.type, HTMTRACE_DTL_REC_CPU);
	KUNIT_EXPECT_EQ(test, rec->hdr.len, sizeof(*rec));
	KUNIT_EXPECT_EQ(test, rec->hdr.cpu, cpu);
	KUNIT_EXPECT_EQ(test, rec->event, HTMTRACE_DTL_CPU_JOINED);
}

/* A fake hypervisor's log of every CPU: one index, one mask. */
static u64 fake_dtl_idx;
static u8 fake_dtl_mask;

/* It refuses every registration. */
static long fake_register_dtl(int cpu, phys_addr_t buf)
{
	return H_HARDWARE;
}

static long fake_unregister_dtl(int cpu)
{
	return H_SUCCESS;
}

static u64 fake_dtl_index(int cpu)
{
	return READ_ONCE(fake_dtl_idx);
}

static u8 fake_dtl_mask_get(int cpu)
{
	return READ_ONCE(fake_dtl_mask);
}

static void fake_dtl_set_mask(int cpu, u8 mask)
{
	WRITE_ONCE(fake_dtl_mask, mask);
}

static const struct htmtrace_hv_ops dtl_fake_ops = {
	.name = "kunit",
	.register_dtl = fake_register_dtl,
	.unregister_dtl = fake_unregister_dtl,
	.dtl_index = fake_dtl_index,
	.dtl_mask = fake_dtl_mask_get,
	.dtl_set_mask = fake_dtl_set_mask,
};

/* The log has one owner: /dev/vpa_dtl's session or the perf events. */
static void pmu_dtl_one_owner(struct kunit *test)
{
	struct vpa_dtl dtl;
	struct dtl_cpu *c0, *again;
	int cpu = cpumask_first(cpu_possible_mask);

	dtl_session_init(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), 0);
	KUNIT_EXPECT_EQ(test, dtl_configure(&dtl, &dtl_fake_ops,
					    cpu_possible_mask, 7, 4096,
						NULL),
			-EBUSY);
	/* a second event adds to the perf session ... */
	KUNIT_ASSERT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), 0);
	/* ... but one CPU is captured for one event */
	c0 = dtl_pmu_cpu_add(&dtl, cpu, 2, &test_sink, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c0));
	KUNIT_EXPECT_EQ(test, c0->mask, 2);
	again = dtl_pmu_cpu_add(&dtl, cpu, 2, &test_sink, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(again), -EBUSY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dtl_pmu_cpu_add(&dtl, -1, 2,
						      &test_sink, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dtl_pmu_cpu_add(&dtl, nr_cpu_ids,
						      2, &test_sink,
							  NULL)),
			-EINVAL);
	/* /dev/vpa_dtl reads nothing from the perf session */
	KUNIT_EXPECT_EQ(test, dtl_read(&dtl, NULL, 4096, true), -ENODATA);
	dtl_pmu_cpu_remove(&dtl, c0);
	dtl_pmu_put(&dtl);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_PMU);
	dtl_pmu_put(&dtl);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_IDLE);

	/* the reverse: a configured session keeps the events out */
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &dtl_fake_ops,
					    cpu_possible_mask, 7, 4096,
						NULL), 0);
	KUNIT_EXPECT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), -EBUSY);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	KUNIT_EXPECT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), 0);
	dtl_pmu_put(&dtl);
}

/*
 * With @other's lock held (its poll), @c's JOINED record goes out, under
 * @c's lock alone: into its sink, or its ring.
 */
static void flush_beside(struct kunit *test, struct vpa_dtl *dtl,
			 struct dtl_cpu *c, struct dtl_cpu *other)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&other->lock, flags);
	/* two CPUs' locks held at once: only here, never in the driver */
	raw_spin_lock_nested(&c->lock, SINGLE_DEPTH_NESTING);
	set_bit(HTMTRACE_DTL_CPU_JOINED, &dtl_pend_cur(c)->events);
	KUNIT_EXPECT_TRUE(test, dtl_flush_cpu(dtl, c));
	KUNIT_EXPECT_EQ(test, dtl_pend_cur(c)->events, 0UL);
	raw_spin_unlock(&c->lock);
	raw_spin_unlock_irqrestore(&other->lock, flags);
}

/*
 * Every CPU puts its records under a lock of its own, a vpa_dtl event's
 * (into its sink) as a CPU of /dev/vpa_dtl's session (into its ring): with
 * another CPU's lock held (its poll), its records still go out, and the
 * flush asserts (lockdep) that its own lock is the one held. Each record
 * goes to its own CPU's sink or ring, whole, and to no other.
 */
static void pmu_dtl_cpu_lock(struct kunit *test)
{
	int cpu0 = cpumask_first(cpu_possible_mask);
	int cpu1 = cpumask_next(cpu0, cpu_possible_mask);
	struct kept_sink kept0 = {}, kept1 = {};
	struct dtl_cpu *c0, *c1;
	struct vpa_dtl dtl;
	u64 head;

	if (cpu1 >= nr_cpu_ids)
		kunit_skip(test, "one possible CPU");
	dtl_session_init(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), 0);
	c0 = dtl_pmu_cpu_add(&dtl, cpu0, 2, &kept_sink_ops, &kept0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c0));
	c1 = dtl_pmu_cpu_add(&dtl, cpu1, 2, &kept_sink_ops, &kept1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c1));

	flush_beside(test, &dtl, c0, c1);
	/* into CPU 0's sink, whole, and nowhere else */
	KUNIT_EXPECT_EQ(test, kept0.puts, 1);
	expect_joined(test, &kept0.last, cpu0);
	KUNIT_EXPECT_EQ(test, kept1.puts, 0);
	flush_beside(test, &dtl, c1, c0);
	KUNIT_EXPECT_EQ(test, kept0.puts, 1);
	KUNIT_EXPECT_EQ(test, kept1.puts, 1);
	expect_joined(test, &kept1.last, cpu1);

	dtl_pmu_cpu_remove(&dtl, c1);
	dtl_pmu_cpu_remove(&dtl, c0);
	dtl_pmu_put(&dtl);

	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &dtl_fake_ops,
					    cpu_possible_mask, 7, 4096, NULL),
			0);
	c0 = dtl.pcpu[cpu0];
	c1 = dtl.pcpu[cpu1];
	KUNIT_ASSERT_NOT_NULL(test, c0);
	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_EXPECT_PTR_NE(test, c0->ring.buf, c1->ring.buf);
	head = c1->ring.head;
	flush_beside(test, &dtl, c0, c1);
	/* into its own ring, whole, nobody else's */
	KUNIT_EXPECT_EQ(test, c0->ring.head,
			sizeof(struct htmtrace_dtl_cpu));
	expect_joined(test, (const void *)c0->ring.buf, cpu0);
	KUNIT_EXPECT_EQ(test, c1->ring.head, head);
	KUNIT_EXPECT_EQ(test, atomic_read(&dtl.filled), 1);
	flush_beside(test, &dtl, c1, c0);
	KUNIT_EXPECT_EQ(test, c0->ring.head,
			sizeof(struct htmtrace_dtl_cpu));
	KUNIT_EXPECT_EQ(test, c1->ring.head,
			head + sizeof(struct htmtrace_dtl_cpu));
	expect_joined(test, (const void *)c1->ring.buf, cpu1);
	KUNIT_EXPECT_EQ(test, atomic_read(&dtl.filled), 2);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
}

/* What a sink was given: its transactions, and the CPU records put. */
struct seen_sink {
	unsigned int begins;
	unsigned int ends;
	unsigned long events;
};

static bool seen_begin(void *arg, bool last)
{
	struct seen_sink *s = arg;

	s->begins++;
	return true;
}

static bool seen_put(void *arg, const void *rec)
{
	const struct htmtrace_dtl_cpu *ev = rec;
	struct seen_sink *s = arg;

	if (ev->hdr.type == HTMTRACE_DTL_REC_CPU)
		__set_bit(ev->event, &s->events);
	return true;
}

static void seen_end(void *arg, u64 dropped)
{
	struct seen_sink *s = arg;

	s->ends++;
}

static const struct dtl_sink seen_sink_ops = {
	.begin = seen_begin,
	.put = seen_put,
	.end = seen_end,
};

/*
 * A vpa_dtl event's capture that ends before the event does hands the
 * record of what ended it to the sink at once (the AUX area flags it while
 * perf reads on), not when the event is gone: its begin failed (where the
 * kernel has no log that lasts, the fake hypervisor refuses the
 * registration), or another user changed the CPU's mask under it (where
 * the kernel's log is shared). All on this CPU, interrupts off, as the
 * PMU's irq_work and timers run it.
 */
static void pmu_dtl_end_to_sink(struct kunit *test)
{
	struct seen_sink seen = {};
	unsigned long flags;
	struct vpa_dtl dtl;
	struct dtl_cpu *c;
	bool failed;
	int cpu;

	WRITE_ONCE(fake_dtl_idx, 0);
	WRITE_ONCE(fake_dtl_mask, 0);
	dtl_session_init(&dtl);
	KUNIT_ASSERT_EQ(test, dtl_pmu_get(&dtl, &dtl_fake_ops), 0);
	migrate_disable();
	cpu = smp_processor_id();
	c = dtl_pmu_cpu_add(&dtl, cpu, 7, &seen_sink_ops, &seen);
	if (IS_ERR(c)) {
		migrate_enable();
		dtl_pmu_put(&dtl);
		KUNIT_FAIL(test, "cpu %d: %ld", cpu, PTR_ERR(c));
		return;
	}
	local_irq_save(flags);
	dtl_pmu_cpu_begin(c);
	failed = READ_ONCE(c->state) == HTMTRACE_DTL_CPU_ENDED;
	KUNIT_EXPECT_EQ(test, failed, !DTL_KLOG_LASTS ||
			!READ_ONCE(paca_ptrs[cpu]->dispatch_log));
	if (!failed) {
		/* captured, nothing put yet; then another user's mask */
		KUNIT_EXPECT_EQ(test, seen.ends, 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(fake_dtl_mask), 7);
		WRITE_ONCE(fake_dtl_mask, 1);
		dtl_pmu_cpu_read(c);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c->state),
				HTMTRACE_DTL_CPU_ENDED);
	}
	/* the end is in the sink before the event goes */
	KUNIT_EXPECT_EQ(test, seen.begins, 1);
	KUNIT_EXPECT_EQ(test, seen.ends, 1);
	KUNIT_EXPECT_EQ(test, seen.events,
			BIT(HTMTRACE_DTL_CPU_JOINED) |
			BIT(failed ? HTMTRACE_DTL_CPU_FAILED :
			    HTMTRACE_DTL_CPU_LOST));
	dtl_pmu_cpu_end(c);
	local_irq_restore(flags);
	migrate_enable();
	/* and once: the event's end finds nothing more to put */
	KUNIT_EXPECT_EQ(test, seen.ends, 2);
	KUNIT_EXPECT_EQ(test, dtl_pend_cur(c)->events, 0UL);
	/* another user's mask stays theirs */
	if (!failed)
		KUNIT_EXPECT_EQ(test, READ_ONCE(fake_dtl_mask), 1);
	dtl_pmu_cpu_remove(&dtl, c);
	dtl_pmu_put(&dtl);
}

static void pmu_status_size(struct kunit *test)
{
	u8 hdr[HTM_BLOCK_HDR_SIZE] = {};
	u64 size = 0;

	hdr[HTM_STATUS_LOG2_SIZE] = 20;
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_CORE, &size), 0);
	KUNIT_EXPECT_EQ(test, size, 1ULL << 20);
	hdr[HTM_STATUS_LOG2_SIZE] = 21;
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_NEST, &size), 0);
	KUNIT_EXPECT_EQ(test, size, 1ULL << 21);
	/* public for nest and core only: llat's and global's byte is not read */
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_LLAT, &size),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_GLOBAL, &size),
			-ENODATA);
	/* no size: unset, below a record, beyond loff_t */
	hdr[HTM_STATUS_LOG2_SIZE] = 0;
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_CORE, &size),
			-ENODATA);
	hdr[HTM_STATUS_LOG2_SIZE] = 6;
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_CORE, &size),
			-ENODATA);
	hdr[HTM_STATUS_LOG2_SIZE] = 63;
	KUNIT_EXPECT_EQ(test, htm_status_size(hdr, HTMTRACE_TYPE_NEST, &size),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, size, 1ULL << 21);
}

static void pmu_xfer_shrink(struct kunit *test)
{
	size_t x = 8 * P;

	/* not the length: the offset, the op, the state */
	KUNIT_EXPECT_FALSE(test, htm_xfer_shrink(H_P6, &x));
	KUNIT_EXPECT_FALSE(test, htm_xfer_shrink(H_P3, &x));
	KUNIT_EXPECT_FALSE(test, htm_xfer_shrink(H_STATE, &x));
	KUNIT_EXPECT_EQ(test, x, 8 * P);
	/* the length, the destination it spans, a parameter unnamed */
	KUNIT_EXPECT_TRUE(test, htm_xfer_shrink(H_P4, &x));
	KUNIT_EXPECT_EQ(test, x, 4 * P);
	KUNIT_EXPECT_TRUE(test, htm_xfer_shrink(H_PARAMETER, &x));
	KUNIT_EXPECT_EQ(test, x, 2 * P);
	x = 8 * P;
	KUNIT_EXPECT_TRUE(test, htm_xfer_shrink(H_P5, &x));
	KUNIT_EXPECT_EQ(test, x, 4 * P);
	x = 3 * P;
	KUNIT_EXPECT_TRUE(test, htm_xfer_shrink(H_P5, &x));
	KUNIT_EXPECT_EQ(test, x, P);
	KUNIT_EXPECT_FALSE(test, htm_xfer_shrink(H_P5, &x));
	KUNIT_EXPECT_EQ(test, x, P);
}

/*
 * A scripted backend for START: answers the statuses of start_script in
 * turn, then start_final; counts the calls and checks each is START. The
 * tests run in one kthread at a time, so plain statics do.
 */
static long start_script[4];
static unsigned int start_len, start_pos, start_calls, start_bad_op;
static long start_final;

static long start_htm(unsigned long flags, unsigned long target,
		      unsigned long op, unsigned long p1, unsigned long p2,
		      unsigned long p3)
{
	start_calls++;
	if (op != (HTM_OP(HTM_OP_START) | HTM_TYPE(2)))
		start_bad_op++;
	if (start_pos < start_len)
		return start_script[start_pos++];
	return start_final;
}

static const struct htmtrace_hv_ops start_ops = {
	.name = "kunit",
	.htm = start_htm,
};

static void start_reset(long final)
{
	start_len = 0;
	start_pos = 0;
	start_calls = 0;
	start_bad_op = 0;
	start_final = final;
}

static const struct htm_target start_target = { .type = 2, .core = 1 };

/*
 * Ask START from 5 s on, each time when the hint says, until the answer is
 * not -EAGAIN (in *@ret). Return: the tries, -1 if a hint went backwards.
 */
static int start_until_done(struct htm_pmu_start *st, unsigned int bound_ms,
			    int *ret)
{
	struct htm_hv_stats stats = {};
	ktime_t t = ms_to_ktime(5000);

	for (;;) {
		*ret = htm_pmu_start_try(&start_ops, &stats, &start_target, st,
					 t, bound_ms);
		if (*ret != -EAGAIN || st->tries > 100000)
			return st->tries;
		/* never asked before the hint said */
		if (ktime_before(st->next, t))
			return -1;
		t = st->next;
	}
}

/*
 * An htm event's START under a busy hypervisor (issue 41 item 3): a busy
 * answer keeps START waiting for its hint, never a failure at once; the
 * bound of 10 s ends it with -EBUSY; any other error ends it at once.
 */
static void pmu_start_busy(struct kunit *test)
{
	struct htm_hv_stats stats = {};
	struct htm_pmu_start st = {};
	ktime_t t0 = ms_to_ktime(5000);
	int ret;

	/* one 10 ms long-busy answer, then the trace runs */
	start_reset(H_SUCCESS);
	start_script[0] = H_LONG_BUSY_ORDER_10_MSEC;
	start_len = 1;
	KUNIT_EXPECT_EQ(test, htm_pmu_start_try(&start_ops, &stats,
						&start_target, &st, t0, 10000),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, st.tries, 1);
	KUNIT_EXPECT_EQ(test, st.busy_since, t0);
	KUNIT_EXPECT_EQ(test, st.next, ktime_add_ms(t0, 10));
	KUNIT_EXPECT_EQ(test, htm_pmu_start_try(&start_ops, &stats,
						&start_target, &st,
						st.next, 10000), 0);
	KUNIT_EXPECT_EQ(test, st.tries, 2);
	KUNIT_EXPECT_EQ(test, start_calls, 2);
	KUNIT_EXPECT_EQ(test, stats.hcalls, 2);

	/*
	 * Busy for good, 10 ms hints: asked at 0, 10, ..., 10000 ms; at
	 * 10000 the next hint would pass the bound: -EBUSY, 1001 STARTs.
	 */
	start_reset(H_LONG_BUSY_ORDER_10_MSEC);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 1001);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, start_calls, 1001);
	/* 1 s hints: 0, 1, ..., 10 s, 11 STARTs; the 1 s cap of the tests */
	start_reset(H_LONG_BUSY_ORDER_1_SEC);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 11);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	start_reset(H_LONG_BUSY_ORDER_10_MSEC);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 1000, &ret), 101);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	/* a hint beyond the bound: no wait at all */
	start_reset(H_LONG_BUSY_ORDER_100_SEC);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 1);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);

	/* H_BUSY past the atomic policy's 100 retries: again in 1 ms */
	start_reset(H_BUSY);
	memset(&st, 0, sizeof(st));
	memset(&stats, 0, sizeof(stats));
	KUNIT_EXPECT_EQ(test, htm_pmu_start_try(&start_ops, &stats,
						&start_target, &st, t0, 10000),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, start_calls, 101);
	KUNIT_EXPECT_EQ(test, st.next, ktime_add_ms(t0, 1));
	/*
	 * H_BUSY for good: the waits double from 1 ms to 128 ms. Asked at
	 * 0, 1, 3, ..., 127 ms (8), then at 255 + 128 k ms up to k = 76,
	 * whose next wait would pass the bound: 85 STARTs, not 10,001.
	 */
	memset(&st, 0, sizeof(st));
	start_calls = 0;
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 85);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, start_calls, 85 * 101);

	/* busy, then a hard error: that error, at once */
	start_reset(H_HARDWARE);
	start_script[0] = H_LONG_BUSY_ORDER_1_MSEC;
	start_len = 1;
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 2);
	KUNIT_EXPECT_EQ(test, ret, -EIO);
	/* H_STATE the first time: -EIO, one START */
	start_reset(H_STATE);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, start_until_done(&st, 10000, &ret), 1);
	KUNIT_EXPECT_EQ(test, ret, -EIO);
	KUNIT_EXPECT_EQ(test, start_bad_op, 0);
}

static struct kunit_case htmtrace_pmu_cases[] = {
	KUNIT_CASE(pmu_config_decode),
	KUNIT_CASE_PARAM(pmu_aux_plan, plan_gen_params),
	KUNIT_CASE(pmu_aux_plan_tiles),
	KUNIT_CASE(pmu_target_one_owner),
	KUNIT_CASE(pmu_dtl_one_owner),
	KUNIT_CASE(pmu_dtl_cpu_lock),
	KUNIT_CASE(pmu_dtl_end_to_sink),
	KUNIT_CASE(pmu_status_size),
	KUNIT_CASE(pmu_xfer_shrink),
	KUNIT_CASE(pmu_start_busy),
	{}
};

static struct kunit_suite htmtrace_pmu_suite = {
	.name = "htmtrace_pmu",
	.test_cases = htmtrace_pmu_cases,
};

kunit_test_suite(htmtrace_pmu_suite);
