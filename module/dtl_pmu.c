// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the "vpa_dtl" perf PMU.
 *
 * For users who have perf, on kernels without a vpa_dtl PMU of their own
 * (main.c decides): one event per CPU captures that CPU's dispatch trace
 * log into its AUX area, with the capture engine of /dev/vpa_dtl (dtl.c)
 * and in the stream format of /dev/vpa_dtl (uapi/linux/htmtrace.h): a
 * clock record first, then entry records holding the hypervisor's 48-byte
 * big-endian entries as they are, LOST records where entries were
 * overwritten by the hypervisor or found no room in the AUX area, and CPU
 * records. The log has one owner: while an event exists, /dev/vpa_dtl
 * cannot configure a session (-EBUSY), and the reverse.
 *
 * The capture runs from add to del, on the event's CPU: enabling the event
 * begins it (registering a log, or ORing the mask into the kernel's), and
 * disabling it takes what is left and gives the log back. A poll that
 * finds no room drops its entries, counts them in a LOST record once there
 * is room again, and marks its PERF_RECORD_AUX with PERF_AUX_FLAG_PARTIAL
 * (TRUNCATED would make the perf core disable the event); room for the
 * last LOST record is kept until the capture ends. read() first takes
 * what the log holds, then returns the entries written so far; after
 * DISABLE, all of them. The timer's period adapts to the rate, as
 * for /dev/vpa_dtl: the sample period is required (a sampling event) but
 * unused.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "htmtrace.h"

/**
 * struct htm_dtl_aux - an event's AUX area, mapped in one piece
 * @base: its mapping
 * @size: bytes, a power of two
 */
struct htm_dtl_aux {
	void *base;
	size_t size;
};

/**
 * struct htm_dtl_pmu_event - a vpa_dtl event's state (event->pmu_private)
 * @event: the event
 * @c: its CPU's capture
 * @handle: the AUX transaction of the poll under way
 * @aux: the AUX area of that transaction
 * @written: bytes put in that transaction
 * @reserve: bytes that transaction leaves free (HTM_DTL_AUX_RESERVE, but
 *	for the capture's last records)
 *
 * @handle, @aux and @written are used on the event's CPU with interrupts
 * off (the capture timer, add, del), under the session's ring lock.
 */
struct htm_dtl_pmu_event {
	struct perf_event *event;
	struct htm_dtl_cpu *c;
	struct perf_output_handle handle;
	struct htm_dtl_aux *aux;
	size_t written;
	size_t reserve;
};

/*
 * Room kept free until a capture ends, for the records pending then: its
 * losses (overwritten, dropped) and how it ended. So an AUX area the reader
 * never drains still says, at its end, how many entries it could not hold.
 */
#define HTM_DTL_AUX_RESERVE	(2 * sizeof(struct htmtrace_dtl_lost) + \
				 2 * sizeof(struct htmtrace_dtl_cpu))

/* Set while the PMU is registered. */
static const struct htmtrace_hv_ops *htm_dtl_pmu_hv;
static struct htm_dtl *htm_dtl_pmu_session;

/* the sink: records into the AUX area */

static bool htm_dtl_aux_begin(void *arg, bool last)
{
	struct htm_dtl_pmu_event *pe = arg;

	pe->aux = perf_aux_output_begin(&pe->handle, pe->event);
	pe->written = 0;
	pe->reserve = last ? 0 : HTM_DTL_AUX_RESERVE;
	return pe->aux;
}

static bool htm_dtl_aux_put(void *arg, const void *rec)
{
	struct htm_dtl_pmu_event *pe = arg;
	u32 len = ((const struct htmtrace_dtl_rec *)rec)->len;
	size_t off, part;

	if (pe->written + len + pe->reserve > pe->handle.size)
		return false;
	off = (pe->handle.head + pe->written) & (pe->aux->size - 1);
	part = min_t(size_t, len, pe->aux->size - off);
	memcpy(pe->aux->base + off, rec, part);
	memcpy(pe->aux->base, rec + part, len - part);
	pe->written += len;
	return true;
}

static void htm_dtl_aux_end(void *arg, u64 dropped)
{
	struct htm_dtl_pmu_event *pe = arg;

	if (dropped)
		perf_aux_output_flag(&pe->handle, PERF_AUX_FLAG_PARTIAL);
	perf_aux_output_end(&pe->handle, pe->written);
	pe->aux = NULL;
}

static const struct htm_dtl_sink htm_dtl_aux_sink = {
	.begin = htm_dtl_aux_begin,
	.put = htm_dtl_aux_put,
	.end = htm_dtl_aux_end,
};

/* perf callbacks */

static struct pmu htm_dtl_pmu;

static void htm_dtl_pmu_destroy(struct perf_event *event)
{
	struct htm_dtl_pmu_event *pe = event->pmu_private;

	htm_dtl_pmu_cpu_remove(htm_dtl_pmu_session, pe->c);
	htm_dtl_pmu_put(htm_dtl_pmu_session);
	kfree(pe);
	event->pmu_private = NULL;
	htm_hv_session_put();
}

