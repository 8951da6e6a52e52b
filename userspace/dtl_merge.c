// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: merging. The records of a capture go out in time
 * order through a bounded reorder window (the CPUs' logs interleave in the
 * stream), and are summed per CPU and per reason on the way. A file's
 * window holds offsets into its mapping and is bounded by a count of
 * records (report_stream()); a pipe's holds copies of its records, and
 * is bounded by time (report_pipe()): a record leaves it once every CPU
 * still delivering has shown a later timebase, or once the newest
 * timebase seen is more than the window ahead, so that it is printed
 * while the pipe goes on.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtl.h"
#include "dtl_report.h"
#include "util.h"

/* The summary of a CPU, added in CPU order. NULL if out of memory. */
static struct cpu_sum *cpu_sum(struct report *r, __u32 cpu)
{
	return cpu_table_get(&r->cpus_sum, cpu);
}

typedef int (*pending_cmp)(const struct pending *a, const struct pending *b);

/* Time order: the reorder window's. */
static int pending_before(const struct pending *a, const struct pending *b)
{
	return a->key < b->key || (a->key == b->key && a->off < b->off);
}

/*
 * --worst: @a is a shorter wait than @b (of equal waits, the later in the
 * file): the heap's top is the one to drop.
 */
static int less_worse(const struct pending *a, const struct pending *b)
{
	return a->key < b->key || (a->key == b->key && a->off > b->off);
}

