// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: HTM channels.
 *
 * A channel drives one HTM target through the hypervisor's state machine
 *
 *	IDLE --configure--> CONFIGURED --start--> TRACING --stop--> STOPPED
 *	                                             ^                 |
 *	                                             +------start------+
 *
 * (deconfigure returns to IDLE from any state but IDLE). Every START and
 * DECONFIGURE begins a new generation of the trace; a file reads one
 * generation and gets -ESTALE once it is gone, so that no read splices two
 * traces.
 *
 * The files that read a stopped trace are htm_read.c, the information
 * queries (CAPS, SYSMEM, SYSPROC) htm_info.c, the target registry
 * htm_target.c, the requests of a dump (shared with the PMU) htm_dump.c.
 * Lock rules: struct htm_chan's @lock and struct htm_reader's @lock, in
 * htm_internal.h.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <asm/byteorder.h>
#include <asm/hvcall.h>

#include "htmtrace.h"
#include "htm_internal.h"

/* how the channel asks */

static unsigned long htm_chan_flags(const struct htm_chan *chan)
{
	return chan->cfg.flags & HTMTRACE_CFG_NOWRAP ? HTM_FLAGS_NOWRAP : 0;
}

/*
 * How the channel asks, under its lock; with @yield, the lock is let go
 * while a long-busy answer is waited out.
 */
void htm_chan_caller(struct htm_chan *chan,
		     const struct htm_hv_yield *yield,
		     struct htm_caller *c)
{
	lockdep_assert_held(&chan->lock);
	c->hv = chan->hv;
	c->stats = &chan->stats;
	c->target = &chan->cfg.target;
	c->flags = htm_chan_flags(chan);
	c->policy = &htm_hv_default_policy;
	c->yield = yield;
}

/* One request for the channel, under its lock. */
static int htm_chan_call(struct htm_chan *chan,
			 const struct htm_hv_yield *yield, unsigned int op,
			 unsigned long p1, unsigned long p2, unsigned long p3,
			 long *hrc)
{
	struct htm_caller c;

	htm_chan_caller(chan, yield, &c);
	return htm_caller_call(&c, op, p1, p2, p3, hrc);
}

/*
 * Ask STATUS for the buffer size of the current trace, into @buf (at least
 * a page, the caller's own); the answer, a usable size or none, holds for
 * the generation (@size_gen), unless the hypervisor was busy: then the size
 * is unknown for now and the next query asks again (a dump without a size
 * asks a page at a time: see htm_dump_chunk()). With @yield, a long-busy
 * answer is waited out without the channel's lock; without, it is not
 * waited for at all (-EBUSY): the dump needs no size, and public callers
 * never ask.
 * Return: 0 (the size may still be unknown: see chan->status_err), or
 * -ERESTARTSYS or -ESTALE from a wait with @yield.
 */
int htm_chan_query_size(struct htm_chan *chan, void *buf,
			const struct htm_hv_yield *yield)
{
	struct htm_caller c;
	int ret;

	/* What the hypervisor does not write reads as zero, never as stale. */
	memset(buf, 0, PAGE_SIZE);
	htm_chan_caller(chan, yield, &c);
	if (!yield)
		c.policy = &htm_hv_atomic_policy;
	ret = htm_caller_call(&c, HTM_OP_STATUS, virt_to_phys(buf), PAGE_SIZE,
			      0, NULL);
	if (ret == -ERESTARTSYS || ret == -ESTALE)
		return ret;
	chan->hw_size = 0;
	chan->status_err = ret;
	if (ret || htm_status_size(buf, chan->cfg.target.type, &chan->hw_size))
		chan->hw_size = 0;
	/* Busy is no answer: the generation's size is asked for again. */
	if (ret != -EBUSY)
		chan->size_gen = chan->gen;
	return 0;
}

/* A new trace, or none: files bound to the old one see -ESTALE. */
static void htm_chan_new_generation(struct htm_chan *chan)
{
	WRITE_ONCE(chan->gen, chan->gen + 1);
	WRITE_ONCE(chan->stop_refused, false);
	wake_up_interruptible_all(&chan->wait);
}

/* The trace stopped: through the driver, or on its own as the dump shows. */
static void htm_chan_stopped(struct htm_chan *chan)
{
	WRITE_ONCE(chan->state, HTMTRACE_STATE_STOPPED);
	WRITE_ONCE(chan->stop_refused, false);
	wake_up_interruptible_all(&chan->wait);
}

