// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log session's CPU hotplug callbacks, and
 * the session's set-up and tear-down that register them.
 *
 * A CPU going offline ends its capture with a CPU record; a selected CPU
 * coming online joins.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* CPU hotplug, while a session runs */

static struct vpa_dtl *dtl_hp_session;

static int dtl_cpu_online(unsigned int cpu)
{
	struct vpa_dtl *dtl = dtl_hp_session;
	struct dtl_cpu *c;

	mutex_lock(&dtl->lock);
	c = dtl->state == DTL_RUNNING ? dtl->pcpu[cpu] : NULL;
	if (c && c->state == HTMTRACE_DTL_CPU_WAITING)
		dtl_cpu_begin(c);
	mutex_unlock(&dtl->lock);
	return 0;
}

static int dtl_cpu_offline(unsigned int cpu)
{
	struct vpa_dtl *dtl = dtl_hp_session;
	struct dtl_cpu *c;

	mutex_lock(&dtl->lock);
	c = dtl->state == DTL_RUNNING ? dtl->pcpu[cpu] : NULL;
	if (c && c->state == HTMTRACE_DTL_CPU_CAPTURING) {
		dtl_cpu_end(c, HTMTRACE_DTL_CPU_OFFLINE);
		/* It may come back: it then joins again. */
		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
	}
	mutex_unlock(&dtl->lock);
	return 0;
}

/* the session */

static void dtl_wake_work(struct irq_work *work)
{
	struct vpa_dtl *dtl = container_of(work, struct vpa_dtl, wake_work);

	wake_up_interruptible(&dtl->wait);
}

/**
 * dtl_init() - set up an idle session
 * @dtl: session; the only one (the CPU hotplug callbacks know it)
 *
 * The hotplug callbacks stay registered for the session's whole life and
 * act only while it runs: registering them takes the hotplug state mutex,
 * which must never be taken under @dtl->lock (the callbacks take that).
 *
 * Return: 0 or the error of registering the CPU hotplug callbacks.
 */
int dtl_init(struct vpa_dtl *dtl)
{
	int ret;

	memset(dtl, 0, sizeof(*dtl));
	mutex_init(&dtl->lock);
	mutex_init(&dtl->read_lock);
	init_waitqueue_head(&dtl->wait);
	init_irq_work(&dtl->wake_work, dtl_wake_work);
	dtl_hp_session = dtl;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"htmtrace/dtl:online",
					dtl_cpu_online,
					dtl_cpu_offline);
	if (ret < 0)
		return ret;
	dtl->hp_state = ret;
	return 0;
}

/* The session is idle and goes: no more hotplug callbacks. */
void dtl_exit(struct vpa_dtl *dtl)
{
	cpuhp_remove_state_nocalls(dtl->hp_state);
	irq_work_sync(&dtl->wake_work);
	mutex_destroy(&dtl->lock);
	mutex_destroy(&dtl->read_lock);
}
