// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the "htm" perf PMU.
 *
 * For users who have perf: one event traces one HTM target, held in the
 * same target registry as the /dev/htmN channels (a target held by either
 * gives -EBUSY to the other), through the same hypervisor boundary, retry
 * policy and counters. The life of an event:
 *
 *	perf_event_open	claim the target, CONFIGURE it (no-wrap, the
 *			hypervisor's default mode) and learn the size of its
 *			buffer (STATUS): an error is the open's errno
 *	first add	START the trace, once in the event's life; a
 *			hypervisor busy for it is asked again when its hint
 *			says, by a timer on the event's CPU, within 10 s
 *			(htm_pmu_start_try())
 *	read()		the first ends the trace: a START still waiting has
 *			failed; else it STOPs the trace (a STOP that fails
 *			ends the dump: no DUMP_DATA of a trace the hypervisor
 *			may still write, as htm-perf.c); each streams the
 *			next part of the HTM buffer into the AUX area
 *	close (destroy)	STOP if needed, DECONFIGURE, release the target
 *
 * add and del are gates, nothing more: the perf core calls them for more
 * than enable and disable (a task with a pinned event switched in on the
 * event's CPU makes it del and add the CPU's flexible events), and the
 * traced unit does not depend on what runs on the CPU. So a trace is never
 * restarted or stopped by them: a dump in progress goes on, one trace,
 * byte-exact. A new trace is a new event (one per perf record session, as
 * the perf tool opens them): START after STOP without a new CONFIGURE,
 * which public code never does, is never asked for.
 *
 * The count a read() returns says what to do next (the HTM perf series'
 * semantics): N > 0 trace records (128 bytes each) were just written into
 * the AUX area; 1 when the AUX area has too little room, or the hypervisor
 * is busy: drain it and read again; 0 when the dump is over, or ended on
 * an error. An error (START, STOP or DUMP_DATA failed, or stayed busy past
 * the bound) also ends the AUX stream with one PERF_RECORD_AUX of size 0
 * flagged PERF_AUX_FLAG_TRUNCATED, in the read that meets it or the first
 * one after it with an AUX area: perf report and perf script warn "AUX
 * data lost N times", and the perf core is asked to disable the event, as
 * htm-perf.c (@b64f8fcc) disables it after a failed add; reads count 0
 * from then on. The kernel log names the request.
 *
 * The HTM perf series also sends the memory configuration as RAW samples.
 * A module cannot: the kernel exports nothing that writes a sample
 * (perf_event_overflow() is built-in only). An event asking for
 * PERF_SAMPLE_RAW is accepted, so that the series' perf records the trace,
 * and gets none; the configuration is read with HTMTRACE_IOC_SYSMEM
 * (htmtrace sysmem, htmtrace record's translation file) instead.
 *
 * perf_event_open runs in process context under the default policy
 * (long-busy answers waited out up to 10 s; a signal ends the wait, and
 * the open fails with -ERESTARTSYS); close (destroy) under the teardown
 * policy (the same bound, signals ignored: a close cannot be restarted).
 * add, del, read and the START timer run with interrupts off: H_BUSY is
 * retried, H_LONG_BUSY_* ends the request rather than sleeping. A STOP or
 * a dump the hypervisor is busy for reads 1 (read again: the reader's pace
 * is the wait), for 10 s at most, like the channels' bound on long-busy
 * sleeps. A START it is busy for is asked again no sooner than its hint
 * says, never per read or per tick: a non-zero return from add would have
 * the perf core retry it at every tick (htm-perf.c@b64f8fcc, htm_event_add()).
 *
 * The hypervisor writes the trace straight into the AUX pages: each
 * DUMP_DATA covers one physically contiguous run of them (htm_aux_plan()).
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <asm/byteorder.h>
#include <asm/hvcall.h>

#include "htmtrace.h"
#include "htm_internal.h"

/* Where an event's dump is. */
enum htm_pmu_phase {
	HTM_PMU_TRACE,		/* not dumped yet: the trace may run */
	HTM_PMU_DATA,		/* the trace is being streamed into AUX */
	HTM_PMU_FAILED,		/* ended on an error the AUX stream has not told */
	HTM_PMU_DONE,		/* nothing more: reads count 0 */
};

/**
 * struct htm_pmu_event - an htm event's state (event->pmu_private)
 * @node: in the PMU's list of events
 * @cpu: the event's CPU
 * @target: the target it holds
 * @hv: the backend
 * @phase: HTM_PMU_*
 * @tracing: START succeeded and no STOP since
 * @start: START's progress; @start.tries is 0 until the first add asks
 * @start_timer: asks START again when a busy answer's hint has passed
 *	(pinned to the event's CPU, hard interrupt context)
 * @truncated: PERF_AUX_FLAG_TRUNCATED records written (0 or 1)
 * @stop_refused: the hypervisor answered STOP with H_STATE: the dump ended
 *	without a DUMP_DATA, and the close DECONFIGUREs without a new STOP
 * @hw_size: the HTM buffer's size, from STATUS at open; 0 if unknown (the
 *	dump then goes on until the hypervisor says the data ends)
 * @pos: offset in the HTM buffer of the next byte to dump
 * @max_xfer: most bytes one DUMP_DATA asks for: the bounce size (bounce_kb)
 *	or what the target took before (htm_target_xfer()), halved when the
 *	hypervisor refuses a length (htm_xfer_shrink())
 * @page: a page for STATUS, and the bounce page: the trace's page at
 *	@page_pos, for an AUX area with room for less than a page
 * @page_pos: trace offset of the page @page holds, U64_MAX for none
 * @busy_since: when the hypervisor began answering the dump busy, 0 if not
 * @stats: hypervisor call counters
 *
 * Written at open and close (process context, no callback can run, the
 * timer cancelled first) and on the event's CPU with interrupts off (add,
 * del, read, and @start_timer's callback, which runs there in hard
 * interrupt context): never concurrently.
 * debugfs reads it without a lock: a snapshot, maybe torn between fields.
 */
struct htm_pmu_event {
	struct list_head node;
	int cpu;
	struct htm_target target;
	const struct htmtrace_hv_ops *hv;
	enum htm_pmu_phase phase;
	bool tracing;
	struct htm_pmu_start start;
	struct hrtimer start_timer;
	unsigned int truncated;
	bool stop_refused;
	u64 hw_size;
	u64 pos;
	size_t max_xfer;
	void *page;
	u64 page_pos;
	ktime_t busy_since;
	struct htm_hv_stats stats;
};

/**
 * struct htm_aux - the AUX area of an htm event's ring buffer
 * @size: bytes
 * @nr_pages: pages (a power of two)
 * @virt: the pages' kernel addresses
 * @phys: the pages' physical addresses
 */
struct htm_aux {
	size_t size;
	unsigned int nr_pages;
	void **virt;
	phys_addr_t *phys;
};

/* The PMU, while registered, and its events. */
static struct htm_perf htm_pmu_perf;

/* config */

/**
 * htm_pmu_config_decode() - the target an htm event's config names
 * @config: perf_event_attr.config: htm_type 0-3, nodeindex 4-11,
 *	nodalchipindex 12-19, coreindexonchip 20-27
 * @t: receives the target
 *
 * Return: 0, or -EINVAL for a type other than nest, core and llat, or a bit
 * set above 27.
 */
int htm_pmu_config_decode(u64 config, struct htm_target *t)
{
	u8 type = config & 0xf;

	if (config >> 28)
		return -EINVAL;
	if (type != HTMTRACE_TYPE_NEST && type != HTMTRACE_TYPE_CORE &&
	    type != HTMTRACE_TYPE_LLAT)
		return -EINVAL;
	t->type = type;
	t->node = (config >> 4) & 0xff;
	t->chip = (config >> 12) & 0xff;
	t->core = (config >> 20) & 0xff;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_pmu_config_decode);

/* the dump into the AUX area */

/**
 * htm_aux_plan() - the next chunk of the trace to dump straight into AUX
 * @phys: physical address of each AUX page
 * @nr_pages: number of AUX pages
 * @off: AUX offset the chunk goes to
 * @room: bytes free in the AUX area from @off on
 * @left: bytes of the trace not dumped yet, not 0 (U64_MAX: unknown)
 * @max_xfer: most bytes one DUMP_DATA may ask for, at least a page
 *
 * The hypervisor is asked for whole pages at a page-aligned address, as
 * every public caller does: a chunk starts at a page-aligned @off, covers
 * whole pages of one physically contiguous run of AUX pages, at most @room
 * and @max_xfer bytes, and is asked for in whole pages even where the trace
 * ends sooner (then only @left bytes of it are trace).
 *
 * Return: the bytes of trace the chunk holds (the request is that rounded
 * up to a page), or 0 if no such chunk fits (@off not page aligned, or
 * less than a page of room): the bounce page then serves what fits.
 */
size_t htm_aux_plan(const phys_addr_t *phys, unsigned int nr_pages,
		    size_t off, size_t room, u64 left, size_t max_xfer)
{
	size_t size = (size_t)nr_pages << PAGE_SHIFT;
	unsigned int i = off >> PAGE_SHIFT;
	size_t n, run;

	if (off & ~PAGE_MASK)
		return 0;
	n = round_down(min(room, max_xfer), PAGE_SIZE);
	if (!n)
		return 0;

	/* The run of physically contiguous pages from @off, not past the end. */
	run = PAGE_SIZE;
	while (++i < nr_pages && run < n && phys[i] == phys[i - 1] + PAGE_SIZE)
		run += PAGE_SIZE;
	n = min3(n, run, size - off);
	return min_t(u64, n, left);
}
EXPORT_SYMBOL_IF_KUNIT(htm_aux_plan);

/* Copy @len bytes to AUX offset @off, across pages and runs. */
static void htm_aux_copy(struct htm_aux *aux, size_t off, const void *src,
			 size_t len)
{
	while (len) {
		size_t in = off & ~PAGE_MASK;
		size_t n = min(len, PAGE_SIZE - in);

		memcpy(aux->virt[off >> PAGE_SHIFT] + in, src, n);
		src += n;
		len -= n;
		off = (off + n) & (aux->size - 1);
	}
}

static int htm_pmu_call(struct htm_pmu_event *ev, const struct htm_target *t,
			const struct htm_hv_policy *policy, unsigned int op,
			unsigned long p1, unsigned long p2, unsigned long p3,
			long *hrc)
{
	return htm_hv_call_policy(ev->hv, policy, &ev->stats, t,
				  HTM_FLAGS_NOWRAP, op, p1, p2, p3, hrc);
}

/*
 * A request ended the dump on an error: named in the kernel log, and told
 * in the AUX stream by the read that meets it (htm_pmu_truncate()).
 */
static void htm_pmu_failed(struct htm_pmu_event *ev, const char *what, int err)
{
	pr_warn_ratelimited("htm pmu: type %u node %u chip %u core %u: %s failed (%d)\n",
			    ev->target.type, ev->target.node, ev->target.chip,
			    ev->target.core, what, err);
	ev->phase = HTM_PMU_FAILED;
}

/*
 * Tell a failed dump's end in the AUX stream, through @handle (begun on the
 * event's AUX area, ended by the caller): a PERF_RECORD_AUX of size 0
 * flagged TRUNCATED, once. perf_aux_output_end() then asks the perf core
 * to disable the event (at its next sched-out; 6.12 loses the request on
 * CPU 0, whose number it stores as the flag), as htm-perf.c@b64f8fcc
 * disables an event whose add failed (perf_event_disable_inatomic(),
 * which a module cannot call). Either way the reads count 0 from here.
 */
static void htm_pmu_truncate(struct htm_pmu_event *ev,
			     struct perf_output_handle *handle)
{
	perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
	WRITE_ONCE(ev->truncated, ev->truncated + 1);
	ev->phase = HTM_PMU_DONE;
}

/*
 * A failed dump with no AUX record said yet (the error came outside the
 * dump: START, STOP): say it now, if an AUX area is mapped; else the first
 * read that finds one does.
 */
static void htm_pmu_say_failed(struct perf_event *event,
			       struct htm_pmu_event *ev)
{
	struct perf_output_handle handle;

	if (!perf_aux_output_begin(&handle, event))
		return;
	htm_pmu_truncate(ev, &handle);
	perf_aux_output_end(&handle, 0);
}

/**
 * htm_pmu_start_try() - ask START of an htm event's trace, with interrupts off
 * @hv: the backend
 * @stats: the event's counters
 * @t: the event's target
 * @st: START's progress, zeroed before the first try
 * @now: the time of this try (ktime_get())
 * @bound_ms: the long-busy bound (10 s)
 *
 * Under the atomic policy: H_BUSY is retried at once, a long-busy answer
 * ends the request. Such a busy answer sets when START may be asked again:
 * its hint later; after an H_BUSY that outlasted its retries, 1 ms later,
 * doubled at each such answer up to HTM_PMU_BUSY_MAX_MS (each request is
 * a hundred hcalls with interrupts off: never a flood); and ends
 * START with -EBUSY once that would pass @bound_ms from the first busy
 * answer, the rule of the channels' long-busy sleeps (hv.c).
 *
 * Return: 0 once the trace runs; -EAGAIN if the hypervisor was busy: ask
 * again at @st->next; else the errno that ends START for good (-EBUSY
 * past the bound, or htm_hv_op_errno() of the answer).
 */
int htm_pmu_start_try(const struct htmtrace_hv_ops *hv,
		      struct htm_hv_stats *stats, const struct htm_target *t,
		      struct htm_pmu_start *st, ktime_t now,
		      unsigned int bound_ms)
{
	long hrc = H_SUCCESS;
	unsigned int ms;
	int ret;

	st->tries++;
	ret = htm_hv_call_policy(hv, &htm_hv_atomic_policy, stats, t,
				 HTM_FLAGS_NOWRAP, HTM_OP_START, 0, 0, 0,
				 &hrc);
	if (ret != -EBUSY)
		return ret;
	if (H_IS_LONG_BUSY(hrc)) {
		ms = get_longbusy_msecs(hrc);
	} else {
		st->busy_ms = st->busy_ms ?
			      min(st->busy_ms * 2, HTM_PMU_BUSY_MAX_MS) : 1;
		ms = st->busy_ms;
	}
	if (!st->busy_since)
		st->busy_since = now;
	if (ktime_ms_delta(now, st->busy_since) + ms > bound_ms)
		return -EBUSY;
	st->next = ktime_add_ms(now, ms);
	return -EAGAIN;
}
EXPORT_SYMBOL_IF_KUNIT(htm_pmu_start_try);

/*
 * START, or START again: on the event's CPU with interrupts off. Return:
 * as htm_pmu_start_try(); on -EAGAIN the caller sees that @start_timer
 * fires at @start.next.
 */
static int htm_pmu_start_trace(struct htm_pmu_event *ev)
{
	int ret;

	ret = htm_pmu_start_try(ev->hv, &ev->stats, &ev->target, &ev->start,
				ktime_get(),
				htm_hv_long_busy_max_ms(&htm_hv_default_policy));
	if (!ret)
		ev->tracing = true;
	else if (ret != -EAGAIN)
		htm_pmu_failed(ev, "START", ret);
	return ret;
}

/* Is START waited for: asked, busy, and neither done nor failed? */
static bool htm_pmu_start_waits(const struct htm_pmu_event *ev)
{
	return ev->phase == HTM_PMU_TRACE && !ev->tracing && ev->start.tries;
}

/* START's hint has passed: ask again, on the event's CPU. */
static enum hrtimer_restart htm_pmu_start_timer(struct hrtimer *timer)
{
	struct htm_pmu_event *ev = container_of(timer, struct htm_pmu_event,
						start_timer);

	if (!htm_pmu_start_waits(ev) || htm_pmu_start_trace(ev) != -EAGAIN)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, ev->start.next);
	return HRTIMER_RESTART;
}

/* How the event asks the hypervisor about its target. */
static void htm_pmu_caller(struct htm_pmu_event *ev,
			   const struct htm_hv_policy *policy,
			   struct htm_caller *c)
{
	c->hv = ev->hv;
	c->stats = &ev->stats;
	c->target = &ev->target;
	c->flags = HTM_FLAGS_NOWRAP;
	c->policy = policy;
	c->yield = NULL;
}

/* STOP (see htm_trace_stop()); a refused STOP marks the event stop_refused. */
static int htm_pmu_stop_trace(struct htm_pmu_event *ev,
			      const struct htm_hv_policy *policy)
{
	struct htm_caller c;
	int ret;

	htm_pmu_caller(ev, policy, &c);
	ret = htm_trace_stop(&c, &ev->stop_refused);
	if (!ret)
		ev->tracing = false;
	return ret;
}

/*
 * The hypervisor stayed busy (-EBUSY) for a request of the dump: may the
 * reader come back for it? Yes for 10 s from the first such answer.
 */
static bool htm_pmu_busy(struct htm_pmu_event *ev, int err)
{
	if (err != -EBUSY)
		return false;
	if (!ev->busy_since)
		ev->busy_since = ktime_get();
	return ktime_ms_delta(ktime_get(), ev->busy_since) <
	       htm_hv_long_busy_max_ms(&htm_hv_default_policy);
}

/*
 * DUMP_DATA the trace at @pos, a page-aligned offset, to @dst, a
 * page-aligned address: *@len bytes of trace, asked for in whole pages
 * (htm_dump_chunk()); *@len shrinks with the transfer size on H_P5. Return:
 * 0, -ENODATA at the end of the data, or the errno.
 */
static int htm_pmu_fetch(struct htm_pmu_event *ev, void *dst, size_t *len,
			 u64 pos)
{
	struct htm_chunk ck = { .buf = dst, .base = pos, .end = pos + *len };
	struct htm_caller c;
	int ret;

	htm_pmu_caller(ev, &htm_hv_atomic_policy, &c);
	ret = htm_dump_chunk(&c, &ck, pos, &ev->max_xfer);
	*len = ck.len;
	return ret;
}

/*
 * Stream the next chunk of the trace into the AUX area: whole pages
 * straight from the hypervisor where they fit, else, through the bounce
 * page, the records of one page that fit. Return: records written; 1 if
 * the AUX area has no room for a record; 0 once the trace is all there
 * (the hypervisor said the data ends, or the buffer size STATUS gave is
 * reached) or on an error (the dump ends, its AUX record flagged
 * TRUNCATED).
 */
static u64 htm_pmu_dump(struct perf_event *event, struct htm_pmu_event *ev)
{
	struct perf_output_handle handle;
	u64 left, page;
	struct htm_aux *aux;
	size_t off, room, len = 0;
	int ret;

	left = ev->hw_size ? ev->hw_size - ev->pos : U64_MAX;
	if (!left) {
		ev->phase = HTM_PMU_DONE;
		return 0;
	}
	aux = perf_aux_output_begin(&handle, event);
	if (!aux) {
		/*
		 * No AUX area (not mapped yet, or unmapped): nothing is lost,
		 * the dump goes on from here once one is mapped.
		 */
		return 0;
	}
	off = handle.head & (aux->size - 1);
	/*
	 * Leave the area never full: perf_aux_output_begin() on a full area
	 * disables the event, and a reader that released an odd number of
	 * bytes could find no room for a record again. One byte is kept.
	 */
	room = handle.size ? handle.size - 1 : 0;

	/*
	 * Without a size, a page at a time (htm_dump_chunk()): a longer
	 * request could reach past the buffer's end.
	 */
	if (IS_ALIGNED(ev->pos, PAGE_SIZE))
		len = htm_aux_plan(aux->phys, aux->nr_pages, off, room, left,
				   ev->hw_size ? ev->max_xfer :
				   min_t(size_t, ev->max_xfer, PAGE_SIZE));
	if (len) {
		ret = htm_pmu_fetch(ev, aux->virt[off >> PAGE_SHIFT] +
				    (off & ~PAGE_MASK), &len, ev->pos);
		if (ret)
			goto fail;
	} else {
		page = round_down(ev->pos, PAGE_SIZE);
		len = ev->hw_size ? min_t(u64, PAGE_SIZE, ev->hw_size - page) :
				    PAGE_SIZE;
		if (ev->page_pos != page) {
			ev->page_pos = U64_MAX;
			ret = htm_pmu_fetch(ev, ev->page, &len, page);
			if (ret)
				goto fail;
			ev->page_pos = page;
		}
		len = min_t(u64, page + len - ev->pos,
			    round_down(room, HTM_RECORD_SIZE));
		if (!len) {
			perf_aux_output_end(&handle, 0);
			return 1;
		}
		htm_aux_copy(aux, off, ev->page + (ev->pos - page), len);
	}
	ev->pos += len;
	ev->busy_since = 0;
	perf_aux_output_end(&handle, len);
	return max_t(u64, len / HTM_RECORD_SIZE, 1);

fail:
	if (ret == -ENODATA) {
		/* The end of the data, wherever it comes (htm-perf.c). */
		ev->phase = HTM_PMU_DONE;
		perf_aux_output_end(&handle, 0);
		return 0;
	}
	if (htm_pmu_busy(ev, ret)) {
		perf_aux_output_end(&handle, 0);
		return 1;
	}
	htm_pmu_failed(ev, "DUMP_DATA", ret);
	htm_pmu_truncate(ev, &handle);
	perf_aux_output_end(&handle, 0);
	return 0;
}

/* perf callbacks */

/* Set while the PMU is registered: the backend its events use. */
static const struct htmtrace_hv_ops *htm_pmu_hv;

/* Sample fields the HTM PMU proposal refuses (htm-perf.c htm_event_init()). */
#define HTM_PMU_SAMPLE_REFUSED	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER | \
				 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | \
				 PERF_SAMPLE_AUX)