/* STOP a tracing channel; a refused STOP marks it stop_refused. */
int htm_chan_stop_locked(struct htm_chan *chan,
			 const struct htm_hv_yield *yield)
{
	struct htm_caller c;
	bool refused = false;
	int ret;

	htm_chan_caller(chan, yield, &c);
	ret = htm_trace_stop(&c, &refused);
	if (!ret) {
		htm_chan_stopped(chan);
	} else if (refused) {
		WRITE_ONCE(chan->stop_refused, true);
		wake_up_interruptible_all(&chan->wait);
	}
	return ret;
}

/* channel life */

/**
 * htm_chan_create() - allocate an idle channel
 * @index: channel number
 * @hv: backend the channel talks to
 *
 * Return: the channel or NULL.
 */
struct htm_chan *htm_chan_create(unsigned int index,
				 const struct htmtrace_hv_ops *hv)
{
	struct htm_chan *chan;

	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return NULL;
	chan->index = index;
	chan->hv = hv;
	/* 0 is no generation: a file that has not read yet. */
	chan->gen = 1;
	mutex_init(&chan->lock);
	init_waitqueue_head(&chan->wait);
	return chan;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_create);

/**
 * htm_chan_destroy() - free an idle channel
 * @chan: channel, or NULL
 *
 * The caller deconfigured the channel and no file uses it any more.
 */
void htm_chan_destroy(struct htm_chan *chan)
{
	if (!chan)
		return;
	WARN_ON(chan->state != HTMTRACE_STATE_IDLE);
	mutex_destroy(&chan->lock);
	kfree(chan);
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_destroy);

/**
 * htm_chan_setup() - size a target's HTM buffer (H_HTM_OP_SETUP)
 * @chan: channel issuing the request
 * @t: target
 * @log2_size: log2 of the buffer size
 *
 * The target is claimed for the request: one a channel or a perf event
 * holds (or that a stranded hold keeps) is not resized under its holder,
 * whose dump is bounded by the size STATUS gave it.
 *
 * Return: 0, -EINVAL for a size out of 1..HTM_LOG2_SIZE_MAX, -EBUSY if the
 * target, or one that overlaps it, is held, -ENOMEM, -EINTR, or the
 * hypervisor's errno.
 */
