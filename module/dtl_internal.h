/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: what the dispatch trace log's files (dtl_*.c) share among
 * themselves; the rest of the driver uses htmtrace.h.
 */
#ifndef HTMTRACE_DTL_INTERNAL_H
#define HTMTRACE_DTL_INTERNAL_H

#include <linux/hrtimer.h>
#include <linux/poll.h>
#include <linux/types.h>

#include <asm/dtl.h>

#include "htmtrace.h"

#define DTL_ENTRIES		N_DISPATCH_LOG		/* 85 */
#define DTL_BYTES		DISPATCH_LOG_BYTES	/* 4096 */
/* The slot after the newest entry may be being written. */
#define DTL_READABLE	(DTL_ENTRIES - 1)
/* How another user changed a CPU's log (struct dtl_cpu @other_change). */
#define DTL_OTHER_MASK	1
#define DTL_OTHER_LOG	2
/* The capture timer: entries aimed at per period, and its bounds. */
#define DTL_PER_PERIOD	16
#define DTL_PERIOD_MIN	(250 * NSEC_PER_USEC)
#define DTL_PERIOD_START	NSEC_PER_MSEC
#define DTL_PERIOD_MAX	(200 * NSEC_PER_MSEC)
/* The session's ring of records: default and bounds, in KiB. */
#define DTL_RING_KB_DEFAULT	256
#define DTL_RING_KB_MIN	4
#define DTL_RING_KB_MAX	65536
/* The least a CPU's share of the session's ring is. */
#define DTL_CPU_RING_MIN	(DTL_RING_KB_MIN * 1024)
/* Captures of a CPU whose records may wait for room at once (uapi too). */
#define DTL_PENDING	8
/*
 * Whether the kernel's dispatch trace logs (paca dispatch_log) live as long
 * as the kernel: with the native accounting they are allocated at boot
 * (pseries setup.c alloc_dispatch_logs(), a machine_early_initcall) and
 * never freed (lpar.c free_dtl_buffers() frees nothing then); without it a
 * log exists only while vcpudispatch_stats is enabled, and disabling it
 * frees the log under dtl_access_lock, which modules cannot take.
 */
#define DTL_KLOG_LASTS	IS_ENABLED(CONFIG_VIRT_CPU_ACCOUNTING_NATIVE)
/* Who holds a CPU's log (dtl_log_whose()). */
enum dtl_log_holder {
	DTL_LOG_FREE,		/* no one: the capture registers its own */
	DTL_LOG_KERNEL,		/* the kernel, for good: read alongside */
	DTL_LOG_OTHER,		/* another user: -EBUSY */
};

/**
 * struct dtl_ring - a ring of stream records
 * @buf: the bytes
 * @size: bytes of @buf, a power of two
 * @head: bytes ever written (the CPU's capture, under the CPU's lock)
 * @tail: bytes ever read (the session's one reader moves it, under the
 *	CPU's lock and the session's read lock)
 */
struct dtl_ring {
	u8 *buf;
	u32 size;
	u64 head;
	u64 tail;
};

/**
 * struct dtl_sink - where a CPU's records go instead of its ring (the
 *	vpa_dtl PMU's AUX area)
 * @begin: about to put records, the capture's @last ones (what is
 *	pending when it ends); false if there is nowhere to put them
 * @put: one record; false if it does not fit (nothing is written)
 * @end: done putting, @dropped entries found no room
 *
 * Called on the CPU, interrupts off, with the CPU's lock held.
 */
struct dtl_sink {
	bool (*begin)(void *arg, bool last);
	bool (*put)(void *arg, const void *rec);
	void (*end)(void *arg, u64 dropped);
};

/**
 * struct dtl_pend - the records of one capture of a CPU not yet in the
 *	stream
 * @events: HTMTRACE_DTL_CPU_* records due, as bits: JOINED, and what ended
 *	the capture
 * @lost: entries lost and not yet reported, [0] overwritten, [1] dropped
 * @error: the errno a HTMTRACE_DTL_CPU_FAILED record carries
 * @gen: the CPU's @gens_due when the capture began: its records go before
 *	the clock record of START @gen and of every START after it
 */
struct dtl_pend {
	unsigned long events;
	u64 lost[2];
	s32 error;
	u32 gen;
};

