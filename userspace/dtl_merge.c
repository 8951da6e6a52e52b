// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: merging. The records of a checked capture go out in
 * time order through a bounded reorder window (the CPUs' logs interleave
 * in the file), and are summed per CPU and per reason on the way.
 */
#include <errno.h>
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

/* Take the earliest pending record out of the window and print it. */
static void heap_pop(struct report *r)
{
	struct pending top = heap_take(r->heap, &r->nheap, pending_before);

	if (r->emitted && top.key < r->last_key)
		r->out_of_order++;
	else
		r->last_key = top.key;
	r->emitted = 1;
	if (r->sink)
		r->sink(r, &top);
	else
		fmt_record(r, &top);
}

/* Put a record in the window; the earliest leaves it once it is full. */
static int heap_push(struct report *r, __u64 key, size_t off,
		     size_t clock_off)
{
	struct pending p = { key, off, clock_off };

	if (r->nheap == REORDER_WINDOW)
		heap_pop(r);
	if (heap_room(r))
		return -ENOMEM;
	heap_add(r->heap, &r->nheap, p, pending_before);
	return 0;
}

/* --worst N: keep the entry if it is among the N longest waits so far. */
static int worst_push(struct report *r, __u64 wait, size_t off,
		      size_t clock_off)
{
	struct pending p = { wait, off, clock_off };

	if (r->nheap == r->worst) {
		if (!less_worse(&r->heap[0], &p))
			return 0;
		heap_take(r->heap, &r->nheap, less_worse);
	}
	if (heap_room(r))
		return -ENOMEM;
	heap_add(r->heap, &r->nheap, p, less_worse);
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
		fmt_record(r, &r->heap[i]);
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
}

/*
 * Print a checked stream in time order (through the reorder window),
 * keeping the records of --cpu and --time. An entry's time is its
 * timebase, a CLOCK's its own; a LOST or CPU record takes the time of its
 * CPU's entry before it in the file (or of the CLOCK in force). Returns 0
 * or -ENOMEM.
 */
int report_stream(struct report *r, const unsigned char *buf, size_t len)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;
	struct cpu_sum *s;
	size_t off, clock_off = 0;
	__u64 key, wait;

	r->buf = buf;
	if (!r->sink)
		fmt_begin(r, buf, len);
	memset(&clock, 0, sizeof(clock));
	for (off = r->start; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&clock, buf + off, sizeof(clock));
			clock_off = off;
			if (!r->summary_only && !r->worst &&
			    heap_push(r, clock.timebase, off, clock_off))
				return -ENOMEM;
			continue;
		}
		if (hdr.type != HTMTRACE_DTL_REC_ENTRY &&
		    hdr.type != HTMTRACE_DTL_REC_LOST &&
		    hdr.type != HTMTRACE_DTL_REC_CPU) {
			r->unknown++;
			continue;
		}
		if (!dtl_filter_cpu(&r->filt, hdr.cpu))
			continue;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			memcpy(&er, buf + off, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			/* A damaged timebase or clock: counted, not printed. */
			if (clock.tb_freq && dtl_entry_time(&clock, &e, NULL)) {
				r->bad_time++;
				continue;
			}
		}
		s = cpu_sum(r, hdr.cpu);
		if (!s)
			return -ENOMEM;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			key = e.timebase;
			s->last_tb = key;
			s->has_last = 1;
		} else {
			key = s->has_last ? s->last_tb : clock.timebase;
		}
		if (clock.tb_freq && !dtl_filter_time(&r->filt, &clock, key))
			continue;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY &&
		    !dtl_filter_entry(&r->filt, &clock, &e))
			continue;
		switch (hdr.type) {
		case HTMTRACE_DTL_REC_ENTRY:
			wait = (__u64)e.enqueue_to_dispatch +
			       e.ready_to_enqueue + e.waiting_to_ready;
			if (!s->entries) {
				s->first_tb = e.timebase;
				s->first_wait = wait;
			}
			if (e.timebase > s->end_tb)
				s->end_tb = e.timebase;
			s->not_dispatched += wait;
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
			break;
		case HTMTRACE_DTL_REC_LOST:
			memcpy(&lost, buf + off, sizeof(lost));
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
			memcpy(&cpu, buf + off, sizeof(cpu));
			s->events[cpu.event < NR_CPU_EVENTS ? cpu.event : 0]++;
			break;
		}
		if (r->summary_only)
			continue;
		if (r->worst) {
			if (hdr.type == HTMTRACE_DTL_REC_ENTRY &&
			    worst_push(r, e.enqueue_to_dispatch, off, clock_off))
				return -ENOMEM;
			continue;
		}
		if (heap_push(r, key, off, clock_off))
			return -ENOMEM;
	}
	if (r->worst)
		worst_emit(r);
	while (r->nheap)
		heap_pop(r);
	/* The summary converts waits with the last clock. */
	memcpy(&r->clock, &clock, sizeof(r->clock));
	if (!r->sink)
		fmt_summary(r);
	if (r->bad_time)
		pr_err("%s: %llu entries ignored: time out of range (damaged timebase or clock record)",
		       r->file, (unsigned long long)r->bad_time);
	if (r->out_of_order)
		pr_err("%s: %llu records more than %u records late in the file are printed out of time order",
		       r->file, (unsigned long long)r->out_of_order,
		       REORDER_WINDOW);
	return 0;
}