int htm_chan_setup(struct htm_chan *chan, const struct htm_target *t,
		   u32 log2_size)
{
	int ret;

	if (!log2_size || log2_size > HTM_LOG2_SIZE_MAX)
		return -EINVAL;
	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	ret = htm_target_claim(t, &chan->setup_claim);
	if (!ret) {
		ret = htm_hv_call(chan->hv, &chan->stats, t, 0, HTM_OP_SETUP,
				  log2_size, 0, 0, NULL);
		htm_target_release(t, &chan->setup_claim);
	}
	mutex_unlock(&chan->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_setup);

/**
 * htm_chan_configure() - claim a target and configure it
 * @chan: an idle channel
 * @cfg: configuration, checked by htm_config_check()
 *
 * On failure the channel stays idle and holds nothing. A configured
 * channel holds the module, until it is idle again.
 *
 * Return: 0; -EBADFD if the channel is not idle; -EBUSY if the target is
 * held elsewhere; -ENOMEM; or the hypervisor's errno.
 */
int htm_chan_configure(struct htm_chan *chan, const struct htm_config *cfg)
{
	int ret;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	if (chan->state != HTMTRACE_STATE_IDLE) {
		ret = -EBADFD;
		goto out;
	}
	ret = htm_target_claim(&cfg->target, chan);
	if (ret)
		goto out;

	chan->cfg = *cfg;
	ret = htm_chan_call(chan, NULL, HTM_OP_CONFIGURE, cfg->mode_mask,
			    cfg->mode_value, 0, NULL);
	if (ret) {
		memset(&chan->cfg, 0, sizeof(chan->cfg));
		htm_target_release(&cfg->target, chan);
		goto out;
	}
	chan->max_xfer = htm_target_xfer(&cfg->target);
	WRITE_ONCE(chan->state, HTMTRACE_STATE_CONFIGURED);
	/* A configured channel holds the module, as an open file does. */
	__module_get(THIS_MODULE);
out:
	mutex_unlock(&chan->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_configure);

/* The unit is deconfigured: so is the channel, which gives its target back. */
static void htm_chan_idle(struct htm_chan *chan)
{
	htm_target_release(&chan->cfg.target, chan);
	memset(&chan->cfg, 0, sizeof(chan->cfg));
	WRITE_ONCE(chan->state, HTMTRACE_STATE_IDLE);
	htm_chan_new_generation(chan);
	module_put(THIS_MODULE);
}

/*
 * Before a new trace of a stopped channel: DECONFIGURE and CONFIGURE
 * again, as htm-perf.c does for every trace. No public caller STARTs a
 * stopped trace, and what PowerVM answers to it (a fresh trace, H_STATE,
 * or the old one resumed) is not public: it is never asked. A DECONFIGURE
 * that fails, or whose long-busy wait a signal cuts short (-ERESTARTSYS),
 * leaves the stopped trace as it was, so that the restarted call finds it.
 * Once it succeeded there is no way back: the CONFIGURE after it waits out
 * a long-busy hypervisor whatever signal comes (the teardown policy: 10 s
 * at most), for an interrupted CONFIGURE would leave the channel idle and
 * the restarted call nothing to start (-EBADFD). A CONFIGURE that fails
 * leaves the unit, and so the channel, idle, its target released.
 */
static int htm_chan_reconfigure(struct htm_chan *chan)
{
	const struct htm_config *cfg = &chan->cfg;
	struct htm_caller c;
	int ret;

	ret = htm_chan_call(chan, NULL, HTM_OP_DECONFIGURE, 0, 0, 0, NULL);
	if (ret)
		return ret;
	htm_chan_caller(chan, NULL, &c);
	c.policy = &htm_hv_teardown_policy;
	ret = htm_caller_call(&c, HTM_OP_CONFIGURE, cfg->mode_mask,
			      cfg->mode_value, 0, NULL);
	if (ret) {
		pr_warn_ratelimited("htm%u: CONFIGURE again failed (%d): the channel is idle\n",
				    chan->index, ret);
		htm_chan_idle(chan);
		return ret;
	}
	WRITE_ONCE(chan->state, HTMTRACE_STATE_CONFIGURED);
	htm_chan_new_generation(chan);
	return 0;
}

/**
 * htm_chan_start() - start tracing, from scratch
 * @chan: a configured or stopped channel
 *
 * A stopped channel is configured again first (htm_chan_reconfigure()).
 * The trace begins a new generation: files that read the previous one get
 * -ESTALE.
 *
 * Return: 0, -EBADFD in another state, -EINTR, -ERESTARTSYS if a signal
 * came while the hypervisor was long busy (the channel is left as it was,
 * stopped, or configured again with no trace: the restarted call starts
 * it), or the hypervisor's errno (after a CONFIGURE that failed, the
 * channel is idle, its target released).
 */
int htm_chan_start(struct htm_chan *chan)
{
	int ret;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	if (chan->state != HTMTRACE_STATE_CONFIGURED &&
	    chan->state != HTMTRACE_STATE_STOPPED) {
		ret = -EBADFD;
		goto out;
	}
	if (chan->state == HTMTRACE_STATE_STOPPED) {
		ret = htm_chan_reconfigure(chan);
		if (ret)
			goto out;
	}
	ret = htm_chan_call(chan, NULL, HTM_OP_START, 0, 0, 0, NULL);
	if (ret)
		goto out;
	WRITE_ONCE(chan->state, HTMTRACE_STATE_TRACING);
	htm_chan_new_generation(chan);
out:
	mutex_unlock(&chan->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_start);

/**
 * htm_chan_stop() - stop tracing
 * @chan: channel
 *
 * Stopping a stopped channel succeeds: a reader or another file may have
 * stopped it first. A STOP the hypervisor refuses (H_STATE) fails with
 * -EIO and leaves the channel tracing, marked stop_refused (see
 * htm_chan_stop_locked()).
 *
 * Return: 0, -EBADFD if the channel was never started, or the hypervisor's
 * errno.
 */
int htm_chan_stop(struct htm_chan *chan)
{
	int ret = 0;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	if (chan->state == HTMTRACE_STATE_TRACING)
		ret = htm_chan_stop_locked(chan, NULL);
	else if (chan->state != HTMTRACE_STATE_STOPPED)
		ret = -EBADFD;
	mutex_unlock(&chan->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_stop);

/**
 * htm_chan_deconfigure() - stop if needed, deconfigure, release the target
 * @chan: channel
 *
 * A tracing channel is stopped first; DECONFIGURE is asked for even if the
 * STOP failed (both results go to the kernel log), so that a target whose
 * STOP keeps failing can still be given back. The trace is gone: files
 * that read it get -ESTALE.
 *
 * Return: 0 once DECONFIGURE succeeded, -EBADFD if idle, or the errno of
 * DECONFIGURE (the channel then keeps its state and target).
 */
int htm_chan_deconfigure(struct htm_chan *chan)
{
	int ret, stop = 0;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	if (chan->state == HTMTRACE_STATE_IDLE) {
		ret = -EBADFD;
		goto out;
	}
	if (chan->state == HTMTRACE_STATE_TRACING)
		stop = htm_chan_stop_locked(chan, NULL);
	ret = htm_chan_call(chan, NULL, HTM_OP_DECONFIGURE, 0, 0, 0, NULL);
	if (stop)
		pr_warn_ratelimited("htm%u: STOP failed (%d), DECONFIGURE %s (%d)\n",
				    chan->index, stop,
				    ret ? "failed too" : "succeeded", ret);
	if (ret)
		goto out;
	htm_chan_idle(chan);
out:
	mutex_unlock(&chan->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_deconfigure);

/* The trace a STATUS or size query was asked for, for its yield. */
struct htm_chan_trace {
	struct htm_chan *chan;
	u64 gen;
};

/* Is it still there, after a wait? */
static bool htm_chan_trace_same(void *arg)
{
	const struct htm_chan_trace *tr = arg;

	lockdep_assert_held(&tr->chan->lock);
	return tr->chan->gen == tr->gen &&
	       tr->chan->state != HTMTRACE_STATE_IDLE;
}

/*
 * STATUS for the current trace, into @buf, a page of the caller's: a
 * long-busy answer is waited out without the channel's lock, and asked
 * again for the trace there is then. Return: 0, or -ERESTARTSYS.
 */
int htm_chan_query_size_wait(struct htm_chan *chan, void *buf)
{
	struct htm_chan_trace tr = { .chan = chan };
	const struct htm_hv_yield yield = {
		.lock = &chan->lock,
		.valid = htm_chan_trace_same,
		.arg = &tr,
	};
	int ret;

	do {
		tr.gen = chan->gen;
		ret = htm_chan_query_size(chan, buf, &yield);
	} while (ret == -ESTALE && chan->state != HTMTRACE_STATE_IDLE);
	return ret == -ESTALE ? 0 : ret;
}

/**
 * htm_chan_status() - the channel's state for HTMTRACE_IOC_STATUS
 * @chan: channel
 * @st: result, fully written
 * @hdr: if not NULL, receives the STATUS block's header (HTM_BLOCK_HDR_SIZE
 *	bytes, opaque beyond the size and the counts), taken under the same
 *	lock as the query; zeros when idle or on error
 *
 * Says what the driver knows: a STATUS request that fails leaves the size
 * unknown and its errno in @st->status_error, and is no error here. A
 * long-busy answer is waited out without the channel's lock: the channel's
 * other files are not held up.
 *
 * Return: 0, -EINTR, -ENOMEM, or -ERESTARTSYS if a signal came while the
 * hypervisor was long busy.
 */
int htm_chan_status(struct htm_chan *chan, struct htmtrace_status *st, u8 *hdr)
{
	const struct htm_target *t = &chan->cfg.target;
	void *buf;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (hdr)
		memset(hdr, 0, HTM_BLOCK_HDR_SIZE);
	buf = (void *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (mutex_lock_killable(&chan->lock)) {
		free_page((unsigned long)buf);
		return -EINTR;
	}
	if (chan->state != HTMTRACE_STATE_IDLE) {
		ret = htm_chan_query_size_wait(chan, buf);
		if (ret)
			goto out;
	}
	/* What is there after the query, which may have let the lock go. */
	st->state = chan->state;
	st->flags = chan->cfg.flags;
	st->generation = chan->gen;
	/* The query was for this trace, busy or not: its answer is shown. */
	if (chan->state != HTMTRACE_STATE_IDLE) {
		st->target.type = t->type;
		st->target.node = t->node;
		st->target.chip = t->chip;
		st->target.core = t->core;
		st->target.kind = HTMTRACE_TARGET_HW;
		st->buffer_size = chan->hw_size;
		st->status_error = chan->status_err;
		if (chan->end_gen == chan->gen) {
			st->data_size = chan->data_end;
			st->hv_flags |= HTMTRACE_STATUS_DATA_END;
		}
		if (chan->stop_refused)
			st->hv_flags |= HTMTRACE_STATUS_STOP_REFUSED;
		if (!chan->status_err && hdr)
			memcpy(hdr, buf, HTM_BLOCK_HDR_SIZE);
	}
out:
	mutex_unlock(&chan->lock);
	free_page((unsigned long)buf);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_status);
