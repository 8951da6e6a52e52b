/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: declarations shared by the driver's two halves, the HTM
 * (htm_internal.h holds what only its files share) and the dispatch trace
 * log (dtl_internal.h).
 */
#ifndef _HTMTRACE_H
#define _HTMTRACE_H

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/spinlock.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/htmtrace.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "htmtrace_hv.h"

/*
 * What the KUnit suites test is exported in the test build only
 * (HTMTRACE_TEST): a production build exports nothing, whatever the
 * kernel's CONFIG_KUNIT (tests/lint.sh checks its Module.symvers is empty).
 */
#ifndef HTMTRACE_TEST
#undef EXPORT_SYMBOL_IF_KUNIT
/* Names the symbol (it must exist), exports nothing. */
#define EXPORT_SYMBOL_IF_KUNIT(symbol) static_assert(!__same_type(symbol, void))
#endif

struct dentry;
struct seq_file;

/* main.c: module parameters and the platform gate */
const char *htm_platform_check(bool lpar, bool kvm_guest);

/* common.c: whether the devices and PMUs take users, the bounce size */
bool htm_is_live(void);
void htm_go_live(void);
extern unsigned int htm_bounce_size;
/* The largest bounce buffer: one allocation of MAX_PAGE_ORDER pages. */
#define HTM_BOUNCE_MAX	((unsigned int)(PAGE_SIZE << MAX_PAGE_ORDER))
extern unsigned int dtl_period_us;

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
 * Not locked here: each owner serialises its updates. A channel's are
 * updated under its lock (an information query counts into counters of
 * its own, added under the lock at its end), and debugfs reads them under
 * it; an htm event's by the event alone (struct htm_pmu_event), and
 * debugfs reads those without a lock.
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
 * @uninterruptible: long-busy waits ignore signals (teardown: a close or
 *	an exit cannot restart, and must not leave a unit configured); the
 *	bound on the time still holds
 */
