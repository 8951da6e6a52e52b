// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the files that read a channel's stopped trace.
 *
 * Each reading file (struct htm_reader) dumps the trace through a bounce
 * buffer of its own: each DUMP_DATA fetches a chunk as large as the buffer,
 * and reads served from the chunk cost no hcall. The channel's state
 * machine is htm_chan.c; lock rules in htm_internal.h.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "htmtrace.h"
#include "htm_internal.h"

/* the channel's dump */

/*
 * The bounce buffer: htm_bounce_size if memory is not too fragmented for it,
 * else the largest of its halves (down to 64 KiB) the allocator can give.
 * The dump works with any size; a smaller one costs more hcalls.
 */
static int htm_dump_alloc(struct htm_dump *dump)
{
	size_t size = htm_bounce_size;

	for (;;) {
		dump->buf = alloc_pages_exact(size, GFP_KERNEL | __GFP_NOWARN);
		if (dump->buf || size <= max_t(size_t, SZ_64K, PAGE_SIZE))
			break;
		size = max_t(size_t, round_down(size / 2, PAGE_SIZE), PAGE_SIZE);
	}
	if (!dump->buf)
		return -ENOMEM;
	dump->size = size;
	dump->len = 0;
	return 0;
}

static void htm_dump_free(struct htm_dump *dump)
{
	if (dump->buf)
		free_pages_exact(dump->buf, dump->size);
	dump->buf = NULL;
	dump->len = 0;
}

static bool htm_dump_holds(const struct htm_dump *dump, u64 gen, u64 pos)
{
	return dump->len && dump->gen == gen && pos >= dump->start &&
	       pos - dump->start < dump->len;
}

/* The hypervisor said the data ends at @end (at most: the first such answer). */
static void htm_chan_data_end(struct htm_chan *chan, u64 end)
{
	if (chan->end_gen == chan->gen && chan->data_end <= end)
		return;
	chan->data_end = end;
	chan->end_gen = chan->gen;
}

/*
 * Is there a trace to ask DUMP_DATA for? Only one stopped through the
 * driver: after a STOP the hypervisor refused, it may still be writing.
 */
static bool htm_chan_readable(const struct htm_chan *chan)
{
	return chan->state == HTMTRACE_STATE_STOPPED;
}

/*
 * Fetch the chunk holding @pos of the trace into @dump, a reader's own
 * buffer, following the public drivers: no STATUS is needed (without a
 * size the dump goes on until the hypervisor says the data ends), every
 * request is of whole pages at a page-aligned address, and H_NOT_AVAILABLE
 * at any offset is the end of the data. The channel's lock is let go while
 * the hypervisor is long busy (@yield says whether the trace is still there
 * after). Return: 0; -ENODATA past the end of the data; -ESTALE if the trace
 * went while the lock was let go; another errno.
 */
static int htm_dump_fetch(struct htm_chan *chan, struct htm_dump *dump,
			  u64 pos, const struct htm_hv_yield *yield)
{
	struct htm_chunk ck = { .buf = dump->buf, .cap = dump->size };
	struct htm_caller c;
	size_t xfer;
	int ret;

	lockdep_assert_held(&chan->lock);
	/* Not waited for: the channel's other files and exits go on. */
	if (chan->size_gen != chan->gen) {
		ret = htm_chan_query_size(chan, dump->buf, NULL);
		if (ret)
			return ret;
	}
	if (chan->end_gen == chan->gen && pos >= chan->data_end)
		return -ENODATA;
	if (chan->hw_size && pos >= chan->hw_size) {
		htm_chan_data_end(chan, chan->hw_size);
		return -ENODATA;
	}

	dump->len = 0;
	ck.end = chan->hw_size;
	htm_chan_caller(chan, yield, &c);
	xfer = chan->max_xfer;
	ret = htm_dump_chunk(&c, &ck, pos, &chan->max_xfer);
	if (chan->max_xfer < xfer)
		htm_target_xfer_learn(&chan->cfg.target, chan->max_xfer);
	if (ret == -ENODATA)
		htm_chan_data_end(chan, ck.start);
	if (ret)
		return ret;
	dump->gen = chan->gen;
	dump->start = ck.start;
	dump->len = ck.len;
	return 0;
}

/* readers */

/**
 * htm_reader_init() - the read state of a newly opened file
 * @rd: reader to set up
 * @chan: the file's channel
 */
void htm_reader_init(struct htm_reader *rd, struct htm_chan *chan)
{
	memset(rd, 0, sizeof(*rd));
	rd->chan = chan;
	mutex_init(&rd->lock);
}
EXPORT_SYMBOL_IF_KUNIT(htm_reader_init);

