// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the hypervisor boundary.
 *
 * No other file of the driver calls the hypervisor. Every H_HTM request goes
 * through one retry loop (htm_hv_call_loop()), under the policy its caller
 * names (struct htm_hv_policy), and counts what happened:
 *
 *  - htm_hv_default_policy (htm_hv_call()): H_BUSY retried a bounded number
 *    of times, H_LONG_BUSY_* slept for the hinted time within a total
 *    bound of 10 s, interruptibly: a signal ends the wait (-ERESTARTSYS,
 *    the request not done);
 *  - htm_hv_teardown_policy: the same bounds, but no signal ends a wait,
 *    for what cannot be left half done (an event's close, a channel's
 *    CONFIGURE after the DECONFIGURE of a START);
 *  - htm_hv_atomic_policy, for the perf callbacks (interrupts off) and the
 *    size query a read makes, which does not wait: H_BUSY retried without
 *    a reschedule, H_LONG_BUSY_* not waited for (-EBUSY).
 *
 * htm_hv_call_yield() waits under the default policy with the caller's
 * lock let go. Every hypervisor status becomes an errno in
 * htm_hv_op_errno(), per operation.
 *
 * The backend is a table of operations, fixed at load: the pseries
 * hcalls, or, in a test build only (HTMTRACE_TEST) and with backend=sim,
 * the simulator's (htmtrace_hvsim.ko, taken with symbol_get() and so held
 * until unload). A production build has no way to replace the hypervisor.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <asm/firmware.h>
#include <asm/hvcall.h>
#include <asm/lppaca.h>
#include <asm/paca.h>
#include <asm/plpar_wrappers.h>
#include <asm/smp.h>

#include "htmtrace.h"

/* pseries backend */

static long htm_pseries_htm(unsigned long flags, unsigned long target,
			    unsigned long op, unsigned long p1,
			    unsigned long p2, unsigned long p3)
{
	return plpar_hcall_norets(H_HTM, flags, target, op, p1, p2, p3);
}

static long htm_pseries_register_dtl(int cpu, phys_addr_t buf)
{
	long rc = register_dtl(get_hard_smp_processor_id(cpu), buf);

	/* The index is the partition's to reset (as debugfs dtl does). */
	if (rc == H_SUCCESS)
		WRITE_ONCE(lppaca_of(cpu).dtl_idx, 0);
	return rc;
}

static long htm_pseries_unregister_dtl(int cpu)
{
	return unregister_dtl(get_hard_smp_processor_id(cpu));
}

static u64 htm_pseries_dtl_index(int cpu)
{
	return be64_to_cpu(READ_ONCE(lppaca_of(cpu).dtl_idx));
}

static u8 htm_pseries_dtl_mask(int cpu)
{
	return READ_ONCE(lppaca_of(cpu).dtl_enable_mask);
}

static void htm_pseries_dtl_set_mask(int cpu, u8 mask)
{
	WRITE_ONCE(lppaca_of(cpu).dtl_enable_mask, mask);
}

static const struct htmtrace_hv_ops htm_hv_pseries = {
	.name = "pseries",
	.htm = htm_pseries_htm,
	.register_dtl = htm_pseries_register_dtl,
	.unregister_dtl = htm_pseries_unregister_dtl,
	.dtl_index = htm_pseries_dtl_index,
	.dtl_mask = htm_pseries_dtl_mask,
	.dtl_set_mask = htm_pseries_dtl_set_mask,
};

/* status codes and errno */

static const struct {
	long rc;
	const char *name;
} htm_hv_rcs[HTM_HV_NR_RC - 1] = {
	{ H_SUCCESS, "H_SUCCESS" },
	{ H_BUSY, "H_BUSY" },
	{ H_CLOSED, "H_CLOSED" },
	{ H_NOT_AVAILABLE, "H_NOT_AVAILABLE" },
	{ H_CONSTRAINED, "H_CONSTRAINED" },
	{ H_PARTIAL, "H_PARTIAL" },
	{ H_LONG_BUSY_ORDER_1_MSEC, "H_LONG_BUSY" },
	{ H_HARDWARE, "H_HARDWARE" },
	{ H_FUNCTION, "H_FUNCTION" },
	{ H_PRIVILEGE, "H_PRIVILEGE" },
	{ H_PARAMETER, "H_PARAMETER" },
	{ H_AUTHORITY, "H_AUTHORITY" },
	{ H_RESOURCE, "H_RESOURCE" },
	{ H_P2, "H_P2" },
	{ H_P3, "H_P3" },
	{ H_P4, "H_P4" },
	{ H_P5, "H_P5" },
	{ H_P6, "H_P6" },
	{ H_STATE, "H_STATE" },
};

