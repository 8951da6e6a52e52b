// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: /dev/vpa_dtl, the dispatch trace log as a stream.
 *
 * Thin: file operations, copies to and from the user, permission checks.
 * The session (dtl_session.c) and the capture (dtl_cpu.c, dtl_rec.c,
 * dtl_ring.c) do the work.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <asm/paca.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* The one session (main.c's) and the device, made at load. */
static struct vpa_dtl *dtl_sess;
static const struct htmtrace_hv_ops *dtl_hv;
static bool dtl_registered;
static struct dentry *dtl_debugfs;

/* No user before the module's init is over (htm_is_live()). */
static int dtl_open(struct inode *inode, struct file *file)
{
	return htm_is_live() ? 0 : -ENODEV;
}

static int dtl_release(struct inode *inode, struct file *file)
{
	/* The session this file configured (without KEEP) ends with it. */
	if (!dtl_end(dtl_sess, file))
		module_put(THIS_MODULE);
	return 0;
}

static ssize_t dtl_cdev_read(struct file *file, char __user *buf,
			     size_t count, loff_t *pos)
{
	return dtl_read(dtl_sess, buf, count,
			    file->f_flags & O_NONBLOCK);
}

static __poll_t dtl_cdev_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &dtl_sess->wait, wait);
	return dtl_poll_mask(dtl_sess);
}

/* Largest CPU mask accepted: 65536 CPUs. */
#define DTL_CPUS_MAX_BYTES	8192

/*
 * The CPU mask of a configuration: every possible CPU when none is given,
 * else the possible CPUs among those given (a full cpu_set_t is every CPU),
 * at least one.
 */
static int dtl_cpus_from_user(const struct htmtrace_dtl_config *cfg,
			      struct cpumask *cpus)
{
	unsigned int nbits = cfg->cpus_size * BITS_PER_BYTE, bit;
	unsigned long *bits;
	u64 *words;
	int ret = 0;

	if (!cfg->cpus && !cfg->cpus_size) {
		cpumask_copy(cpus, cpu_possible_mask);
		return 0;
	}
	if (!cfg->cpus_size || cfg->cpus_size % sizeof(u64) ||
	    cfg->cpus_size > DTL_CPUS_MAX_BYTES)
		return -EINVAL;
	words = memdup_user(u64_to_user_ptr(cfg->cpus), cfg->cpus_size);
	if (IS_ERR(words))
		return PTR_ERR(words);
	bits = bitmap_zalloc(nbits, GFP_KERNEL);
	if (!bits) {
		kfree(words);
		return -ENOMEM;
	}
	bitmap_from_arr64(bits, words, nbits);
	cpumask_clear(cpus);
	for_each_set_bit(bit, bits, min(nbits, nr_cpu_ids))
		if (cpu_possible(bit))
			cpumask_set_cpu(bit, cpus);
	if (cpumask_empty(cpus))
		ret = -EINVAL;
	bitmap_free(bits);
	kfree(words);
	return ret;
}

static long dtl_ioctl_configure(struct file *file, void __user *argp)
{
	struct htmtrace_dtl_config cfg;
	cpumask_var_t cpus;
	u32 ring_size;
	int ret;

	if (copy_from_user(&cfg, argp, sizeof(cfg)))
		return -EFAULT;
	ret = dtl_config_check(&cfg, &ring_size);
	if (ret)
		return ret;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = dtl_cpus_from_user(&cfg, cpus);
	if (ret)
		goto out;
	/* A configured session holds the module as an open file does. */
	__module_get(THIS_MODULE);
	ret = dtl_configure(dtl_sess, dtl_hv, cpus, cfg.mask,
			    ring_size,
				cfg.flags & HTMTRACE_DTL_F_KEEP ? NULL : file);
	if (ret)
		module_put(THIS_MODULE);
out:
	free_cpumask_var(cpus);
	return ret;
}

static long dtl_ioctl_deconfigure(void)
{
	int ret = dtl_end(dtl_sess, NULL);

	if (!ret)
		module_put(THIS_MODULE);
	return ret;
}