static int htm_dtl_pmu_event_init(struct perf_event *event)
{
	struct htm_dtl_pmu_event *pe;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	ret = htm_pmu_attr_check(event);
	if (ret)
		return ret;
	/* An event mask of no or unknown events. */
	if (!event->attr.config || event->attr.config & ~(u64)HTMTRACE_DTL_ALL)
		return -EINVAL;

	pe = kzalloc(sizeof(*pe), GFP_KERNEL);
	if (!pe)
		return -ENOMEM;
	pe->event = event;
	ret = htm_hv_session_get();
	if (ret)
		goto free;
	ret = htm_dtl_pmu_get(htm_dtl_pmu_session, htm_dtl_pmu_hv);
	if (ret)
		goto put_session;
	pe->c = htm_dtl_pmu_cpu_add(htm_dtl_pmu_session, event->cpu,
				    event->attr.config, &htm_dtl_aux_sink, pe);
	if (IS_ERR(pe->c)) {
		ret = PTR_ERR(pe->c);
		goto put_dtl;
	}
	event->pmu_private = pe;
	event->destroy = htm_dtl_pmu_destroy;
	return 0;

put_dtl:
	htm_dtl_pmu_put(htm_dtl_pmu_session);
put_session:
	htm_hv_session_put();
free:
	kfree(pe);
	return ret;
}

static int htm_dtl_pmu_add(struct perf_event *event, int flags)
{
	struct htm_dtl_pmu_event *pe = event->pmu_private;

	htm_dtl_pmu_cpu_begin(pe->c);
	event->hw.state = flags & PERF_EF_START ? 0 : PERF_HES_STOPPED;
	return 0;
}

static void htm_dtl_pmu_del(struct perf_event *event, int flags)
{
	struct htm_dtl_pmu_event *pe = event->pmu_private;

	htm_dtl_pmu_cpu_end(pe->c);
	/* What the end took counts too: a read after DISABLE says so. */
	local64_set(&event->count, READ_ONCE(pe->c->entries));
	event->hw.state = PERF_HES_STOPPED;
}

/* The capture runs from add to del: start and stop change nothing of it. */
static void htm_dtl_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void htm_dtl_pmu_stop(struct perf_event *event, int flags)
{
	event->hw.state |= PERF_HES_STOPPED;
}

static void htm_dtl_pmu_read(struct perf_event *event)
{
	struct htm_dtl_pmu_event *pe = event->pmu_private;

	local64_set(&event->count, htm_dtl_pmu_cpu_read(pe->c));
}

static void *htm_dtl_pmu_setup_aux(struct perf_event *event, void **pages,
				   int nr_pages, bool overwrite)
{
	struct htm_dtl_aux *aux;
	struct page **pg;
	int i;

	/* Records are never overwritten: they are counted when lost. */
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

static void htm_dtl_pmu_free_aux(void *data)
{
	struct htm_dtl_aux *aux = data;

	vunmap(aux->base);
	kfree(aux);
}

/* sysfs: the format and events of the kernel's own vpa_dtl PMU */

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *htm_dtl_pmu_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group htm_dtl_pmu_format_group = {
	.name = "format",
	.attrs = htm_dtl_pmu_format_attrs,
};

PMU_EVENT_ATTR_STRING(dtl_cede, htm_dtl_pmu_cede, "event=0x1");
PMU_EVENT_ATTR_STRING(dtl_preempt, htm_dtl_pmu_preempt, "event=0x2");
PMU_EVENT_ATTR_STRING(dtl_fault, htm_dtl_pmu_fault, "event=0x4");
PMU_EVENT_ATTR_STRING(dtl_all, htm_dtl_pmu_all, "event=0x7");

static struct attribute *htm_dtl_pmu_event_attrs[] = {
	&htm_dtl_pmu_cede.attr.attr,
	&htm_dtl_pmu_preempt.attr.attr,
	&htm_dtl_pmu_fault.attr.attr,
	&htm_dtl_pmu_all.attr.attr,
	NULL,
};

static const struct attribute_group htm_dtl_pmu_events_group = {
	.name = "events",
	.attrs = htm_dtl_pmu_event_attrs,
};

static const struct attribute_group *htm_dtl_pmu_attr_groups[] = {
	&htm_dtl_pmu_format_group,
	&htm_dtl_pmu_events_group,
	NULL,
};

/*
 * A struct pmu cannot be registered twice: perf_pmu_unregister() leaves its
 * freed device behind. Each registration (one per backend) starts afresh
 * from this template.
 */
static const struct pmu htm_dtl_pmu_template = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_invalid_context,
	.attr_groups = htm_dtl_pmu_attr_groups,
	.capabilities = PERF_PMU_CAP_NO_EXCLUDE,
	.event_init = htm_dtl_pmu_event_init,
	.add = htm_dtl_pmu_add,
	.del = htm_dtl_pmu_del,
	.start = htm_dtl_pmu_start,
	.stop = htm_dtl_pmu_stop,
	.read = htm_dtl_pmu_read,
	.setup_aux = htm_dtl_pmu_setup_aux,
	.free_aux = htm_dtl_pmu_free_aux,
};

/**
 * htm_dtl_pmu_register() - make the vpa_dtl PMU
 * @hv: the backend, which offers the dispatch trace log
 * @dtl: the session, shared with /dev/vpa_dtl
 *
 * Return: 0 or the error of perf_pmu_register().
 */
int htm_dtl_pmu_register(const struct htmtrace_hv_ops *hv,
			 struct htm_dtl *dtl)
{
	int ret;

	htm_dtl_pmu_hv = hv;
	htm_dtl_pmu_session = dtl;
	htm_dtl_pmu = htm_dtl_pmu_template;
	ret = perf_pmu_register(&htm_dtl_pmu, "vpa_dtl", -1);
	if (ret) {
		htm_dtl_pmu_hv = NULL;
		htm_dtl_pmu_session = NULL;
	}
	return ret;
}

/* Remove the PMU, if registered; no event exists. */
void htm_dtl_pmu_unregister(void)
{
	if (!htm_dtl_pmu_hv)
		return;
	perf_pmu_unregister(&htm_dtl_pmu);
	htm_dtl_pmu_hv = NULL;
	htm_dtl_pmu_session = NULL;
}
