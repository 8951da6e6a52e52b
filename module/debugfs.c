// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: debugfs status under /sys/kernel/debug/htmtrace/.
 *
 *	backend		name of the hypervisor backend in use
 *	targets		the HTM targets held, by a channel or an htm event,
 *			and those stranded: left configured by a holder whose
 *			DECONFIGURE failed at teardown (kept from every user)
 *	htmN/config	channel state, target, flags and dump engine sizes
 *	htmN/status	the hypervisor's STATUS block, decoded
 *	htmN/caps	the capabilities block, in hex
 *	htmN/sysmem	the memory configuration blocks, raw
 *	htmN/sysproc	the processor configuration blocks, raw
 *	htmN/counters	hcalls, bytes dumped, retries, sleeps, errors by status
 *	dtl		each CPU's dispatch trace log and the session's
 *			counters (made by dtl_cdev.c with /dev/vpa_dtl)
 *
 * caps, sysmem and sysproc are about the channel's target, or the all-zero
 * target when the channel is idle; they wait for the hypervisor without
 * the channel's lock, as the ioctls do. A file that waits for the channel
 * (behind a command that waits out a busy hypervisor) can be killed.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <asm/byteorder.h>

#include "htmtrace.h"
#include "htm_internal.h"

static struct dentry *htm_debugfs_root;

static const char * const htm_state_names[] = {
	[HTMTRACE_STATE_IDLE] = "idle",
	[HTMTRACE_STATE_CONFIGURED] = "configured",
	[HTMTRACE_STATE_TRACING] = "tracing",
	[HTMTRACE_STATE_STOPPED] = "stopped",
};

