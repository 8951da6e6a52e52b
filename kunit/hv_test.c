// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hypervisor boundary of htmtrace (status map, retry policy).
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include <asm/hvcall.h>

#include "htmtrace.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct rc_case {
	long rc;
	int err;
};

static const struct rc_case rc_cases[] = {
	{ H_SUCCESS, 0 },
	{ H_PARTIAL, 0 },
	{ H_NOT_AVAILABLE, -ENODATA },
	{ H_BUSY, -EBUSY },
	{ H_LONG_BUSY_ORDER_1_MSEC, -EBUSY },
	{ H_LONG_BUSY_ORDER_100_SEC, -EBUSY },
	{ H_PARAMETER, -EINVAL },
	{ H_P2, -EINVAL },
	{ H_P3, -EINVAL },
	{ H_P4, -EINVAL },
	{ H_P5, -EINVAL },
	{ H_P6, -EINVAL },
	{ H_AUTHORITY, -EPERM },
	{ H_PRIVILEGE, -EPERM },
	{ H_FUNCTION, -EOPNOTSUPP },
	{ H_RESOURCE, -ENOBUFS },
	{ H_CLOSED, -ENXIO },
	{ H_STATE, -EIO },
	{ H_HARDWARE, -EIO },
	{ H_CONSTRAINED, -EIO },
	{ -12345, -EIO },
	{ 777, -EIO },
};

static void rc_case_desc(const struct rc_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rc %ld", c->rc);
}

KUNIT_ARRAY_PARAM(rc, rc_cases, rc_case_desc);

static void hv_errno_map(struct kunit *test)
{
	const struct rc_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, htm_hv_errno(c->rc), c->err);
}

/*
 * The (op x status) table of htm_hv_op_errno(), one KUnit case per cell,
 * against what IBM's public drivers do (reference/papr-htm-dtl-facts.md
 * §1.4, §4, §9):
 *  - H_SUCCESS, H_PARTIAL: success on every op (htmdump.c
 *    htm_return_check() @143a2584: "all available data can't be returned
 *    due to buffer size constraint", breaks to success; htm-perf.c
 *    @b64f8fcc the same).
 *  - H_NOT_AVAILABLE: DUMP_DATA, the end of the data at any offset
 *    (htmdump.c: "reading from an offset outside the range, i.e. past end
 *    of file", returns 0); the information ops, no data or the end of an
 *    iteration (htm-perf.c: "normal end of stream"), -ENODATA for the
 *    caller to tell which. The state ops: htmdump.c returns 0, which its
 *    attribute writes report as success; no public source says what such
 *    an op left undone, so -EIO (a failed op is never called a success).
 *  - H_STATE: -EIO on every op, STOP included (htmdump.c: "HTM state is
 *    not valid"; htm-perf.c: -EIO).
 *  - H_PARAMETER, H_P2..H_P6: -EINVAL; H_AUTHORITY: -EPERM (both drivers).
 *  - H_BUSY, H_LONG_BUSY_*: -EBUSY once the retry policy gave up
 *    (htmdump.c -EBUSY; htm-perf.c retries H_BUSY, -EAGAIN for long busy
 *    where it cannot sleep).
 *  - anything else: an error (htm-perf.c "default: return -EIO"; htmdump.c
 *    takes it for success, which the facts file calls a bug): the errno
 *    rc_cases lists.
 */
#define OP_RC_OPS	HTM_OP_DUMP_SYSPROC_CONF

static int op_rc_want(unsigned int op, const struct rc_case *c)
{
	if (c->rc == H_NOT_AVAILABLE) {
		switch (op) {
		case HTM_OP_DUMP_DATA:
		case HTM_OP_CAPABILITIES:
		case HTM_OP_STATUS:
		case HTM_OP_DUMP_SYSMEM_CONF:
		case HTM_OP_DUMP_SYSPROC_CONF:
			return -ENODATA;
		default:
			return -EIO;
		}
	}
	/* every other status means the same on every op: rc_cases */
	return c->err;
}

static const char * const op_rc_names[] = {
	"op0", "CAPABILITIES", "STATUS", "SETUP", "CONFIGURE", "START", "STOP",
	"DECONFIGURE", "DUMP_DETAILS", "DUMP_DATA", "DUMP_SYSMEM_CONF",
	"DUMP_SYSPROC_CONF",
};