/**
 * htm_hv_rc_slot() - index of a status code in the debugfs error counters
 * @rc: hypervisor status
 *
 * All H_LONG_BUSY_* codes share one slot.
 *
 * Return: 0..HTM_HV_NR_RC - 2 for a known code, HTM_HV_NR_RC - 1 for others.
 */
int htm_hv_rc_slot(long rc)
{
	unsigned int i;

	if (H_IS_LONG_BUSY(rc))
		rc = H_LONG_BUSY_ORDER_1_MSEC;
	for (i = 0; i < ARRAY_SIZE(htm_hv_rcs); i++)
		if (htm_hv_rcs[i].rc == rc)
			return i;
	return HTM_HV_NR_RC - 1;
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_rc_slot);

/* The name of a counter slot: a status code's, or "other". */
const char *htm_hv_slot_name(int slot)
{
	return slot >= 0 && slot < (int)ARRAY_SIZE(htm_hv_rcs) ?
	       htm_hv_rcs[slot].name : "other";
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_slot_name);

const char *htm_hv_rc_name(long rc)
{
	return htm_hv_slot_name(htm_hv_rc_slot(rc));
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_rc_name);

/**
 * htm_hv_errno() - the errno a hypervisor status stands for, whatever the op
 * @rc: hypervisor status
 *
 * The meaning every operation shares; htm_hv_op_errno() applies the
 * per-operation meaning of H_NOT_AVAILABLE.
 *
 * Return: 0 for H_SUCCESS and H_PARTIAL; -ENODATA for H_NOT_AVAILABLE;
 * -EBUSY for H_BUSY and H_LONG_BUSY_* (returned once the retry policy gave
 * up); -EINVAL for a rejected parameter; -EPERM when the partition may not
 * use HTM; -EOPNOTSUPP when the hypervisor lacks H_HTM; -ENOBUFS when it
 * lacks the resources; -ENXIO for H_CLOSED; -EIO for H_STATE, H_HARDWARE,
 * H_CONSTRAINED and any status not listed.
 */
