// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the dispatch trace log engine of htmtrace (ring arithmetic, the
 * adaptive period, the session's ring of records, record encoding).
 */
#include <kunit/test.h>
#include <linux/htmtrace.h>

#include <asm/time.h>

#include "htmtrace.h"
#include "dtl_internal.h"

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

/*
 * The session ends once: by its owner's close or by DECONFIGURE, never by
 * another file's close, and a second end finds nothing to end.
 */
static void dtl_end_once(struct kunit *test)
{
	struct vpa_dtl dtl;
	int owner, other;

	memset(&dtl, 0, sizeof(dtl));
	mutex_init(&dtl.lock);
	mutex_init(&dtl.read_lock);
	raw_spin_lock_init(&dtl.ring_lock);
	init_waitqueue_head(&dtl.wait);
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

/* One entry record, filled with @fill, into the session's ring. */
static void read_put(struct kunit *test, struct vpa_dtl *dtl, u8 fill)
{
	struct htmtrace_dtl_entry_rec rec = {
		.hdr = { HTMTRACE_DTL_REC_ENTRY, sizeof(rec), 0 },
	};
	unsigned long flags;

	memset(rec.entry, fill, sizeof(rec.entry));
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	KUNIT_EXPECT_TRUE(test, dtl_ring_put(&dtl->ring, &rec));
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
}

/*
 * A read copies to the user holding no lock: the session can end (the
 * owner's close, DECONFIGURE) while a reader is in a copy that never ends
 * (a page fault on userfaultfd or FUSE), which then keeps the ring it
 * copies from; one reader copies at a time; a failed copy consumes
 * nothing.
 */
static void dtl_read_copy_unlocked(struct kunit *test)
{
	const ssize_t rec = sizeof(struct htmtrace_dtl_entry_rec);
	struct dtl_ring from, other;
	struct vpa_dtl dtl;
	int owner;
	u8 *src;

	memset(&dtl, 0, sizeof(dtl));
	mutex_init(&dtl.lock);
	mutex_init(&dtl.read_lock);
	raw_spin_lock_init(&dtl.ring_lock);
	init_waitqueue_head(&dtl.wait);
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
					    &owner), 0);
	read_put(test, &dtl, 0xa1);
	read_put(test, &dtl, 0xa2);

	/* a copy that fails consumes nothing */
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, rec, true, &from), rec);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, -EFAULT, rec), -EFAULT);
	KUNIT_EXPECT_EQ(test, dtl.ring.tail, 0);
	/* one that succeeds consumes what it claimed */
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &from),
			2 * rec);
	KUNIT_EXPECT_EQ(test, from.tail, 0);
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, 2 * rec, 2 * rec), 2 * rec);
	KUNIT_EXPECT_EQ(test, dtl.ring.tail, 2 * rec);

	read_put(test, &dtl, 0xa3);
	KUNIT_ASSERT_EQ(test, dtl_read_claim(&dtl, 4096, true, &from), rec);
	/* mid-copy: no lock held, so that nothing waits for the copy ... */
	KUNIT_ASSERT_FALSE(test, mutex_is_locked(&dtl.read_lock));
	KUNIT_ASSERT_FALSE(test, mutex_is_locked(&dtl.lock));
	/* ... but a second reader, who would read the same records */
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other),
			-EAGAIN);
	/* the owner's close ends the session at once */
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, &owner), 0);
	KUNIT_EXPECT_EQ(test, dtl.state, DTL_IDLE);
	KUNIT_EXPECT_PTR_EQ(test, dtl.read_orphan, from.buf);
	/* the reader's source is still there (KASAN would say otherwise) */
	src = from.buf + (from.tail & (from.size - 1));
	KUNIT_EXPECT_EQ(test, ((struct htmtrace_dtl_rec *)src)->len, rec);
	KUNIT_EXPECT_EQ(test, src[8], 0xa3);
	/* a new session meanwhile, ended too: its ring is not the reader's */
	KUNIT_ASSERT_EQ(test, dtl_configure(&dtl, &end_fake_ops,
					    cpu_possible_mask, 7, 4096,
					    NULL), 0);
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, dtl_end(&dtl, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, dtl.read_orphan, from.buf);
	/* the copy stands; the reader frees the ring it kept */
	KUNIT_EXPECT_EQ(test, dtl_read_done(&dtl, rec, rec), rec);
	KUNIT_EXPECT_NULL(test, dtl.read_orphan);
	KUNIT_EXPECT_FALSE(test, dtl.reading);
	KUNIT_EXPECT_EQ(test, dtl_read_claim(&dtl, 4096, true, &other),
			-ENODATA);
	mutex_destroy(&dtl.lock);
	mutex_destroy(&dtl.read_lock);
}

static struct kunit_case htmtrace_dtl_cases[] = {
	KUNIT_CASE(dtl_end_once),
	KUNIT_CASE(dtl_read_copy_unlocked),
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