/* Remove the top of the heap @h of @n (by @before); returns it. */
static struct pending heap_take(struct pending *h, size_t *n,
				pending_cmp before)
{
	struct pending top = h[0], last = h[--*n];
	size_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* Add @p to the heap @h of @n (room for it checked by the caller). */
static void heap_add(struct pending *h, size_t *n, struct pending p,
		     pending_cmp before)
{
	size_t i, parent;

	for (i = (*n)++; i; i = parent) {
		parent = (i - 1) / 2;
		if (!before(&p, &h[parent]))
			break;
		h[i] = h[parent];
	}
	h[i] = p;
}

/* Room for one more in the heap. Returns 0 or -ENOMEM. */
static int heap_room(struct report *r)
{
	struct pending *h;
	size_t ncap;

	if (r->nheap < r->heap_cap)
		return 0;
	ncap = r->heap_cap ? r->heap_cap * 2 : 1024;
	h = realloc(r->heap, ncap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	r->heap = h;
	r->heap_cap = ncap;
	return 0;
}

/* A zeroed clock: the one in force before any CLOCK record. */
static const struct htmtrace_dtl_clock no_clock;

/* A pipe's slot back in the free list. */
static void slot_put(struct report *r, size_t slot)
{
	r->free_slots[r->nfree++] = slot;
}

/*
 * A slot for a copy of the pipe's record @rec (@len bytes, at most
 * HTMTRACE_DTL_REC_MAX of them kept: no known record is longer) under
 * the last CLOCK record. Returns 0 with *@slot, or -ENOMEM.
 */
static int slot_get(struct report *r, const unsigned char *rec, size_t len,
		    size_t *slot)
{
	struct dtl_slot *s;
	size_t ncap, *f;

	if (!r->nfree) {
		if (r->nslots == r->slot_cap) {
			ncap = r->slot_cap ? r->slot_cap * 2 : 1024;
			s = realloc(r->slots, ncap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			r->slots = s;
			f = realloc(r->free_slots, ncap * sizeof(*f));
			if (!f)
				return -ENOMEM;
			r->free_slots = f;
			r->slot_cap = ncap;
		}
		r->free_slots[r->nfree++] = r->nslots++;
	}
	*slot = r->free_slots[--r->nfree];
	s = &r->slots[*slot];
	if (len > sizeof(s->rec))
		len = sizeof(s->rec);
	memcpy(s->rec, rec, len);
	s->clock = r->nclocks ? r->nclocks - 1 : SIZE_MAX;
	return 0;
}

/* Print a record out of the window (or give it to the sink). */
static void emit(struct report *r, const struct pending *p)
{
	const struct dtl_slot *s;

	if (r->sink) {
		r->sink(r, p);
	} else if (r->slots) {
		s = &r->slots[p->slot];
		fmt_record(r, p->off, s->rec, s->clock == SIZE_MAX ?
			   &no_clock : &r->clocks[s->clock]);
		slot_put(r, p->slot);
	} else {
		fmt_record(r, p->off, r->buf + p->off, r->buf + p->clock_off);
	}
}

/*
 * Take the earliest pending record out of the window and print it; @full:
 * because the window is full (not because its time has passed).
 */
static void heap_pop(struct report *r, int full)
{
	struct pending top = heap_take(r->heap, &r->nheap, pending_before);

	if (r->emitted && top.key < r->last_key) {
		/* After a later one: which left the window, and why. */
		r->out_of_order++;
		if (r->last_full)
			r->out_of_order_full++;
	} else {
		r->last_key = top.key;
		r->last_full = full;
	}
	r->emitted = 1;
	emit(r, &top);
}

/* The window full: its earliest record leaves it, to make room. */
static void heap_full(struct report *r)
{
	if (r->nheap == REORDER_WINDOW)
		heap_pop(r, 1);
}

/* Put @p in the window (room for it checked here). */
static int heap_put(struct report *r, const struct pending *p)
{
	if (heap_room(r))
		return -ENOMEM;
	heap_add(r->heap, &r->nheap, *p, pending_before);
	return 0;
}

/* Put a record in the window; the earliest leaves it once it is full. */
static int heap_push(struct report *r, __u64 key, size_t off,
		     size_t clock_off)
{
	struct pending p = { .key = key, .off = off, .clock_off = clock_off };

	heap_full(r);
	return heap_put(r, &p);
}

/*
 * Hold the LOST or CPU record @rec (@len bytes at @off, under the CLOCK
 * record at @clock_off) of @cpu, a CPU with no entry yet, at the time
 * @key, out of the window until held_out(). Returns 0 or -ENOMEM.
 */
static int held_add(struct report *r, __u32 cpu, __u64 key,
		    const unsigned char *rec, size_t len, size_t off,
		    size_t clock_off)
{
	struct held_rec *h;
	size_t ncap;

	if (r->nheld == r->held_cap) {
		ncap = r->held_cap ? r->held_cap * 2 : 16;
		h = realloc(r->held, ncap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		r->held = h;
		r->held_cap = ncap;
	}
	h = &r->held[r->nheld];
	h->cpu = cpu;
	h->p.key = key;
	h->p.off = off;
	if (r->piped) {
		if (slot_get(r, rec, len, &h->p.slot))
			return -ENOMEM;
	} else {
		h->p.clock_off = clock_off;
	}
	r->nheld++;
	cpu_sum(r, cpu)->nheld++;
	return 0;
}

/*
 * Into the window, in stream order, the held records: of the CPU @s (its
 * first entry, at @tb, has come: none is later than @tb), or with @s NULL,
 * those of a time up to @upto. Returns 0 or -ENOMEM.
 */
static int held_out(struct report *r, struct cpu_sum *s, __u64 tb,
		    __u64 upto)
{
	struct held_rec *h;
	size_t i, j = 0;

	for (i = 0; i < r->nheld; i++) {
		h = &r->held[i];
		if (s ? h->cpu != s->cpu : h->p.key > upto) {
			r->held[j++] = *h;
			continue;
		}
		if (s && h->p.key > tb)
			h->p.key = tb;
		if (!s)
			cpu_sum(r, h->cpu)->nheld--;
		heap_full(r);
		if (heap_put(r, &h->p))
			return -ENOMEM;
	}
	r->nheld = j;
	if (s)
		s->nheld = 0;
	return 0;
}

/* --worst N: the entry @p would be among the N longest waits so far. */
static int worst_keeps(const struct report *r, const struct pending *p)
{
	return r->nheap < r->worst || less_worse(&r->heap[0], p);
}

/* --worst N: N kept, the shortest wait leaves (its slot freed first). */
static void worst_full(struct report *r)
{
	struct pending out;

	if (r->nheap == r->worst) {
		out = heap_take(r->heap, &r->nheap, less_worse);
		if (r->slots)
			slot_put(r, out.slot);
	}
}

/* --worst N: keep the entry @p (worst_keeps() said so; worst_full()). */
static int worst_add(struct report *r, const struct pending *p)
{
	if (heap_room(r))
		return -ENOMEM;
	heap_add(r->heap, &r->nheap, *p, less_worse);
	return 0;
}

/* --worst: the entries kept, the longest wait first. */
static void worst_emit(struct report *r)
{
	size_t n = r->nheap, i;

	/* Taking the top each time leaves them in the array, shortest last. */
	for (i = n; i > 0; i--)
		r->heap[i - 1] = heap_take(r->heap, &r->nheap, less_worse);
	for (i = 0; i < n; i++)
		emit(r, &r->heap[i]);
}

/* What report_stream() allocated: the sums, the distributions, the heap. */
void report_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->cpus_sum.n; i++)
		free(((struct cpu_sum *)r->cpus_sum.elems)[i].wait.bins);
	for (i = 0; i < 256; i++) {
		free(r->dwait[i].bins);
		free(r->pwait[i].bins);
	}
	free(r->cpus_sum.elems);
	free(r->heap);
	free(r->slots);
	free(r->free_slots);
	free(r->clocks);
	free(r->held);
}

/*
 * --window in ticks of @c's timebase (rounded up; ULLONG_MAX if more), kept
 * for the next record under a clock of the same frequency. A report that
 * set none (window_ms 0) has the default, DTL_STREAM_WINDOW_MS.
 */
static __u64 window_ticks(struct report *r, const struct htmtrace_dtl_clock *c)
{
	unsigned __int128 w;

	if (!r->window_ms)
		r->window_ms = DTL_STREAM_WINDOW_MS;
	if (c->tb_freq != r->window_freq || !r->window_tb) {
		w = ((unsigned __int128)c->tb_freq * r->window_ms + 999) / 1000;
		r->window_tb = w > ULLONG_MAX ? ULLONG_MAX : (__u64)w;
		r->window_freq = c->tb_freq;
	}
	return r->window_tb;
}

/*
 * The time before which no record is to come, as the stream stands (the
 * CPUs other than @skip, the window under @c): once the first window of
 * the capture's time is over (every CPU of the session has delivered by
 * then), the earliest time a CPU has reached (none older is to come from
 * it), or the window behind the newest, whichever is later. Returns 0 if
 * none yet, 1 with *@t. pipe_flush() prints what is older.
 */
static int settled_at(struct report *r, const struct htmtrace_dtl_clock *c,
		      const struct cpu_sum *skip, __u64 *t)
{
	__u64 w = window_ticks(r, c), f, m = ULLONG_MAX;
	size_t i;

	if (!r->have_first || r->newest < w)
		return 0;
	*t = r->newest - w;
	if (*t < r->first_tb)
		return 1;
	for (i = 0; i < r->cpus_sum.n; i++) {
		const struct cpu_sum *s =
			(struct cpu_sum *)r->cpus_sum.elems + i;

		if (s == skip)
			continue;
		f = s->has_front ? s->front_tb : 0;
		if (f < m)
			m = f;
	}
	if (m != ULLONG_MAX && m > *t)
		*t = m;
	return 1;
}

/*
 * r->settled: the latest time settled_at() has given, for the records of
 * a CPU with no entry yet (report_take()). Called where it could go back
 * (a CPU added, a CPU's time going back) and by pipe_flush(), so that no
 * record a pipe has printed is later than it.
 */
static void settle(struct report *r, const struct htmtrace_dtl_clock *c,
		   const struct cpu_sum *skip)
{
	__u64 t;

	if (settled_at(r, c, skip, &t) && t > r->settled)
		r->settled = t;
}

/*
 * A CLOCK record @c after @old (the one in force): the first's timebase
 * kept; the time settled so far, before another frequency changes the
 * window's ticks.
 */
static void merge_clock(struct report *r,
			const struct htmtrace_dtl_clock *old,
			const struct htmtrace_dtl_clock *c)
{
	if (!r->have_first) {
		r->first_tb = c->timebase;
		r->have_first = 1;
	} else if (c->tb_freq != old->tb_freq) {
		settle(r, old, NULL);
	}
}

/*
 * The time the stream has reached, after an entry at @tb of the CPU @s:
 * its front_tb, and r->newest, the newest of them. Each CPU's entries come
 * in its time order; an entry more than the window ahead of the newest
 * time so far (and of @clock's) counts only once its CPU's next entry is
 * no earlier (and that one with it): one entry with a damaged timebase
 * (its next goes back) moves neither, two in a row do. A pipe's window
 * (pipe_flush()) and the time of a CPU record of a CPU with no entry yet
 * (report_take(), both paths) are of this time.
 */
static void stream_front(struct report *r, struct cpu_sum *s,
			 const struct htmtrace_dtl_clock *clock, __u64 tb)
{
	__u64 ref = r->newest > clock->timebase ? r->newest : clock->timebase;

	if (s->has_ahead && tb < s->ahead_tb)
		s->has_ahead = 0;	/* the one ahead was damaged */
	else if (s->has_ahead)
		ref = tb;		/* confirmed: its time */
	if (tb > ref && tb - ref > window_ticks(r, clock)) {
		s->ahead_tb = tb;
		s->has_ahead = 1;
		return;
	}
	s->has_ahead = 0;
	if (s->has_front && tb < s->front_tb)
		settle(r, clock, NULL);	/* before the CPU goes back */
	s->front_tb = tb;
	s->has_front = 1;
	if (tb > r->newest)
		r->newest = tb;
}

/*
 * The record @rec (with @hdr, not a CLOCK), under @clock: summed where
 * --cpu and --time keep it. An entry's time is its timebase; a LOST or CPU
 * record takes the time of its CPU's entry before it in the stream, or for
 * a CPU with none, the time before which no record was to come (settle()),
 * or @clock's if later, and is held (held_add()): that CPU's first entry
 * puts it in the window at that entry's time if earlier (so that no CPU's
 * records are printed out of its stream order), a pipe's once the window
 * has passed its time (held_out()), the end of the report at its own.
 * Returns 1 if it is printed, with its time in *@key (and an entry's
 * dispatch wait in *@wait), 2 if it is to be held (with *@key), 0 if
 * not, or -ENOMEM.
 */
static inline int report_take(struct report *r, const unsigned char *rec,
			      const struct htmtrace_dtl_rec *hdr,
			      const struct htmtrace_dtl_clock *clock,
			      __u64 *key, __u64 *wait)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct dtl_entry e;
	struct cpu_sum *s;
	size_t n;
	__u64 w;

	if (hdr->type != HTMTRACE_DTL_REC_ENTRY &&
	    hdr->type != HTMTRACE_DTL_REC_LOST &&
	    hdr->type != HTMTRACE_DTL_REC_CPU) {
		r->unknown++;
		return 0;
	}
	if (!dtl_filter_cpu(&r->filt, hdr->cpu))
		return 0;
	if (hdr->type == HTMTRACE_DTL_REC_ENTRY) {
		memcpy(&er, rec, sizeof(er));
		dtl_entry_decode(er.entry, &e);
		/* A damaged timebase or clock: counted, not printed. */
		if (clock->tb_freq && dtl_entry_time(clock, &e, NULL)) {
			r->bad_time++;
			return 0;
		}
	}
	n = r->cpus_sum.n;
	s = cpu_sum(r, hdr->cpu);
	if (!s)
		return -ENOMEM;
	if (r->cpus_sum.n != n)
		settle(r, clock, s);	/* as it was before this CPU */
	if (hdr->type == HTMTRACE_DTL_REC_ENTRY) {
		*key = e.timebase;
		s->last_tb = e.timebase;
		s->has_last = 1;
		stream_front(r, s, clock, e.timebase);
		if (s->nheld && held_out(r, s, e.timebase, 0))
			return -ENOMEM;
		w = window_ticks(r, clock);
		if (r->piped && r->nheld && r->newest > w &&
		    held_out(r, NULL, 0, r->newest - w - 1))
			return -ENOMEM;
	} else if (s->has_last) {
		*key = s->last_tb;
	} else {
		settle(r, clock, NULL);
		*key = r->settled > clock->timebase ? r->settled :
		       clock->timebase;
	}
	if (clock->tb_freq && !dtl_filter_time(&r->filt, clock, *key))
		return 0;
	if (hdr->type == HTMTRACE_DTL_REC_ENTRY &&
	    !dtl_filter_entry(&r->filt, clock, &e))
		return 0;
	switch (hdr->type) {
	case HTMTRACE_DTL_REC_ENTRY:
		w = (__u64)e.enqueue_to_dispatch + e.ready_to_enqueue +
		    e.waiting_to_ready;
		if (!s->entries) {
			s->first_tb = e.timebase;
			s->first_wait = w;
		}
		if (e.timebase > s->end_tb)
			s->end_tb = e.timebase;
		s->not_dispatched += w;
		s->dispatch[e.dispatch_reason]++;
		s->preempt[e.preempt_reason]++;
		s->entries++;
		r->entries++;
		r->dispatch[e.dispatch_reason]++;
		r->preempt[e.preempt_reason]++;
		if (wait_hist_add(&s->wait, e.enqueue_to_dispatch) ||
		    wait_hist_add(&r->dwait[e.dispatch_reason],
				  e.enqueue_to_dispatch) ||
		    wait_hist_add(&r->pwait[e.preempt_reason],
				  e.enqueue_to_dispatch))
			return -ENOMEM;
		*wait = e.enqueue_to_dispatch;
		break;
	case HTMTRACE_DTL_REC_LOST:
		memcpy(&lost, rec, sizeof(lost));
		if (lost.why == HTMTRACE_DTL_LOST_OVERWRITTEN) {
			s->overwritten += lost.count;
			r->overwritten += lost.count;
		} else if (lost.why == HTMTRACE_DTL_LOST_DROPPED) {
			s->dropped += lost.count;
			r->dropped += lost.count;
		} else {
			s->lost_other += lost.count;
			r->lost_other += lost.count;
		}
		break;
	case HTMTRACE_DTL_REC_CPU:
		memcpy(&cpu, rec, sizeof(cpu));
		s->events[cpu.event < NR_CPU_EVENTS ? cpu.event : 0]++;
		break;
	}
	return hdr->type != HTMTRACE_DTL_REC_ENTRY && !s->has_last ? 2 : 1;
}

/*
 * The end of a report: what waits in the window is printed, then the
 * summary (its waits converted with @clock, the last CLOCK record).
 */
static void report_end(struct report *r,
		       const struct htmtrace_dtl_clock *clock)
{
	if (r->worst)
		worst_emit(r);
	if (held_out(r, NULL, 0, ULLONG_MAX))
		pr_errno(ENOMEM, "report %s", r->file);
	while (r->nheap)
		heap_pop(r, 0);
	memcpy(&r->clock, clock, sizeof(r->clock));
	if (!r->sink)
		fmt_summary(r);
	if (r->bad_time)
		pr_err("%s: %llu entries ignored: time out of range (damaged timebase or clock record)",
		       r->file, (unsigned long long)r->bad_time);
	if (r->slots && r->out_of_order > r->out_of_order_full)
		pr_err("%s: %llu records came after the window had passed their time (%llu ms behind the newest timebase, or behind every CPU still delivering): printed out of time order",
		       r->file,
		       (unsigned long long)(r->out_of_order -
					    r->out_of_order_full),
		       (unsigned long long)r->window_ms);
	if (r->slots && r->out_of_order_full)
		pr_err("%s: %llu records came after the window, full (%u records), had printed records of later times: printed out of time order",
		       r->file, (unsigned long long)r->out_of_order_full,
		       REORDER_WINDOW);
	else if (!r->slots && r->out_of_order)
		pr_err("%s: %llu records more than %u records late in the file are printed out of time order",
		       r->file, (unsigned long long)r->out_of_order,
		       REORDER_WINDOW);
}

/*
 * Print a checked stream in time order (through the reorder window),
 * keeping the records of --cpu and --time (report_take()). Returns 0 or
 * -ENOMEM.
 */
int report_stream(struct report *r, const unsigned char *buf, size_t len)
{
	const struct htmtrace_dtl_clock *first = NULL;
	struct htmtrace_dtl_clock clock, next;
	struct htmtrace_dtl_rec hdr;
	size_t off, clock_off = 0;
	__u64 key, wait = 0;
	struct pending p;
	int kept;

	r->buf = buf;
	memset(&clock, 0, sizeof(clock));
	if (!r->sink) {
		/* JSON's "clock": the first CLOCK record, the session's. */
		for (off = r->start; r->fmt == FMT_JSON &&
		     dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
		     off += hdr.len) {
			if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
				memcpy(&clock, buf + off, sizeof(clock));
				first = &clock;
				break;
			}
		}
		fmt_begin(r, buf, first);
		memset(&clock, 0, sizeof(clock));
	}
	for (off = r->start; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&next, buf + off, sizeof(next));
			merge_clock(r, &clock, &next);
			clock = next;
			clock_off = off;
			if (!r->summary_only && !r->worst &&
			    heap_push(r, clock.timebase, off, clock_off))
				return -ENOMEM;
			continue;
		}
		kept = report_take(r, buf + off, &hdr, &clock, &key, &wait);
		if (kept < 0)
			return kept;
		if (!kept || r->summary_only)
			continue;
		if (r->worst) {
			p.key = wait;
			p.off = off;
			p.clock_off = clock_off;
			if (hdr.type != HTMTRACE_DTL_REC_ENTRY ||
			    !worst_keeps(r, &p))
				continue;
			worst_full(r);
			if (worst_add(r, &p))
				return -ENOMEM;
			continue;
		}
		if (kept == 2 ? held_add(r, hdr.cpu, key, buf + off, hdr.len,
					 off, clock_off) :
		    heap_push(r, key, off, clock_off))
			return -ENOMEM;
	}
	report_end(r, &clock);
	return 0;
}