/**
 * htm_pmu_event_check() - what an htm event's attributes must be
 * @event: the event being opened
 *
 * The refusals of the HTM PMU proposal (htm-perf.c htm_event_init()), with
 * its errnos: -EOPNOTSUPP for inherit, a counting event, a branch stack and
 * the sample fields of HTM_PMU_SAMPLE_REFUSED; -EACCES without CAP_PERFMON
 * (or CAP_SYS_ADMIN); -EINVAL for frequency mode. And what a module must
 * add: -EINVAL for config1 or config2 (no term uses them), a per-task
 * event, an exclude bit (checked before the hypervisor is asked: the perf
 * core checks them after event_init), and an event that is a group's
 * member or has siblings (a sibling's PERF_SAMPLE_READ would read it, and
 * so dump, from any context).
 *
 * Return: 0 or the errno.
 */
int htm_pmu_event_check(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;

	if (attr->inherit)
		return -EOPNOTSUPP;
	if (!perfmon_capable())
		return -EACCES;
	if (!is_sampling_event(event) || has_branch_stack(event) ||
	    attr->sample_type & HTM_PMU_SAMPLE_REFUSED)
		return -EOPNOTSUPP;
	if (attr->freq || attr->config1 || attr->config2)
		return -EINVAL;
	if (event->cpu < 0 || event->attach_state & PERF_ATTACH_TASK ||
	    event_has_any_exclude_flag(event) || event->group_leader != event)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_pmu_event_check);