static const void *op_rc_gen_params(const void *prev, char *desc)
{
	static unsigned int cells[OP_RC_OPS * ARRAY_SIZE(rc_cases)];
	const unsigned int *cell = prev;
	unsigned int i = cell ? cell - cells + 1 : 0, op;

	if (i >= ARRAY_SIZE(cells))
		return NULL;
	cells[i] = i;
	op = i / ARRAY_SIZE(rc_cases) + 1;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s (%ld)", op_rc_names[op],
		 htm_hv_rc_name(rc_cases[i % ARRAY_SIZE(rc_cases)].rc),
		 rc_cases[i % ARRAY_SIZE(rc_cases)].rc);
	return &cells[i];
}

static void hv_op_errno_cell(struct kunit *test)
{
	unsigned int i = *(const unsigned int *)test->param_value;
	unsigned int op = i / ARRAY_SIZE(rc_cases) + 1;
	const struct rc_case *c = &rc_cases[i % ARRAY_SIZE(rc_cases)];
	long rc = c->rc;

	KUNIT_EXPECT_EQ(test, htm_hv_op_errno(op, rc), op_rc_want(op, c));
	/* H_PARTIAL and H_STATE, spelled out: success, and -EIO, everywhere */
	if (rc == H_PARTIAL)
		KUNIT_EXPECT_EQ(test, htm_hv_op_errno(op, rc), 0);
	if (rc == H_STATE)
		KUNIT_EXPECT_EQ(test, htm_hv_op_errno(op, rc), -EIO);
}

/* An op the table does not know: H_NOT_AVAILABLE is an error there. */
static void hv_op_errno_unknown_op(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, htm_hv_op_errno(0, H_NOT_AVAILABLE), -EIO);
	KUNIT_EXPECT_EQ(test, htm_hv_op_errno(12, H_NOT_AVAILABLE), -EIO);
	KUNIT_EXPECT_EQ(test, htm_hv_op_errno(12, H_PARTIAL), 0);
}

/* The module loads only in an LPAR that is not a KVM guest. */
static void hv_platform_gate(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, htm_platform_check(true, false));
	KUNIT_EXPECT_STREQ(test, htm_platform_check(false, false),
			   "not a logical partition (PowerNV or bare metal)");
	KUNIT_EXPECT_STREQ(test, htm_platform_check(true, true),
			   "a KVM guest (H_HTM is a PowerVM hypercall)");
	KUNIT_EXPECT_NOT_NULL(test, htm_platform_check(false, true));
}

static void hv_rc_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, htm_hv_rc_name(H_STATE), "H_STATE");
	KUNIT_EXPECT_STREQ(test, htm_hv_rc_name(H_LONG_BUSY_ORDER_10_MSEC),
			   "H_LONG_BUSY");
	KUNIT_EXPECT_STREQ(test, htm_hv_rc_name(-12345), "other");
	KUNIT_EXPECT_EQ(test, htm_hv_rc_slot(-12345), HTM_HV_NR_RC - 1);
	KUNIT_EXPECT_STREQ(test, htm_hv_slot_name(HTM_HV_NR_RC - 1), "other");
	KUNIT_EXPECT_STREQ(test, htm_hv_slot_name(htm_hv_rc_slot(H_P5)),
			   "H_P5");
	KUNIT_EXPECT_NE(test, htm_hv_rc_slot(H_P5), htm_hv_rc_slot(H_P6));
}

/*
 * A scripted backend: answers the statuses of fake_script in turn, then
 * fake_final. The tests run in one kthread at a time, so plain statics do.
 */
#define FAKE_MAX 8
static long fake_script[FAKE_MAX];
static unsigned int fake_len, fake_pos;
static long fake_final;
static unsigned int fake_calls;
static unsigned long fake_last[6];

static long fake_htm(unsigned long flags, unsigned long target,
		     unsigned long op, unsigned long p1, unsigned long p2,
		     unsigned long p3)
{
	fake_calls++;
	fake_last[0] = flags;
	fake_last[1] = target;
	fake_last[2] = op;
	fake_last[3] = p1;
	fake_last[4] = p2;
	fake_last[5] = p3;
	if (fake_pos < fake_len)
		return fake_script[fake_pos++];
	return fake_final;
}

