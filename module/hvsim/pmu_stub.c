// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace_pmu_stub: a perf PMU with a name and nothing else, for the
 * tests. A kernel with a vpa_dtl PMU of its own (mainline 6.18 on, or a
 * distribution's backport) registers it at boot; this module, loaded
 * before htmtrace, stands for it, so that the suites see htmtrace then
 * register no vpa_dtl PMU (and say so). Its events cannot be opened
 * (-ENODEV), which tells its answers from htmtrace's. Test builds only.
 *
 *	name	the PMU's name (default vpa_dtl)
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>

static char *name = "vpa_dtl";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the PMU's name (default vpa_dtl)");

static int stub_event_init(struct perf_event *event)
{
	return event->attr.type == event->pmu->type ? -ENODEV : -ENOENT;
}

/* No event is ever added: event_init refuses them all. */
static int stub_add(struct perf_event *event, int flags)
{
	return -ENODEV;
}

static void stub_del(struct perf_event *event, int flags)
{
}

static void stub_start(struct perf_event *event, int flags)
{
}

static void stub_stop(struct perf_event *event, int flags)
{
}

static void stub_read(struct perf_event *event)
{
}

static struct pmu stub_pmu = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_invalid_context,
	.capabilities = PERF_PMU_CAP_NO_EXCLUDE,
	.event_init = stub_event_init,
	.add = stub_add,
	.del = stub_del,
	.start = stub_start,
	.stop = stub_stop,
	.read = stub_read,
};

static int __init stub_init(void)
{
	return perf_pmu_register(&stub_pmu, name, -1);
}

static void __exit stub_exit(void)
{
	perf_pmu_unregister(&stub_pmu);
}

module_init(stub_init);
module_exit(stub_exit);

MODULE_DESCRIPTION("htmtrace tests: a perf PMU with only a name");
MODULE_LICENSE("GPL");
