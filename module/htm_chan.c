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
 * (deconfigure returns to IDLE from any state but IDLE) and dumps the
 * stopped trace through a bounce buffer of each reading file (struct
 * htm_reader): each DUMP_DATA fetches a chunk as large as the buffer, and
 * reads served from the chunk cost no hcall. Every START and DECONFIGURE
 * begins a new generation of the trace; a file reads one generation and
 * gets -ESTALE once it is gone, so that no read splices two traces.
 *
 * The target registry is htm_target.c, the requests of a dump (shared with
 * the PMU) htm_dump.c. Lock rules: struct htm_chan's @lock and struct
 * htm_reader's @lock, in htm_internal.h.
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

static unsigned long htm_chan_flags(const struct htm_chan *chan)
{
	return chan->cfg.flags & HTMTRACE_CFG_NOWRAP ? HTM_FLAGS_NOWRAP : 0;
}

/*
 * How the channel asks, under its lock; with @yield, the lock is let go
 * while a long-busy answer is waited out.
 */
static void htm_chan_caller(struct htm_chan *chan,
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
 * the generation. With @yield, a long-busy answer is waited out without the
 * channel's lock; without, it is not waited for at all (the size is then
 * unknown, -EBUSY): the dump needs no size, and public callers never ask.
 * Return: 0 (the size may still be unknown: see chan->status_err), or
 * -ERESTARTSYS or -ESTALE from a wait with @yield.
 */
static int htm_chan_query_size(struct htm_chan *chan, void *buf,
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
	chan->size_gen = chan->gen;
	return 0;
}

