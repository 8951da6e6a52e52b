/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: declarations shared by the driver's files.
 */
#ifndef _HTMTRACE_H
#define _HTMTRACE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/htmtrace.h>

#include <asm/dtl.h>

#include "compat.h"
#include "htmtrace_hv.h"

struct dentry;
struct seq_file;
struct miscdevice;

/* main.c: module parameters and the platform gate */
const char *htm_platform_check(bool lpar, bool kvm_guest);

extern unsigned int htm_nr_channels;
extern unsigned int htm_bounce_size;
/* The largest bounce buffer: one allocation of MAX_PAGE_ORDER pages. */
#define HTM_BOUNCE_MAX	((unsigned int)(PAGE_SIZE << MAX_PAGE_ORDER))
extern unsigned int htm_dtl_period_us;

/* hv.c: the hypervisor boundary */

/* Hypervisor status codes counted one by one in debugfs; the rest are "other". */
#define HTM_HV_NR_RC	20

/**
 * struct htm_hv_stats - what one channel asked of the hypervisor
 * @hcalls: H_HTM calls issued, retries included
 * @busy_retries: calls repeated after H_BUSY
 * @long_busy_sleeps: sleeps after H_LONG_BUSY_*
 * @errors: final failures by status code, see htm_hv_rc_slot()
 *
 * Updated under the owning channel's lock.
 */
struct htm_hv_stats {
	u64 hcalls;
	u64 busy_retries;
	u64 long_busy_sleeps;
	u64 errors[HTM_HV_NR_RC];
};

/**
 * struct htm_hv_policy - how long to insist on a busy hypervisor
 * @busy_retries: H_BUSY answers retried before giving up with -EBUSY
 * @long_busy_max_ms: total H_LONG_BUSY_* sleep allowed for one request
 * @atomic: the caller may not sleep (interrupts off): H_BUSY is retried
 *	without rescheduling, and H_LONG_BUSY_* gives up at once
 */
struct htm_hv_policy {
	unsigned int busy_retries;
	unsigned int long_busy_max_ms;
	bool atomic;
};

/* Internal form of a target; the H_HTM words are built from it. */
struct htm_target {
	u8 type;
	u16 node;
	u16 chip;
	u16 core;
};

/**
 * struct htm_hv_yield - a lock a request may let go while it waits
 * @lock: held by the caller
 * @valid: with @lock taken back: may the request be repeated?
 * @arg: for @valid
 */
struct htm_hv_yield {
	struct mutex *lock;	/* the caller's, not owned here */
	bool (*valid)(void *arg);
	void *arg;
};

extern const struct htm_hv_policy htm_hv_default_policy;
extern const struct htm_hv_policy htm_hv_atomic_policy;

int htm_hv_errno(long rc);
int htm_hv_op_errno(unsigned int op, long rc);
int htm_hv_probe(const struct htmtrace_hv_ops *ops);
const char *htm_hv_rc_name(long rc);
int htm_hv_rc_slot(long rc);
const char *htm_hv_slot_name(int slot);
int htm_hv_call_policy(const struct htmtrace_hv_ops *ops,
		       const struct htm_hv_policy *policy,
		       struct htm_hv_stats *stats, const struct htm_target *t,
		       unsigned long flags, unsigned int op, unsigned long p1,
		       unsigned long p2, unsigned long p3, long *hrc);
int htm_hv_call_yield(const struct htmtrace_hv_ops *ops,
		      const struct htm_hv_yield *yield,
		      struct htm_hv_stats *stats, const struct htm_target *t,
		      unsigned long flags, unsigned int op, unsigned long p1,
		      unsigned long p2, unsigned long p3, long *hrc);
int htm_hv_call(const struct htmtrace_hv_ops *ops, struct htm_hv_stats *stats,
		const struct htm_target *t, unsigned long flags,
		unsigned int op, unsigned long p1, unsigned long p2,
		unsigned long p3, long *hrc);
int htm_hv_session_get(void);
void htm_hv_session_put(void);
void htm_hv_backend_name(char *buf, size_t size);

int htm_hv_dtl_register(const struct htmtrace_hv_ops *ops, int cpu,
			void *buf);
int htm_hv_dtl_unregister(const struct htmtrace_hv_ops *ops, int cpu);
u64 htm_hv_dtl_index(const struct htmtrace_hv_ops *ops, int cpu);
u8 htm_hv_dtl_mask(const struct htmtrace_hv_ops *ops, int cpu);
void htm_hv_dtl_set_mask(const struct htmtrace_hv_ops *ops, int cpu, u8 mask);