static const struct htmtrace_hv_ops fake_ops = {
	.name = "kunit",
	.htm = fake_htm,
};

static void fake_reset(long final)
{
	fake_len = 0;
	fake_pos = 0;
	fake_calls = 0;
	fake_final = final;
}

static const struct htm_target core_target = {
	.type = 2, .node = 1, .chip = 3, .core = 7,
};

static int fake_call(const struct htm_hv_policy *pol,
		     struct htm_hv_stats *st, long *hrc)
{
	return htm_hv_call_policy(&fake_ops, pol, st, &core_target,
				  HTM_FLAGS_NOWRAP, HTM_OP_DUMP_DATA,
				  0x1000, 0x2000, 0x3000, hrc);
}

static void hv_call_encoding(struct kunit *test)
{
	struct htm_hv_stats st = {};
	long hrc;

	fake_reset(H_SUCCESS);
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc), 0);
	KUNIT_EXPECT_EQ(test, hrc, H_SUCCESS);
	KUNIT_EXPECT_EQ(test, fake_calls, 1);
	KUNIT_EXPECT_EQ(test, fake_last[0],
			HTM_FLAGS_HARDWARE_TARGET | HTM_FLAGS_NOWRAP);
	KUNIT_EXPECT_EQ(test, fake_last[1], 0x0001000300070000UL);
	KUNIT_EXPECT_EQ(test, fake_last[2], 0x0009000200000000UL);
	KUNIT_EXPECT_EQ(test, fake_last[3], 0x1000UL);
	KUNIT_EXPECT_EQ(test, fake_last[4], 0x2000UL);
	KUNIT_EXPECT_EQ(test, fake_last[5], 0x3000UL);
	KUNIT_EXPECT_EQ(test, st.hcalls, 1);
}

/* H_BUSY a few times, then success: retried, counted, no error. */
static void hv_busy_retried(struct kunit *test)
{
	struct htm_hv_stats st = {};
	long hrc;

	fake_reset(H_SUCCESS);
	fake_script[0] = H_BUSY;
	fake_script[1] = H_BUSY;
	fake_script[2] = H_BUSY;
	fake_len = 3;
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc), 0);
	KUNIT_EXPECT_EQ(test, fake_calls, 4);
	KUNIT_EXPECT_EQ(test, st.busy_retries, 3);
	KUNIT_EXPECT_EQ(test, st.hcalls, 4);
	KUNIT_EXPECT_EQ(test, st.errors[htm_hv_rc_slot(H_BUSY)], 0);
}

/* An H_BUSY storm ends after the policy's retries with -EBUSY. */
static void hv_busy_storm_bounded(struct kunit *test)
{
	const struct htm_hv_policy pol = { .busy_retries = 5 };
	struct htm_hv_stats st = {};
	long hrc;

	fake_reset(H_BUSY);
	KUNIT_EXPECT_EQ(test, fake_call(&pol, &st, &hrc), -EBUSY);
	KUNIT_EXPECT_EQ(test, hrc, H_BUSY);
	KUNIT_EXPECT_EQ(test, fake_calls, 6);
	KUNIT_EXPECT_EQ(test, st.busy_retries, 5);
	KUNIT_EXPECT_EQ(test, st.errors[htm_hv_rc_slot(H_BUSY)], 1);

	fake_reset(H_BUSY);
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, fake_calls,
			htm_hv_default_policy.busy_retries + 1);
}

/*
 * The atomic policy (perf callbacks, interrupts off): H_BUSY is retried
 * without rescheduling; long busy ends the request at once, unslept.
 */
static void hv_atomic_policy(struct kunit *test)
{
	struct htm_hv_stats st = {};
	long hrc;

	fake_reset(H_SUCCESS);
	fake_script[0] = H_BUSY;
	fake_script[1] = H_BUSY;
	fake_len = 2;
	local_irq_disable();
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_atomic_policy, &st, &hrc), 0);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, fake_calls, 3);
	KUNIT_EXPECT_EQ(test, st.busy_retries, 2);

	fake_reset(H_SUCCESS);
	fake_script[0] = H_LONG_BUSY_ORDER_1_MSEC;
	fake_len = 1;
	local_irq_disable();
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_atomic_policy, &st, &hrc),
			-EBUSY);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, hrc, H_LONG_BUSY_ORDER_1_MSEC);
	KUNIT_EXPECT_EQ(test, fake_calls, 1);
	KUNIT_EXPECT_EQ(test, st.long_busy_sleeps, 0);
	KUNIT_EXPECT_EQ(test,
			st.errors[htm_hv_rc_slot(H_LONG_BUSY_ORDER_1_MSEC)], 1);

	fake_reset(H_BUSY);
	local_irq_disable();
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_atomic_policy, &st, &hrc),
			-EBUSY);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, fake_calls,
			htm_hv_atomic_policy.busy_retries + 1);
}

