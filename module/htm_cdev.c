// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the /dev/htmN character devices.
 *
 * Thin: file operations, copies to and from the user, permission checks.
 * The channel (htm_chan.c, its readers htm_read.c, its queries htm_info.c)
 * does the work.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "htmtrace.h"
#include "htm_internal.h"

struct htm_cdev {
	struct miscdevice misc;
	char name[16];
	struct htm_chan *chan;
};

/* The devices, made at load. */
static struct htm_cdev *htm_cdevs;
static unsigned int htm_nr_cdevs;

/* An open file's reader; open() put it in place of the miscdevice. */
static struct htm_reader *htm_file_reader(struct file *file)
{
	return file->private_data;
}

static struct htm_chan *htm_file_chan(struct file *file)
{
	return htm_file_reader(file)->chan;
}

static int htm_cdev_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct htm_reader *rd;

	/* No user before the module's init is over. */
	if (!htm_is_live())
		return -ENODEV;
	rd = kmalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	htm_reader_init(rd, container_of(misc, struct htm_cdev, misc)->chan);
	file->private_data = rd;
	/* One position for every thread that shares the file, as for files. */
	file->f_mode |= FMODE_ATOMIC_POS;
	return 0;
}

static int htm_cdev_release(struct inode *inode, struct file *file)
{
	struct htm_reader *rd = htm_file_reader(file);

	htm_reader_release(rd);
	kfree(rd);
	return 0;
}

/*
 * May this file stop a trace by reading it? The STOP ioctl's permission, but
 * of whoever opened the file (read() has no caller identity to check: the
 * file may have been handed over).
 */
static bool htm_file_may_stop(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

static ssize_t htm_cdev_read(struct file *file, char __user *buf,
			     size_t count, loff_t *pos)
{
	unsigned int how = 0;

	if (file->f_flags & O_NONBLOCK)
		how |= HTM_READ_NONBLOCK;
	if (htm_file_may_stop(file))
		how |= HTM_READ_MAY_STOP;
	return htm_chan_read(htm_file_reader(file), buf, count, pos, how);
}

static __poll_t htm_cdev_poll(struct file *file, poll_table *wait)
{
	struct htm_reader *rd = htm_file_reader(file);

	poll_wait(file, &rd->chan->wait, wait);
	return htm_chan_poll_mask(rd);
}

/*
 * SEEK_END is the size of the trace. A seek also unbinds the file from the
 * trace it read: its next read() reads whichever trace is there then.
 */
static loff_t htm_cdev_llseek(struct file *file, loff_t offset, int whence)
{
	struct htm_reader *rd = htm_file_reader(file);
	loff_t size = 0, ret;

	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	if (whence == SEEK_END || whence == SEEK_DATA || whence == SEEK_HOLE) {
		size = htm_chan_size(rd->chan);
		if (size < 0) {
			ret = size;
			goto out;
		}
	}
	ret = generic_file_llseek_size(file, offset, whence, MAX_LFS_FILESIZE,
				       size);
	if (ret >= 0)
		WRITE_ONCE(rd->gen, 0);
out:
	mutex_unlock(&rd->lock);
	return ret;
}

static bool htm_may_trace(void)
{
	return perfmon_capable();
}

static long htm_ioctl_configure(struct htm_chan *chan, void __user *argp)
{
	struct htmtrace_config ucfg;
	struct htm_config cfg;
	int ret;

	if (copy_from_user(&ucfg, argp, sizeof(ucfg)))
		return -EFAULT;
	ret = htm_config_check(&ucfg, &cfg);
	if (ret)
		return ret;
	/* A configured channel holds the module (htm_chan_configure()). */
	return htm_chan_configure(chan, &cfg);
}

static long htm_ioctl_setup(struct htm_chan *chan, void __user *argp)
{
	struct htmtrace_setup setup;
	struct htm_target t;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&setup, argp, sizeof(setup)))
		return -EFAULT;
	if (setup.reserved)
		return -EINVAL;
	ret = htm_target_from_user(&setup.target, false, &t);
	if (ret)
		return ret;
	return htm_chan_setup(chan, &t, setup.log2_size);
}

static long htm_ioctl_status(struct htm_chan *chan, void __user *argp)
{
	struct htmtrace_status st;
	int ret;

	ret = htm_chan_status(chan, &st, NULL);
	if (ret)
		return ret;
	return copy_to_user(argp, &st, sizeof(st)) ? -EFAULT : 0;
}