/**
 * struct htm_hv_offer - what a backend offers
 * @htm: H_HTM answers (anything but H_FUNCTION)
 * @dtl: the dispatch trace log, in a shared-processor partition
 */
struct htm_hv_offer {
	bool htm;
	bool dtl;
};

/**
 * struct htm_hv_client - what the driver does as backends come and go
 * @attach: @ops has become the backend and offers what @offer says (at
 *	least one thing): create what uses it (the devices); on error, leave
 *	nothing behind
 * @detach: the backend whose @attach succeeded is about to go: remove what
 *	@attach created
 *
 * hv.c calls both with its backend mutex held and no session active; it
 * knows nothing of what they create.
 */
struct htm_hv_client {
	int (*attach)(const struct htmtrace_hv_ops *ops,
		      const struct htm_hv_offer *offer);
	void (*detach)(void);
};

int htm_hv_init(const struct htm_hv_client *client);
void htm_hv_exit(void);

/* htm_chan.c: HTM channels, target registry and dump engine */

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
 *	made for the channel (a reader's DUMP_DATA lets it go while it waits
 *	out a long-busy answer, and checks its trace is still there after);
 *	taken in process context only, inside a reader's lock, and never
 *	while holding another htmtrace lock (htm_targets_lock is taken inside
 *	it)
 * @state: HTMTRACE_STATE_*; read without the lock by poll()
 * @gen: generation of the trace: changes at every START and DECONFIGURE;
 *	read without the lock by poll() and waiters
 * @cfg: the configuration, while not idle
 * @stop_refused: the hypervisor answered the trace's STOP with H_STATE: it
 *	is in no state to stop, and the state stays TRACING until a DUMP_DATA
 *	answers (htm_reader_fill()); read without the lock by poll() and
 *	waiters
 * @hw_size: HTM buffer size from the STATUS asked for generation @size_gen,
 *	0 if unknown (the request failed, or gave no usable size)
 * @size_gen: generation @hw_size belongs to; 0 for none
 * @status_err: errno of that STATUS request
 * @data_end: offset where the hypervisor said the data of generation
 *	@end_gen ends (H_NOT_AVAILABLE, or the end of @hw_size)
 * @end_gen: generation @data_end belongs to; 0 for none
 * @max_xfer: most bytes one DUMP_DATA may ask for; halved when the
 *	hypervisor says the length is too long (H_P5)
 * @info: PAGE_SIZE buffer for the ioctls' STATUS and information blocks
 * @stats: hypervisor call counters
 * @bytes_dumped: trace bytes copied to readers
 * @wait: woken when the channel leaves the tracing state, @gen changes or
 *	a STOP is refused
 * @debugfs: the channel's debugfs directory
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
	void *info;
	struct htm_hv_stats stats;
	atomic64_t bytes_dumped;
	wait_queue_head_t wait;
	struct dentry *debugfs;
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

int htm_target_from_user(const struct htmtrace_target *ut, bool any_type,
			 struct htm_target *t);
int htm_config_check(const struct htmtrace_config *ucfg,
		     struct htm_config *cfg);
int htm_target_claim(const struct htm_target *t, const void *owner);
void htm_target_release(const struct htm_target *t, const void *owner);
size_t htm_dump_plan(u64 pos, size_t xfer, u64 hw_size, u64 *start,
		     size_t *len);
int htm_status_size(const u8 *hdr, u64 *size);
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
int htm_chan_info(struct htm_chan *chan, unsigned int op,
		  const struct htm_target *t, void **data, size_t *len);

void htm_reader_init(struct htm_reader *rd, struct htm_chan *chan);
void htm_reader_release(struct htm_reader *rd);
/* htm_chan_read() flags */
#define HTM_READ_NONBLOCK	BIT(0)
#define HTM_READ_MAY_STOP	BIT(1)
ssize_t htm_chan_read(struct htm_reader *rd, char __user *ubuf, size_t count,
		      loff_t *pos, unsigned int how);
loff_t htm_chan_size(struct htm_chan *chan);
__poll_t htm_chan_poll_mask(struct htm_reader *rd);

/* htm_pmu.c: the htm perf PMU */
struct perf_event;
int htm_pmu_event_check(struct perf_event *event);
int htm_pmu_config_decode(u64 config, struct htm_target *t);
size_t htm_aux_plan(const phys_addr_t *phys, unsigned int nr_pages,
		    size_t off, size_t room, u64 left, size_t max_xfer);
int htm_pmu_register(const struct htmtrace_hv_ops *hv);
void htm_pmu_unregister(void);