static long dtl_ioctl_stats(void __user *argp)
{
	struct htmtrace_dtl_cpu_stats *out;
	struct htmtrace_dtl_stats st;
	u32 max, count = 0;
	int ret;

	if (copy_from_user(&st, argp, sizeof(st)))
		return -EFAULT;
	if (st.reserved[0] || st.reserved[1])
		return -EINVAL;
	max = min_t(u32, st.size / sizeof(*out), nr_cpu_ids);
	out = kcalloc(max ?: 1, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	ret = dtl_stats(dtl_sess, out, max, &count);
	st.count = count;
	ret = htm_ioctl_block(argp, &st, sizeof(st), u64_to_user_ptr(st.addr),
			      out, count * sizeof(*out), ret);
	kfree(out);
	return ret;
}

static long dtl_ioctl(struct file *file, unsigned int cmd,
		      unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HTMTRACE_IOC_DTL_STATS:
		return dtl_ioctl_stats(argp);
	case HTMTRACE_IOC_DTL_FLUSH:
		return dtl_flush_now(dtl_sess);
	case HTMTRACE_IOC_DTL_CONFIGURE:
	case HTMTRACE_IOC_DTL_START:
	case HTMTRACE_IOC_DTL_STOP:
	case HTMTRACE_IOC_DTL_DECONFIGURE:
		if (!perfmon_capable())
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case HTMTRACE_IOC_DTL_CONFIGURE:
		return dtl_ioctl_configure(file, argp);
	case HTMTRACE_IOC_DTL_START:
		return dtl_start(dtl_sess);
	case HTMTRACE_IOC_DTL_STOP:
		return dtl_stop(dtl_sess);
	default:
		return dtl_ioctl_deconfigure();
	}
}

static const struct file_operations dtl_fops = {
	.owner = THIS_MODULE,
	.open = dtl_open,
	.release = dtl_release,
	.read = dtl_cdev_read,
	.poll = dtl_cdev_poll,
	.llseek = noop_llseek,
	.unlocked_ioctl = dtl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice dtl_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vpa_dtl",
	.fops = &dtl_fops,
	.mode = 0600,
};

/*
 * debugfs htmtrace/dtl: each CPU's log as the hypervisor and the kernel see
 * it - whether the kernel owns one, the event mask, the index - and the
 * session's counters.
 */
static int dtl_state_show(struct seq_file *m, void *v)
{
	static const char * const states[] = {
		"idle", "configured", "running", "stopped", "perf",
	};
	struct htmtrace_dtl_cpu_stats *st;
	unsigned int cpu, i;
	u32 count = 0;

	seq_printf(m, "session: %s\n",
		   states[READ_ONCE(dtl_sess->state)]);
	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu %u kernel_log %s mask %u index %llu\n", cpu,
			   READ_ONCE(paca_ptrs[cpu]->dispatch_log) ? "yes" : "no",
			   htm_hv_dtl_mask(dtl_hv, cpu),
			   htm_hv_dtl_index(dtl_hv, cpu));
	st = kcalloc(nr_cpu_ids, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (!dtl_stats(dtl_sess, st, nr_cpu_ids, &count)) {
		for (i = 0; i < count; i++)
			seq_printf(m, "capture cpu %u state %u entries %llu overwritten %llu dropped %llu wakeups %llu next %llu\n",
				   st[i].cpu, st[i].state, st[i].entries,
				   st[i].overwritten, st[i].dropped,
				   st[i].wakeups, st[i].next_index);
	}
	kfree(st);
	/*
	 * The time the polls that found entries took, and waited for the
	 * lock of their records (the ring's, or a perf event CPU's own), and
	 * the period the capture's timer chose last (what it decided, which
	 * a count of its wakeups over a while tells only as fast as the
	 * machine runs).
	 */
	mutex_lock(&dtl_sess->lock);
	if (dtl_sess->state != DTL_IDLE) {
		for_each_cpu(cpu, dtl_sess->cpus)
			seq_printf(m, "poll cpu %u ns %llu lock_wait_ns %llu period_ns %llu\n",
				   cpu, READ_ONCE(dtl_sess->pcpu[cpu]->poll_ns),
				   READ_ONCE(dtl_sess->pcpu[cpu]->lock_wait_ns),
				   READ_ONCE(dtl_sess->pcpu[cpu]->period_ns));
	}
	mutex_unlock(&dtl_sess->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dtl_state);

/**
 * dtl_cdev_add() - create /dev/vpa_dtl
 * @hv: backend with the dispatch trace log operations
 * @dtl: the session, idle
 *
 * Return: 0 or the error of misc_register().
 */
int dtl_cdev_add(const struct htmtrace_hv_ops *hv, struct vpa_dtl *dtl)
{
	int ret;

	dtl_hv = hv;
	dtl_sess = dtl;
	ret = misc_register(&dtl_misc);
	if (ret) {
		dtl_sess = NULL;
		dtl_hv = NULL;
		return ret;
	}
	dtl_registered = true;
	dtl_debugfs = debugfs_create_file("dtl", 0400, htm_debugfs_dir(),
					  NULL, &dtl_state_fops);
	return 0;
}

/* Remove /dev/vpa_dtl; no file is open and no session exists. */
void dtl_cdev_remove(void)
{
	if (!dtl_registered)
		return;
	debugfs_remove(dtl_debugfs);
	dtl_debugfs = NULL;
	misc_deregister(&dtl_misc);
	dtl_registered = false;
	dtl_sess = NULL;
	dtl_hv = NULL;
}