static void htm_pmu_free(struct htm_pmu_event *ev)
{
	free_page((unsigned long)ev->page);
	kfree(ev);
}

/*
 * DECONFIGURE the event's target at teardown, waiting out a busy hypervisor
 * whatever signal is pending (a close cannot restart), within the usual
 * bound; then give the target back, or, if the unit may stay configured,
 * keep it from every user (htm_target_strand()).
 */
static void htm_pmu_deconfigure(struct htm_pmu_event *ev, int stop)
{
	int ret;

	ret = htm_pmu_call(ev, &ev->target, &htm_hv_teardown_policy,
			   HTM_OP_DECONFIGURE, 0, 0, 0, NULL);
	if (stop)
		pr_warn("htm pmu: type %u node %u chip %u core %u: STOP failed (%d), DECONFIGURE %d\n",
			ev->target.type, ev->target.node, ev->target.chip,
			ev->target.core, stop, ret);
	if (ret)
		htm_target_strand(&ev->target, ev, "DECONFIGURE", ret);
	else
		htm_target_release(&ev->target, ev);
	/* What the dump shrank to, learned with interrupts off. */
	htm_target_xfer_learn(&ev->target, ev->max_xfer);
}

/* Undo a successful htm_pmu_event_init(), in process context. */
static void htm_pmu_destroy(struct perf_event *event)
{
	struct htm_pmu_event *ev = event->pmu_private;
	int stop = 0;

	/* No START after this: a START that still waits never comes. */
	hrtimer_cancel(&ev->start_timer);
	if (ev->tracing && !ev->stop_refused)
		stop = htm_pmu_stop_trace(ev, &htm_hv_teardown_policy);
	htm_pmu_deconfigure(ev, stop);
	htm_perf_event_del(&htm_pmu_perf, &ev->node);
	htm_pmu_free(ev);
	event->pmu_private = NULL;
}

