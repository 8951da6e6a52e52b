// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the "vpa_dtl" perf PMU, a drop-in for mainline's (6.18,
 * arch/powerpc/perf/vpa-dtl.c) on kernels that have none.
 *
 * Mainline's name, events, format and AUX format: one event per CPU
 * captures that CPU's dispatch trace log, and its AUX area holds one
 * struct dtl_boottb_freq first (host-endian, timebase 0), then the
 * hypervisor's 48-byte big-endian dtl_entry records as they are, nothing
 * else, so that perf's decoder (tools/perf/util/powerpc-vpadtl.c) reads it.
 * Main.c registers it only where no PMU of that name exists already.
 *
 * What differs: the capture is /dev/vpa_dtl's (dtl_cpu.c): where the kernel
 * owns a log (stolen-time accounting) it is read alongside rather than
 * registered over; the poll timer adapts to the rate, and sample_period
 * (ns, at least 1 ms, as mainline) is the longest it may wait. Entries the
 * hypervisor overwrote before they were copied, and entries that found no
 * room in the AUX area, are counted, and the PERF_RECORD_AUX that follows
 * them carries PERF_AUX_FLAG_PARTIAL: a gap, the capture goes on (a full
 * AUX area never disables the event: one byte is always left free). A
 * capture that ends before the event does - its begin failed (another user
 * took the log after event_init), or another user changed the log under
 * it - posts a PERF_RECORD_AUX with PERF_AUX_FLAG_TRUNCATED, as mainline's
 * AUX PMUs do when they cannot go on (coresight-trbe.c's
 * trbe_stop_and_truncate_event(), arm_spe_pmu.c on data loss): the data
 * after it is missing, and the perf core is asked to disable the event (at
 * its next sched-out; 6.12 loses the request on CPU 0). The log has
 * one owner: while an event exists, /dev/vpa_dtl cannot configure a
 * session (-EBUSY), and the reverse; a log another user holds is refused
 * at event_init (-EBUSY), as /dev/vpa_dtl refuses it at CONFIGURE.
 *
 * perf calls add and del under its raw context lock, where no spinlock_t
 * may be taken: the capture's begin and end (which register the log) run
 * in a hard irq_work on the event's CPU right after; the timers and the
 * irq_work, all hard (also on PREEMPT_RT), write the AUX area, one AUX
 * transaction per poll.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <asm/time.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/**
 * struct dtl_boottb_freq - the first record of mainline's AUX format
 * @boot_tb: the timebase when the kernel's clock (sched_clock) read 0
 * @tb_freq: timebase ticks a second
 * @timebase: 0, which no entry has: how a reader tells this record apart
 * @padded: zero, to the size of a struct dtl_entry
 *
 * Host-endian, unlike the entries. An entry's time since boot is
 * (timebase - @boot_tb) / @tb_freq seconds.
 */
struct dtl_boottb_freq {
	u64 boot_tb;
	u64 tb_freq;
	u64 timebase;
	u64 padded[3];
};

static_assert(sizeof(struct dtl_boottb_freq) == sizeof(struct dtl_entry));

/**
 * struct dtl_aux - an event's AUX area, mapped in one piece
 * @base: its mapping
 * @size: bytes, a power of two
 * @boottb_done: the boottb_freq record is written (once per AUX area, as
 *	mainline)
 */
struct dtl_aux {
	void *base;
	size_t size;
	bool boottb_done;
};