static long htm_ioctl_hvbuf(struct htm_chan *chan, unsigned int op,
			    void __user *argp)
{
	struct htmtrace_hvbuf hb;
	struct htm_target t;
	size_t len;
	void *data;
	int ret;

	if (copy_from_user(&hb, argp, sizeof(hb)))
		return -EFAULT;
	/* @length is an answer: a caller may retry with its first one in. */
	if (hb.reserved[0] || hb.reserved[1])
		return -EINVAL;
	ret = htm_target_from_user(&hb.target, true, &t);
	if (ret)
		return ret;

	ret = htm_chan_info(chan, op, &t, &data, &len);
	if (ret)
		return ret;
	hb.length = len;
	ret = htm_ioctl_block(argp, &hb, sizeof(hb), u64_to_user_ptr(hb.addr),
			      data, len, len > hb.size ? -ENOSPC : 0);
	kvfree(data);
	return ret;
}

static long htm_cdev_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct htm_chan *chan = htm_file_chan(file);
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HTMTRACE_IOC_CAPS:
		return htm_ioctl_hvbuf(chan, HTM_OP_CAPABILITIES, argp);
	case HTMTRACE_IOC_SYSMEM:
		return htm_ioctl_hvbuf(chan, HTM_OP_DUMP_SYSMEM_CONF, argp);
	case HTMTRACE_IOC_SYSPROC:
		return htm_ioctl_hvbuf(chan, HTM_OP_DUMP_SYSPROC_CONF, argp);
	case HTMTRACE_IOC_STATUS:
		return htm_ioctl_status(chan, argp);
	case HTMTRACE_IOC_SETUP:
		return htm_ioctl_setup(chan, argp);
	}

	switch (cmd) {
	case HTMTRACE_IOC_CONFIGURE:
	case HTMTRACE_IOC_START:
	case HTMTRACE_IOC_STOP:
	case HTMTRACE_IOC_DECONFIGURE:
		if (!htm_may_trace())
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case HTMTRACE_IOC_CONFIGURE:
		return htm_ioctl_configure(chan, argp);
	case HTMTRACE_IOC_START:
		return htm_chan_start(chan);
	case HTMTRACE_IOC_STOP:
		return htm_chan_stop(chan);
	default:
		return htm_chan_deconfigure(chan);
	}
}

static const struct file_operations htm_cdev_fops = {
	.owner = THIS_MODULE,
	.open = htm_cdev_open,
	.release = htm_cdev_release,
	.read = htm_cdev_read,
	.poll = htm_cdev_poll,
	.llseek = htm_cdev_llseek,
	.unlocked_ioctl = htm_cdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* Every configured channel holds the module, so one torn down is idle. */
static void htm_cdev_free_chan(struct htm_chan *chan)
{
	htm_debugfs_remove_chan(chan);
	htm_chan_destroy(chan);
}

/**
 * htm_cdev_add_all() - create /dev/htm0 .. /dev/htm<@nr - 1>
 * @hv: backend the channels talk to
 * @nr: how many (the channels parameter)
 *
 * Return: 0, or an errno with nothing created.
 */
int htm_cdev_add_all(const struct htmtrace_hv_ops *hv, unsigned int nr)
{
	unsigned int i;
	int ret;

	htm_cdevs = kcalloc(nr, sizeof(*htm_cdevs), GFP_KERNEL);
	if (!htm_cdevs)
		return -ENOMEM;

	for (i = 0; i < nr; i++) {
		struct htm_cdev *cd = &htm_cdevs[i];

		cd->chan = htm_chan_create(i, hv);
		if (!cd->chan) {
			ret = -ENOMEM;
			goto err;
		}
		snprintf(cd->name, sizeof(cd->name), "htm%u", i);
		cd->misc.minor = MISC_DYNAMIC_MINOR;
		cd->misc.name = cd->name;
		cd->misc.fops = &htm_cdev_fops;
		cd->misc.mode = 0600;
		ret = misc_register(&cd->misc);
		if (ret) {
			htm_chan_destroy(cd->chan);
			goto err;
		}
		htm_nr_cdevs = i + 1;
		htm_debugfs_add_chan(cd->chan);
	}
	return 0;

err:
	htm_cdev_remove_all();
	return ret;
}

/**
 * htm_cdev_remove_all() - remove the devices
 *
 * At unload, or when loading fails: no file is open and no channel is
 * configured (each holds the module).
 */
void htm_cdev_remove_all(void)
{
	unsigned int i;

	for (i = 0; i < htm_nr_cdevs; i++) {
		misc_deregister(&htm_cdevs[i].misc);
		htm_cdev_free_chan(htm_cdevs[i].chan);
	}
	kfree(htm_cdevs);
	htm_cdevs = NULL;
	htm_nr_cdevs = 0;
	/* No channel and no htm event is left: only stranded holds. */
	htm_targets_exit();
}
