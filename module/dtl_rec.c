// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log's stream records, and the records a
 * CPU has pending until its ring has room for them.
 *
 * A CPU's records come in the order of its capture: JOINED, entries and
 * LOST records, then what ended it. What finds no room waits, a slot per
 * capture (struct dtl_pend): the CPU's oldest capture's records first, then
 * those of each capture it began meanwhile; what the captures before a
 * START left goes before that START's clock record (the reader reads the
 * CPU's ring up to @gen_head, then the clock record).
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <kunit/visibility.h>

#include <asm/time.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* records */

void dtl_rec_init(struct htmtrace_dtl_rec *hdr, u16 type, u16 len, u32 cpu)
{
	hdr->type = type;
	hdr->len = len;
	hdr->cpu = cpu;
}

/**
 * dtl_clock_rec() - the record that maps timebase to the clocks
 * @rec: result
 * @tb: a timebase value
 * @mono: CLOCK_MONOTONIC at @tb, ns
 * @boot: CLOCK_BOOTTIME at @tb, ns
 * @real: CLOCK_REALTIME at @tb, ns
 */
void dtl_clock_rec(struct htmtrace_dtl_clock *rec, u64 tb, u64 mono,
		   u64 boot, u64 real)
{
	memset(rec, 0, sizeof(*rec));
	dtl_rec_init(&rec->hdr, HTMTRACE_DTL_REC_CLOCK, sizeof(*rec), ~0U);
	rec->version = 1;
	rec->tb_freq = tb_ticks_per_sec;
	rec->timebase = tb;
	rec->monotonic_ns = mono;
	rec->boottime_ns = boot;
	rec->realtime_ns = real;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_clock_rec);

/* The clock record now: the clocks read between two timebase reads. */
void dtl_clock_now(struct htmtrace_dtl_clock *rec)
{
	unsigned long flags;
	u64 tb0, tb1, mono, boot, real;

	local_irq_save(flags);
	tb0 = get_tb();
	mono = ktime_get_ns();
	boot = ktime_get_boottime_ns();
	real = ktime_get_real_ns();
	tb1 = get_tb();
	local_irq_restore(flags);
	dtl_clock_rec(rec, tb0 + (tb1 - tb0) / 2, mono, boot, real);
}

/*
 * One record of a CPU's: into its sink if it has one, else its ring (the
 * CPU counts itself into the session's @filled when its ring stops being
 * empty; the reader counts it out).
 */
bool dtl_put(struct vpa_dtl *dtl, struct dtl_cpu *c, const void *rec)
{
	bool empty;

	if (c->sink)
		return c->sink->put(c->sink_arg, rec);
	empty = c->ring.head == c->ring.tail;
	if (!dtl_ring_put(&c->ring, rec))
		return false;
	if (empty)
		atomic_inc(&dtl->filled);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_put);

/* The slot of a CPU's current (or last) capture. Caller holds the CPU's lock. */
struct dtl_pend *dtl_pend_cur(struct dtl_cpu *c)
{
	return &c->pend[(c->pend_first + c->pend_n - 1) % DTL_PENDING];
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pend_cur);

/* Has the capture records waiting for room? */
static bool dtl_pend_due(const struct dtl_pend *p)
{
	return p->events || p->lost[0] || p->lost[1];
}

/**
 * dtl_pend_begin() - the slot of a capture that begins on a CPU
 * @c: the CPU, its lock held
 *
 * The last capture's slot if none of its records wait; else a new slot
 * after it, so that the new capture's records come after the older ones'
 * (a START's clock record between them, if one came between). If
 * DTL_PENDING captures' records wait already, the new capture takes over
 * the newest one's slot (@folded counts it): that capture's end record is
 * dropped, its losses are the new capture's, and all of it goes after the
 * clock records of the STARTs since it began. Its JOINED stays due: the
 * caller sets the new capture's JOINED or FAILED.
 *
 * Return: the slot.
 */
struct dtl_pend *dtl_pend_begin(struct dtl_cpu *c)
{
	struct dtl_pend *p = dtl_pend_cur(c);

	lockdep_assert_held(&c->lock);
	if (!dtl_pend_due(p)) {
		memset(p, 0, sizeof(*p));
	} else if (c->pend_n < DTL_PENDING) {
		c->pend_n++;
		p = dtl_pend_cur(c);
		memset(p, 0, sizeof(*p));
	} else {
		WRITE_ONCE(c->folded, c->folded + 1);
		p->events &= BIT(HTMTRACE_DTL_CPU_JOINED);
		p->error = 0;
	}
	p->gen = c->gens_due;
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pend_begin);

