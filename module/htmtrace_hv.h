/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the hypervisor backend interface.
 *
 * htmtrace talks to the hypervisor through exactly one table of operations.
 * The default table issues pseries hcalls; in a test build, with
 * backend=sim, htmtrace uses the simulator's (htmtrace_hvsim.ko), so that
 * every driver path can run where PowerVM is absent.
 */
#ifndef _HTMTRACE_HV_H
#define _HTMTRACE_HV_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

/* H_HTM: hcall number and argument encoding (newer than some kernel headers). */
#ifndef H_HTM
#define H_HTM				0x458
#endif

#define HTM_FLAGS_HARDWARE_TARGET	BIT(63)
#define HTM_FLAGS_LOGICAL_TARGET	BIT(62)
#define HTM_FLAGS_PROCID_TARGET		BIT(61)
#define HTM_FLAGS_NOWRAP		BIT(60)

#define HTM_OP_SHIFT			(63 - 15)
#define HTM_OP(x)			((unsigned long)(x) << HTM_OP_SHIFT)
#define HTM_OP_OF(word)			(((word) >> HTM_OP_SHIFT) & 0xff)
#define HTM_OP_CAPABILITIES		0x01
#define HTM_OP_STATUS			0x02
#define HTM_OP_SETUP			0x03
#define HTM_OP_CONFIGURE		0x04
#define HTM_OP_START			0x05
#define HTM_OP_STOP			0x06
#define HTM_OP_DECONFIGURE		0x07
#define HTM_OP_DUMP_DETAILS		0x08
#define HTM_OP_DUMP_DATA		0x09
#define HTM_OP_DUMP_SYSMEM_CONF		0x0a
#define HTM_OP_DUMP_SYSPROC_CONF	0x0b

#define HTM_TYPE_SHIFT			(63 - 31)
#define HTM_TYPE(x)			((unsigned long)(x) << HTM_TYPE_SHIFT)
#define HTM_TYPE_OF(word)		(((word) >> HTM_TYPE_SHIFT) & 0xff)

#define HTM_TARGET_NODE(x)		((unsigned long)(x) << (63 - 15))
#define HTM_TARGET_CHIP(x)		((unsigned long)(x) << (63 - 31))
#define HTM_TARGET_CORE(x)		((unsigned long)(x) << (63 - 47))
#define HTM_TARGET_NODE_OF(word)	(((word) >> (63 - 15)) & 0xffff)
#define HTM_TARGET_CHIP_OF(word)	(((word) >> (63 - 31)) & 0xffff)
#define HTM_TARGET_CORE_OF(word)	(((word) >> (63 - 47)) & 0xffff)

/*
 * Information blocks (STATUS, DUMP_SYSPROC_CONF, DUMP_SYSMEM_CONF) start with
 * a 32-byte header: big-endian u64 "next entry" iterator at +0x08 (0 or -1:
 * no more data) and big-endian u64 entry count at +0x10. The layout the user
 * gets is the ABI's (uapi/linux/htmtrace.h): one definition. Byte +0x01 of
 * the STATUS header is log2 of the current HTM buffer size.
 */
#define HTM_BLOCK_HDR_SIZE		HTMTRACE_BLOCK_HDR_SIZE
#define HTM_BLOCK_NEXT			HTMTRACE_BLOCK_NEXT
#define HTM_BLOCK_NR_ENTRIES		HTMTRACE_BLOCK_NR_ENTRIES
#define HTM_STATUS_LOG2_SIZE		0x01
#define HTM_STATUS_ENTRY_CORE		8
#define HTM_STATUS_ENTRY_NEST		6
#define HTM_SYSPROC_ENTRY_SIZE		HTMTRACE_SYSPROC_ENTRY_SIZE
#define HTM_SYSMEM_ENTRY_SIZE		HTMTRACE_SYSMEM_ENTRY_SIZE
#define HTM_CAPS_SIZE			0x80

/* Size of one HTM trace record. */
#define HTM_RECORD_SIZE			128
/* Largest buffer the driver accepts: 2^62 bytes, so that sizes fit loff_t. */
#define HTM_LOG2_SIZE_MAX		62

/**
 * struct htmtrace_hv_ops - one way to reach the hypervisor
 * @name: shown in the kernel log and debugfs
 * @htm: issue H_HTM with its six argument words; returns the hcall status
 * @register_dtl: register a dispatch trace log buffer (physical address) for
 *	a logical CPU; returns the hcall status
 * @unregister_dtl: unregister the CPU's dispatch trace log; hcall status
 * @dtl_index: the CPU's dispatch trace log write index (lppaca dtl_idx)
 * @dtl_mask: the CPU's dispatch trace log event mask (lppaca
 *	dtl_enable_mask)
 * @dtl_set_mask: set the CPU's dispatch trace log event mask
 *
 * @htm may sleep only if the caller can; htmtrace calls it from process
 * context, and with interrupts off from the perf PMU's callbacks. The DTL
 * operations may be called in any context, interrupts disabled included,
 * and must not sleep; a backend without them offers no dispatch trace log.
 * @register_dtl makes the log start empty: the CPU's index reads 0 after it.
 */
struct htmtrace_hv_ops {
	const char *name;
	long (*htm)(unsigned long flags, unsigned long target,
		    unsigned long op, unsigned long param1,
		    unsigned long param2, unsigned long param3);
	long (*register_dtl)(int cpu, phys_addr_t buf);
	long (*unregister_dtl)(int cpu);
	u64 (*dtl_index)(int cpu);
	u8 (*dtl_mask)(int cpu);
	void (*dtl_set_mask)(int cpu, u8 mask);
};

#ifdef HTMTRACE_TEST
/* The simulator's (module/hvsim/), exported GPL-only for symbol_get(). */
extern const struct htmtrace_hv_ops htmtrace_hvsim_ops;
#endif

#endif /* _HTMTRACE_HV_H */
