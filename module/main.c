// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: POWER Hardware Trace Macro and dispatch trace log, as character
 * devices and perf PMUs, on pseries LPARs.
 *
 * Copyright (C) 2026 The htmtrace authors
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include <asm/firmware.h>

#include "htmtrace.h"

/*
 * An unsigned module parameter with a range, refused with a message; with
 * @or_zero, 0 is taken too (it means "none": the default).
 */
struct htm_uint_param {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
	bool or_zero;
};

static int htm_param_set(const char *s, const struct kernel_param *kp)
{
	const struct htm_uint_param *p = kp->arg;
	unsigned int v;
	int ret;

	ret = kstrtouint(s, 0, &v);
	if (ret)
		return ret;
	if ((v < p->min || v > p->max) && !(p->or_zero && !v)) {
		pr_err("%s=%u out of range %s%u..%u\n", kp->name, v,
		       p->or_zero ? "0 or " : "", p->min, p->max);
		return -EINVAL;
	}
	*p->val = v;
	return 0;
}

static int htm_param_get(char *buf, const struct kernel_param *kp)
{
	const struct htm_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", *p->val);
}

static const struct kernel_param_ops htm_uint_param_ops = {
	.set = htm_param_set,
	.get = htm_param_get,
};

static unsigned int htm_nr_channels = 4;
static struct htm_uint_param channels_param = {
	&htm_nr_channels, 1, 64
};
module_param_cb(channels, &htm_uint_param_ops, &channels_param, 0444);
MODULE_PARM_DESC(channels, "number of /dev/htmN channels (1..64, default 4)");

static unsigned int bounce_kb = 1024;
static struct htm_uint_param bounce_kb_param = { &bounce_kb, 64, 65536 };
module_param_cb(bounce_kb, &htm_uint_param_ops, &bounce_kb_param, 0444);
MODULE_PARM_DESC(bounce_kb,
		 "dump bounce buffer per reading file, KiB (64..65536, default 1024; capped at the largest contiguous allocation)");

/* Below 100 us the timer would run more often than it copies entries. */
unsigned int dtl_period_us;
static struct htm_uint_param dtl_period_param = {
	&dtl_period_us, 100, 1000000, true
};
module_param_cb(dtl_period_us, &htm_uint_param_ops, &dtl_period_param, 0644);
MODULE_PARM_DESC(dtl_period_us,
		 "fixed period of the dispatch trace log capture timer, us (0: adaptive, the default; else 100..1000000, others refused)");

/**
 * htm_platform_check() - may this kernel issue H_HTM at all?
 * @lpar: the kernel runs in a logical partition (FW_FEATURE_LPAR)
 * @kvm_guest: the partition is a KVM guest
 *
 * H_HTM is PowerVM's call for its partitions: on PowerNV or bare metal an
 * hcall would run in hypervisor mode, and KVM implements no H_HTM (the
 * in-tree htmdump and HTM PMU refuse KVM guests too). QEMU's TCG pseries
 * machine is an LPAR that is not a KVM guest, so the simulator works there.
 *
 * Return: NULL if it may, else why not, for the one log line.
 */