/* dtl_*.c: the dispatch trace log capture */

#define HTM_DTL_ENTRIES		N_DISPATCH_LOG		/* 85 */
#define HTM_DTL_BYTES		DISPATCH_LOG_BYTES	/* 4096 */
/* The slot after the newest entry may be being written. */
#define HTM_DTL_READABLE	(HTM_DTL_ENTRIES - 1)
/* How another user changed a CPU's log (struct htm_dtl_cpu @other_change). */
#define HTM_DTL_OTHER_MASK	1
#define HTM_DTL_OTHER_LOG	2
/* The capture timer: entries aimed at per period, and its bounds. */
#define HTM_DTL_PER_PERIOD	16
#define HTM_DTL_PERIOD_MIN	(250 * NSEC_PER_USEC)
#define HTM_DTL_PERIOD_START	NSEC_PER_MSEC
#define HTM_DTL_PERIOD_MAX	(200 * NSEC_PER_MSEC)
/* The session's ring of records: default and bounds, in KiB. */
#define HTM_DTL_RING_KB_DEFAULT	256
#define HTM_DTL_RING_KB_MIN	4
#define HTM_DTL_RING_KB_MAX	65536

/**
 * struct htm_dtl_ring - a ring of stream records
 * @buf: the bytes
 * @size: bytes of @buf, a power of two
 * @head: bytes ever written (producers, under the session's ring lock)
 * @tail: bytes ever read (the one reader, under the session's read lock)
 */
struct htm_dtl_ring {
	u8 *buf;
	u32 size;
	u64 head;
	u64 tail;
};

struct htm_dtl;

/**
 * struct htm_dtl_sink - where a CPU's records go instead of the session's
 *	ring (the vpa_dtl PMU's AUX area)
 * @begin: about to put records, the capture's @last ones (what is
 *	pending when it ends); false if there is nowhere to put them
 * @put: one record; false if it does not fit (nothing is written)
 * @end: done putting, @dropped entries found no room
 *
 * Called on the CPU, interrupts off, with the session's ring lock held.
 */
struct htm_dtl_sink {
	bool (*begin)(void *arg, bool last);
	bool (*put)(void *arg, const void *rec);
	void (*end)(void *arg, u64 dropped);
};

/**
 * struct htm_dtl_cpu - the capture on one CPU
 * @dtl: its session
 * @cpu: logical CPU
 * @state: HTMTRACE_DTL_CPU_*; written on the CPU or with its timer stopped
 * @kernel_owned: @log is the kernel's (paca dispatch_log)
 * @other_change: what another user changed under us: HTM_DTL_OTHER_MASK (our
 *	event bits only: the mask is theirs now) or HTM_DTL_OTHER_LOG (the
 *	log itself: the registration is theirs too); else 0
 * @own_registered: @own may still be registered with the hypervisor (its
 *	unregistration failed, or another user replaced it): never free it
 * @mask: HTMTRACE_DTL_* events this CPU logs for us
 * @clock_pending: (with @sink) a clock record is due before the next one
 * @sink: where the records go, NULL for the session's ring
 * @sink_arg: for @sink
 * @log: the hypervisor's ring being read, or NULL when not capturing
 * @own: our buffer, registered where the kernel owns no log
 * @saved_mask: the CPU's event mask before the capture, restored after it
 * @last: index of the next entry to read
 * @last_tb: timebase of the newest entry read (own buffer: a newer entry
 *	must follow it)
 * @period_ns: the timer's current period
 * @timer: the pinned capture timer
 * @lost: entries lost and not yet reported, [0] overwritten, [1] dropped
 * @events: HTMTRACE_DTL_CPU_* records to emit, as bits
 * @next_waits: a newer capture began (a START, or the CPU back online)
 *	while records of the older one still waited for room (records go
 *	out as they come when they fit: this is the ring-full case, a
 *	reader that does not read). The older capture's
 *	records stay in @lost and @events; the newer one's JOINED is due
 *	after them, and its losses and end wait in @next_lost and @next_end
 *	until htm_dtl_next_capture() moves them in. A third capture that
 *	begins while they still wait folds into the newer one.
 * @next_lost: as @lost, for the newer capture (@next_waits)
 * @next_end: 0, or the HTMTRACE_DTL_CPU_* event that ended the newer
 *	capture (@next_waits)
 * @prev_pending: at the last START, records of a capture before it still
 *	waited for room: they go out before that START's clock record
 * @error: the errno a HTMTRACE_DTL_CPU_FAILED record carries
 * @logged: entries the hypervisor logged during the capture
 * @entries: entries copied into the stream
 * @overwritten: entries the hypervisor overwrote before they were read
 * @dropped: entries that did not fit in the session's ring
 * @wakeups: timer runs
 * @stage: the entries of one poll, checked before they go to the ring
 *
 * The pending records (@clock_pending, @lost, @events, @next_waits,
 * @next_lost, @next_end, @prev_pending) are read and written under the
 * session's @ring_lock, except @clock_pending and @sink, also set before
 * the capture begins (its timer not yet started). The counters are written
 * by the CPU's timer (or with it stopped) and read without a lock.
 */