static int backend_show(struct seq_file *m, void *v)
{
	const struct htmtrace_hv_ops *hv = m->private;

	seq_printf(m, "%s\n", hv->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(backend);

static int targets_show(struct seq_file *m, void *v)
{
	htm_targets_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(targets);

static int htm_chan_target(struct htm_chan *chan, struct htm_target *t)
{
	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	*t = chan->cfg.target;
	mutex_unlock(&chan->lock);
	return 0;
}

static int config_show(struct seq_file *m, void *v)
{
	struct htm_chan *chan = m->private;
	const struct htm_config *cfg = &chan->cfg;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	seq_printf(m, "state: %s\n", htm_state_names[chan->state]);
	seq_printf(m, "generation: %llu\n", chan->gen);
	seq_printf(m, "target: type %u node %u chip %u core %u\n",
		   cfg->target.type, cfg->target.node, cfg->target.chip,
		   cfg->target.core);
	seq_printf(m, "flags:%s%s%s\n",
		   cfg->flags & HTMTRACE_CFG_NOWRAP ? " nowrap" : "",
		   cfg->flags & HTMTRACE_CFG_WAIT ? " wait" : "",
		   cfg->flags & HTMTRACE_CFG_MODE ? " mode" : "");
	seq_printf(m, "mode: mask %#llx value %#llx\n", cfg->mode_mask,
		   cfg->mode_value);
	seq_printf(m, "bounce_bytes: %u\n", htm_bounce_size);
	seq_printf(m, "transfer_bytes: %zu\n", chan->max_xfer);
	mutex_unlock(&chan->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(config);

static int status_show(struct seq_file *m, void *v)
{
	struct htm_chan *chan = m->private;
	u8 hdr[HTM_BLOCK_HDR_SIZE];
	struct htmtrace_status st;
	int ret;

	ret = htm_chan_status(chan, &st, hdr);
	seq_printf(m, "state: %s\n", htm_state_names[st.state]);
	if (st.state == HTMTRACE_STATE_IDLE)
		return 0;
	if (ret) {
		seq_printf(m, "status: error %d\n", ret);
		return 0;
	}
	if (st.hv_flags & HTMTRACE_STATUS_STOP_REFUSED)
		seq_puts(m, "stop: refused (H_STATE)\n");
	if (st.hv_flags & HTMTRACE_STATUS_DATA_END)
		seq_printf(m, "data_end: %llu\n", st.data_size);
	else
		seq_puts(m, "data_end: not reached\n");
	if (st.status_error) {
		seq_printf(m, "status: error %d\n", st.status_error);
		return 0;
	}
	/* 0: the STATUS block gives no usable size (public for nest, core). */
	seq_printf(m, "buffer_size: %llu\n", st.buffer_size);
	seq_printf(m, "entries: %llu\n",
		   be64_to_cpup((const __be64 *)(hdr + HTM_BLOCK_NR_ENTRIES)));
	/* The rest of the header has no public layout: shown, not decoded. */
	seq_printf(m, "header: %*phN\n", HTM_BLOCK_HDR_SIZE, hdr);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int caps_show(struct seq_file *m, void *v)
{
	struct htm_chan *chan = m->private;
	struct htm_target t;
	size_t len, i;
	void *data;
	int ret;

	ret = htm_chan_target(chan, &t);
	if (!ret)
		ret = htm_chan_info(chan, HTM_OP_CAPABILITIES, &t, &data, &len);
	if (ret)
		return ret;
	for (i = 0; i < len; i += 16)
		seq_printf(m, "%04zx: %*phN\n", i, (int)min_t(size_t, 16, len - i),
			   data + i);
	kvfree(data);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(caps);

/**
 * htm_debugfs_show_stats() - print hypervisor call counters
 * @m: the file
 * @prefix: before each line
 * @st: the counters
 * @bytes: trace bytes dumped
 */
void htm_debugfs_show_stats(struct seq_file *m, const char *prefix,
			    const struct htm_hv_stats *st, u64 bytes)
{
	int i;

	seq_printf(m, "%shcalls: %llu\n", prefix, st->hcalls);
	seq_printf(m, "%sbytes_dumped: %llu\n", prefix, bytes);
	seq_printf(m, "%sbusy_retries: %llu\n", prefix, st->busy_retries);
	seq_printf(m, "%slong_busy_sleeps: %llu\n", prefix,
		   st->long_busy_sleeps);
	for (i = 0; i < HTM_HV_NR_RC; i++) {
		if (!st->errors[i])
			continue;
		seq_printf(m, "%serrors %s: %llu\n", prefix,
			   htm_hv_slot_name(i), st->errors[i]);
	}
}

static int counters_show(struct seq_file *m, void *v)
{
	struct htm_chan *chan = m->private;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	htm_debugfs_show_stats(m, "", &chan->stats,
			       atomic64_read(&chan->bytes_dumped));
	mutex_unlock(&chan->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counters);

/* sysmem and sysproc: fetched whole at open, then read like a file. */
struct htm_blob {
	void *data;
	size_t len;
};

static int htm_blob_open(struct inode *inode, struct file *file,
			 unsigned int op)
{
	struct htm_chan *chan = inode->i_private;
	struct htm_target t;
	struct htm_blob *blob;
	int ret;

	blob = kzalloc(sizeof(*blob), GFP_KERNEL);
	if (!blob)
		return -ENOMEM;
	ret = htm_chan_target(chan, &t);
	if (!ret)
		ret = htm_chan_info(chan, op, &t, &blob->data, &blob->len);
	if (ret) {
		kfree(blob);
		return ret;
	}
	file->private_data = blob;
	return 0;
}

static int sysmem_open(struct inode *inode, struct file *file)
{
	return htm_blob_open(inode, file, HTM_OP_DUMP_SYSMEM_CONF);
}

static int sysproc_open(struct inode *inode, struct file *file)
{
	return htm_blob_open(inode, file, HTM_OP_DUMP_SYSPROC_CONF);
}

static ssize_t htm_blob_read(struct file *file, char __user *buf, size_t count,
			     loff_t *pos)
{
	struct htm_blob *blob = file->private_data;

	return simple_read_from_buffer(buf, count, pos, blob->data, blob->len);
}

static int htm_blob_release(struct inode *inode, struct file *file)
{
	struct htm_blob *blob = file->private_data;

	kvfree(blob->data);
	kfree(blob);
	return 0;
}

static const struct file_operations sysmem_fops = {
	.owner = THIS_MODULE,
	.open = sysmem_open,
	.read = htm_blob_read,
	.llseek = default_llseek,
	.release = htm_blob_release,
};

static const struct file_operations sysproc_fops = {
	.owner = THIS_MODULE,
	.open = sysproc_open,
	.read = htm_blob_read,
	.llseek = default_llseek,
	.release = htm_blob_release,
};

void htm_debugfs_add_chan(struct htm_chan *chan)
{
	char name[16];
	struct dentry *d;

	snprintf(name, sizeof(name), "htm%u", chan->index);
	d = debugfs_create_dir(name, htm_debugfs_root);
	debugfs_create_file("config", 0400, d, chan, &config_fops);
	debugfs_create_file("status", 0400, d, chan, &status_fops);
	debugfs_create_file("caps", 0400, d, chan, &caps_fops);
	debugfs_create_file("sysmem", 0400, d, chan, &sysmem_fops);
	debugfs_create_file("sysproc", 0400, d, chan, &sysproc_fops);
	debugfs_create_file("counters", 0400, d, chan, &counters_fops);
	chan->debugfs = d;
}

void htm_debugfs_remove_chan(struct htm_chan *chan)
{
	debugfs_remove(chan->debugfs);
	chan->debugfs = NULL;
}

/* The driver's debugfs directory, for the files of other parts. */
struct dentry *htm_debugfs_dir(void)
{
	return htm_debugfs_root;
}

void htm_debugfs_init(const struct htmtrace_hv_ops *hv)
{
	htm_debugfs_root = debugfs_create_dir("htmtrace", NULL);
	debugfs_create_file("backend", 0400, htm_debugfs_root, (void *)hv,
			    &backend_fops);
	debugfs_create_file("targets", 0400, htm_debugfs_root, NULL,
			    &targets_fops);
}

void htm_debugfs_exit(void)
{
	debugfs_remove(htm_debugfs_root);
}