static int htm_pmu_event_init(struct perf_event *event)
{
	struct htm_pmu_event *ev;
	struct htm_target t;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* No event before the module's init is over. */
	if (!htm_is_live())
		return -ENODEV;
	ret = htm_pmu_event_check(event);
	if (ret)
		return ret;
	ret = htm_pmu_config_decode(event->attr.config, &t);
	if (ret)
		return ret;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ev->target = t;
	/*
	 * One read dumps at most a bounce buffer's worth: pmu::read of a
	 * plain read(2) runs in the cross-call IPI, interrupts off, under
	 * perf's raw context lock.
	 */
	ev->max_xfer = htm_target_xfer(&t);
	ev->page = (void *)get_zeroed_page(GFP_KERNEL);
	if (!ev->page) {
		ret = -ENOMEM;
		goto free;
	}
	/* The page holds no trace (STATUS is asked into it below). */
	ev->page_pos = U64_MAX;
	/* Hard, also on PREEMPT_RT: serialized with add, del and read. */
	hrtimer_setup(&ev->start_timer, htm_pmu_start_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_HARD);
	if (event->attr.sample_type & PERF_SAMPLE_RAW)
		pr_info_once("htm pmu: no memory configuration samples from a module: see htmtrace sysmem\n");

	ev->hv = htm_pmu_hv;
	ret = htm_target_claim(&t, ev);
	if (ret)
		goto free;
	ret = htm_pmu_call(ev, &t, &htm_hv_default_policy, HTM_OP_CONFIGURE,
			   -1UL, -1UL, 0, NULL);
	if (ret)
		goto release;
	/*
	 * The size bounds the dump if STATUS gives one (htm-perf.c); without
	 * it the dump goes on until the hypervisor says the data ends.
	 */
	memset(ev->page, 0, PAGE_SIZE);
	ret = htm_pmu_call(ev, &t, &htm_hv_default_policy, HTM_OP_STATUS,
			   virt_to_phys(ev->page), PAGE_SIZE, 0, NULL);
	if (ret || htm_status_size(ev->page, t.type, &ev->hw_size))
		ev->hw_size = 0;
	if (ret == -ERESTARTSYS) {
		htm_pmu_deconfigure(ev, 0);
		goto free;
	}
	ev->cpu = event->cpu;
	htm_perf_event_add(&htm_pmu_perf, &ev->node);
	event->pmu_private = ev;
	event->destroy = htm_pmu_destroy;
	return 0;

release:
	htm_target_release(&t, ev);
free:
	htm_pmu_free(ev);
	return ret;
}