/* Long busy: sleeps for the hint, then the call is repeated. */
static void hv_long_busy_sleeps(struct kunit *test)
{
	const struct htm_hv_policy pol = { .long_busy_max_ms = 100 };
	struct htm_hv_stats st = {};
	unsigned long t0 = jiffies;
	long hrc;

	fake_reset(H_SUCCESS);
	fake_script[0] = H_LONG_BUSY_ORDER_10_MSEC;
	fake_script[1] = H_LONG_BUSY_ORDER_10_MSEC;
	fake_len = 2;
	KUNIT_EXPECT_EQ(test, fake_call(&pol, &st, &hrc), 0);
	KUNIT_EXPECT_EQ(test, fake_calls, 3);
	KUNIT_EXPECT_EQ(test, st.long_busy_sleeps, 2);
	/* msleep never returns early: at least the two 10 ms hints passed */
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0), 20);
}

/*
 * The bound is on elapsed time: a hypervisor answering 1 ms hints forever
 * holds the caller about the bound, not a hint count (msleep(1) takes a
 * jiffy or two: 100 hints were over a second at HZ=250). A hint that does
 * not fit in what is left ends the request at once.
 *
 * Only what holds on a loaded machine is asserted: no upper bound on the
 * time taken (a guest's vCPU may stall for any time), but the request gave
 * up only once the next hint no longer fitted, and each sleep lasted at
 * least a jiffy, so no more sleeps began than jiffies fit in the bound.
 */
static void hv_long_busy_bounded(struct kunit *test)
{
	const struct htm_hv_policy pol = { .long_busy_max_ms = 100 };
	struct htm_hv_stats st = {};
	ktime_t t0 = ktime_get();
	long hrc;

	fake_reset(H_LONG_BUSY_ORDER_1_MSEC);
	KUNIT_EXPECT_EQ(test, fake_call(&pol, &st, &hrc), -EBUSY);
	KUNIT_EXPECT_EQ(test, hrc, H_LONG_BUSY_ORDER_1_MSEC);
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), t0), 99);
	KUNIT_EXPECT_GE(test, st.long_busy_sleeps, 1);
	KUNIT_EXPECT_LE(test, st.long_busy_sleeps,
			100 / jiffies_to_msecs(1) + 2);
	KUNIT_EXPECT_EQ(test, fake_calls, st.long_busy_sleeps + 1);

	/*
	 * production's bound, 10 s, for every request that may sleep (the
	 * suites cap it at 1 s through the test build's long_busy_cap_ms,
	 * which is 0 here: no cap)
	 */
	KUNIT_EXPECT_EQ(test, htm_hv_long_busy_max_ms(&htm_hv_default_policy),
			10 * MSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, htm_hv_long_busy_max_ms(&htm_hv_teardown_policy),
			10 * MSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, htm_hv_long_busy_max_ms(&pol), 100);

	fake_reset(H_LONG_BUSY_ORDER_100_SEC);
	st.long_busy_sleeps = 0;
	/* 100 s does not fit in the default 10 s: not even one sleep */
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, st.long_busy_sleeps, 0);
	KUNIT_EXPECT_EQ(test, fake_calls, 1);
}

/* A pending signal ends a long-busy wait with -ERESTARTSYS. */
static void hv_long_busy_signal(struct kunit *test)
{
	const struct htm_hv_policy pol = { .long_busy_max_ms = 200000 };
	struct htm_hv_stats st = {};
	unsigned long t0;
	long hrc;
	int ret;

	/* a 100 s hint: had it been slept, no stall could hide it */
	fake_reset(H_LONG_BUSY_ORDER_100_SEC);
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	t0 = jiffies;
	ret = fake_call(&pol, &st, &hrc);
	flush_signals(current);
	disallow_signal(SIGUSR1);

	KUNIT_EXPECT_EQ(test, ret, -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, fake_calls, 1);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 100000);
}

