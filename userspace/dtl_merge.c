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

/* Take the earliest pending record out of the window and print it. */
static void heap_pop(struct report *r)
{
	struct pending top = heap_take(r->heap, &r->nheap, pending_before);

	if (r->emitted && top.key < r->last_key)
		r->out_of_order++;
	else
		r->last_key = top.key;
	r->emitted = 1;
	emit(r, &top);
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

	if (r->nheap == REORDER_WINDOW)
		heap_pop(r);
	return heap_put(r, &p);
}

/* --worst N: the entry @p would be among the N longest waits so far. */
static int worst_keeps(const struct report *r, const struct pending *p)
{
	return r->nheap < r->worst || less_worse(&r->heap[0], p);
}

/* --worst N: keep the entry @p (worst_keeps() said so). */
static int worst_push(struct report *r, const struct pending *p)
{
	struct pending out;

	if (r->nheap == r->worst) {
		out = heap_take(r->heap, &r->nheap, less_worse);
		if (r->slots)
			slot_put(r, out.slot);
	}
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
}

/*
 * The record @rec (with @hdr, not a CLOCK), under @clock: summed where
 * --cpu and --time keep it. An entry's time is its timebase; a LOST or CPU
 * record takes the time of its CPU's entry before it in the stream (or of
 * @clock). Returns 1 if it is printed, with its time in *@key (and an
 * entry's dispatch wait in *@wait), 0 if not, or -ENOMEM.
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
	s = cpu_sum(r, hdr->cpu);
	if (!s)
		return -ENOMEM;
	if (hdr->type == HTMTRACE_DTL_REC_ENTRY) {
		*key = e.timebase;
		s->last_tb = e.timebase;
		s->has_last = 1;
		if (e.timebase > r->newest)
			r->newest = e.timebase;
	} else {
		*key = s->has_last ? s->last_tb : clock->timebase;
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
	return 1;
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
	while (r->nheap)
		heap_pop(r);
	memcpy(&r->clock, clock, sizeof(r->clock));
	if (!r->sink)
		fmt_summary(r);
	if (r->bad_time)
		pr_err("%s: %llu entries ignored: time out of range (damaged timebase or clock record)",
		       r->file, (unsigned long long)r->bad_time);
	if (r->out_of_order && r->slots)
		pr_err("%s: %llu records came after the window had passed their time (%llu ms behind the newest timebase, or behind every CPU still delivering): printed out of time order",
		       r->file, (unsigned long long)r->out_of_order,
		       (unsigned long long)r->window_ms);
	else if (r->out_of_order)
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
	struct htmtrace_dtl_clock clock;
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
			memcpy(&clock, buf + off, sizeof(clock));
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
			if (hdr.type == HTMTRACE_DTL_REC_ENTRY &&
			    worst_keeps(r, &p) && worst_push(r, &p))
				return -ENOMEM;
			continue;
		}
		if (heap_push(r, key, off, clock_off))
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
 * A pipe: print the records that can no longer be preceded. Each CPU's
 * records come in its time order: once every CPU seen has shown a
 * timebase, none older is to come; and the driver delivers a record
 * within its poll period (200 ms, at most 1 s), so none comes more than
 * the window behind the newest timebase: a CPU that has shown nothing
 * for longer (idle, offline, its capture ended) holds nothing back. The
 * first rule counts once the first window is over: every CPU of the
 * session has been seen by then.
 */
static void pipe_flush(struct report *r)
{
	const struct htmtrace_dtl_clock *c;
	__u64 w, t, m = ULLONG_MAX;
	size_t i;

	if (!r->begun || r->worst || !r->nheap || !r->nclocks)
		return;
	c = &r->clocks[r->nclocks - 1];
	if (c->tb_freq / 1000 > ULLONG_MAX / r->window_ms)
		return;
	w = c->tb_freq / 1000 * r->window_ms +
	    c->tb_freq % 1000 * r->window_ms / 1000;
	if (r->newest < w)
		return;
	t = r->newest - w;
	if (t >= r->clocks[0].timebase) {
		for (i = 0; i < r->cpus_sum.n; i++) {
			const struct cpu_sum *s =
				(struct cpu_sum *)r->cpus_sum.elems + i;

			if ((s->has_last ? s->last_tb : 0) < m)
				m = s->has_last ? s->last_tb : 0;
		}
		if (m != ULLONG_MAX && m > t)
			t = m;
	}
	while (r->nheap && r->heap[0].key <= t)
		heap_pop(r);
}

/* A pipe: put a copy of the record @rec at @off in the window. */
static int pipe_push(struct report *r, const unsigned char *rec, size_t len,
		     __u64 key, size_t off)
{
	struct pending p = { .key = key, .off = off };

	if (r->worst && !worst_keeps(r, &p))
		return 0;
	if (slot_get(r, rec, len, &p.slot))
		return -ENOMEM;
	if (r->worst)
		return worst_push(r, &p);
	if (r->nheap == REORDER_WINDOW)
		heap_pop(r);
	return heap_put(r, &p);
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
 * The same checks as dtl_check_stream()'s and the same report as
 * report_stream()'s, the records merged in a window bounded by time
 * (pipe_flush()), printed (and flushed) before each read that waits.
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
	int err, kept, ret = -1;
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
		pr_err("%s: empty file: no records", r->file);
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
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&c, rd->buf + rd->pos, sizeof(c));
			if (!c.tb_freq) {
				snprintf(why, why_len, "CLOCK record at offset %zu: timebase frequency 0",
					 off);
				if (!r->begun) {
					pr_err("%s: %s", r->file, why);
					goto out;
				}
				rs = DTL_REC_SHORT;	/* damage, said by why */
				break;
			}
			clock = c;
			err = pipe_clock(r, &clock);
			if (!err && !r->summary_only && !r->worst)
				err = pipe_push(r, rd->buf + rd->pos, hdr.len,
						clock.timebase, off);
			if (err)
				goto fail;
		} else if (hdr.type == HTMTRACE_DTL_REC_ENTRY && !r->nclocks) {
			pr_err("%s: ENTRY record at offset %zu comes before any CLOCK record: its time cannot be converted",
			       r->file, off);
			goto out;
		} else {
			kept = report_take(r, rd->buf + rd->pos, &hdr, &clock,
					   &key, &wait);
			if (kept > 0 && !r->summary_only &&
			    (!r->worst || hdr.type == HTMTRACE_DTL_REC_ENTRY))
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
			pr_err("%s: no records after the file header", r->file);
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