struct htm_dtl_cpu {
	struct htm_dtl *dtl;
	int cpu;
	u32 state;
	bool kernel_owned;
	u8 other_change;
	bool own_registered;
	u8 mask;
	bool clock_pending;
	const struct htm_dtl_sink *sink;
	void *sink_arg;
	const struct dtl_entry *log;
	void *own;
	u8 saved_mask;
	u64 last;
	u64 last_tb;
	u64 period_ns;
	struct hrtimer timer;
	u64 lost[2];
	unsigned long events;
	bool next_waits;
	u64 next_lost[2];
	u8 next_end;
	bool prev_pending;
	s32 error;
	u64 logged;
	u64 entries;
	u64 overwritten;
	u64 dropped;
	u64 wakeups;
	struct dtl_entry stage[HTM_DTL_ENTRIES];
};

/* Session states. */
enum {
	HTM_DTL_IDLE,
	HTM_DTL_CONFIGURED,
	HTM_DTL_RUNNING,
	HTM_DTL_STOPPED,
	HTM_DTL_PMU,		/* perf events hold the log */
};

/**
 * struct htm_dtl - the one dispatch trace log session
 * @lock: guards @state and every transition of it: configure, start,
 *	stop, the end (deconfigure, the owner's close), CPU hotplug, the
 *	vpa_dtl PMU taking and giving back the log. Each checks the state
 *	under it and publishes the new one with smp_store_release() (lockless
 *	readers use smp_load_acquire()). Lock order, outermost first:
 *	@read_lock, cpus_read_lock(), @lock, @ring_lock; the hotplug
 *	callbacks take @lock inside the hotplug lock
 * @read_lock: one reader at a time; the end of the session takes it, so
 *	that nothing it frees is in use by a reader
 * @ring_lock: guards @ring's head, @clock_pending and the CPUs' @lost,
 *	pending records and sinks; taken in the capture timers (interrupt
 *	context) and, for the vpa_dtl PMU, in pmu::add and pmu::del under the
 *	perf context's raw lock: hence raw, and held for short copies only
 * @hv: the backend, pinned while the session exists
 * @state: HTM_DTL_*; read without a lock by read() and poll()
 * @cpus: the selected CPUs
 * @pcpu: per CPU id, its capture, NULL if not selected
 * @ring: the stream
 * @clock_pending: a clock record is due before the next entry
 * @hp_state: the CPU hotplug state of the callbacks
 * @pmu_users: perf events holding the session (state HTM_DTL_PMU)
 * @owner: the file whose close ends the session, NULL if none
 * @wait: woken when records arrive or the state changes
 */
struct htm_dtl {
	struct mutex lock;		/* see above */
	struct mutex read_lock;		/* see above */
	raw_spinlock_t ring_lock;	/* see above */
	const struct htmtrace_hv_ops *hv;
	u32 state;
	cpumask_var_t cpus;
	struct htm_dtl_cpu **pcpu;
	struct htm_dtl_ring ring;
	bool clock_pending;
	int hp_state;
	unsigned int pmu_users;
	const void *owner;
	wait_queue_head_t wait;
};

int htm_dtl_config_check(const struct htmtrace_dtl_config *cfg,
			 u32 *ring_size);
void htm_dtl_span(u64 last, u64 cur, u64 *first, u64 *overwritten);
u64 htm_dtl_next_period(u64 period_ns, u64 n);
bool htm_dtl_ring_put(struct htm_dtl_ring *ring, const void *rec);
u32 htm_dtl_ring_whole(const struct htm_dtl_ring *ring, size_t max);
void htm_dtl_clock_rec(struct htmtrace_dtl_clock *rec, u64 tb, u64 mono,
		       u64 boot, u64 real);
int htm_dtl_init(struct htm_dtl *dtl);
void htm_dtl_exit(struct htm_dtl *dtl);
int htm_dtl_configure(struct htm_dtl *dtl, const struct htmtrace_hv_ops *hv,
		      const struct cpumask *cpus, u8 mask, u32 ring_size,
		      const void *owner);