/* Errors are counted by status, successes are not. */
/* Only H_FUNCTION means "no H_HTM"; other failures still make devices. */
static void hv_probe_absent_only_on_h_function(struct kunit *test)
{
	static const long present[] = {
		H_SUCCESS, H_PARAMETER, H_AUTHORITY, H_HARDWARE, H_STATE,
		H_RESOURCE, H_PARTIAL, H_NOT_AVAILABLE, H_P2,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(present); i++) {
		fake_reset(present[i]);
		KUNIT_EXPECT_EQ_MSG(test, htm_hv_probe(&fake_ops), 0, "rc %ld",
				    present[i]);
	}
	fake_reset(H_FUNCTION);
	KUNIT_EXPECT_EQ(test, htm_hv_probe(&fake_ops), -ENODEV);
	KUNIT_EXPECT_EQ(test, HTM_OP_OF(fake_last[2]), HTM_OP_CAPABILITIES);
}

/*
 * What the devices are made from: H_HTM unless H_FUNCTION, the log only
 * with every DTL op (the fake backend has none); neither is -ENODEV.
 */
static void hv_offer(struct kunit *test)
{
	struct htm_hv_offer offer = { .htm = false, .dtl = true };

	fake_reset(H_SUCCESS);
	KUNIT_EXPECT_EQ(test, htm_hv_offer(&fake_ops, &offer), 0);
	KUNIT_EXPECT_TRUE(test, offer.htm);
	KUNIT_EXPECT_FALSE(test, offer.dtl);
	fake_reset(H_FUNCTION);
	KUNIT_EXPECT_EQ(test, htm_hv_offer(&fake_ops, &offer), -ENODEV);
	KUNIT_EXPECT_FALSE(test, offer.htm);
	KUNIT_EXPECT_FALSE(test, offer.dtl);
}

static void hv_errors_counted(struct kunit *test)
{
	struct htm_hv_stats st = {};
	long hrc;

	fake_reset(H_HARDWARE);
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc),
			-EIO);
	fake_reset(H_PARTIAL);
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc), 0);
	fake_reset(H_NOT_AVAILABLE);
	KUNIT_EXPECT_EQ(test, fake_call(&htm_hv_default_policy, &st, &hrc),
			-ENODATA);
	KUNIT_EXPECT_EQ(test, st.errors[htm_hv_rc_slot(H_HARDWARE)], 1);
	KUNIT_EXPECT_EQ(test, st.errors[htm_hv_rc_slot(H_PARTIAL)], 0);
	KUNIT_EXPECT_EQ(test, st.errors[htm_hv_rc_slot(H_NOT_AVAILABLE)], 1);
	KUNIT_EXPECT_EQ(test, st.hcalls, 3);
}

static struct kunit_case htmtrace_hv_cases[] = {
	KUNIT_CASE_PARAM(hv_errno_map, rc_gen_params),
	KUNIT_CASE_PARAM(hv_op_errno_cell, op_rc_gen_params),
	KUNIT_CASE(hv_op_errno_unknown_op),
	KUNIT_CASE(hv_platform_gate),
	KUNIT_CASE(hv_probe_absent_only_on_h_function),
	KUNIT_CASE(hv_offer),
	KUNIT_CASE(hv_rc_names),
	KUNIT_CASE(hv_call_encoding),
	KUNIT_CASE(hv_busy_retried),
	KUNIT_CASE(hv_busy_storm_bounded),
	KUNIT_CASE(hv_atomic_policy),
	KUNIT_CASE(hv_long_busy_sleeps),
	KUNIT_CASE(hv_long_busy_bounded),
	KUNIT_CASE(hv_long_busy_signal),
	KUNIT_CASE(hv_errors_counted),
	{}
};

static struct kunit_suite htmtrace_hv_suite = {
	.name = "htmtrace_hv",
	.test_cases = htmtrace_hv_cases,
};

kunit_test_suite(htmtrace_hv_suite);

MODULE_DESCRIPTION("KUnit tests for htmtrace");
MODULE_LICENSE("GPL");