struct htm_hv_policy {
	unsigned int busy_retries;
	unsigned int long_busy_max_ms;
	bool atomic;
	bool uninterruptible;
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
extern const struct htm_hv_policy htm_hv_teardown_policy;

unsigned int htm_hv_long_busy_max_ms(const struct htm_hv_policy *policy);

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

int htm_hv_offer(const struct htmtrace_hv_ops *ops,
		 struct htm_hv_offer *offer);
const struct htmtrace_hv_ops *htm_hv_get(void);
void htm_hv_put(const struct htmtrace_hv_ops *ops);

/* htm_pmu.c: the htm perf PMU */
int htm_pmu_register(const struct htmtrace_hv_ops *hv);
void htm_pmu_unregister(void);

/*
 * dtl_*.c: the dispatch trace log capture. main.c holds the one session;
 * the rest of what the capture's files share is in dtl_internal.h.
 */

struct dtl_cpu;

/* STARTs whose clock records may wait for the reader, a power of two */
#define DTL_CLOCKS	16

/**
 * struct vpa_dtl - the one dispatch trace log session
 * @lock: guards @state and every transition of it: configure, start,
 *	stop, the end (deconfigure, the owner's close), CPU hotplug, the
 *	vpa_dtl PMU taking and giving back the log. Each checks the state
 *	under it and publishes the new one with smp_store_release() (lockless
 *	readers use smp_load_acquire()). Lock order, outermost first:
 *	@read_lock, cpus_read_lock(), @lock, a CPU's lock (struct dtl_cpu,
 *	one at a time); the hotplug callbacks take @lock inside the hotplug
 *	lock
 * @read_lock: guards @reading, @read_cpu, @read_gen, @read_next and the
 *	clock records (@clocks, @clock_first, @clock_last). A read holds it
 *	while it claims records and while it consumes them, never across its
 *	copy to the user (whose page fault may never resolve), so that the
 *	end of the session, which takes it, never waits for a copy. START and
 *	the session's end hold it across their whole transition (each CPU's
 *	begin or end included): a read waits for them, and never sees half
 *	of one
 * @reading: a reader of this session is copying records (one at a time:
 *	another waits until it is done)
 * @read_cpu: (@reading) the CPU whose ring it copies from, -1 for the
 *	clock record
 * @read_gen: the readers' generation: a claim carries it, and the end of
 *	a session that a reader is copying from detaches that reader (clears
 *	@reading, moves @read_gen on and leaves it the ring it copies from,
 *	which it frees when its copy is over): a reader stuck in its copy
 *	holds up no reader of the next session
 * @read_next: the CPU whose ring a read looks at first (the reads take
 *	the CPUs' records in turn)
 * @hv: the backend
 * @state: DTL_* (dtl_internal.h); read without a lock by read() and
 *	poll()
 * @cpus: the selected CPUs
 * @pcpu: per CPU id, its capture, NULL if not selected
 * @filled: how many CPUs' rings hold records not yet read (each CPU
 *	counts itself in and out under its lock); read without a lock by
 *	read() and poll()
 * @clocks: the clock records of the STARTs, @clock_first to @clock_last
 *	(modulo DTL_CLOCKS), that the reader has not read yet: each goes after
 *	the records of the captures before its START, before those of its own
 * @clock_first: STARTs whose clock record the reader has read
 * @clock_last: STARTs (that took a clock record: see dtl_start_clock());
 *	both read without a lock by read() and poll()
 * @hp_state: the CPU hotplug state of the callbacks
 * @pmu_users: perf events holding the session (state DTL_PMU)
 * @owner: the file whose close ends the session, NULL if none
 * @wait: woken when records arrive or the state changes
 * @wake_work: wakes @wait for the hard interrupt handlers (the capture
 *	timers, the PMU's), where its lock may not be taken on PREEMPT_RT
 *
 * Each selected CPU puts its records into a ring of its own, under its
 * own lock, so that no CPU's capture waits for another's; the reader
 * takes them in turn, each CPU's in the order of its capture.
 */
struct vpa_dtl {
	struct mutex lock;		/* see above */
	struct mutex read_lock;		/* see above */
	bool reading;
	int read_cpu;
	u64 read_gen;
	unsigned int read_next;
	const struct htmtrace_hv_ops *hv;
	u32 state;
	cpumask_var_t cpus;
	struct dtl_cpu **pcpu;
	atomic_t filled;
	struct htmtrace_dtl_clock clocks[DTL_CLOCKS];
	u32 clock_first;
	u32 clock_last;
	int hp_state;
	unsigned int pmu_users;
	const void *owner;
	wait_queue_head_t wait;
	struct irq_work wake_work;
};

int dtl_init(struct vpa_dtl *dtl);
void dtl_exit(struct vpa_dtl *dtl);

/* dtl_cdev.c: /dev/vpa_dtl */
int dtl_cdev_add(const struct htmtrace_hv_ops *hv, struct vpa_dtl *dtl);
void dtl_cdev_remove(void);

/* dtl_pmu.c: the vpa_dtl perf PMU */
int dtl_pmu_register(const struct htmtrace_hv_ops *hv,
		     struct vpa_dtl *dtl);
void dtl_pmu_unregister(void);

/* htm_cdev.c: /dev/htmN */
int htm_cdev_add_all(const struct htmtrace_hv_ops *hv, unsigned int nr);
void htm_cdev_remove_all(void);

/* common.c: what the two halves do alike */
int htm_ioctl_block(void __user *uarg, const void *hdr, size_t hdr_size,
		    void __user *ubuf, const void *block, size_t len, int err);

/**
 * struct htm_perf - one registration of a perf PMU of the driver
 * @pmu: the PMU, a fresh copy of its template
 * @format: its sysfs format group
 * @events: its sysfs events group
 * @groups: both, for @pmu
 * @show: writes one event (its list node, see htm_perf_event_add()) to the
 *	debugfs file
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
	void (*show)(struct seq_file *m, const struct list_head *node);
	struct mutex lock;		/* see above */
	struct list_head event_list;
	struct dentry *debugfs;
	bool registered;
};

int htm_perf_register(struct htm_perf *reg, const char *name,
		      const struct pmu *tmpl, struct attribute **format,
		      struct attribute **events,
		      void (*show)(struct seq_file *m,
				   const struct list_head *node));
void htm_perf_unregister(struct htm_perf *reg);
void htm_perf_event_add(struct htm_perf *reg, struct list_head *node);
void htm_perf_event_del(struct htm_perf *reg, struct list_head *node);

/* debugfs.c */
struct dentry *htm_debugfs_dir(void);
void htm_debugfs_init(const struct htmtrace_hv_ops *hv);
void htm_debugfs_exit(void);
void htm_debugfs_show_stats(struct seq_file *m, const char *prefix,
			    const struct htm_hv_stats *st, u64 bytes);

#endif /* _HTMTRACE_H */