/*
 * Scheduled on its CPU: the first time, the trace starts (or, the
 * hypervisor busy, will start: htm_pmu_start_timer()); never again (see
 * the top of this file). An event with siblings in its group is not
 * scheduled: pmu::read could not tell its own reader's read() from a
 * sibling's PERF_SAMPLE_READ, so the count would never move.
 */
static int htm_pmu_add(struct perf_event *event, int flags)
{
	struct htm_pmu_event *ev = event->pmu_private;

	event->hw.state = PERF_HES_STOPPED;
	if (event->nr_siblings) {
		pr_warn_once("htm pmu: an htm event with siblings in its group is never scheduled: open the others on their own\n");
		return -EINVAL;
	}
	/*
	 * Never a non-zero return for a busy or failed START: the perf core
	 * would retry it at every tick (htm-perf.c@b64f8fcc). A busy START
	 * is asked again by the timer, at the hypervisor's hint.
	 */
	if (ev->phase == HTM_PMU_TRACE && !ev->start.tries &&
	    htm_pmu_start_trace(ev) == -EAGAIN)
		hrtimer_start(&ev->start_timer, ev->start.next,
			      HRTIMER_MODE_ABS_PINNED_HARD);
	if (flags & PERF_EF_START)
		event->hw.state = 0;
	return 0;
}