int htm_hv_errno(long rc)
{
	if (H_IS_LONG_BUSY(rc))
		return -EBUSY;

	switch (rc) {
	case H_SUCCESS:
	case H_PARTIAL:
		return 0;
	case H_NOT_AVAILABLE:
		return -ENODATA;
	case H_BUSY:
		return -EBUSY;
	case H_PARAMETER:
	case H_P2:
	case H_P3:
	case H_P4:
	case H_P5:
	case H_P6:
		return -EINVAL;
	case H_AUTHORITY:
	case H_PRIVILEGE:
		return -EPERM;
	case H_FUNCTION:
		return -EOPNOTSUPP;
	case H_RESOURCE:
		return -ENOBUFS;
	case H_CLOSED:
		return -ENXIO;
	case H_STATE:
	case H_HARDWARE:
	case H_CONSTRAINED:
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_errno);

/*
 * Per operation, what H_NOT_AVAILABLE means; the one place that decides it.
 * H_PARTIAL is success on every op, as in both public drivers (htmdump.c
 * htm_return_check(), htm-perf.c): H_HTM returns no byte count, so the
 * callers zero a destination before each request, and what the hypervisor
 * leaves unwritten reads as zeros, never as older data.
 *
 *  - DUMP_DATA: the offset is past the end of the data ("reading from an
 *    offset outside the range, i.e. past end of file", htmdump.c), at any
 *    offset: -ENODATA, which a read() turns into its end.
 *  - STATUS, CAPABILITIES, DUMP_SYSMEM_CONF, DUMP_SYSPROC_CONF: no data,
 *    or, after a first block, the end of an iteration (htm-perf.c: "normal
 *    end of stream"): -ENODATA, for the caller to tell the two apart.
 *  - SETUP, CONFIGURE, START, STOP, DECONFIGURE, DUMP_DETAILS: htmdump.c
 *    maps it to 0 for every op, which its attribute writes report as
 *    success; no public driver says what these ops leave undone then, so
 *    it is a failure (-EIO): the driver never calls a failed op a success.
 */
static const s8 htm_hv_op_not_available[HTM_OP_DUMP_SYSPROC_CONF + 1] = {
	[HTM_OP_CAPABILITIES]		= -ENODATA,
	[HTM_OP_STATUS]			= -ENODATA,
	[HTM_OP_SETUP]			= -EIO,
	[HTM_OP_CONFIGURE]		= -EIO,
	[HTM_OP_START]			= -EIO,
	[HTM_OP_STOP]			= -EIO,
	[HTM_OP_DECONFIGURE]		= -EIO,
	[HTM_OP_DUMP_DETAILS]		= -EIO,
	[HTM_OP_DUMP_DATA]		= -ENODATA,
	[HTM_OP_DUMP_SYSMEM_CONF]	= -ENODATA,
	[HTM_OP_DUMP_SYSPROC_CONF]	= -ENODATA,
};

/**
 * htm_hv_op_errno() - the errno a status stands for, as an answer to @op
 * @op: HTM_OP_*
 * @rc: hypervisor status
 *
 * Return: as htm_hv_errno(), but for H_NOT_AVAILABLE what the table above
 * says for @op (-EIO for an op it does not know).
 */
int htm_hv_op_errno(unsigned int op, long rc)
{
	if (rc != H_NOT_AVAILABLE)
		return htm_hv_errno(rc);
	if (!op || op >= ARRAY_SIZE(htm_hv_op_not_available))
		return -EIO;
	return htm_hv_op_not_available[op];
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_op_errno);

/* the retry policy */

const struct htm_hv_policy htm_hv_default_policy = {
	.busy_retries = 100,
	.long_busy_max_ms = 10 * MSEC_PER_SEC,
};
EXPORT_SYMBOL_IF_KUNIT(htm_hv_default_policy);

/* For the perf callbacks, which run with interrupts off. */
const struct htm_hv_policy htm_hv_atomic_policy = {
	.busy_retries = 100,
	.atomic = true,
};
EXPORT_SYMBOL_IF_KUNIT(htm_hv_atomic_policy);

/*
 * For teardown (an event's close, event_init's rollback) and for the
 * CONFIGURE that a channel's START makes after DECONFIGURE: the default
 * bounds, but a pending signal does not cut a long-busy wait short. A close
 * cannot be restarted, so an interrupted STOP or DECONFIGURE would leave
 * the unit configured with nobody holding it; an interrupted CONFIGURE
 * would leave the channel idle, with nothing for the restarted START.
 */
const struct htm_hv_policy htm_hv_teardown_policy = {
	.busy_retries = 100,
	.long_busy_max_ms = 10 * MSEC_PER_SEC,
	.uninterruptible = true,
};
EXPORT_SYMBOL_IF_KUNIT(htm_hv_teardown_policy);

#ifdef HTMTRACE_TEST
/*
 * Test builds only: a cap on every policy's long-busy bound, 0 (the
 * default) for none. The suites prove that the bound ends a wait with 1 s
 * rather than waiting out production's 10 s each time; KUnit checks the
 * 10 s themselves. Read once per request.
 */
static unsigned int long_busy_cap_ms;
module_param(long_busy_cap_ms, uint, 0644);
MODULE_PARM_DESC(long_busy_cap_ms,
		 "cap on the long-busy bound in ms, 0 for none (test builds only)");
#endif

/**
 * htm_hv_long_busy_max_ms() - the long-busy bound a request runs under
 * @policy: the request's policy
 *
 * Return: @policy's bound; in a test build, at most long_busy_cap_ms
 * when that is set.
 */
unsigned int htm_hv_long_busy_max_ms(const struct htm_hv_policy *policy)
{
	unsigned int ms = policy->long_busy_max_ms;
#ifdef HTMTRACE_TEST
	unsigned int cap = READ_ONCE(long_busy_cap_ms);

	if (cap)
		ms = min(ms, cap);
#endif
	return ms;
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_long_busy_max_ms);

/*
 * The one retry loop. With @yield, the caller's lock is let go while a
 * long-busy answer is waited out, and the request is repeated only if the
 * state it was made in still holds.
 */
static int htm_hv_call_loop(const struct htmtrace_hv_ops *ops,
			    const struct htm_hv_policy *policy,
			    const struct htm_hv_yield *yield,
			    struct htm_hv_stats *stats,
			    const struct htm_target *t, unsigned long flags,
			    unsigned int op, unsigned long p1, unsigned long p2,
			    unsigned long p3, long *hrc)
{
	unsigned long target = HTM_TARGET_NODE(t->node) |
			       HTM_TARGET_CHIP(t->chip) |
			       HTM_TARGET_CORE(t->core);
	unsigned long opword = HTM_OP(op) | HTM_TYPE(t->type);
	unsigned int busy = 0, max_ms = htm_hv_long_busy_max_ms(policy);
	ktime_t first_long_busy = 0;
	bool interrupted;
	long rc;
	int ret;

	flags |= HTM_FLAGS_HARDWARE_TARGET;
	for (;;) {
		stats->hcalls++;
		rc = ops->htm(flags, target, opword, p1, p2, p3);
		if (rc == H_BUSY && busy < policy->busy_retries) {
			busy++;
			stats->busy_retries++;
			if (!policy->atomic)
				cond_resched();
			continue;
		}
		if (H_IS_LONG_BUSY(rc) && !policy->atomic) {
			unsigned int ms = get_longbusy_msecs(rc);

			/*
			 * The bound is on the time that passed, not on the
			 * hints: msleep(1) sleeps a jiffy or two.
			 */
			if (!first_long_busy)
				first_long_busy = ktime_get();
			if (ktime_ms_delta(ktime_get(), first_long_busy) + ms >
			    max_ms)
				break;
			stats->long_busy_sleeps++;
			if (yield)
				mutex_unlock(yield->lock);
			if (policy->uninterruptible) {
				msleep(ms);
				interrupted = false;
			} else {
				interrupted = msleep_interruptible(ms) ||
					      signal_pending(current);
			}
			if (yield)
				mutex_lock(yield->lock);
			if (hrc)
				*hrc = rc;
			if (interrupted)
				return -ERESTARTSYS;
			if (yield && !yield->valid(yield->arg))
				return -ESTALE;
			continue;
		}
		break;
	}

	if (hrc)
		*hrc = rc;
	ret = htm_hv_op_errno(op, rc);
	/* H_PARTIAL is success; the end of the data is counted. */
	if (rc != H_SUCCESS && rc != H_PARTIAL)
		stats->errors[htm_hv_rc_slot(rc)]++;
	return ret;
}

/**
 * htm_hv_call_policy() - issue one H_HTM request under a retry policy
 * @ops: backend
 * @policy: how long to insist when the hypervisor is busy
 * @stats: counters to update
 * @t: target; the words are built with the hardware-target flag
 * @flags: extra flag bits (HTM_FLAGS_NOWRAP)
 * @op: HTM_OP_*
 * @p1: first operation parameter
 * @p2: second operation parameter
 * @p3: third operation parameter
 * @hrc: if not NULL, receives the last hypervisor status
 *
 * Sleeps, unless @policy is atomic: then any context will do.
 *
 * Return: htm_hv_op_errno() of the final status, or -ERESTARTSYS if a signal
 * arrived while waiting out a long-busy answer (nothing was done, so the
 * request may be repeated).
 */
int htm_hv_call_policy(const struct htmtrace_hv_ops *ops,
		       const struct htm_hv_policy *policy,
		       struct htm_hv_stats *stats, const struct htm_target *t,
		       unsigned long flags, unsigned int op, unsigned long p1,
		       unsigned long p2, unsigned long p3, long *hrc)
{
	return htm_hv_call_loop(ops, policy, NULL, stats, t, flags, op, p1, p2,
				p3, hrc);
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_call_policy);

/**
 * htm_hv_call_yield() - issue a request that may let its lock go meanwhile
 * @ops: backend
 * @yield: the lock the caller holds, let go while a long-busy answer is
 *	waited out (and taken back, uninterruptibly, after), and what must
 *	still hold for the request to be repeated
 * @stats: counters to update, under @yield->lock
 * @t: target
 * @flags: extra flag bits
 * @op: HTM_OP_*
 * @p1: first operation parameter
 * @p2: second operation parameter
 * @p3: third operation parameter
 * @hrc: if not NULL, receives the last hypervisor status
 *
 * For requests whose buffer the lock does not guard (a reader's own bounce
 * buffer), so that other files of the channel are not held up while the
 * hypervisor is busy. Returns with @yield->lock held.
 *
 * Return: as htm_hv_call_policy() under the default policy, or -ESTALE if
 * @yield->valid() said no after a wait.
 */
int htm_hv_call_yield(const struct htmtrace_hv_ops *ops,
		      const struct htm_hv_yield *yield,
		      struct htm_hv_stats *stats, const struct htm_target *t,
		      unsigned long flags, unsigned int op, unsigned long p1,
		      unsigned long p2, unsigned long p3, long *hrc)
{
	lockdep_assert_held(yield->lock);
	return htm_hv_call_loop(ops, &htm_hv_default_policy, yield, stats, t,
				flags, op, p1, p2, p3, hrc);
}

/**
 * htm_hv_call() - issue one H_HTM request under the default retry policy
 * @ops: backend
 * @stats: counters to update
 * @t: target
 * @flags: extra flag bits
 * @op: HTM_OP_*
 * @p1: first operation parameter
 * @p2: second operation parameter
 * @p3: third operation parameter
 * @hrc: if not NULL, receives the last hypervisor status
 *
 * Return: see htm_hv_call_policy().
 */
int htm_hv_call(const struct htmtrace_hv_ops *ops, struct htm_hv_stats *stats,
		const struct htm_target *t, unsigned long flags,
		unsigned int op, unsigned long p1, unsigned long p2,
		unsigned long p3, long *hrc)
{
	return htm_hv_call_policy(ops, &htm_hv_default_policy, stats, t, flags,
				  op, p1, p2, p3, hrc);
}

/* the dispatch trace log */

/**
 * htm_hv_dtl_register() - register a CPU's dispatch trace log buffer
 * @ops: backend
 * @cpu: logical CPU
 * @buf: 4 KiB buffer that does not cross a 4 KiB boundary, its length in
 *	the second big-endian word (as H_REGISTER_VPA wants)
 *
 * Any context. The log starts empty (index 0).
 *
 * Return: 0 or the errno of the hypervisor's status (htm_hv_errno()).
 */
int htm_hv_dtl_register(const struct htmtrace_hv_ops *ops, int cpu, void *buf)
{
	return htm_hv_errno(ops->register_dtl(cpu, __pa(buf)));
}

/* Unregister the CPU's log. Return: 0 or the errno of the status. */
int htm_hv_dtl_unregister(const struct htmtrace_hv_ops *ops, int cpu)
{
	return htm_hv_errno(ops->unregister_dtl(cpu));
}

u64 htm_hv_dtl_index(const struct htmtrace_hv_ops *ops, int cpu)
{
	return ops->dtl_index(cpu);
}

u8 htm_hv_dtl_mask(const struct htmtrace_hv_ops *ops, int cpu)
{
	return ops->dtl_mask(cpu);
}

void htm_hv_dtl_set_mask(const struct htmtrace_hv_ops *ops, int cpu, u8 mask)
{
	ops->dtl_set_mask(cpu, mask);
}

/* Does the backend offer the dispatch trace log, in this partition? */
static bool htm_hv_has_dtl(const struct htmtrace_hv_ops *ops)
{
	return ops->register_dtl && ops->unregister_dtl && ops->dtl_index &&
	       ops->dtl_mask && ops->dtl_set_mask &&
	       firmware_has_feature(FW_FEATURE_SPLPAR);
}

/**
 * htm_hv_probe() - does the backend implement H_HTM?
 * @ops: backend
 *
 * Asks for the HTM capabilities. Only H_FUNCTION (or a backend without an
 * htm op) means that H_HTM is absent. Any other failure (H_PARAMETER for
 * the type-0 query, H_AUTHORITY, a hypervisor that stayed busy, a signal
 * during insmod) is logged with its status and the devices are made all
 * the same: each request on them then fails with its own errno, and a
 * transient failure costs nothing once it is over.
 *
 * Return: 0 if the devices should exist, -ENODEV if H_HTM is absent,
 * -ENOMEM.
 */
int htm_hv_probe(const struct htmtrace_hv_ops *ops)
{
	struct htm_target t = {};
	struct htm_hv_stats stats = {};
	void *caps;
	long rc = H_SUCCESS;
	int ret;

	if (!ops->htm)
		return -ENODEV;
	caps = kzalloc(HTM_CAPS_SIZE, GFP_KERNEL);
	if (!caps)
		return -ENOMEM;
	ret = htm_hv_call(ops, &stats, &t, 0, HTM_OP_CAPABILITIES,
			  virt_to_phys(caps), HTM_CAPS_SIZE, 0, &rc);
	kfree(caps);
	if (!ret)
		return 0;
	if (rc == H_FUNCTION) {
		pr_info("%s: H_HTM not usable (%s, %ld): no /dev/htm devices\n",
			ops->name, htm_hv_rc_name(rc), rc);
		return -ENODEV;
	}
	pr_info("%s: H_HTM capabilities query failed (%s, %ld, %d); making the devices anyway\n",
		ops->name, htm_hv_rc_name(rc), rc, ret);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_probe);

/**
 * htm_hv_offer() - what the backend offers this partition
 * @ops: backend
 * @offer: filled in
 *
 * Return: 0 if it offers H_HTM or the dispatch trace log, -ENODEV (with one
 * line in the log) if neither, -ENOMEM.
 */
int htm_hv_offer(const struct htmtrace_hv_ops *ops, struct htm_hv_offer *offer)
{
	int ret = htm_hv_probe(ops);

	if (ret && ret != -ENODEV)
		return ret;
	offer->htm = !ret;
	offer->dtl = htm_hv_has_dtl(ops);
	if (!offer->htm && !offer->dtl) {
		pr_info("%s: neither H_HTM nor a dispatch trace log: not loaded\n",
			ops->name);
		return -ENODEV;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_hv_offer);

/* the backend, fixed at load */

#ifdef HTMTRACE_TEST
static char *backend = "pseries";
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend,
		 "hypervisor backend: pseries (default) or sim, the simulator htmtrace_hvsim.ko, loaded first (test builds only)");
#endif

/**
 * htm_hv_get() - take the backend for the module's lifetime
 *
 * The pseries hcalls; in a test build, with backend=sim, the simulator's
 * operations, whose module is pinned until htm_hv_put().
 *
 * Return: the backend, ERR_PTR(-ENODEV) if backend=sim and the simulator
 * is not loaded, ERR_PTR(-EINVAL) for an unknown backend.
 */
const struct htmtrace_hv_ops *htm_hv_get(void)
{
#ifdef HTMTRACE_TEST
	const struct htmtrace_hv_ops *ops;

	if (sysfs_streq(backend, "sim")) {
		ops = symbol_get(htmtrace_hvsim_ops);
		if (!ops)
			pr_err("backend=sim: the simulator htmtrace_hvsim is not loaded (load it first)\n");
		return ops ?: ERR_PTR(-ENODEV);
	}
	if (!sysfs_streq(backend, "pseries")) {
		pr_err("backend=%s: not pseries or sim\n", backend);
		return ERR_PTR(-EINVAL);
	}
#endif
	return &htm_hv_pseries;
}

/* Give back what htm_hv_get() took. */
void htm_hv_put(const struct htmtrace_hv_ops *ops)
{
#ifdef HTMTRACE_TEST
	if (ops != &htm_hv_pseries)
		symbol_put(htmtrace_hvsim_ops);
#endif
}