/* Push a capture's pending event @e, if it has one; false if it did not fit. */
static bool dtl_flush_event(struct vpa_dtl *dtl, struct dtl_cpu *c,
			    struct dtl_pend *p, unsigned int e)
{
	struct htmtrace_dtl_cpu ev;

	if (!test_bit(e, &p->events))
		return true;
	memset(&ev, 0, sizeof(ev));
	dtl_rec_init(&ev.hdr, HTMTRACE_DTL_REC_CPU, sizeof(ev), c->cpu);
	ev.event = e;
	if (e == HTMTRACE_DTL_CPU_FAILED)
		ev.error = p->error;
	if (!dtl_put(dtl, c, &ev))
		return false;
	clear_bit(e, &p->events);
	return true;
}

/* Push a capture's pending LOST records; false if one did not fit. */
static bool dtl_flush_lost(struct vpa_dtl *dtl, struct dtl_cpu *c,
			   struct dtl_pend *p)
{
	struct htmtrace_dtl_lost rec;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p->lost); i++) {
		if (!p->lost[i])
			continue;
		memset(&rec, 0, sizeof(rec));
		dtl_rec_init(&rec.hdr, HTMTRACE_DTL_REC_LOST, sizeof(rec),
			     c->cpu);
		rec.why = i + 1;
		rec.count = p->lost[i];
		if (!dtl_put(dtl, c, &rec))
			return false;
		p->lost[i] = 0;
	}
	return true;
}

/*
 * Push a capture's pending records in the order of the capture: JOINED,
 * the losses, the record of what ended it.
 */
static bool dtl_flush_capture(struct vpa_dtl *dtl, struct dtl_cpu *c,
			      struct dtl_pend *p)
{
	unsigned int e;

	if (!dtl_flush_event(dtl, c, p, HTMTRACE_DTL_CPU_JOINED) ||
	    !dtl_flush_lost(dtl, c, p))
		return false;
	for (e = HTMTRACE_DTL_CPU_OFFLINE; e <= HTMTRACE_DTL_CPU_FAILED; e++)
		if (!dtl_flush_event(dtl, c, p, e))
			return false;
	return true;
}

/*
 * The places of the STARTs (@gens up to @gens_due) before which no capture
 * has records waiting: the ring's head now. Before START g go the records
 * of the captures whose @gen is g or less; the oldest capture with records
 * waiting holds up the STARTs from its @gen on.
 */
static void dtl_gens_known(struct dtl_cpu *c)
{
	const struct dtl_pend *p = &c->pend[c->pend_first];
	u32 known = c->gens_due;

	if (dtl_pend_due(p) && (s32)(p->gen - known) < 0)
		known = p->gen;
	for (; c->gens != known; c->gens++)
		c->gen_head[c->gens % DTL_CLOCKS] = c->ring.head;
}

/**
 * dtl_flush_cpu() - push a CPU's pending records into its sink or ring
 * @dtl: session
 * @c: the CPU, its lock held
 *
 * (With a sink) the clock first; then each capture's records, oldest
 * first: a capture's slot is let go once its records are out and a newer
 * capture began. In a ring, the place of each START is taken once every
 * capture begun before it has its records out (dtl_gens_known()), so that
 * the START's clock record, which the reader reads there, comes after
 * them, and every loss is in the capture it happened in.
 *
 * Return: true if nothing is left pending.
 */
bool dtl_flush_cpu(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	struct htmtrace_dtl_clock clock;

	lockdep_assert_held(&c->lock);
	/* A CPU with a sink of its own starts its stream with a clock. */
	if (c->clock_pending) {
		dtl_clock_now(&clock);
		if (!dtl_put(dtl, c, &clock))
			return false;
		c->clock_pending = false;
	}
	for (;;) {
		dtl_gens_known(c);
		if (!dtl_flush_capture(dtl, c, &c->pend[c->pend_first]))
			return false;
		if (c->pend_n == 1)
			break;
		c->pend_first = (c->pend_first + 1) % DTL_PENDING;
		c->pend_n--;
	}
	dtl_gens_known(c);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_flush_cpu);