/* Off its CPU: the trace, or the dump, goes on (see the top of this file). */
static void htm_pmu_del(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

/*
 * start and stop only gate the output: the trace runs from add to del (or
 * the first read). A stop and start around throttling or an AUX change
 * (the perf core stops an event while it attaches or unmaps its buffers,
 * and may not start it again) must neither restart the trace nor keep the
 * dump from going on: read() does not look at them.
 */
static void htm_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void htm_pmu_stop(struct perf_event *event, int flags)
{
	event->hw.state |= PERF_HES_STOPPED;
	/* The count is read()'s answer, up to date whenever it is set. */
	if (flags & PERF_EF_UPDATE)
		event->hw.state |= PERF_HES_UPTODATE;
}

/*
 * What the reader's read() returns: see the top of this file. The perf
 * core also calls pmu::read where no dump may run: from an NMI, and for a
 * sibling's PERF_SAMPLE_READ (an htm event may not join a group, but others
 * may join it). There the count stays as it was, and neither the
 * hypervisor nor the AUX area is touched.
 */
static void htm_pmu_read(struct perf_event *event)
{
	struct htm_pmu_event *ev = event->pmu_private;
	u64 count = 0;
	int ret;

	if (in_nmi() || event->nr_siblings)
		return;
	/*
	 * A read ends the trace (it is STOPped and dumped): a START that
	 * still waits out a busy hypervisor now traced nothing of what the
	 * reader wanted, and a START asked now would be STOPped at once, an
	 * empty trace read as a success. It has failed: the AUX stream says
	 * so (TRUNCATED). The timer runs on this CPU in hard interrupt
	 * context, so it is not running now.
	 */
	if (htm_pmu_start_waits(ev)) {
		hrtimer_try_to_cancel(&ev->start_timer);
		htm_pmu_failed(ev, "START", -EBUSY);
	}
	if (ev->phase == HTM_PMU_TRACE && ev->tracing) {
		ret = htm_pmu_stop_trace(ev, &htm_hv_atomic_policy);
		if (htm_pmu_busy(ev, ret)) {
			local64_set(&event->count, 1);
			return;
		}
		/* The dump's own requests get the whole bound again. */
		ev->busy_since = 0;
		/*
		 * A STOP that failed, H_STATE included, ends the dump: the
		 * hypervisor may still be writing the buffer (htm-perf.c:
		 * "cannot dump a live buffer").
		 */
		if (ret)
			htm_pmu_failed(ev, "STOP", ret);
	}
	if (ev->phase == HTM_PMU_TRACE)
		ev->phase = HTM_PMU_DATA;
	if (ev->phase == HTM_PMU_DATA)
		count = htm_pmu_dump(event, ev);
	if (ev->phase == HTM_PMU_FAILED)
		htm_pmu_say_failed(event, ev);
	local64_set(&event->count, count);
}

static void *htm_pmu_setup_aux(struct perf_event *event, void **pages,
			       int nr_pages, bool overwrite)
{
	struct htm_aux *aux;
	int i;

	/* A snapshot (overwrite) AUX area has no use: the dump is one-shot. */
	if (overwrite || nr_pages <= 0)
		return NULL;
	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return NULL;
	aux->phys = kvmalloc_array(nr_pages, sizeof(*aux->phys), GFP_KERNEL);
	if (!aux->phys) {
		kfree(aux);
		return NULL;
	}
	for (i = 0; i < nr_pages; i++)
		aux->phys[i] = virt_to_phys(pages[i]);
	aux->virt = pages;
	aux->nr_pages = nr_pages;
	aux->size = (size_t)nr_pages << PAGE_SHIFT;
	return aux;
}

static void htm_pmu_free_aux(void *data)
{
	struct htm_aux *aux = data;

	kvfree(aux->phys);
	kfree(aux);
}

/* sysfs: the HTM PMU proposal's format and events, for its perf unchanged */

PMU_FORMAT_ATTR(event, "config:0-27");
PMU_FORMAT_ATTR(htm_type, "config:0-3");
PMU_FORMAT_ATTR(nodeindex, "config:4-11");
PMU_FORMAT_ATTR(nodalchipindex, "config:12-19");
PMU_FORMAT_ATTR(coreindexonchip, "config:20-27");

static struct attribute *htm_pmu_format_attrs[] = {
	&format_attr_event.attr,
	&format_attr_htm_type.attr,
	&format_attr_nodeindex.attr,
	&format_attr_nodalchipindex.attr,
	&format_attr_coreindexonchip.attr,
	NULL,
};

/* As the proposal's GENERIC_EVENT_ATTR() shows them. */
PMU_EVENT_ATTR_STRING(htm_nest, htm_pmu_nest, "event=0x01");
PMU_EVENT_ATTR_STRING(htm_core, htm_pmu_core, "event=0x02");
PMU_EVENT_ATTR_STRING(htm_llat, htm_pmu_llat, "event=0x03");

static struct attribute *htm_pmu_event_attrs[] = {
	&htm_pmu_nest.attr.attr,
	&htm_pmu_core.attr.attr,
	&htm_pmu_llat.attr.attr,
	NULL,
};

static const struct pmu htm_pmu_template = {
	/* as the proposal: one event per CPU, AUX in large contiguous runs */
	.capabilities = PERF_PMU_CAP_NO_EXCLUDE | PERF_PMU_CAP_EXCLUSIVE |
			PERF_PMU_CAP_AUX_NO_SG | HTM_PMU_CAP_AUX_PREFER_LARGE,
	.event_init = htm_pmu_event_init,
	.add = htm_pmu_add,
	.del = htm_pmu_del,
	.start = htm_pmu_start,
	.stop = htm_pmu_stop,
	.read = htm_pmu_read,
	.setup_aux = htm_pmu_setup_aux,
	.free_aux = htm_pmu_free_aux,
};

/* debugfs htmtrace/htm_pmu: each event's target, progress and counters. */
static void htm_pmu_event_show(struct seq_file *m,
			       const struct list_head *node)
{
	static const char * const phases[] = { "trace", "data", "failed",
						"done" };
	const struct htm_pmu_event *ev = list_entry(node, struct htm_pmu_event,
						    node);

	seq_printf(m, "event cpu %d type %u node %u chip %u core %u\n",
		   ev->cpu, ev->target.type, ev->target.node,
		   ev->target.chip, ev->target.core);
	seq_printf(m, "  phase: %s%s\n", phases[READ_ONCE(ev->phase)],
		   READ_ONCE(ev->tracing) ? ", tracing" : "");
	seq_printf(m, "  start_tries: %u\n", READ_ONCE(ev->start.tries));
	seq_printf(m, "  truncated: %u\n", READ_ONCE(ev->truncated));
	seq_printf(m, "  buffer_size: %llu\n", ev->hw_size);
	seq_printf(m, "  transfer_bytes: %zu\n", READ_ONCE(ev->max_xfer));
	htm_debugfs_show_stats(m, "  ", &ev->stats, READ_ONCE(ev->pos));
}

/**
 * htm_pmu_register() - make the htm PMU, for a backend that offers H_HTM
 * @hv: the backend
 *
 * Called by main.c at load; an event holds the module (.module).
 *
 * Return: 0 or the error of perf_pmu_register().
 */
int htm_pmu_register(const struct htmtrace_hv_ops *hv)
{
	int ret;

	htm_pmu_hv = hv;
	ret = htm_perf_register(&htm_pmu_perf, "htm", &htm_pmu_template,
				htm_pmu_format_attrs, htm_pmu_event_attrs,
				htm_pmu_event_show);
	if (ret)
		htm_pmu_hv = NULL;
	return ret;
}

/* Remove the PMU, if registered; no event exists. */
void htm_pmu_unregister(void)
{
	htm_perf_unregister(&htm_pmu_perf);
	htm_pmu_hv = NULL;
}
