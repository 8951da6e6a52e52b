// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: what the HTM and the dispatch trace log halves do alike.
 *
 * The flag that lets the devices and PMUs take users once the module's
 * init is over, the bounce size the module's parameter sets, the answer of
 * an ioctl that returns a block of variable size (the HTM information
 * blocks, the DTL statistics), and the registration of a perf PMU (htm,
 * vpa_dtl) with its sysfs groups and its debugfs file.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include "htmtrace.h"

/*
 * Set once the module's init has made everything, never cleared: until
 * then, the devices (open) and the PMUs (event_init) refuse their users
 * with -ENODEV, so that an init that fails after they are registered
 * removes them with no user (a file opened meanwhile would hold a module
 * that is about to be freed). Set by main.c, the composition root, which
 * registers them; read by each of them.
 */
static bool htm_live;

/**
 * htm_is_live() - may the devices and PMUs take users yet?
 *
 * Return: true once the module's init has succeeded (htm_go_live()).
 */
bool htm_is_live(void)
{
	/* Pairs with htm_go_live()'s release. */
	return smp_load_acquire(&htm_live);
}

/**
 * htm_go_live() - let the devices and PMUs take users
 *
 * Called once, at the end of a module init that made everything.
 */
void htm_go_live(void)
{
	/* Pairs with htm_is_live(): everything is made. */
	smp_store_release(&htm_live, true);
}

/* Bytes of a reading file's bounce buffer: bounce_kb, set at load. */
unsigned int htm_bounce_size;
EXPORT_SYMBOL_IF_KUNIT(htm_bounce_size);

/**
 * htm_ioctl_block() - answer an ioctl that returns a block of variable size
 * @uarg: the ioctl's argument, the user's header: written back
 * @hdr: the header as copied from @uarg, its length (or count) field set to
 *	what the whole block needs
 * @hdr_size: bytes of @hdr
 * @ubuf: the user's buffer for the block (the header's address field)
 * @block: the block
 * @len: bytes of @block
 * @err: 0; -ENOSPC if the block does not fit the user's buffer; another
 *	errno to fail with
 *
 * HTMTRACE_IOC_CAPS, HTMTRACE_IOC_SYSMEM, HTMTRACE_IOC_SYSPROC and
 * HTMTRACE_IOC_DTL_STATS answer so: the block goes to @ubuf only if it fits,
 * and the header goes back with the size the block needs also when it does
 * not (-ENOSPC), so that the caller can ask again with a buffer that does.
 *
 * Return: @err, or -EFAULT if a copy to the user failed.
 */
int htm_ioctl_block(void __user *uarg, const void *hdr, size_t hdr_size,
		    void __user *ubuf, const void *block, size_t len, int err)
{
	if (!err && copy_to_user(ubuf, block, len))
		err = -EFAULT;
	if (err && err != -ENOSPC)
		return err;
	if (copy_to_user(uarg, hdr, hdr_size))
		return -EFAULT;
	return err;
}

/* The PMU's debugfs file: each event, as the PMU's show() tells it. */
static int htm_perf_events_show(struct seq_file *m, void *v)
{
	struct htm_perf *reg = m->private;
	struct list_head *node;

	mutex_lock(&reg->lock);
	list_for_each(node, &reg->event_list)
		reg->show(m, node);
	mutex_unlock(&reg->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(htm_perf_events);

/**
 * htm_perf_event_add() - list a new event of a PMU, for its debugfs file
 * @reg: the PMU's registration
 * @node: the event's list node, as @reg->show() knows it
 */
void htm_perf_event_add(struct htm_perf *reg, struct list_head *node)
{
	mutex_lock(&reg->lock);
	list_add_tail(node, &reg->event_list);
	mutex_unlock(&reg->lock);
}

/**
 * htm_perf_event_del() - take an event off its PMU's list
 * @reg: the PMU's registration
 * @node: the event's list node
 */
void htm_perf_event_del(struct htm_perf *reg, struct list_head *node)
{
	mutex_lock(&reg->lock);
	list_del(node);
	mutex_unlock(&reg->lock);
}

/**
 * htm_perf_register() - register a perf PMU of the driver
 * @reg: the registration, unused (zeroed or unregistered)
 * @name: the PMU's name; its debugfs file is htmtrace/<name>_pmu
 * @tmpl: its capabilities and callbacks
 * @format: its format attributes, NULL-terminated
 * @events: its event attributes, NULL-terminated
 * @show: writes one event (its list node) to the debugfs file
 *
 * A struct pmu cannot be registered twice: perf_pmu_unregister() leaves its
 * freed device behind. Each registration (one per module load) starts afresh
 * from @tmpl, with the driver as its module, CPU-wide events only, and the
 * format and events groups. The debugfs file lists the events
 * htm_perf_event_add() listed.
 *
 * Return: 0 or the error of perf_pmu_register().
 */
int htm_perf_register(struct htm_perf *reg, const char *name,
		      const struct pmu *tmpl, struct attribute **format,
		      struct attribute **events,
		      void (*show)(struct seq_file *m,
				   const struct list_head *node))
{
	char file[32];
	int ret;

	reg->format.name = "format";
	reg->format.attrs = format;
	reg->events.name = "events";
	reg->events.attrs = events;
	reg->groups[0] = &reg->format;
	reg->groups[1] = &reg->events;
	reg->groups[2] = NULL;
	reg->pmu = *tmpl;
	reg->pmu.module = THIS_MODULE;
	reg->pmu.task_ctx_nr = perf_invalid_context;
	reg->pmu.attr_groups = reg->groups;
	reg->show = show;
	mutex_init(&reg->lock);
	INIT_LIST_HEAD(&reg->event_list);
	ret = perf_pmu_register(&reg->pmu, name, -1);
	if (ret) {
		mutex_destroy(&reg->lock);
		return ret;
	}
	reg->registered = true;
	snprintf(file, sizeof(file), "%s_pmu", name);
	reg->debugfs = debugfs_create_file(file, 0400, htm_debugfs_dir(), reg,
					   &htm_perf_events_fops);
	return 0;
}

/**
 * htm_perf_unregister() - remove a PMU htm_perf_register() made
 * @reg: the registration; nothing happens if it is not registered
 *
 * No event of the PMU exists.
 */
void htm_perf_unregister(struct htm_perf *reg)
{
	if (!reg->registered)
		return;
	debugfs_remove(reg->debugfs);
	reg->debugfs = NULL;
	perf_pmu_unregister(&reg->pmu);
	WARN_ON(!list_empty(&reg->event_list));
	mutex_destroy(&reg->lock);
	reg->registered = false;
}