/* A pipe: the first output, once it is known there is a report. */
static int pipe_begin(struct report *r, const unsigned char *header)
{
	if (r->on_begin && r->on_begin(r))
		return -1;
	fmt_begin(r, header, r->nclocks ? &r->clocks[0] : NULL);
	r->begun = 1;
	return 0;
}

/*
 * A pipe: print the records that can no longer be preceded (settled_at()).
 * Each CPU's records come in its time order: once every CPU seen has shown
 * a timebase, none older is to come; and the driver delivers a record
 * within its poll period (200 ms, at most 1 s), so none comes more than
 * the window behind the newest timebase: a CPU that has shown nothing
 * for longer (idle, offline, its capture ended) holds nothing back. The
 * first rule counts once the first window is over: every CPU of the
 * session has been seen by then.
 */
static void pipe_flush(struct report *r)
{
	__u64 t, held = ULLONG_MAX;
	size_t i;

	if (!r->begun || r->worst || !r->nheap || !r->nclocks ||
	    !settled_at(r, &r->clocks[r->nclocks - 1], NULL, &t))
		return;
	if (t > r->settled)
		r->settled = t;
	/* Nothing after a held record's time before it is in the window. */
	for (i = 0; i < r->nheld; i++)
		if (r->held[i].p.key < held)
			held = r->held[i].p.key;
	while (r->nheap && r->heap[0].key <= t &&
	       (!r->nheld || r->heap[0].key < held))
		heap_pop(r, 0);
}

