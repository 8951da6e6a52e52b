// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log's stream records, and the records a
 * CPU has pending until its ring has room for them.
 *
 * A CPU's records come in the order of its capture: JOINED, entries and
 * LOST records, then what ended it. What finds no room waits: the CPU's
 * oldest capture's records first, then those of the capture it began again
 * meanwhile (@next_waits); what the captures before a START left goes before
 * that START's clock record (the reader reads the CPU's ring up to
 * @gen_head, then the clock record).
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

/* Push a CPU's pending event @e, if it has one; false if it did not fit. */
static bool dtl_flush_event(struct vpa_dtl *dtl, struct dtl_cpu *c,
			    unsigned int e)
{
	struct htmtrace_dtl_cpu ev;

	if (!test_bit(e, &c->events))
		return true;
	memset(&ev, 0, sizeof(ev));
	dtl_rec_init(&ev.hdr, HTMTRACE_DTL_REC_CPU, sizeof(ev), c->cpu);
	ev.event = e;
	if (e == HTMTRACE_DTL_CPU_FAILED)
		ev.error = c->error;
	if (!dtl_put(dtl, c, &ev))
		return false;
	clear_bit(e, &c->events);
	return true;
}

/* Push a CPU's pending LOST records of @lost; false if one did not fit. */
static bool dtl_flush_lost(struct vpa_dtl *dtl, struct dtl_cpu *c,
			   u64 *lost)
{
	struct htmtrace_dtl_lost rec;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->lost); i++) {
		if (!lost[i])
			continue;
		memset(&rec, 0, sizeof(rec));
		dtl_rec_init(&rec.hdr, HTMTRACE_DTL_REC_LOST, sizeof(rec),
			     c->cpu);
		rec.why = i + 1;
		rec.count = lost[i];
		if (!dtl_put(dtl, c, &rec))
			return false;
		lost[i] = 0;
	}
	return true;
}

/*
 * Push the records of the oldest of a CPU's captures that has some pending,
 * in the order of the capture: (with a sink) the clock, JOINED, the losses,
 * the record of what ended it. Caller holds the CPU's lock.
 */
static bool dtl_flush_capture(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	struct htmtrace_dtl_clock clock;
	unsigned int e;

	lockdep_assert_held(&c->lock);
	/* A CPU with a sink of its own starts its stream with a clock. */
	if (c->clock_pending) {
		dtl_clock_now(&clock);
		if (!dtl_put(dtl, c, &clock))
			return false;
		c->clock_pending = false;
	}
	if (!dtl_flush_event(dtl, c, HTMTRACE_DTL_CPU_JOINED) ||
	    !dtl_flush_lost(dtl, c, c->lost))
		return false;
	for (e = HTMTRACE_DTL_CPU_OFFLINE; e <= HTMTRACE_DTL_CPU_FAILED; e++)
		if (!dtl_flush_event(dtl, c, e))
			return false;
	return true;
}

/* The oldest capture's records are out: the one begun after it is next. */
static void dtl_next_capture(struct dtl_cpu *c)
{
	if (!c->next_waits)
		return;
	c->next_waits = false;
	set_bit(HTMTRACE_DTL_CPU_JOINED, &c->events);
	memcpy(c->lost, c->next_lost, sizeof(c->lost));
	memset(c->next_lost, 0, sizeof(c->next_lost));
	if (c->next_end)
		set_bit(c->next_end, &c->events);
	c->next_end = 0;
}

/*
 * Push a CPU's pending records: those of its oldest capture, then those of
 * the capture it began again meanwhile (@next_waits). Caller holds the CPU's
 * lock.
 */
bool dtl_flush_cpu(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	if (!dtl_flush_capture(dtl, c))
		return false;
	if (!c->next_waits)
		return true;
	dtl_next_capture(c);
	return dtl_flush_capture(dtl, c);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_flush_cpu);

/**
 * dtl_flush_own() - push the pending records of a CPU of /dev/vpa_dtl's
 *	session into its ring
 * @dtl: session
 * @c: the CPU, its lock held
 *
 * First what the captures before the last START left (while @gens is short
 * of @gens_due: a loss belongs to the capture it happened in); once that is
 * in, the records of the STARTs since begin (@gen_head), and the reader may
 * read their clock records when it gets there. Then the rest, as
 * dtl_flush_cpu().
 *
 * Return: true if nothing is left pending.
 */
bool dtl_flush_own(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	lockdep_assert_held(&c->lock);
	if (c->gens != c->gens_due) {
		if (!dtl_flush_capture(dtl, c))
			return false;
		dtl_next_capture(c);
		for (; c->gens != c->gens_due; c->gens++)
			c->gen_head[c->gens % DTL_CLOCKS] = c->ring.head;
	}
	return dtl_flush_cpu(dtl, c);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_flush_own);

/* Has the CPU records of a capture still waiting for room? */
bool dtl_cpu_pending(const struct dtl_cpu *c)
{
	return c->events || c->lost[0] || c->lost[1];
}