/**
 * struct dtl_pmu_event - a vpa_dtl event's state (event->pmu_private)
 * @event: the event
 * @c: its CPU's capture
 * @handle: the AUX transaction of the poll under way
 * @aux: the AUX area of that transaction
 * @written: bytes put in that transaction
 * @lost: entries lost (overwritten, dropped) up to the last AUX record:
 *	the next record that comes after more is flagged PARTIAL
 * @aux_records: PERF_RECORD_AUX records posted
 * @partial: of which flagged PERF_AUX_FLAG_PARTIAL
 * @truncated: of which flagged PERF_AUX_FLAG_TRUNCATED (the capture ended
 *	before the event)
 * @work: begins and ends the capture, out of perf's raw context lock
 * @want: between add and del: the capture should run
 * @began: the capture is begun (by @work)
 * @deadline: polls at least every @deadline_ns (the user's sample_period),
 *	from the capture's begin to its end (@work starts and cancels it)
 * @deadline_ns: 0 if the capture's own timer never waits that long
 * @deadline_polls: @deadline's runs
 * @node: in the PMU's list of events
 *
 * The transaction fields and the counters are used on the event's CPU with
 * interrupts off (the timers, @work), the transaction under the CPU's
 * lock (struct dtl_cpu @lock); debugfs reads the counters without a lock.
 */
struct dtl_pmu_event {
	struct perf_event *event;
	struct dtl_cpu *c;
	struct perf_output_handle handle;
	struct dtl_aux *aux;
	size_t written;
	u64 lost;
	u64 aux_records;
	u64 partial;
	u64 truncated;
	struct irq_work work;
	bool want;
	bool began;
	struct hrtimer deadline;
	u64 deadline_ns;
	u64 deadline_polls;
	struct list_head node;
};

/* Set while the PMU is registered. */
static const struct htmtrace_hv_ops *dtl_pmu_hv;
static struct vpa_dtl *dtl_pmu_session;

/* The PMU, while registered, and its events. */
static struct htm_perf dtl_pmu_perf;

/* the sink: mainline's AUX format */

/*
 * Room for @len more bytes in this transaction? One byte always stays
 * free: an AUX area with none left makes perf_aux_output_begin() disable
 * the event.
 */
static bool dtl_aux_room(const struct dtl_pmu_event *pe, size_t len)
{
	return pe->written + len < pe->handle.size;
}

/* Copy @len bytes at the transaction's end, across the area's end. */
static void dtl_aux_copy(struct dtl_pmu_event *pe, const void *src,
			 size_t len)
{
	size_t off, part;

	off = (pe->handle.head + pe->written) & (pe->aux->size - 1);
	part = min_t(size_t, len, pe->aux->size - off);
	memcpy(pe->aux->base + off, src, part);
	memcpy(pe->aux->base, src + part, len - part);
	pe->written += len;
}

/* The timebase when the kernel's clock read 0: see dtl_boot_tb_init(). */
static u64 dtl_boot_tb;

/**
 * dtl_boot_tb_init() - take the boot timebase, once, as the PMU is made
 *
 * get_boot_tb() is not exported: the timebase at the kernel clock's zero is
 * the timebase now less the clock, both read with interrupts off. perf's
 * timestamps are that clock (local_clock()), so entries and perf's other
 * records share one time line. Taken once, as mainline's boot_tb is set
 * once at boot: every event, on every CPU, of every record carries the
 * same value (two readings differ by the time between them).
 */
static void dtl_boot_tb_init(void)
{
	unsigned long flags;
	u64 tb, ns;

	local_irq_save(flags);
	tb = get_tb();
	ns = local_clock();
	local_irq_restore(flags);
	dtl_boot_tb = tb - mul_u64_u64_div_u64(ns, tb_ticks_per_sec,
					       NSEC_PER_SEC);
}

/* The boottb_freq record. */
static void dtl_boottb_freq_now(struct dtl_boottb_freq *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->tb_freq = tb_ticks_per_sec;
	rec->boot_tb = dtl_boot_tb;
}

static bool dtl_aux_begin(void *arg, bool last)
{
	struct dtl_pmu_event *pe = arg;

	pe->aux = perf_aux_output_begin(&pe->handle, pe->event);
	pe->written = 0;
	return pe->aux;
}

