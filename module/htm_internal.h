/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: what the HTM files (htm_target.c, htm_dump.c, htm_chan.c,
 * htm_read.c, htm_info.c, htm_cdev.c, htm_pmu.c and the channels' debugfs
 * files) share among themselves; the rest of the driver uses htmtrace.h.
 */
#ifndef HTMTRACE_HTM_INTERNAL_H
#define HTMTRACE_HTM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "htmtrace.h"

struct perf_event;
struct seq_file;

/*
 * the channels (htm_chan.c), their readers (htm_read.c), their dumps and
 * the PMU's (htm_dump.c)
 */

/**
 * struct htm_config - a checked HTMTRACE_IOC_CONFIGURE argument
 * @target: the unit to trace
 * @flags: HTMTRACE_CFG_*
 * @mode_mask: first CONFIGURE parameter (all ones: the default HTM mode)
 * @mode_value: second CONFIGURE parameter (all ones: the default HTM mode)
 */
struct htm_config {
	struct htm_target target;
	u32 flags;
	u64 mode_mask;
	u64 mode_value;
};

/**
 * struct htm_dump - a bounce buffer and the chunk of trace it holds
 * @buf: physically contiguous buffer handed to the hypervisor
 * @size: allocated size of @buf
 * @gen: generation of the trace the chunk was fetched from
 * @start: HTM buffer offset of the chunk
 * @len: bytes of the chunk; 0 when nothing is held
 */
struct htm_dump {
	void *buf;
	size_t size;
	u64 gen;
	u64 start;
	size_t len;
};

/**
 * struct htm_chan - one HTM channel (/dev/htmN)
 * @index: N
 * @hv: the backend the channel was created for
 * @lock: serialises every field below but @bytes_dumped, and every hcall
 *	made for the channel's target (a reader's DUMP_DATA lets it go while
 *	it waits out a long-busy answer, and checks its trace is still there
 *	after); the information queries (htm_info.c) run without it, and
 *	take it only to add their counters to @stats; taken in process
 *	context only, inside a reader's lock, and never while holding
 *	another htmtrace lock (htm_targets_lock is taken inside it)
 * @state: HTMTRACE_STATE_*; read without the lock by poll()
 * @gen: generation of the trace: changes at every START and DECONFIGURE;
 *	read without the lock by poll() and waiters
 * @cfg: the configuration, while not idle
 * @stop_refused: the hypervisor answered the trace's STOP with H_STATE: it
 *	is in no state to stop, and the state stays TRACING, never dumped,
 *	until a STOP succeeds or DECONFIGURE; read without the lock by poll()
 *	and waiters
 * @hw_size: HTM buffer size from the STATUS asked for generation @size_gen,
 *	0 if unknown (the request failed, or gave no usable size)
 * @size_gen: generation @hw_size belongs to; 0 for none. A busy answer
 *	(-EBUSY) sets no generation: the size is asked for again
 * @status_err: errno of the last STATUS request
 * @data_end: offset where the hypervisor said the data of generation
 *	@end_gen ends (H_NOT_AVAILABLE, or the end of @hw_size)
 * @end_gen: generation @data_end belongs to; 0 for none
 * @max_xfer: most bytes one DUMP_DATA may ask for; from what the target
 *	took before (htm_target_xfer()), halved when the hypervisor refuses a
 *	length (htm_xfer_shrink())
 * @stats: hypervisor call counters, the information queries' included
 * @bytes_dumped: trace bytes copied to readers
 * @wait: woken when the channel leaves the tracing state, @gen changes or
 *	a STOP is refused
 * @debugfs: the channel's debugfs directory
 * @setup_claim: the owner cookie of the target a SETUP claims for itself
 */
struct htm_chan {
	unsigned int index;
	const struct htmtrace_hv_ops *hv;
	struct mutex lock;		/* see above */
	u32 state;
	u64 gen;
	struct htm_config cfg;
	bool stop_refused;
	u64 hw_size;
	u64 size_gen;
	int status_err;
	u64 data_end;
	u64 end_gen;
	size_t max_xfer;
	struct htm_hv_stats stats;
	atomic64_t bytes_dumped;
	wait_queue_head_t wait;
	struct dentry *debugfs;
	u8 setup_claim;
};

/**
 * struct htm_reader - what one open file of a channel reads
 * @chan: the channel
 * @lock: serialises reads and seeks of the file and guards @gen and @dump;
 *	taken before @chan->lock, and held across the copy to the user, which
 *	the channel's lock never is
 * @gen: generation of the trace the file reads, 0 until the first read()
 *	after open() or lseek(); read without the lock by poll()
 * @dump: the file's bounce buffer and the chunk it last fetched, so that
 *	files reading at different offsets do not refetch each other's chunks
 */
struct htm_reader {
	struct htm_chan *chan;
	struct mutex lock;		/* see above */
	u64 gen;
	struct htm_dump dump;
};

/* htm_target.c: the target registry and the argument checks */
int htm_target_from_user(const struct htmtrace_target *ut, bool any_type,
			 struct htm_target *t);
int htm_config_check(const struct htmtrace_config *ucfg,
		     struct htm_config *cfg);
int htm_target_claim(const struct htm_target *t, const void *owner);
void htm_target_release(const struct htm_target *t, const void *owner);
void htm_target_strand(const struct htm_target *t, const void *owner,
		       const char *what, int err);