/* A pipe: put a copy of the record @rec at @off in the window. */
static int pipe_push(struct report *r, const unsigned char *rec, size_t len,
		     __u64 key, size_t off)
{
	struct pending p = { .key = key, .off = off };

	if (r->worst && !worst_keeps(r, &p))
		return 0;
	/* What leaves frees its slot first: at most one per record held. */
	if (r->worst)
		worst_full(r);
	else
		heap_full(r);
	if (slot_get(r, rec, len, &p.slot))
		return -ENOMEM;
	return r->worst ? worst_add(r, &p) : heap_put(r, &p);
}

/* A pipe: a CLOCK record of the stream, kept for the records under it. */
static int pipe_clock(struct report *r, const struct htmtrace_dtl_clock *c)
{
	struct htmtrace_dtl_clock *n;

	n = realloc(r->clocks, (r->nclocks + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->clocks = n;
	r->clocks[r->nclocks++] = *c;
	return 0;
}

/* A pipe: make sure @n bytes from @rd->pos are read, unless it ends. */
static int pipe_need(struct dtl_reader *rd, size_t n)
{
	int err;

	while (!rd->eof && rd->have - rd->pos < n)
		if ((err = dtl_reader_fill(rd)))
			return err;
	return 0;
}

/**
 * report_pipe() - report a pipe or a device as its records arrive
 * @r: the report
 * @rd: the input
 * @why: out: why the records end before the input does
 * @why_len: the size of @why
 *
 * The same checks as dtl_check_stream()'s (dtl_check_rec() for each
 * record) and the same report as report_stream()'s, the records merged
 * in a window bounded by time (pipe_flush()), printed (and flushed)
 * before each read that waits.
 * Nothing is printed (r->on_begin() is not called) until a CLOCK record
 * has come and, with -C, a record of a CPU it lists: a stream that is
 * refused (not a capture, its first record damaged, an entry before any
 * CLOCK record) prints nothing. A CLOCK record with a timebase frequency
 * of 0 after the first one ends the report as damage does.
 *
 * Return: 0 for a whole capture, 1 for one reported up to r->end (@why
 * says why: no message yet), -1 after a message.
 */
int report_pipe(struct report *r, struct dtl_reader *rd, char *why,
		size_t why_len)
{
	struct dtl_cpus_held held = { .mask = NULL };
	struct htmtrace_dtl_clock clock, c;
	struct htmtrace_dtl_rec hdr;
	unsigned char *header = NULL;
	enum dtl_rec_status rs;
	int err, kept, have_clock = 0, ret = -1;
	size_t off = 0, nrec = 0;
	__u64 key, wait = 0;

	/* The file header, whole, before it is checked. */
	err = pipe_need(rd, 16);
	if (!err && rd->have >= 16 && !memcmp(rd->buf + 8, "HTMTRDTL", 8)) {
		memcpy(&hdr, rd->buf, sizeof(hdr));
		err = pipe_need(rd, hdr.len);
	}
	if (err)
		goto read_err;
	if (!rd->have && !r->header_only) {
		pr_err(DTL_MSG_EMPTY, r->file);
		return -1;
	}
	if (dtl_check_header(r->file, rd->buf, rd->have, &r->start))
		return -1;
	header = malloc(r->start + 1);
	if (!header) {
		err = -ENOMEM;
		goto fail;
	}
	memcpy(header, rd->buf, r->start);
	if (r->header_only) {
		/* The header alone, as perf report --header-only. */
		if (r->on_begin && r->on_begin(r))
			goto out;
		r->begun = 1;
		fmt_header_text(r, header);
		ret = 0;
		goto out;
	}
	rd->pos = r->start;
	r->piped = 1;
	memset(&clock, 0, sizeof(clock));
	for (;;) {
		off = rd->base + rd->pos;
		rs = dtl_rec_check_at(rd->buf, rd->have, rd->pos, !off, &hdr);
		if (!rd->eof && (rs == DTL_REC_END || rs == DTL_REC_TRUNC_HDR ||
				 rs == DTL_REC_TRUNC)) {
			/* What can go out goes, before the read waits. */
			pipe_flush(r);
			if (r->begun)
				fflush(stdout);
			err = dtl_reader_fill(rd);
			if (err)
				goto read_err;
			continue;
		}
		if (rs != DTL_REC_OK) {
			dtl_damage_why(why, why_len, rd->base + rd->have, off,
				       rs, &hdr);
			break;
		}
		if (dtl_check_rec(&have_clock, &hdr, rd->buf + rd->pos, off,
				  why, why_len)) {
			/* A later CLOCK of 0 once printing: damage. */
			if (hdr.type != HTMTRACE_DTL_REC_CLOCK || !r->begun) {
				pr_err("%s: %s", r->file, why);
				goto out;
			}
			rs = DTL_REC_SHORT;	/* damage, said by why */
			break;
		}
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&c, rd->buf + rd->pos, sizeof(c));
			merge_clock(r, &clock, &c);
			clock = c;
			err = pipe_clock(r, &clock);
			if (!err && !r->summary_only && !r->worst)
				err = pipe_push(r, rd->buf + rd->pos, hdr.len,
						clock.timebase, off);
			if (err)
				goto fail;
		} else {
			kept = report_take(r, rd->buf + rd->pos, &hdr, &clock,
					   &key, &wait);
			if (kept == 2 && !r->summary_only && !r->worst)
				kept = held_add(r, hdr.cpu, key,
						rd->buf + rd->pos, hdr.len,
						off, 0);
			else if (kept > 0 && !r->summary_only &&
				 (!r->worst ||
				  hdr.type == HTMTRACE_DTL_REC_ENTRY))
				kept = pipe_push(r, rd->buf + rd->pos, hdr.len,
						 r->worst ? wait : key, off);
			if (kept < 0) {
				err = kept;
				goto fail;
			}
		}
		err = dtl_held_add(&r->filt, &held, &hdr);
		if (err)
			goto fail;
		nrec++;
		rd->pos += hdr.len;
		if (!r->begun && ((r->nclocks && (!r->filt.cpus || held.found)) ||
				  r->nheap == REORDER_WINDOW) &&
		    pipe_begin(r, header))
			goto out;
	}
	r->end = off;
	if (!nrec) {
		/* Nothing readable: no report. */
		if (rs == DTL_REC_END)
			pr_err(DTL_MSG_NO_RECORDS, r->file);
		else
			pr_err("%s: %s", r->file, why);
		goto out;
	}
	if (!r->begun && r->filt.cpus && !held.found) {
		/* -C: none of the CPUs: said, nothing printed. */
		err = dtl_held_say(&r->filt, r->file, &held);
		if (err < 0)
			goto fail;
		goto out;
	}
	if (!r->begun && pipe_begin(r, header))
		goto out;
	err = dtl_held_say(&r->filt, r->file, &held);
	if (err < 0)
		goto fail;
	if (rs != DTL_REC_END)
		r->damage = why;
	report_end(r, &clock);
	ret = r->damage ? 1 : 0;
	goto out;

read_err:
	pr_errno(-err, "read %s", r->file);
	goto out;
fail:
	pr_errno(-err, "report %s", r->file);
out:
	free(held.mask);
	free(header);
	return ret;
}