/*
 * Only the hypervisor's entries go into the AUX area; the stream's other
 * records (clock, CPU events, LOST) have no place in mainline's format and
 * are taken without a trace: losses are told by the AUX records' flags, a
 * CPU record that ends the capture (LOST: another user changed the log;
 * FAILED: the begin failed) by PERF_AUX_FLAG_TRUNCATED.
 * The boottb_freq record goes in with the area's first entry, never alone:
 * a CPU that logs nothing has no AUX data at all, as with mainline (which
 * returns before writing when no entry is new); perf's decoder reads past
 * an area that holds the boottb_freq record alone, and never ends.
 */
static bool dtl_aux_put(void *arg, const void *rec)
{
	const struct htmtrace_dtl_entry_rec *e = rec;
	struct dtl_pmu_event *pe = arg;
	struct dtl_boottb_freq first;

	if (e->hdr.type == HTMTRACE_DTL_REC_CPU) {
		const struct htmtrace_dtl_cpu *ev = rec;

		if (ev->event == HTMTRACE_DTL_CPU_LOST ||
		    ev->event == HTMTRACE_DTL_CPU_FAILED)
			perf_aux_output_flag(&pe->handle,
					     PERF_AUX_FLAG_TRUNCATED);
		return true;
	}
	if (e->hdr.type != HTMTRACE_DTL_REC_ENTRY)
		return true;
	if (!pe->aux->boottb_done) {
		if (!dtl_aux_room(pe, sizeof(first) + sizeof(e->entry)))
			return false;
		dtl_boottb_freq_now(&first);
		dtl_aux_copy(pe, &first, sizeof(first));
		pe->aux->boottb_done = true;
	}
	if (!dtl_aux_room(pe, sizeof(e->entry)))
		return false;
	dtl_aux_copy(pe, e->entry, sizeof(e->entry));
	return true;
}

static void dtl_aux_end(void *arg, u64 dropped)
{
	struct dtl_pmu_event *pe = arg;
	struct dtl_cpu *c = pe->c;
	u64 lost;

	/*
	 * Entries lost since the last record: this poll's and those of polls
	 * that found no AUX area (the capture counts this poll's drops once
	 * the sink is done).
	 */
	lost = READ_ONCE(c->overwritten) + READ_ONCE(c->dropped) + dropped;
	if (lost != pe->lost) {
		perf_aux_output_flag(&pe->handle, PERF_AUX_FLAG_PARTIAL);
		pe->lost = lost;
		WRITE_ONCE(pe->partial, pe->partial + 1);
	}
	if (pe->handle.aux_flags & PERF_AUX_FLAG_TRUNCATED)
		WRITE_ONCE(pe->truncated, pe->truncated + 1);
	/* perf_aux_output_end() posts a record if there are bytes or flags. */
	if (pe->written || pe->handle.aux_flags & (PERF_AUX_FLAG_PARTIAL |
						   PERF_AUX_FLAG_TRUNCATED))
		WRITE_ONCE(pe->aux_records, pe->aux_records + 1);
	perf_aux_output_end(&pe->handle, pe->written);
	pe->aux = NULL;
}

static const struct dtl_sink dtl_aux_sink = {
	.begin = dtl_aux_begin,
	.put = dtl_aux_put,
	.end = dtl_aux_end,
};

/* the capture's begin and end, and the deadline poll */

/*
 * On the event's CPU, in hard interrupt context, also on PREEMPT_RT (not
 * under perf's locks). The deadline timer runs from the capture's begin to
 * its end: a del and an add that come together (perf reschedules the
 * CPU's events) change neither, so that the deadline holds however often
 * perf reschedules. Both are on this CPU in hard interrupt context, so the
 * timer's callback is not running here: trying to cancel it cancels it.
 */