/**
 * struct dtl_cpu - the capture on one CPU
 * @dtl: its session
 * @cpu: logical CPU
 * @state: HTMTRACE_DTL_CPU_*; written on the CPU or with its timer stopped
 * @kernel_owned: @log is the kernel's (paca dispatch_log)
 * @other_change: what another user changed under us: DTL_OTHER_MASK (our
 *	event bits only: the mask is theirs now) or DTL_OTHER_LOG (the
 *	log itself: the registration is theirs too); else 0
 * @own_registered: @own may still be registered with the hypervisor (its
 *	unregistration failed, or another user replaced it): never free it
 * @mask: HTMTRACE_DTL_* events this CPU logs for us
 * @clock_pending: (with @sink) a clock record is due before the next one
 * @sink: where the records go, NULL for @ring
 * @sink_arg: for @sink
 * @log: the hypervisor's ring being read, or NULL when not capturing
 * @own: our buffer, registered where the kernel owns no log
 * @saved_mask: the CPU's event mask before the capture, restored after it
 * @last: index of the next entry to read
 * @last_tb: timebase of the newest entry read (own buffer: a newer entry
 *	must follow it)
 * @period_ns: the timer's current period
 * @timer: the pinned capture timer
 * @pend: the records of the CPU's captures that wait for room, oldest
 *	first, from @pend_first on (modulo DTL_PENDING); the last of them is
 *	the current (or last) capture's, whose losses it counts. Records go
 *	out as they come when they fit: more than one capture has records
 *	waiting only while the ring is full and unread (a START, or the CPU
 *	back online, began a capture meanwhile), and a newer capture's
 *	entries are dropped (counted in its @lost) until the older ones'
 *	records are out
 * @pend_first: the oldest capture's slot in @pend
 * @pend_n: slots in use, at least 1
 * @folded: captures that began while DTL_PENDING captures' records waited:
 *	each took over the newest's slot (dtl_pend_begin())
 * @gens_due: STARTs of the session so far (struct vpa_dtl @clock_last)
 * @gens: STARTs whose place in @ring is known: START g's records begin at
 *	@gen_head[g % DTL_CLOCKS]. The reader reads up to there, then that
 *	START's clock record, then past it. Less than @gens_due while records
 *	of a capture before START @gens still wait for room: they go first
 * @logged: entries the hypervisor logged during the capture
 * @entries: entries copied into the stream
 * @overwritten: entries the hypervisor overwrote before they were read
 * @dropped: entries that did not fit in @ring (or the sink)
 * @wakeups: timer runs
 * @poll_ns: time spent in the polls that found entries (make bench)
 * @lock_wait_ns: of which waiting for @lock
 * @lock: guards the CPU's records: @ring (its head, and the reader's move
 *	of its tail), the pending records and @gens; taken in hard interrupt
 *	context, also on PREEMPT_RT (the capture timer, the FLUSH IPI, the
 *	vpa_dtl PMU's irq_work and deadline timer, never under perf's raw
 *	context lock): hence raw, and held for short copies only. Only this
 *	CPU's capture and the session's reader take it: no CPU's poll waits
 *	for another's, as in mainline's vpa-dtl.c, per CPU
 * @ring: the CPU's ring of records, its share of the session's ring_kb
 *	(dtl_cpu_ring_size()); not used with a @sink
 * @stage: the entries of one poll, checked before they go to the ring
 *
 * The pending records (@clock_pending, @pend, @pend_first, @pend_n,
 * @gens_due, @gens) are read and written under @lock,
 * except @clock_pending and @sink, also set before the capture begins (its
 * timer not yet started). The counters are written by the CPU's timer (or
 * with it stopped) and read without a lock.
 */
struct dtl_cpu {
	struct vpa_dtl *dtl;
	int cpu;
	u32 state;
	bool kernel_owned;
	u8 other_change;
	bool own_registered;
	u8 mask;
	bool clock_pending;
	const struct dtl_sink *sink;
	void *sink_arg;
	const struct dtl_entry *log;
	void *own;
	u8 saved_mask;
	u64 last;
	u64 last_tb;
	u64 period_ns;
	struct hrtimer timer;
	struct dtl_pend pend[DTL_PENDING];
	u32 pend_first;
	u32 pend_n;
	u32 folded;
	u32 gens_due;
	u32 gens;
	u64 gen_head[DTL_CLOCKS];
	u64 logged;
	u64 entries;
	u64 overwritten;
	u64 dropped;
	u64 wakeups;
	u64 poll_ns;
	u64 lock_wait_ns;
	raw_spinlock_t lock;	/* see above */
	struct dtl_ring ring;
	struct dtl_entry stage[DTL_ENTRIES];
};

/**
 * struct dtl_claim - what one round of a read copies: the records a
 *	reader claimed under the read lock and copies without it
 * @cpu: the CPU whose records, or -1 for the session's clock record
 * @from: that CPU's ring's buffer, size and tail (what the copy uses; not
 *	its head, which the CPU's capture writes meanwhile: 0 here)
 * @clock: the clock record, copied from the session (@cpu -1)
 * @len: bytes claimed
 * @gen: the readers' generation it was claimed in (struct vpa_dtl
 *	@read_gen): another one at dtl_read_done() if the session ended
 *	meanwhile, and then @from's buffer is the reader's to free
 */