/* The file is closed: free its bounce buffer. */
void htm_reader_release(struct htm_reader *rd)
{
	htm_dump_free(&rd->dump);
	mutex_destroy(&rd->lock);
}
EXPORT_SYMBOL_IF_KUNIT(htm_reader_release);

/* Is the trace the reader is bound to still there to read? */
static bool htm_reader_trace_valid(void *arg)
{
	struct htm_reader *rd = arg;

	lockdep_assert_held(&rd->chan->lock);
	return htm_chan_readable(rd->chan) && rd->chan->gen == rd->gen;
}

/* Is the trace the reader stops still running, as it was? */
static bool htm_reader_trace_running(void *arg)
{
	struct htm_reader *rd = arg;

	lockdep_assert_held(&rd->chan->lock);
	return rd->chan->state == HTMTRACE_STATE_TRACING &&
	       rd->chan->gen == rd->gen;
}

/*
 * Bring the channel to a trace this file may read and make rd->dump hold
 * @pos of it. Every wait for the hypervisor (the STOP, the STATUS size, the
 * DUMP_DATA) lets the channel's lock go, so that the channel's other files
 * are not held up. Return: 1 when it does, 0 past the end of the trace, or
 * an errno (see htm_chan_read()).
 */
static int htm_reader_fill(struct htm_reader *rd, u64 pos, bool want_data,
			   unsigned int how)
{
	struct htm_chan *chan = rd->chan;
	const struct htm_hv_yield yield = {
		.lock = &chan->lock,
		.valid = htm_reader_trace_valid,
		.arg = rd,
	};
	const struct htm_hv_yield stop_yield = {
		.lock = &chan->lock,
		.valid = htm_reader_trace_running,
		.arg = rd,
	};
	u64 gen;
	int ret;

	lockdep_assert_held(&rd->lock);
	if (mutex_lock_interruptible(&chan->lock))
		return -ERESTARTSYS;

	for (;;) {
		if (rd->gen && rd->gen != chan->gen) {
			ret = -ESTALE;
			goto out;
		}
		if (chan->state != HTMTRACE_STATE_TRACING)
			break;
		/* The file reads the trace it stops or waits for, no later one. */
		gen = chan->gen;
		WRITE_ONCE(rd->gen, gen);
		if (!(chan->cfg.flags & HTMTRACE_CFG_WAIT)) {
			ret = -EPERM;
			if (!(how & HTM_READ_MAY_STOP))
				goto out;
			/* Asked again after a refusal, as htm-perf.c's next read. */
			ret = htm_chan_stop_locked(chan, &stop_yield);
			/* Stopped or restarted by another file meanwhile. */
			if (ret == -ESTALE)
				continue;
			/* Failed or refused: no dump of a trace that may run. */
			if (ret)
				goto out;
			break;
		}
		/* The STOP it waited for was refused: the trace may still run. */
		if (chan->stop_refused) {
			ret = -EIO;
			goto out;
		}
		if (how & HTM_READ_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		mutex_unlock(&chan->lock);
		if (wait_event_interruptible(chan->wait,
					     READ_ONCE(chan->state) !=
					     HTMTRACE_STATE_TRACING ||
					     READ_ONCE(chan->stop_refused) ||
					     READ_ONCE(chan->gen) != gen))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&chan->lock))
			return -ERESTARTSYS;
	}

	/* Only a trace stopped through the driver is dumped. */
	if (!htm_chan_readable(chan)) {
		ret = -ENODATA;
		goto out;
	}
	WRITE_ONCE(rd->gen, chan->gen);
	ret = 0;
	if (!want_data)
		goto out;
	ret = 1;
	if (htm_dump_holds(&rd->dump, rd->gen, pos))
		goto out;
	ret = htm_dump_fetch(chan, &rd->dump, pos, &yield);
	if (!ret)
		ret = 1;
	else if (ret == -ENODATA)
		ret = 0;
out:
	mutex_unlock(&chan->lock);
	return ret;
}