static void dtl_pmu_work(struct irq_work *work)
{
	struct dtl_pmu_event *pe = container_of(work, struct dtl_pmu_event,
						    work);
	bool want = READ_ONCE(pe->want);

	if (want && !pe->began) {
		pe->began = true;
		dtl_pmu_cpu_begin(pe->c);
		if (pe->deadline_ns)
			hrtimer_start(&pe->deadline,
				      ns_to_ktime(pe->deadline_ns),
				      HRTIMER_MODE_REL_PINNED_HARD);
	} else if (!want && pe->began) {
		pe->began = false;
		hrtimer_try_to_cancel(&pe->deadline);
		dtl_pmu_cpu_end(pe->c);
		/* What the end took counts too: a read after DISABLE says so. */
		local64_set(&pe->event->count, READ_ONCE(pe->c->entries));
	}
}

static enum hrtimer_restart dtl_pmu_deadline(struct hrtimer *timer)
{
	struct dtl_pmu_event *pe = container_of(timer,
						    struct dtl_pmu_event,
						    deadline);

	/* began is written on this CPU, in hard interrupt context only */
	if (!pe->began)
		return HRTIMER_NORESTART;
	WRITE_ONCE(pe->deadline_polls, pe->deadline_polls + 1);
	dtl_pmu_cpu_read(pe->c);
	hrtimer_forward_now(timer, ns_to_ktime(pe->deadline_ns));
	return HRTIMER_RESTART;
}

/* perf callbacks */

static void dtl_pmu_destroy(struct perf_event *event)
{
	struct dtl_pmu_event *pe = event->pmu_private;

	/* del queued the capture's end: it has run once this returns. */
	irq_work_sync(&pe->work);
	hrtimer_cancel(&pe->deadline);
	WARN_ON_ONCE(pe->began);
	htm_perf_event_del(&dtl_pmu_perf, &pe->node);
	dtl_pmu_cpu_remove(dtl_pmu_session, pe->c);
	dtl_pmu_put(dtl_pmu_session);
	kfree(pe);
	event->pmu_private = NULL;
}

/**
 * dtl_pmu_period() - mainline's period: frequency mode made a period
 * @event: the event being opened
 *
 * As mainline: sample_freq F becomes the period NSEC_PER_SEC / F, and the
 * event is no longer in frequency mode. The poll's deadline is the period,
 * at least 1 ms; none where the capture's own timer never waits as long.
 *
 * Return: the deadline in ns, or 0.
 */
static u64 dtl_pmu_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 period;

	if (event->attr.freq) {
		event->attr.sample_period = NSEC_PER_SEC / event->attr.sample_freq;
		hwc->sample_period = event->attr.sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
		hwc->last_period = hwc->sample_period;
		event->attr.freq = 0;
	}
	period = max_t(u64, NSEC_PER_MSEC, hwc->sample_period);
	return period < DTL_PERIOD_MAX ? period : 0;
}

/*
 * Mainline's refusals, in its order and with its errnos: another PMU's
 * type -ENOENT; without CAP_PERFMON (or CAP_SYS_ADMIN) -EACCES; a counting
 * event or a branch stack -EOPNOTSUPP; a config other than one of the four
 * events -EINVAL; the log held elsewhere (/dev/vpa_dtl, or another event
 * on the CPU) -EBUSY. A per-task event is -EINVAL, as the perf core says
 * for a CPU-only PMU. Inherit is taken (a CPU-wide event has no children).
 * The log held elsewhere includes a CPU whose log another user holds
 * (dtl_cpu_busy()), as at /dev/vpa_dtl's CONFIGURE.
 */