void htm_targets_show(struct seq_file *m);
void htm_targets_exit(void);
size_t htm_target_xfer(const struct htm_target *t);
void htm_target_xfer_learn(const struct htm_target *t, size_t xfer);
/* htm_dump.c: the dump engine */
size_t htm_dump_plan(u64 pos, size_t xfer, u64 hw_size, u64 *start,
		     size_t *len);
int htm_status_size(const u8 *hdr, u8 type, u64 *size);
bool htm_xfer_shrink(long rc, size_t *max_xfer);

/**
 * struct htm_caller - who asks the hypervisor about a target, and how
 * @hv: the backend
 * @stats: the counters to update
 * @target: the target
 * @flags: extra flag bits (HTM_FLAGS_NOWRAP)
 * @policy: the retry policy, where @yield is NULL
 * @yield: NULL, or the lock to let go while a long-busy answer is waited
 *	out (under the default policy), see htm_hv_call_yield()
 */
struct htm_caller {
	const struct htmtrace_hv_ops *hv;
	struct htm_hv_stats *stats;
	const struct htm_target *target;
	unsigned long flags;
	const struct htm_hv_policy *policy;
	const struct htm_hv_yield *yield;
};

/**
 * struct htm_chunk - a DUMP_DATA request, for htm_dump_chunk()
 * @buf: the destination, page aligned
 * @cap: most bytes one request may write to @buf, a multiple of PAGE_SIZE
 * @base: trace offset the chunks are counted from: each starts a whole
 *	number of transfers after it
 * @end: trace offset where the trace (or the part wanted) ends; 0 if
 *	unknown
 * @start: receives the trace offset of the chunk asked for
 * @len: receives the bytes of trace @buf holds from @start
 */
struct htm_chunk {
	void *buf;
	size_t cap;
	u64 base;
	u64 end;
	u64 start;
	size_t len;
};

int htm_caller_call(const struct htm_caller *c, unsigned int op,
		    unsigned long p1, unsigned long p2, unsigned long p3,
		    long *hrc);
int htm_trace_stop(const struct htm_caller *c, bool *refused);
int htm_dump_chunk(const struct htm_caller *c, struct htm_chunk *ck, u64 pos,
		   size_t *max_xfer);

struct htm_chan *htm_chan_create(unsigned int index,
				 const struct htmtrace_hv_ops *hv);
void htm_chan_destroy(struct htm_chan *chan);
int htm_chan_setup(struct htm_chan *chan, const struct htm_target *t,
		   u32 log2_size);
int htm_chan_configure(struct htm_chan *chan, const struct htm_config *cfg);
int htm_chan_start(struct htm_chan *chan);
int htm_chan_stop(struct htm_chan *chan);
int htm_chan_deconfigure(struct htm_chan *chan);
int htm_chan_status(struct htm_chan *chan, struct htmtrace_status *st, u8 *hdr);
/* htm_chan.c, for htm_read.c: under the channel's lock */
void htm_chan_caller(struct htm_chan *chan, const struct htm_hv_yield *yield,
		     struct htm_caller *c);
int htm_chan_query_size(struct htm_chan *chan, void *buf,
			const struct htm_hv_yield *yield);
int htm_chan_query_size_wait(struct htm_chan *chan, void *buf);
int htm_chan_stop_locked(struct htm_chan *chan,
			 const struct htm_hv_yield *yield);
/* htm_info.c */
int htm_chan_info(struct htm_chan *chan, unsigned int op,
		  const struct htm_target *t, void **data, size_t *len);

/* htm_read.c */
void htm_reader_init(struct htm_reader *rd, struct htm_chan *chan);
void htm_reader_release(struct htm_reader *rd);
/* htm_chan_read() flags */
#define HTM_READ_NONBLOCK	BIT(0)
#define HTM_READ_MAY_STOP	BIT(1)
ssize_t htm_chan_read(struct htm_reader *rd, char __user *ubuf, size_t count,
		      loff_t *pos, unsigned int how);
loff_t htm_chan_size(struct htm_chan *chan);
__poll_t htm_chan_poll_mask(struct htm_reader *rd);

/**
 * struct htm_pmu_start - an htm event's START, while the hypervisor is busy
 * @busy_since: when START was first answered busy, 0 if never
 * @next: when START may be asked again: the last busy answer's hint on
 * @tries: START requests so far (each a retry loop of htm_hv_call_policy())
 * @busy_ms: the wait after the last H_BUSY that outlasted its retries:
 *	1 ms, doubled at each such answer up to HTM_PMU_BUSY_MAX_MS
 */
struct htm_pmu_start {
	ktime_t busy_since;
	ktime_t next;
	unsigned int tries;
	unsigned int busy_ms;
};

/* The longest wait of an htm event's START after H_BUSY (see above). */
#define HTM_PMU_BUSY_MAX_MS	128

/* htm_pmu.c, for the KUnit suites */
int htm_pmu_start_try(const struct htmtrace_hv_ops *hv,
		      struct htm_hv_stats *stats, const struct htm_target *t,
		      struct htm_pmu_start *st, ktime_t now,
		      unsigned int bound_ms);
int htm_pmu_event_check(struct perf_event *event);
int htm_pmu_config_decode(u64 config, struct htm_target *t);
size_t htm_aux_plan(const phys_addr_t *phys, unsigned int nr_pages,
		    size_t off, size_t room, u64 left, size_t max_xfer);

/* debugfs.c */
void htm_debugfs_add_chan(struct htm_chan *chan);
void htm_debugfs_remove_chan(struct htm_chan *chan);

#endif /* HTMTRACE_HTM_INTERNAL_H */