/**
 * htm_chan_read() - read the trace at *@pos
 * @rd: the file's reader
 * @ubuf: user buffer
 * @count: its size
 * @pos: file position, the offset in the HTM buffer; advanced by the bytes
 *	copied
 * @how: HTM_READ_NONBLOCK (O_NONBLOCK), HTM_READ_MAY_STOP (the reader may
 *	stop the trace: the file's opener had CAP_PERFMON or CAP_SYS_ADMIN)
 *
 * A tracing channel is stopped first, unless it was configured to wait: then
 * the read waits for the trace to stop. The first read after open() or
 * lseek() binds the file to the trace it finds (or waits for). The copy to
 * the user is made from the file's own chunk, without the channel's lock.
 *
 * Return: bytes copied, 0 past the end of the trace, -ENODATA if there is no
 * trace (idle or never started), -ESTALE if the file's trace was restarted
 * or deconfigured, -EPERM if the read would have to stop the trace and may
 * not, -EAGAIN, -ERESTARTSYS, -EFAULT, -ENOMEM, or the hypervisor's errno.
 */
ssize_t htm_chan_read(struct htm_reader *rd, char __user *ubuf, size_t count,
		      loff_t *pos, unsigned int how)
{
	struct htm_dump *dump = &rd->dump;
	size_t skip, n, left;
	ssize_t ret;

	if (*pos < 0)
		return -EINVAL;
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	if (count && !dump->buf) {
		ret = htm_dump_alloc(dump);
		if (ret)
			goto out;
	}
	ret = htm_reader_fill(rd, *pos, count != 0, how);
	if (ret <= 0)
		goto out;

	skip = *pos - dump->start;
	n = min(count, dump->len - skip);
	left = copy_to_user(ubuf, dump->buf + skip, n);
	if (left == n) {
		ret = -EFAULT;
		goto out;
	}
	n -= left;
	*pos += n;
	atomic64_add(n, &rd->chan->bytes_dumped);
	ret = n;
out:
	mutex_unlock(&rd->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_read);

/**
 * htm_chan_size() - size of the trace, for SEEK_END
 * @chan: channel
 *
 * Return: where the data ends, once a read of this trace found it; else the
 * HTM buffer size STATUS gives; -ENODATA if there is no trace or neither is
 * known (the size is not needed to read: read until 0); -EINTR, -ENOMEM or
 * -ERESTARTSYS.
 */
loff_t htm_chan_size(struct htm_chan *chan)
{
	void *buf;
	loff_t ret = 0;

	buf = (void *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (mutex_lock_killable(&chan->lock)) {
		free_page((unsigned long)buf);
		return -EINTR;
	}
	/* A long-busy STATUS is waited out without the lock (see above). */
	if ((chan->state == HTMTRACE_STATE_TRACING ||
	     chan->state == HTMTRACE_STATE_STOPPED) &&
	    chan->end_gen != chan->gen && chan->size_gen != chan->gen)
		ret = htm_chan_query_size_wait(chan, buf);
	if (ret)
		goto out;
	if (chan->state == HTMTRACE_STATE_IDLE ||
	    chan->state == HTMTRACE_STATE_CONFIGURED)
		ret = -ENODATA;
	else if (chan->end_gen == chan->gen)
		ret = chan->data_end;
	else
		ret = chan->size_gen == chan->gen && chan->hw_size ?
		      chan->hw_size : -ENODATA;
out:
	mutex_unlock(&chan->lock);
	free_page((unsigned long)buf);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_size);

/**
 * htm_chan_poll_mask() - what poll() reports for a file (no lock needed)
 * @rd: the file's reader
 *
 * Return: EPOLLIN | EPOLLERR once the file's trace is gone (read() then
 * fails with -ESTALE until the file is lseek()ed); EPOLLIN | EPOLLRDNORM
 * when read() would not wait (a stopped trace, or a tracing channel that
 * read() stops, or whose STOP the hypervisor refused); 0 while a channel
 * configured to wait traces; EPOLLERR |
 * EPOLLHUP when there is no trace to read (idle, or configured and never
 * started), so that a poll loop does not spin on a read() that fails with
 * -ENODATA.
 */
__poll_t htm_chan_poll_mask(struct htm_reader *rd)
{
	struct htm_chan *chan = rd->chan;
	u64 gen = READ_ONCE(rd->gen);

	if (gen && gen != READ_ONCE(chan->gen))
		return EPOLLIN | EPOLLERR;
	switch (READ_ONCE(chan->state)) {
	case HTMTRACE_STATE_STOPPED:
		return EPOLLIN | EPOLLRDNORM;
	case HTMTRACE_STATE_TRACING:
		return READ_ONCE(chan->cfg.flags) & HTMTRACE_CFG_WAIT &&
		       !READ_ONCE(chan->stop_refused) ?
		       0 : EPOLLIN | EPOLLRDNORM;
	default:
		return EPOLLERR | EPOLLHUP;
	}
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_poll_mask);