static int dtl_pmu_event_init(struct perf_event *event)
{
	struct dtl_pmu_event *pe;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* No event before the module's init is over. */
	if (!htm_is_live())
		return -ENODEV;
	if (!perfmon_capable())
		return -EACCES;
	if (!is_sampling_event(event) || has_branch_stack(event))
		return -EOPNOTSUPP;
	switch (event->attr.config) {
	case HTMTRACE_DTL_CEDE:
	case HTMTRACE_DTL_PREEMPT:
	case HTMTRACE_DTL_FAULT:
	case HTMTRACE_DTL_ALL:
		break;
	default:
		return -EINVAL;
	}
	if (event->cpu < 0 || event->attach_state & PERF_ATTACH_TASK)
		return -EINVAL;

	pe = kzalloc(sizeof(*pe), GFP_KERNEL);
	if (!pe)
		return -ENOMEM;
	pe->event = event;
	/* Hard, also on PREEMPT_RT: see dtl_cpu_setup(). */
	pe->work = IRQ_WORK_INIT_HARD(dtl_pmu_work);
	hrtimer_setup(&pe->deadline, dtl_pmu_deadline, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	ret = dtl_pmu_get(dtl_pmu_session, dtl_pmu_hv);
	if (ret)
		goto free;
	pe->c = dtl_pmu_cpu_add(dtl_pmu_session, event->cpu,
				event->attr.config, &dtl_aux_sink, pe);
	if (IS_ERR(pe->c)) {
		ret = PTR_ERR(pe->c);
		goto put_dtl;
	}
	pe->deadline_ns = dtl_pmu_period(event);
	htm_perf_event_add(&dtl_pmu_perf, &pe->node);
	event->pmu_private = pe;
	event->destroy = dtl_pmu_destroy;
	return 0;

put_dtl:
	dtl_pmu_put(dtl_pmu_session);
free:
	kfree(pe);
	return ret;
}

/*
 * add and del run on the event's CPU under perf's raw context lock: the
 * capture's begin and end, and the deadline timer's, are left to the
 * irq_work.
 */
static int dtl_pmu_add(struct perf_event *event, int flags)
{
	struct dtl_pmu_event *pe = event->pmu_private;

	WRITE_ONCE(pe->want, true);
	irq_work_queue(&pe->work);
	event->hw.state = flags & PERF_EF_START ? 0 : PERF_HES_STOPPED;
	return 0;
}

static void dtl_pmu_del(struct perf_event *event, int flags)
{
	struct dtl_pmu_event *pe = event->pmu_private;

	WRITE_ONCE(pe->want, false);
	irq_work_queue(&pe->work);
	local64_set(&event->count, READ_ONCE(pe->c->entries));
	event->hw.state = PERF_HES_STOPPED;
}

/* The capture runs from add to del: start and stop change nothing of it. */
static void dtl_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void dtl_pmu_stop(struct perf_event *event, int flags)
{
	event->hw.state |= PERF_HES_STOPPED;
}

/* The entries in the AUX area so far (mainline's count stays 0). */
static void dtl_pmu_read(struct perf_event *event)
{
	struct dtl_pmu_event *pe = event->pmu_private;

	local64_set(&event->count, READ_ONCE(pe->c->entries));
}

static void *dtl_pmu_setup_aux(struct perf_event *event, void **pages,
			       int nr_pages, bool overwrite)
{
	struct dtl_aux *aux;
	struct page **pg;
	int i;

	/* Entries are never overwritten: they are counted when lost. */
	if (overwrite || nr_pages <= 0)
		return NULL;
	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	pg = kcalloc(nr_pages, sizeof(*pg), GFP_KERNEL);
	if (!aux || !pg)
		goto fail;
	for (i = 0; i < nr_pages; i++)
		pg[i] = virt_to_page(pages[i]);
	aux->base = vmap(pg, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!aux->base)
		goto fail;
	aux->size = (size_t)nr_pages << PAGE_SHIFT;
	kfree(pg);
	return aux;
fail:
	kfree(pg);
	kfree(aux);
	return NULL;
}

static void dtl_pmu_free_aux(void *data)
{
	struct dtl_aux *aux = data;

	vunmap(aux->base);
	kfree(aux);
}

/* sysfs: the format and events of mainline's vpa_dtl PMU */

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *dtl_pmu_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

/* As mainline's GENERIC_EVENT_ATTR() shows them (read off Debian's 7.2). */
PMU_EVENT_ATTR_STRING(dtl_cede, dtl_pmu_cede, "event=0x01");
PMU_EVENT_ATTR_STRING(dtl_preempt, dtl_pmu_preempt, "event=0x02");
PMU_EVENT_ATTR_STRING(dtl_fault, dtl_pmu_fault, "event=0x04");
PMU_EVENT_ATTR_STRING(dtl_all, dtl_pmu_all, "event=0x07");

static struct attribute *dtl_pmu_event_attrs[] = {
	&dtl_pmu_cede.attr.attr,
	&dtl_pmu_preempt.attr.attr,
	&dtl_pmu_fault.attr.attr,
	&dtl_pmu_all.attr.attr,
	NULL,
};

static const struct pmu dtl_pmu_template = {
	.capabilities = PERF_PMU_CAP_NO_EXCLUDE | PERF_PMU_CAP_EXCLUSIVE,
	.event_init = dtl_pmu_event_init,
	.add = dtl_pmu_add,
	.del = dtl_pmu_del,
	.start = dtl_pmu_start,
	.stop = dtl_pmu_stop,
	.read = dtl_pmu_read,
	.setup_aux = dtl_pmu_setup_aux,
	.free_aux = dtl_pmu_free_aux,
};

/* debugfs htmtrace/vpa_dtl_pmu: each event's counters */
static void dtl_pmu_show(struct seq_file *m, const struct list_head *node)
{
	const struct dtl_pmu_event *pe = list_entry(node,
							struct dtl_pmu_event,
							node);
	const struct dtl_cpu *c = pe->c;

	seq_printf(m, "cpu %d config %llu deadline_ns %llu entries %llu overwritten %llu dropped %llu aux_records %llu partial %llu truncated %llu deadline_polls %llu\n",
		   c->cpu, pe->event->attr.config, pe->deadline_ns,
		   READ_ONCE(c->entries), READ_ONCE(c->overwritten),
		   READ_ONCE(c->dropped), READ_ONCE(pe->aux_records),
		   READ_ONCE(pe->partial), READ_ONCE(pe->truncated),
		   READ_ONCE(pe->deadline_polls));
}

/**
 * dtl_pmu_name_taken() - is there a perf PMU of this name already?
 * @name: the name
 *
 * The PMUs are devices on perf's event_source bus, which is not exported:
 * a software event made and released at once names it (its PMU's device).
 *
 * Return: true if a PMU of that name is registered.
 */
static bool dtl_pmu_name_taken(const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	struct perf_event *ev;
	struct device *dev = NULL;

	ev = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
					      NULL, NULL, NULL);
	if (IS_ERR(ev))
		return false;
	if (ev->pmu->dev && ev->pmu->dev->bus)
		dev = bus_find_device_by_name(ev->pmu->dev->bus, NULL, name);
	perf_event_release_kernel(ev);
	put_device(dev);
	return dev;
}