const char *htm_platform_check(bool lpar, bool kvm_guest)
{
	if (!lpar)
		return "not a logical partition (PowerNV or bare metal)";
	if (kvm_guest)
		return "a KVM guest (H_HTM is a PowerVM hypercall)";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(htm_platform_check);

static bool dtl_pmu = true;
module_param(dtl_pmu, bool, 0444);
MODULE_PARM_DESC(dtl_pmu,
		 "register the vpa_dtl perf PMU where no PMU of that name exists (default Y)");

/* The vpa_dtl PMU, unless the kernel has one: decided now, not by version. */
static void dtl_pmu_try_add(const struct htmtrace_hv_ops *ops,
			    struct vpa_dtl *dtl)
{
	int ret;

	if (!dtl_pmu)
		return;
	ret = dtl_pmu_register(ops, dtl);
	if (ret == -EEXIST)
		pr_info("a vpa_dtl perf PMU exists already: not registering ours (/dev/vpa_dtl only)\n");
	else if (ret)
		pr_warn("no vpa_dtl perf PMU (%d): /dev/vpa_dtl only\n", ret);
}

/* The backend, fixed at load, and the dispatch trace log session. */
static const struct htmtrace_hv_ops *htm_hv;
static struct htm_hv_offer htm_offer;
static struct vpa_dtl dtl_session;

#ifdef HTMTRACE_TEST
/*
 * init_hold (test builds only): 1 holds the init, every device and PMU
 * registered but not live, until it is written 0 (go live) or 2 (fail the
 * load, as a last registration that fails would), 60 s at most.
 */
static unsigned int init_hold;
static DECLARE_WAIT_QUEUE_HEAD(init_hold_wait);
static struct htm_uint_param init_hold_param = { &init_hold, 0, 2 };

static int init_hold_set(const char *s, const struct kernel_param *kp)
{
	int ret = htm_param_set(s, kp);

	wake_up_all(&init_hold_wait);
	return ret;
}

static const struct kernel_param_ops init_hold_ops = {
	.set = init_hold_set,
	.get = htm_param_get,
};

module_param_cb(init_hold, &init_hold_ops, &init_hold_param, 0644);
MODULE_PARM_DESC(init_hold,
		 "1: hold the init with the devices made, not live, until set to 0 (go on) or 2 (fail: ECANCELED), 60 s at most (test builds only)");

static int __init htm_init_hold(void)
{
	/* (Written between the load's parameters and its init: 2 fails.) */
	if (READ_ONCE(init_hold) == 1) {
		pr_info("init_hold: the devices are registered, not live\n");
		wait_event_interruptible_timeout(init_hold_wait,
						 READ_ONCE(init_hold) != 1,
						 60 * HZ);
	}
	return READ_ONCE(init_hold) == 2 ? -ECANCELED : 0;
}
#else
static int __init htm_init_hold(void)
{
	return 0;
}
#endif

/*
 * The composition root: what the backend offers, made once. What users
 * see comes last, after what it relies on: the devices (needed), then the
 * PMUs (a PMU that cannot be registered, perf lacking or a PMU of the same
 * name in the kernel, is left out with a line in the log). None takes a
 * user before htm_go_live() (common.c).
 */
static int __init htm_devices_add(void)
{
	int ret;

	if (htm_offer.dtl) {
		ret = dtl_init(&dtl_session);
		if (ret)
			return ret;
	}
	if (htm_offer.htm) {
		ret = htm_cdev_add_all(htm_hv, htm_nr_channels);
		if (ret)
			goto err_dtl;
	}
	if (htm_offer.dtl) {
		ret = dtl_cdev_add(htm_hv, &dtl_session);
		if (ret)
			goto err_htm;
	}
	if (htm_offer.htm) {
		ret = htm_pmu_register(htm_hv);
		if (ret)
			pr_warn("no htm perf PMU (%d): /dev/htmN only\n", ret);
	}
	if (htm_offer.dtl)
		dtl_pmu_try_add(htm_hv, &dtl_session);
	return 0;

err_htm:
	htm_cdev_remove_all();
err_dtl:
	if (htm_offer.dtl)
		dtl_exit(&dtl_session);
	return ret;
}

/* In the reverse order of htm_devices_add(); each a no-op if not made. */
static void htm_devices_remove(void)
{
	dtl_pmu_unregister();
	htm_pmu_unregister();
	dtl_cdev_remove();
	htm_cdev_remove_all();
	if (htm_offer.dtl)
		dtl_exit(&dtl_session);
}

/*
 * A KVM guest, told the way the kernel tells it (a /hypervisor node that is
 * "linux,kvm"): is_kvm_guest() needs the kvm_guest key, which some kernels
 * (Debian's 6.1) do not export to modules.
 */
static bool __init htm_kvm_guest(void)
{
	struct device_node *hyper = of_find_node_by_path("/hypervisor");
	bool kvm = hyper && of_device_is_compatible(hyper, "linux,kvm");

	of_node_put(hyper);
	return kvm;
}

static int __init htmtrace_init(void)
{
	const char *why;
	int ret;

	why = htm_platform_check(firmware_has_feature(FW_FEATURE_LPAR),
				 htm_kvm_guest());
	if (why) {
		pr_info("not loaded: %s\n", why);
		return -ENODEV;
	}

	htm_bounce_size = round_up(bounce_kb * 1024, PAGE_SIZE);
	/* One physically contiguous allocation: at most MAX_PAGE_ORDER. */
	if (htm_bounce_size > HTM_BOUNCE_MAX) {
		htm_bounce_size = HTM_BOUNCE_MAX;
		pr_info("bounce_kb=%u is more than one allocation gives: using %u KiB\n",
			bounce_kb, htm_bounce_size / 1024);
	}
	htm_hv = htm_hv_get();
	if (IS_ERR(htm_hv))
		return PTR_ERR(htm_hv);
	ret = htm_hv_offer(htm_hv, &htm_offer);
	if (ret)
		goto err_put;
	htm_debugfs_init(htm_hv);
	ret = htm_devices_add();
	if (ret) {
		pr_err("%s: cannot create the devices: %d\n", htm_hv->name, ret);
		goto err_debugfs;
	}
	ret = htm_init_hold();
	if (ret) {
		pr_err("%s: init failed after the devices were registered: %d\n",
		       htm_hv->name, ret);
		htm_devices_remove();
		goto err_debugfs;
	}
	/* Everything is made: the devices and PMUs take users from now on. */
	htm_go_live();
	pr_info("hypervisor backend: %s\n", htm_hv->name);
	return 0;

err_debugfs:
	htm_debugfs_exit();
err_put:
	htm_hv_put(htm_hv);
	return ret;
}

/* Nothing is in use: open files, configured sessions and events pin us. */
static void __exit htmtrace_exit(void)
{
	htm_devices_remove();
	htm_debugfs_exit();
	htm_hv_put(htm_hv);
}

module_init(htmtrace_init);
module_exit(htmtrace_exit);

MODULE_DESCRIPTION("POWER Hardware Trace Macro and dispatch trace log devices");
MODULE_LICENSE("GPL");
/* As dkms.conf's PACKAGE_VERSION and the tool's (htmtrace --version). */
MODULE_VERSION("0.1");