/* The hypervisor said the data ends at @end (at most: the first such answer). */
static void htm_chan_data_end(struct htm_chan *chan, u64 end)
{
	if (chan->end_gen == chan->gen && chan->data_end <= end)
		return;
	chan->data_end = end;
	chan->end_gen = chan->gen;
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

/*
 * Is there a trace to ask DUMP_DATA for? Only one stopped through the
 * driver: after a STOP the hypervisor refused, it may still be writing.
 */
static bool htm_chan_readable(const struct htm_chan *chan)
{
	return chan->state == HTMTRACE_STATE_STOPPED;
}

/* STOP a tracing channel; a refused STOP marks it stop_refused. */
static int htm_chan_stop_locked(struct htm_chan *chan,
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
	chan->info = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!chan->info) {
		kfree(chan);
		return NULL;
	}
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
	kfree(chan->info);
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
 * that fails leaves the stopped trace as it was; a CONFIGURE that fails
 * leaves the unit, and so the channel, idle.
 */
static int htm_chan_reconfigure(struct htm_chan *chan)
{
	const struct htm_config *cfg = &chan->cfg;
	int ret;

	ret = htm_chan_call(chan, NULL, HTM_OP_DECONFIGURE, 0, 0, 0, NULL);
	if (ret)
		return ret;
	ret = htm_chan_call(chan, NULL, HTM_OP_CONFIGURE, cfg->mode_mask,
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
 * Return: 0, -EBADFD in another state, or the hypervisor's errno (after a
 * CONFIGURE that failed, the channel is idle).
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
static int htm_chan_query_size_wait(struct htm_chan *chan, void *buf)
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
	if (chan->state != HTMTRACE_STATE_IDLE && chan->size_gen == chan->gen) {
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

/* Bytes one information block takes, from its header. */
static size_t htm_info_block_len(unsigned int op, const u8 *hdr)
{
	u64 n = be64_to_cpup((const __be64 *)(hdr + HTM_BLOCK_NR_ENTRIES));
	size_t entry = op == HTM_OP_DUMP_SYSMEM_CONF ? HTM_SYSMEM_ENTRY_SIZE :
						       HTM_SYSPROC_ENTRY_SIZE;

	if (n > (PAGE_SIZE - HTM_BLOCK_HDR_SIZE) / entry)
		return 0;
	return HTM_BLOCK_HDR_SIZE + n * entry;
}

/*
 * Bounds on an iterated answer, against a hypervisor that never ends it:
 * bytes, and calls (the largest table public code knows of, a SYSPROC
 * entry per core of a 16-node machine, takes a few hundred even one entry
 * per block).
 */
#define HTM_INFO_MAX		(4UL << 20)
#define HTM_INFO_MAX_CALLS	4096

/* Room for @need bytes in *@out (of *@cap), grown geometrically. */
static int htm_info_grow(void **out, size_t *cap, size_t used, size_t need)
{
	size_t n = max_t(size_t, *cap, PAGE_SIZE);
	void *grown;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	n = min_t(size_t, n, HTM_INFO_MAX);
	/* kvrealloc() changed its arguments in 6.12: done by hand. */
	grown = kvmalloc(n, GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	if (*out)
		memcpy(grown, *out, used);
	kvfree(*out);
	*out = grown;
	*cap = n;
	return 0;
}

/**
 * htm_chan_info() - fetch the capabilities or a configuration dump
 * @chan: channel whose buffer and counters are used
 * @op: HTM_OP_CAPABILITIES, HTM_OP_DUMP_SYSMEM_CONF or
 *	HTM_OP_DUMP_SYSPROC_CONF
 * @t: target the query is about
 * @data: receives a kvmalloc()ed copy of the blocks, back to back
 * @len: receives the length of @data
 *
 * The capabilities are one block of HTM_CAPS_SIZE bytes, asked for with
 * that length (htmdump.c). The configuration dumps are asked for block
 * after block, following the iterator at +0x08 of each block until it
 * reads 0 (htm-perf.c: "last batch") or -1 (htmdump.c), or until the
 * hypervisor answers H_NOT_AVAILABLE after a first block (htm-perf.c:
 * "normal end of stream"), or H_P6 or H_PARAMETER: after a first block,
 * the iterator is the one parameter that changed, so the hypervisor says
 * it points past the table, as the last block's iterator may (htmdump.c
 * hands each block to its reader as it comes: the earlier blocks are
 * kept, not lost to the answer after them). H_PARTIAL is success, as for
 * every op. A block with no entry ends the iteration too (kept: its header
 * counts the table), whatever its iterator says. At most
 * HTM_INFO_MAX_CALLS blocks and HTM_INFO_MAX bytes; a fatal signal ends
 * the walk.
 *
 * Return: 0, -ENOMEM, -EIO if the hypervisor's blocks do not add up or
 * never end, -ENODATA if it has no such data (H_NOT_AVAILABLE for the
 * first block), -EINTR, or the hypervisor's errno (for the first block,
 * or a later one answered other than the ends above).
 */
int htm_chan_info(struct htm_chan *chan, unsigned int op,
		  const struct htm_target *t, void **data, size_t *len)
{
	u8 *hdr = chan->info;
	void *out = NULL;
	size_t total = 0, cap = 0, blen;
	size_t room = op == HTM_OP_CAPABILITIES ? HTM_CAPS_SIZE : PAGE_SIZE;
	unsigned int calls = 0;
	u64 next = 0, n = 0;
	long hrc;
	int ret;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	do {
		if (calls++ == HTM_INFO_MAX_CALLS) {
			ret = -EIO;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		memset(chan->info, 0, PAGE_SIZE);
		hrc = H_SUCCESS;
		ret = htm_hv_call(chan->hv, &chan->stats, t, 0, op,
				  virt_to_phys(chan->info), room, next, &hrc);
		if (ret && total && (ret == -ENODATA || hrc == H_P6 ||
				     hrc == H_PARAMETER)) {
			ret = 0;	/* the end of the iteration */
			break;
		}
		if (ret)
			break;
		if (op == HTM_OP_CAPABILITIES) {
			blen = HTM_CAPS_SIZE;
			next = 0;
		} else {
			blen = htm_info_block_len(op, hdr);
			n = be64_to_cpup((__be64 *)(hdr + HTM_BLOCK_NR_ENTRIES));
			next = be64_to_cpup((__be64 *)(hdr + HTM_BLOCK_NEXT));
		}
		if (!blen || total + blen > HTM_INFO_MAX) {
			ret = -EIO;
			break;
		}
		ret = htm_info_grow(&out, &cap, total, total + blen);
		if (ret)
			break;
		memcpy(out + total, hdr, blen);
		total += blen;
	} while (next && next != U64_MAX &&
		 (op == HTM_OP_CAPABILITIES || n));
	mutex_unlock(&chan->lock);

	if (ret) {
		kvfree(out);
		return ret;
	}
	*data = out;
	*len = total;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_info);

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