/**
 * dtl_pmu_register() - make the vpa_dtl PMU
 * @hv: the backend, which offers the dispatch trace log
 * @dtl: the session, shared with /dev/vpa_dtl
 *
 * Return: 0, -EEXIST if a PMU named vpa_dtl exists already (the kernel's
 * own, or a distribution's backport), or the error of perf_pmu_register().
 */
int dtl_pmu_register(const struct htmtrace_hv_ops *hv,
		     struct vpa_dtl *dtl)
{
	int ret;

	if (dtl_pmu_name_taken("vpa_dtl"))
		return -EEXIST;
	dtl_boot_tb_init();
	dtl_pmu_hv = hv;
	dtl_pmu_session = dtl;
	ret = htm_perf_register(&dtl_pmu_perf, "vpa_dtl",
				&dtl_pmu_template, dtl_pmu_format_attrs,
				dtl_pmu_event_attrs, dtl_pmu_show);
	if (ret) {
		dtl_pmu_hv = NULL;
		dtl_pmu_session = NULL;
	}
	return ret;
}

/* Remove the PMU, if registered; no event exists. */
void dtl_pmu_unregister(void)
{
	htm_perf_unregister(&dtl_pmu_perf);
	dtl_pmu_hv = NULL;
	dtl_pmu_session = NULL;
}