int htm_dtl_start(struct htm_dtl *dtl);
int htm_dtl_stop(struct htm_dtl *dtl);
int htm_dtl_end(struct htm_dtl *dtl, const void *owner);
int htm_dtl_flush_now(struct htm_dtl *dtl);
ssize_t htm_dtl_read(struct htm_dtl *dtl, char __user *ubuf, size_t count,
		     bool nonblock);
__poll_t htm_dtl_poll_mask(struct htm_dtl *dtl);
int htm_dtl_stats(struct htm_dtl *dtl, struct htmtrace_dtl_cpu_stats *out,
		  u32 max, u32 *count);

int htm_dtl_pmu_get(struct htm_dtl *dtl, const struct htmtrace_hv_ops *hv);
void htm_dtl_pmu_put(struct htm_dtl *dtl);
struct htm_dtl_cpu *htm_dtl_pmu_cpu_add(struct htm_dtl *dtl, int cpu, u8 mask,
					const struct htm_dtl_sink *sink,
					void *arg);
void htm_dtl_pmu_cpu_remove(struct htm_dtl *dtl, struct htm_dtl_cpu *c);
void htm_dtl_pmu_cpu_begin(struct htm_dtl_cpu *c);
u64 htm_dtl_pmu_cpu_read(struct htm_dtl_cpu *c);
void htm_dtl_pmu_cpu_end(struct htm_dtl_cpu *c);

/* dtl_cdev.c: /dev/vpa_dtl */
int htm_dtl_cdev_add(const struct htmtrace_hv_ops *hv, struct htm_dtl *dtl);
void htm_dtl_cdev_remove(void);

/* dtl_pmu.c: the vpa_dtl perf PMU */
int htm_dtl_pmu_register(const struct htmtrace_hv_ops *hv,
			 struct htm_dtl *dtl);
void htm_dtl_pmu_unregister(void);

/* htm_cdev.c: /dev/htmN */
int htm_cdev_add_all(const struct htmtrace_hv_ops *hv);
void htm_cdev_remove_all(void);

/* common.c: what the two halves do alike */
int htm_ioctl_block(void __user *uarg, const void *hdr, size_t hdr_size,
		     void __user *ubuf, const void *block, size_t len, int err);

/**
 * struct htm_perf_desc - a perf PMU of the driver, for htm_perf_register()
 * @name: the PMU's name
 * @tmpl: its capabilities and callbacks
 * @format: its format attributes, NULL-terminated
 * @events: its event attributes, NULL-terminated
 * @debugfs_name: its file in the driver's debugfs directory
 * @show: writes one event (@node, see htm_perf_event_add()) to that file
 */
struct htm_perf_desc {
	const char *name;
	const struct pmu *tmpl;
	struct attribute **format;
	struct attribute **events;
	const char *debugfs_name;
	void (*show)(struct seq_file *m, const struct list_head *node);
};

/**
 * struct htm_perf - one registration of a perf PMU of the driver
 * @pmu: the PMU, a fresh copy of its template
 * @format: its sysfs format group
 * @events: its sysfs events group
 * @groups: both, for @pmu
 * @desc: what the PMU is
 * @lock: guards @event_list; taken in process context (an event's init
 *	and destroy, the debugfs file), inside no other lock of the driver
 * @event_list: the PMU's events, for the debugfs file
 * @debugfs: its debugfs file
 * @registered: @pmu is registered
 *
 * But for @event_list, written as the PMU is registered and unregistered,
 * never concurrently.
 */
struct htm_perf {
	struct pmu pmu;
	struct attribute_group format;
	struct attribute_group events;
	const struct attribute_group *groups[3];
	const struct htm_perf_desc *desc;
	struct mutex lock;		/* see above */
	struct list_head event_list;
	struct dentry *debugfs;
	bool registered;
};

int htm_perf_register(struct htm_perf *reg, const struct htm_perf_desc *desc);
void htm_perf_unregister(struct htm_perf *reg);
void htm_perf_event_add(struct htm_perf *reg, struct list_head *node);
void htm_perf_event_del(struct htm_perf *reg, struct list_head *node);

/* debugfs.c */
struct dentry *htm_debugfs_dir(void);
void htm_debugfs_init(void);
void htm_debugfs_exit(void);
void htm_debugfs_add_chan(struct htm_chan *chan);
void htm_debugfs_remove_chan(struct htm_chan *chan);
void htm_debugfs_show_stats(struct seq_file *m, const char *prefix,
			    const struct htm_hv_stats *st, u64 bytes);

#endif /* _HTMTRACE_H */