struct dtl_claim {
	int cpu;
	struct dtl_ring from;
	struct htmtrace_dtl_clock clock;
	u32 len;
	u64 gen;
};

/* Session states. */
enum {
	DTL_IDLE,
	DTL_CONFIGURED,
	DTL_RUNNING,
	DTL_STOPPED,
	DTL_PMU,		/* perf events hold the log */
};

/* dtl_ring.c */
bool dtl_ring_put(struct dtl_ring *ring, const void *rec);
u32 dtl_ring_whole(const struct dtl_ring *ring, u64 head, size_t max);
unsigned long dtl_ring_copy(const struct dtl_ring *ring,
			    char __user *ubuf, u32 len);

/* dtl_rec.c: but for the first three, callers hold the CPU's lock */
void dtl_clock_rec(struct htmtrace_dtl_clock *rec, u64 tb, u64 mono,
		   u64 boot, u64 real);
void dtl_rec_init(struct htmtrace_dtl_rec *hdr, u16 type, u16 len, u32 cpu);
void dtl_clock_now(struct htmtrace_dtl_clock *rec);
bool dtl_put(struct vpa_dtl *dtl, struct dtl_cpu *c, const void *rec);
bool dtl_flush_cpu(struct vpa_dtl *dtl, struct dtl_cpu *c);
struct dtl_pend *dtl_pend_cur(struct dtl_cpu *c);
struct dtl_pend *dtl_pend_begin(struct dtl_cpu *c);

/* dtl_cpu.c */
void dtl_span(u64 last, u64 cur, u64 *first, u64 *overwritten);
u64 dtl_next_period(u64 period_ns, u64 n);
void dtl_cpu_setup(struct vpa_dtl *dtl, struct dtl_cpu *c,
		   unsigned int cpu, u8 mask);
long dtl_cpu_begin(void *arg);
void dtl_cpu_poll(struct vpa_dtl *dtl, struct dtl_cpu *c);
void dtl_cpu_end(struct dtl_cpu *c, unsigned int why);
void dtl_cpu_flush_ipi(void *arg);

/* dtl_session.c: /dev/vpa_dtl's session */
enum dtl_log_holder dtl_log_whose(bool klog, bool klog_lasts, u8 mask);
bool dtl_cpu_busy(const struct htmtrace_hv_ops *hv, int cpu);
int dtl_config_check(const struct htmtrace_dtl_config *cfg,
		     u32 *ring_size);
int dtl_configure(struct vpa_dtl *dtl, const struct htmtrace_hv_ops *hv,
		  const struct cpumask *cpus, u8 mask, u32 ring_size,
		      const void *owner);
void dtl_start_clock(struct vpa_dtl *dtl);
int dtl_start(struct vpa_dtl *dtl);
int dtl_stop(struct vpa_dtl *dtl);
int dtl_end(struct vpa_dtl *dtl, const void *owner);
int dtl_flush_now(struct vpa_dtl *dtl);
u32 dtl_cpu_ring_size(u32 ring_size, unsigned int ncpus);
ssize_t dtl_read_claim(struct vpa_dtl *dtl, size_t count, bool nonblock,
		       struct dtl_claim *claim);
ssize_t dtl_read_done(struct vpa_dtl *dtl, ssize_t ret,
		      const struct dtl_claim *claim);
ssize_t dtl_read(struct vpa_dtl *dtl, char __user *ubuf, size_t count,
		 bool nonblock);
__poll_t dtl_poll_mask(struct vpa_dtl *dtl);
int dtl_stats(struct vpa_dtl *dtl, struct htmtrace_dtl_cpu_stats *out,
	      u32 max, u32 *count);
void dtl_free(struct vpa_dtl *dtl);

/* dtl_pmu_session.c: the session of the vpa_dtl PMU's events */
int dtl_pmu_get(struct vpa_dtl *dtl, const struct htmtrace_hv_ops *hv);
void dtl_pmu_put(struct vpa_dtl *dtl);
struct dtl_cpu *dtl_pmu_cpu_add(struct vpa_dtl *dtl, int cpu, u8 mask,
				const struct dtl_sink *sink,
					void *arg);
void dtl_pmu_cpu_remove(struct vpa_dtl *dtl, struct dtl_cpu *c);
void dtl_pmu_cpu_begin(struct dtl_cpu *c);
u64 dtl_pmu_cpu_read(struct dtl_cpu *c);
void dtl_pmu_cpu_end(struct dtl_cpu *c);

#endif /* HTMTRACE_DTL_INTERNAL_H */
