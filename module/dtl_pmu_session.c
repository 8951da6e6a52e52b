// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log session of the vpa_dtl perf PMU.
 *
 * One owner of the log at a time: the first event makes the session the
 * PMU's. Each CPU's capture is begun and ended by its event, on that CPU,
 * and its records go to the event's sink (dtl_pmu.c: the AUX area, which
 * keeps only the entries) instead of into a ring of its own.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kmemleak.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* the session of the vpa_dtl perf PMU */

/**
 * dtl_pmu_get() - hold the dispatch trace log for a perf event
 * @dtl: the session
 * @hv: backend
 *
 * The first event makes the session the PMU's; each later one adds to it.
 * Process context.
 *
 * Return: 0, -EBUSY if /dev/vpa_dtl has a session, -ENOMEM.
 */
int dtl_pmu_get(struct vpa_dtl *dtl, const struct htmtrace_hv_ops *hv)
{
	int ret = 0;

	mutex_lock(&dtl->lock);
	if (dtl->state == DTL_IDLE) {
		dtl->pcpu = kcalloc(nr_cpu_ids, sizeof(*dtl->pcpu), GFP_KERNEL);
		if (!dtl->pcpu || !zalloc_cpumask_var(&dtl->cpus, GFP_KERNEL)) {
			kfree(dtl->pcpu);
			dtl->pcpu = NULL;
			ret = -ENOMEM;
			goto out;
		}
		dtl->hv = hv;
		dtl->pmu_users = 0;
		/* Pairs with dtl_read()'s acquire: it reads no ring now. */
		smp_store_release(&dtl->state, DTL_PMU);
	} else if (dtl->state != DTL_PMU) {
		ret = -EBUSY;
		goto out;
	}
	dtl->pmu_users++;
out:
	mutex_unlock(&dtl->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_get);

/* An event that held the log is gone: the last one ends the session. */
void dtl_pmu_put(struct vpa_dtl *dtl)
{
	mutex_lock(&dtl->lock);
	if (!WARN_ON(dtl->state != DTL_PMU) && !--dtl->pmu_users) {
		/* Pairs with dtl_read()'s acquire. */
		smp_store_release(&dtl->state, DTL_IDLE);
		dtl_free(dtl);
		dtl->hv = NULL;
	}
	mutex_unlock(&dtl->lock);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_put);

/**
 * dtl_pmu_cpu_add() - a CPU's capture for a perf event
 * @dtl: the session, held with dtl_pmu_get()
 * @cpu: the event's CPU
 * @mask: HTMTRACE_DTL_* events to log
 * @sink: where its records go
 * @arg: for @sink
 *
 * Process context. The capture is idle until dtl_pmu_cpu_begin(), which
 * may still fail (the log taken meanwhile): the AUX area says so then.
 *
 * Return: the capture, or ERR_PTR(-EBUSY) if another event captures the
 * CPU or its log is another user's (dtl_cpu_busy(), as /dev/vpa_dtl's
 * CONFIGURE), ERR_PTR(-EINVAL) for a CPU that is not possible,
 * ERR_PTR(-ENOMEM).
 */
struct dtl_cpu *dtl_pmu_cpu_add(struct vpa_dtl *dtl, int cpu, u8 mask,
				const struct dtl_sink *sink,
					void *arg)
{
	struct dtl_cpu *c;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return ERR_PTR(-EINVAL);
	if (dtl_cpu_busy(dtl->hv, cpu))
		return ERR_PTR(-EBUSY);
	c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
	if (!c)
		return ERR_PTR(-ENOMEM);
	/* kmalloc() aligns a power-of-two size: 4 KiB, no crossing */
	c->own = kzalloc_node(DTL_BYTES, GFP_KERNEL, cpu_to_node(cpu));
	if (!c->own) {
		kfree(c);
		return ERR_PTR(-ENOMEM);
	}
	dtl_cpu_setup(dtl, c, cpu, mask);
	c->sink = sink;
	c->sink_arg = arg;

	mutex_lock(&dtl->lock);
	if (dtl->pcpu[cpu]) {
		mutex_unlock(&dtl->lock);
		kfree(c->own);
		kfree(c);
		return ERR_PTR(-EBUSY);
	}
	dtl->pcpu[cpu] = c;
	cpumask_set_cpu(cpu, dtl->cpus);
	mutex_unlock(&dtl->lock);
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_cpu_add);

/* The event is gone, its capture ended: free it (process context). */
void dtl_pmu_cpu_remove(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	mutex_lock(&dtl->lock);
	dtl->pcpu[c->cpu] = NULL;
	cpumask_clear_cpu(c->cpu, dtl->cpus);
	mutex_unlock(&dtl->lock);
	if (c->own_registered)
		kmemleak_not_leak(c->own);
	else
		kfree(c->own);
	kfree(c);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_cpu_remove);

/**
 * dtl_pmu_cpu_begin() - begin a perf event's capture
 * @c: the capture
 *
 * On @c's CPU, interrupts off, never under perf's raw context lock (the
 * PMU's irq_work after pmu::add): the begin may wake /dev/vpa_dtl's
 * readers, whose wait queue's lock is a spinlock_t.
 */
void dtl_pmu_cpu_begin(struct dtl_cpu *c)
{
	c->clock_pending = true;
	dtl_cpu_begin(c);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_cpu_begin);

/**
 * dtl_pmu_cpu_read() - bring a perf event's capture up to date
 * @c: the capture
 *
 * On @c's CPU in a timer (the PMU's deadline poll), so never beside the
 * capture's own timer, and never under perf's raw context lock (a poll
 * that finds the log taken by another user wakes /dev/vpa_dtl's readers):
 * what the log holds now goes to the sink, as at the timer's next poll.
 *
 * Return: the entries given to the sink so far.
 */
u64 dtl_pmu_cpu_read(struct dtl_cpu *c)
{
	dtl_cpu_poll(c->dtl, c);
	return READ_ONCE(c->entries);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_cpu_read);

/**
 * dtl_pmu_cpu_end() - end a perf event's capture
 * @c: the capture
 *
 * On @c's CPU, interrupts off, never under perf's raw context lock (the
 * PMU's irq_work after pmu::del): what the log holds goes to the sink,
 * and the log and its mask are given back.
 */
void dtl_pmu_cpu_end(struct dtl_cpu *c)
{
	unsigned long flags;

	dtl_cpu_end(c, 0);
	/* Whatever is still pending (a loss, the FAILED record) goes now. */
	raw_spin_lock_irqsave(&c->lock, flags);
	if (c->sink->begin(c->sink_arg, true)) {
		dtl_flush_cpu(c->dtl, c);
		c->sink->end(c->sink_arg, 0);
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_pmu_cpu_end);
