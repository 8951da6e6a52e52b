// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace_hvsim: a simulated PowerVM H_HTM for htmtrace.
 *
 * QEMU's pseries machine does not implement H_HTM, so this module plays the
 * hypervisor: it exports a struct htmtrace_hv_ops, which htmtrace.ko
 * backend=sim takes at load (so load this module first), and answers
 * every H_HTM call from a model of the HTM units of a small machine. The
 * model, the layouts of the blocks it writes and the debugfs knobs are
 * documented in module/hvsim/README.md.
 *
 * The simulated trace buffers take no memory: a target only remembers how
 * many records it has written. DUMP_DATA makes the bytes of each buffer
 * slot at the cost of a copy: it copies ready-made records from a pattern
 * made at load and stamps each one's target, sequence number and check word
 * (hvsim_record.h), so that what a benchmark measures is the driver.
 *
 * H_HTM may be called in any context, interrupts disabled included (the
 * perf PMU's callbacks): see hvsim_can_sleep().
 */

#define pr_fmt(fmt) "htmtrace_hvsim: " fmt

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <asm/hvcall.h>

#include <linux/htmtrace.h>
#include "htmtrace_hv.h"
#include "hvsim/hvsim.h"
#include "hvsim/hvsim_record.h"

/* Limits of the model. */
#define HVSIM_MAX_NODES		16
#define HVSIM_MAX_CHIPS		16
#define HVSIM_MAX_CORES		64
#define HVSIM_NR_TYPES		3		/* nest, core, llat */
#define HVSIM_LOG2_MIN		12		/* 4 KiB buffer */
#define HVSIM_LOG2_MAX		40		/* 1 TiB: costs no memory */
#define HVSIM_RATE_MAX		1000000000ULL	/* one record per ns */
#define HVSIM_ADVANCE_MAX	BIT_ULL(40)
#define HVSIM_LATENCY_MAX	(10 * USEC_PER_SEC)
#define HVSIM_UDELAY_MAX	1000		/* µs per udelay() of a busy-wait */
#define HVSIM_PATTERN_RECORDS	64		/* ready-made records: 8 KiB */

/* The simulated machine. */
#define HVSIM_THREADS		8		/* hardware threads per core */
#define HVSIM_MEM_SIZE		BIT_ULL(36)	/* memory per chip: 64 GiB */
#define HVSIM_TYPES_MASK	(BIT(HTMTRACE_TYPE_NEST) | BIT(HTMTRACE_TYPE_CORE) | \
				 BIT(HTMTRACE_TYPE_LLAT))

/* Information block header fields besides those htmtrace_hv.h names. */
#define HVSIM_BLOCK_VERSION	1
#define HVSIM_HDR_VERSION	0x00
#define HVSIM_HDR_STATE		0x02	/* STATUS */
#define HVSIM_HDR_FLAGS		0x03	/* STATUS */
#define HVSIM_HDR_ENTRY_SIZE	0x04
#define HVSIM_HDR_RECORDS	0x18	/* STATUS */
#define HVSIM_HDR_TOTAL		0x18	/* DUMP_SYSPROC_CONF, DUMP_SYSMEM_CONF */
#define HVSIM_ITER_END		(~0ULL)

/* STATUS flags, in the header and in each entry. */
#define HVSIM_STATUS_NOWRAP	BIT(0)	/* configured with HTM_FLAGS_NOWRAP */
#define HVSIM_STATUS_FULL	BIT(1)	/* no-wrap trace stopped itself */
#define HVSIM_STATUS_WRAPPED	BIT(2)	/* the oldest records were overwritten */

/* Capabilities block fields. */
#define HVSIM_CAPS_VERSION	0x00
#define HVSIM_CAPS_LOG2_MIN	0x01
#define HVSIM_CAPS_LOG2_MAX	0x02
#define HVSIM_CAPS_LOG2_DEFAULT	0x03
#define HVSIM_CAPS_TYPES	0x04
#define HVSIM_CAPS_FLAGS	0x05
#define HVSIM_CAPS_RECORD_SIZE	0x06
#define HVSIM_CAPS_NODES	0x08
#define HVSIM_CAPS_CHIPS	0x0a
#define HVSIM_CAPS_CORES	0x0c
#define HVSIM_CAPS_THREADS	0x0e
#define HVSIM_CAPS_MAX_XFER	0x10
#define HVSIM_CAPS_RATE		0x18
#define HVSIM_CAPS_FLAG_NOWRAP	BIT(0)

static unsigned int hvsim_nodes = 2;
module_param_named(nodes, hvsim_nodes, uint, 0444);
MODULE_PARM_DESC(nodes, "Nodes of the simulated machine (1-16, default 2)");

static unsigned int hvsim_chips = 2;
module_param_named(chips, hvsim_chips, uint, 0444);
MODULE_PARM_DESC(chips, "Chips per node (1-16, default 2)");

static unsigned int hvsim_cores = 4;
module_param_named(cores, hvsim_cores, uint, 0444);
MODULE_PARM_DESC(cores, "Cores per chip (1-64, default 4)");

static unsigned int hvsim_log2_size = 16;
module_param_named(log2_size, hvsim_log2_size, uint, 0444);
MODULE_PARM_DESC(log2_size,
		 "log2 of the HTM buffer size of every target until SETUP (12-40, default 16)");

static unsigned long hvsim_rate = 200000;
module_param_named(rate, hvsim_rate, ulong, 0444);
MODULE_PARM_DESC(rate,
		 "Records per second a tracing target writes (default 200000; debugfs 'rate' changes it)");

static bool hvsim_strict;
module_param_named(strict, hvsim_strict, bool, 0444);
MODULE_PARM_DESC(strict,
		 "Randomise every field the README marks (sim), to show that the driver needs none (default off)");

enum hvsim_state {
	HVSIM_IDLE = 0,
	HVSIM_CONFIGURED = 1,
	HVSIM_TRACING = 2,
	HVSIM_STOPPED = 3,
};

/*
 * The alternatives: where no public source says how PowerVM answers, each
 * plausible answer is a named choice (README.md, "Alternatives"), the first
 * one the default. A module parameter each, writable at run time through
 * /sys/module/htmtrace_hvsim/parameters/; read once per call.
 */
enum hvsim_alt_id {
	HVSIM_ALT_STOP_FULL,		/* STOP after a no-wrap trace filled */
	HVSIM_ALT_DUMP_END,		/* DUMP_DATA past the records written */
	HVSIM_ALT_STATUS_SIZE,		/* STATUS +0x01 for llat */
	HVSIM_ALT_ITER_END,		/* how an iteration ends */
	HVSIM_ALT_PARTIAL,		/* H_PARTIAL on an information block */
	HVSIM_ALT_STOP_RUNNING,		/* STOP of a running trace */
	HVSIM_ALT_XFER_LONG,		/* DUMP_DATA longer than max_xfer */
	HVSIM_ALT_NEST_UNIT,		/* what a nest unit is */
	HVSIM_ALT_DUMP_SPAN,		/* DUMP_DATA across the buffer's end */
	HVSIM_NR_ALTS,
};

/* stop_full */
#define HVSIM_FULL_SUCCESS	0	/* H_SUCCESS, the trace stays stopped */
#define HVSIM_FULL_STATE	1	/* H_STATE: it is no longer tracing */
/* dump_end */
#define HVSIM_END_BUFFER	0	/* zeros up to the buffer size */
#define HVSIM_END_WRITTEN	1	/* H_NOT_AVAILABLE past the records */
/* status_size */
#define HVSIM_SIZE_ALL		0	/* set for every type */
#define HVSIM_SIZE_NEST_CORE	1	/* 0 for llat: public for nest and core */
#define HVSIM_SIZE_WRONG	2	/* llat: a byte that is no size (log2 - 2) */
/* iter_end */
#define HVSIM_ITER_MINUS1	0	/* the last block's iterator is -1 */
#define HVSIM_ITER_ZERO		1	/* ... is 0 */
#define HVSIM_ITER_NA		2	/* the call after it: H_NOT_AVAILABLE */
#define HVSIM_ITER_P6		3	/* ... H_P6 (an iterator past the table) */
#define HVSIM_ITER_PARAMETER	4	/* ... H_PARAMETER */
/* partial */
#define HVSIM_PARTIAL_NONE	0	/* every block H_SUCCESS */
#define HVSIM_PARTIAL_MORE	1	/* H_PARTIAL: more blocks follow */
#define HVSIM_PARTIAL_TRUNC	2	/* H_PARTIAL: cut, and the end */
/* stop_running */
#define HVSIM_STOPRUN_SUCCESS	0	/* H_SUCCESS: stopped */
#define HVSIM_STOPRUN_STATE	1	/* H_STATE the first time: it runs on */
/* xfer_long */
#define HVSIM_XFER_P5		0	/* H_P5: the length */
#define HVSIM_XFER_PARAMETER	1	/* H_PARAMETER: a parameter */
#define HVSIM_XFER_P4		2	/* H_P4: the destination it spans */
/* nest_unit */
#define HVSIM_NEST_CORE		0	/* one nest unit per core index */
#define HVSIM_NEST_CHIP		1	/* one per chip: the core index is ignored */
/* dump_span */
#define HVSIM_SPAN_INSIDE	0	/* H_SUCCESS, only the part inside written */
#define HVSIM_SPAN_NA		1	/* H_NOT_AVAILABLE for the whole request */

struct hvsim_alt {
	const char *name;
	const char * const *choices;
	unsigned int nr;
};

static const char * const hvsim_full_names[] = { "success", "state" };
static const char * const hvsim_end_names[] = { "buffer", "written" };
static const char * const hvsim_size_names[] = { "all", "nest_core", "wrong" };
static const char * const hvsim_partial_names[] = { "none", "more", "truncated" };
static const char * const hvsim_stoprun_names[] = { "success", "state" };
static const char * const hvsim_xfer_names[] = { "p5", "parameter", "p4" };
static const char * const hvsim_nest_names[] = { "core", "chip" };
static const char * const hvsim_span_names[] = { "inside", "not_available" };
static const char * const hvsim_iter_names[] = {
	"minus1", "zero", "not_available", "p6", "parameter"
};

static const struct hvsim_alt hvsim_alts[HVSIM_NR_ALTS] = {
	[HVSIM_ALT_STOP_FULL] = { "stop_full", hvsim_full_names, 2 },
	[HVSIM_ALT_DUMP_END] = { "dump_end", hvsim_end_names, 2 },
	[HVSIM_ALT_STATUS_SIZE] = { "status_size", hvsim_size_names, 3 },
	[HVSIM_ALT_ITER_END] = { "iter_end", hvsim_iter_names, 5 },
	[HVSIM_ALT_PARTIAL] = { "partial", hvsim_partial_names, 3 },
	[HVSIM_ALT_STOP_RUNNING] = { "stop_running", hvsim_stoprun_names, 2 },
	[HVSIM_ALT_XFER_LONG] = { "xfer_long", hvsim_xfer_names, 3 },
	[HVSIM_ALT_NEST_UNIT] = { "nest_unit", hvsim_nest_names, 2 },
	[HVSIM_ALT_DUMP_SPAN] = { "dump_span", hvsim_span_names, 2 },
};

static unsigned int hvsim_alt_val[HVSIM_NR_ALTS];

static unsigned int hvsim_alt(enum hvsim_alt_id id)
{
	return READ_ONCE(hvsim_alt_val[id]);
}

static int hvsim_alt_set(const char *val, const struct kernel_param *kp)
{
	const struct hvsim_alt *a = &hvsim_alts[(uintptr_t)kp->arg];
	int i = __sysfs_match_string(a->choices, a->nr, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(hvsim_alt_val[(uintptr_t)kp->arg], i);
	return 0;
}

static int hvsim_alt_get(char *buf, const struct kernel_param *kp)
{
	const struct hvsim_alt *a = &hvsim_alts[(uintptr_t)kp->arg];

	return sysfs_emit(buf, "%s\n",
			  a->choices[hvsim_alt_val[(uintptr_t)kp->arg]]);
}

static const struct kernel_param_ops hvsim_alt_ops = {
	.set = hvsim_alt_set,
	.get = hvsim_alt_get,
};

#define HVSIM_ALT_ARG(id)	((void *)(uintptr_t)(id))

module_param_cb(stop_full, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_STOP_FULL), 0644);
MODULE_PARM_DESC(stop_full,
		 "STOP of a no-wrap trace that filled its buffer: success or state (H_STATE)");
module_param_cb(dump_end, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_DUMP_END), 0644);
MODULE_PARM_DESC(dump_end,
		 "DUMP_DATA past the records written: buffer (zeros up to its size) or written (H_NOT_AVAILABLE)");
module_param_cb(status_size, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_STATUS_SIZE), 0644);
MODULE_PARM_DESC(status_size,
		 "STATUS size byte: all (every type), nest_core (0 for llat) or wrong (llat: no size)");
module_param_cb(iter_end, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_ITER_END), 0644);
MODULE_PARM_DESC(iter_end,
		 "end of an iteration: minus1 or zero (the last iterator), or not_available, p6 or parameter (the call after it)");
module_param_cb(partial, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_PARTIAL), 0644);
MODULE_PARM_DESC(partial,
		 "H_PARTIAL on information blocks: none, more (more blocks follow) or truncated (cut, and the end)");
module_param_cb(stop_running, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_STOP_RUNNING), 0644);
MODULE_PARM_DESC(stop_running,
		 "STOP of a running trace: success, or state (H_STATE the first time for each trace, which runs on)");
module_param_cb(xfer_long, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_XFER_LONG), 0644);
MODULE_PARM_DESC(xfer_long,
		 "DUMP_DATA longer than max_xfer: p5 (H_P5), parameter (H_PARAMETER) or p4 (H_P4)");
module_param_cb(nest_unit, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_NEST_UNIT), 0644);
MODULE_PARM_DESC(nest_unit,
		 "nest units: core (one per core index) or chip (one per chip, shared by its core indices)");
module_param_cb(dump_span, &hvsim_alt_ops,
		HVSIM_ALT_ARG(HVSIM_ALT_DUMP_SPAN), 0644);
MODULE_PARM_DESC(dump_span,
		 "DUMP_DATA across the buffer's end: inside (success, the part inside written) or not_available (H_NOT_AVAILABLE)");

static const char * const hvsim_state_names[] = {
	[HVSIM_IDLE] = "idle",
	[HVSIM_CONFIGURED] = "configured",
	[HVSIM_TRACING] = "tracing",
	[HVSIM_STOPPED] = "stopped",
};

static const char * const hvsim_type_names[] = {
	[HTMTRACE_TYPE_NEST] = "nest",
	[HTMTRACE_TYPE_CORE] = "core",
	[HTMTRACE_TYPE_LLAT] = "llat",
};

/* Per-operation call counters are indexed by op; slot 0 counts the rest. */
static const char * const hvsim_op_names[] = {
	[0] = "other",
	[HTM_OP_CAPABILITIES] = "capabilities",
	[HTM_OP_STATUS] = "status",
	[HTM_OP_SETUP] = "setup",
	[HTM_OP_CONFIGURE] = "configure",
	[HTM_OP_START] = "start",
	[HTM_OP_STOP] = "stop",
	[HTM_OP_DECONFIGURE] = "deconfigure",
	[HTM_OP_DUMP_DETAILS] = "dump_details",
	[HTM_OP_DUMP_DATA] = "dump_data",
	[HTM_OP_DUMP_SYSMEM_CONF] = "dump_sysmem_conf",
	[HTM_OP_DUMP_SYSPROC_CONF] = "dump_sysproc_conf",
};

#define HVSIM_NR_OPS	ARRAY_SIZE(hvsim_op_names)

/**
 * struct hvsim_target - one simulated HTM unit
 * @state: enum hvsim_state
 * @log2_size: log2 of the trace buffer size in bytes
 * @nowrap: configured to stop tracing when the buffer is full
 * @full: the no-wrap trace stopped itself because the buffer filled
 * @stop_refused: a STOP of this trace was answered H_STATE (stop_running)
 * @base: records written before @since
 * @since: while tracing, when @base was last brought up to date
 * @mode_mask: CONFIGURE's param1, recorded (the mode is not modelled)
 * @mode_value: CONFIGURE's param2, recorded
 *
 * While tracing, the records written are @base plus the rate times the time
 * since @since (see hvsim_records()); in any other state they are @base.
 */
struct hvsim_target {
	u8 state;
	u8 log2_size;
	bool nowrap;
	bool full;
	bool stop_refused;
	u64 base;
	ktime_t since;
	unsigned long mode_mask;
	unsigned long mode_value;
};

/**
 * struct hvsim_call - one decoded H_HTM call
 * @flags: the flags word
 * @target: the target word
 * @op: HTM_OP_*
 * @type: HTM_TYPE_*, or 0
 * @node: node index from @target
 * @chip: chip index from @target
 * @core: core index from @target
 * @p1: param1: destination physical address, or log2 size for SETUP
 * @p2: param2: destination size in bytes
 * @p3: param3: offset in the HTM buffer, or block iterator
 */
struct hvsim_call {
	unsigned long flags;
	unsigned long target;
	unsigned int op;
	unsigned int type;
	unsigned int node;
	unsigned int chip;
	unsigned int core;
	unsigned long p1;
	unsigned long p2;
	unsigned long p3;
};

/*
 * hvsim_lock protects the targets, the model knobs, the faults, the
 * counters and hvsim_rnd below. H_HTM takes it in any context: from process
 * context, and from the perf PMU's callbacks with interrupts off, under the
 * perf context's raw lock (hence a raw spinlock, and irqsave there).
 * debugfs files take it with interrupts off (spin_lock_irq), so that an
 * H_HTM from an interrupt on the same CPU cannot find it held. Nothing
 * sleeps, allocates or waits under it, and what it covers is short: the
 * per-call latency is waited out and DUMP_DATA bytes are copied after it is
 * released, the latter from a snapshot of the target taken under it. The
 * topology (module parameters, read-only), the hvsim_targets pointer and
 * hvsim_pattern are set before registration and never change afterwards.
 */
static DEFINE_RAW_SPINLOCK(hvsim_lock);

static struct hvsim_target *hvsim_targets;
static unsigned int hvsim_nr_targets;

/* Model knobs; "reset" leaves them alone. */
static struct {
	u64 rate;		/* records per second */
	u64 entries_per_call;	/* information block entries per call; 0: no limit */
} hvsim_model;

/* Injected faults; "reset" zeroes them all. */
static struct {
	u64 busy_every;		/* every Nth call returns H_BUSY */
	u64 long_busy;		/* status returned by the next long_busy_count calls */
	u64 long_busy_count;
	u64 fail_op;		/* op that fails with fail_rc ... */
	u64 fail_rc;		/* (an s64; 0: off) */
	u64 fail_after;		/* ... after that many calls of it succeeded */
	u64 fail_count;		/* failures to inject; 0: until reset */
	u64 latency_us;		/* sleep per call */
	u64 max_xfer;		/* largest DUMP_DATA length; 0: no limit */
	u64 short_xfer;		/* DUMP_DATA writes at most this, H_PARTIAL */
} hvsim_faults;

/* Counters; "reset" zeroes them all. */
static struct {
	u64 calls;			/* every H_HTM call */
	u64 op_calls[HVSIM_NR_OPS];	/* calls per op */
	u64 injected;			/* calls answered by an injected fault */
	u64 fail_seen;			/* calls of fail_op since it was armed */
	u64 fail_done;			/* fail_rc answers since it was armed */
	u64 dump_bytes;			/* bytes DUMP_DATA wrote */
	u64 dump_ns;			/* time it took to write them */
} hvsim_stats;

/*
 * What no caller of H_HTM may do, counted since load ("reset" keeps them):
 * DUMP_DATA for a tracing target (no public caller dumps a running trace),
 * and DUMP_DATA not of whole pages at a page-aligned address (no public
 * caller asks for less).
 */
static struct {
	u64 dump_tracing;
	u64 dump_unaligned;
} hvsim_misuse;

/* Strict mode's random bytes: prandom takes no lock of its own. */
static struct rnd_state hvsim_rnd;

/*
 * HVSIM_PATTERN_RECORDS records of hvsim_record.h as DUMP_DATA copies them:
 * the magic and the body words are in place; the target, sequence number
 * and check words are stamped into each copy.
 */
static u8 hvsim_pattern[HVSIM_PATTERN_RECORDS * HVSIM_RECORD_SIZE]
	__aligned(HVSIM_RECORD_SIZE) __ro_after_init;

static struct dentry *hvsim_dir;

static struct hvsim_target *hvsim_target(unsigned int type, unsigned int node,
					 unsigned int chip, unsigned int core)
{
	unsigned int i;

	/* nest_unit chip: the nest unit of a chip answers every core index */
	if (type == HTMTRACE_TYPE_NEST &&
	    hvsim_alt(HVSIM_ALT_NEST_UNIT) == HVSIM_NEST_CHIP)
		core = 0;
	i = ((type - HTMTRACE_TYPE_NEST) * hvsim_nodes + node) * hvsim_chips + chip;
	return &hvsim_targets[i * hvsim_cores + core];
}

static u64 hvsim_nslots(const struct hvsim_target *t)
{
	return (1ULL << t->log2_size) / HVSIM_RECORD_SIZE;
}

/*
 * Records @t has written since START, as of @now. A no-wrap trace never
 * writes more than its buffer holds. Caller holds hvsim_lock.
 */
static u64 hvsim_records(const struct hvsim_target *t, ktime_t now)
{
	u64 n = t->base;

	if (t->state == HVSIM_TRACING)
		n += mul_u64_u64_div_u64(hvsim_model.rate,
					 ktime_to_ns(ktime_sub(now, t->since)),
					 NSEC_PER_SEC);
	if (t->nowrap)
		n = min(n, hvsim_nslots(t));
	return n;
}

/*
 * Bring the state of @t up to @now: a no-wrap trace whose buffer has filled
 * stops itself. The model is lazy, so this runs whenever a call or a debugfs
 * file looks at a target. Caller holds hvsim_lock.
 */
static void hvsim_sync(struct hvsim_target *t, ktime_t now)
{
	if (t->state != HVSIM_TRACING || !t->nowrap)
		return;
	if (hvsim_records(t, now) < hvsim_nslots(t))
		return;
	t->base = hvsim_nslots(t);
	t->state = HVSIM_STOPPED;
	t->full = true;
}

static u8 hvsim_status_flags(const struct hvsim_target *t, ktime_t now)
{
	u8 flags = 0;

	if (t->nowrap)
		flags |= HVSIM_STATUS_NOWRAP;
	if (t->full)
		flags |= HVSIM_STATUS_FULL;
	if (hvsim_records(t, now) > hvsim_nslots(t))
		flags |= HVSIM_STATUS_WRAPPED;
	return flags;
}

/**
 * hvsim_dest() - the kernel address of an H_HTM destination buffer
 * @addr: physical address of the first byte
 * @len: length of the buffer in bytes
 *
 * The hypervisor writes to real memory: the first and the last byte must
 * both be RAM in the kernel's linear mapping.
 *
 * Return: the kernel virtual address of @addr, or NULL.
 */
static void *hvsim_dest(unsigned long addr, unsigned long len)
{
	unsigned long last;

	if (!len || check_add_overflow(addr, len - 1, &last))
		return NULL;
	/* Keep phys_to_virt() away from values that are no RAM address. */
	if (!pfn_valid(PHYS_PFN(addr)) || !pfn_valid(PHYS_PFN(last)))
		return NULL;
	if (!virt_addr_valid(phys_to_virt(addr)) ||
	    !virt_addr_valid(phys_to_virt(last)))
		return NULL;
	return phys_to_virt(addr);
}

/**
 * hvsim_block() - start one call's share of an information block
 * @c: the call: p1 = destination, p2 = its size, p3 = iterator
 * @entry_size: bytes per entry
 * @total: entries in the whole table
 * @hdr: out: the destination, starting with the block header
 * @first: out: index of the first entry this call returns
 * @count: out: number of entries this call returns
 *
 * The iterator is the index of the next entry: 0 on the first call, then
 * what the previous block left at HTM_BLOCK_NEXT. A call returns at most
 * entries_per_call entries, and no more than fit in p2 bytes. This writes the
 * common header fields; the caller writes the fields that belong to its
 * block, and the entries after the header. Caller holds hvsim_lock.
 *
 * The iterator of the last block, and whether a block is answered with
 * H_PARTIAL, follow the iter_end and partial alternatives.
 *
 * Return: H_SUCCESS, or H_PARTIAL (the partial alternative) for the block
 * to be answered with, once the caller has filled it in; H_P5 if p2 cannot
 * hold the header and one entry; H_P4 if the destination is not RAM;
 * H_NOT_AVAILABLE for the call after the last block (iter_end
 * not_available); H_P6 if the iterator is past the table.
 */
static long hvsim_block(const struct hvsim_call *c, unsigned int entry_size,
			u64 total, u8 **hdr, u64 *first, u64 *count)
{
	u64 n, next, per_call = hvsim_model.entries_per_call;
	unsigned int partial = hvsim_alt(HVSIM_ALT_PARTIAL);
	unsigned int end = hvsim_alt(HVSIM_ALT_ITER_END);
	long rc = H_SUCCESS;
	u8 *buf;

	if (c->p2 < HTM_BLOCK_HDR_SIZE + entry_size)
		return H_P5;
	buf = hvsim_dest(c->p1, c->p2);
	if (!buf)
		return H_P4;
	if (c->p3 == total && end == HVSIM_ITER_NA)
		return H_NOT_AVAILABLE;
	if (c->p3 == total && end == HVSIM_ITER_PARAMETER)
		return H_PARAMETER;
	if (c->p3 >= total)
		return H_P6;

	n = min(total - c->p3, (c->p2 - HTM_BLOCK_HDR_SIZE) / entry_size);
	if (per_call)
		n = min(n, per_call);
	next = c->p3 + n;
	if (next < total && partial != HVSIM_PARTIAL_NONE) {
		rc = H_PARTIAL;
		if (partial == HVSIM_PARTIAL_TRUNC)
			next = total;	/* the rest is cut off */
	}
	/* not_available, p6, parameter: the call with this iterator says */
	if (next == total && end <= HVSIM_ITER_ZERO)
		next = end == HVSIM_ITER_ZERO ? 0 : HVSIM_ITER_END;

	memset(buf, 0, HTM_BLOCK_HDR_SIZE);
	buf[HVSIM_HDR_VERSION] = HVSIM_BLOCK_VERSION;
	hvsim_put_be(buf + HVSIM_HDR_ENTRY_SIZE, entry_size, 2);
	hvsim_put_be(buf + HTM_BLOCK_NEXT, next, 8);
	hvsim_put_be(buf + HTM_BLOCK_NR_ENTRIES, n, 8);

	*hdr = buf;
	*first = c->p3;
	*count = n;
	return rc;
}

/* Random bytes for strict mode. Caller holds hvsim_lock. */
static void hvsim_random(void *buf, size_t len)
{
	prandom_bytes_state(&hvsim_rnd, buf, len);
}

/*
 * Strict mode: the header bytes that no public source defines become random:
 * all but the iterator (+0x08), the entry count (+0x10) and, in STATUS, the
 * log2 buffer size (+0x01).
 */
static void hvsim_strict_header(u8 *hdr, bool status)
{
	u8 log2_size = hdr[HTM_STATUS_LOG2_SIZE];

	if (!hvsim_strict)
		return;
	hvsim_random(hdr, HTM_BLOCK_NEXT);
	hvsim_random(hdr + HVSIM_HDR_TOTAL, 8);
	if (status)
		hdr[HTM_STATUS_LOG2_SIZE] = log2_size;
}

/* CAPABILITIES: a fixed 0x80-byte block. Caller holds hvsim_lock. */
static long hvsim_caps(const struct hvsim_call *c)
{
	u8 *buf;

	if (c->p2 < HTM_CAPS_SIZE)
		return H_P5;
	buf = hvsim_dest(c->p1, c->p2);
	if (!buf)
		return H_P4;

	memset(buf, 0, HTM_CAPS_SIZE);
	buf[HVSIM_CAPS_VERSION] = HVSIM_BLOCK_VERSION;
	buf[HVSIM_CAPS_LOG2_MIN] = HVSIM_LOG2_MIN;
	buf[HVSIM_CAPS_LOG2_MAX] = HVSIM_LOG2_MAX;
	buf[HVSIM_CAPS_LOG2_DEFAULT] = hvsim_log2_size;
	buf[HVSIM_CAPS_TYPES] = HVSIM_TYPES_MASK;
	buf[HVSIM_CAPS_FLAGS] = HVSIM_CAPS_FLAG_NOWRAP;
	hvsim_put_be(buf + HVSIM_CAPS_RECORD_SIZE, HVSIM_RECORD_SIZE, 2);
	hvsim_put_be(buf + HVSIM_CAPS_NODES, hvsim_nodes, 2);
	hvsim_put_be(buf + HVSIM_CAPS_CHIPS, hvsim_chips, 2);
	hvsim_put_be(buf + HVSIM_CAPS_CORES, hvsim_cores, 2);
	hvsim_put_be(buf + HVSIM_CAPS_THREADS, HVSIM_THREADS, 2);
	hvsim_put_be(buf + HVSIM_CAPS_MAX_XFER, hvsim_faults.max_xfer, 8);
	hvsim_put_be(buf + HVSIM_CAPS_RATE, hvsim_model.rate, 8);
	/* strict: no field of the block is public */
	if (hvsim_strict)
		hvsim_random(buf, HTM_CAPS_SIZE);
	return H_SUCCESS;
}

/*
 * DUMP_SYSPROC_CONF: one 16-byte entry per core of the machine, in
 * (node, chip, core) order. Caller holds hvsim_lock.
 */
static long hvsim_sysproc(const struct hvsim_call *c)
{
	u64 total = (u64)hvsim_nodes * hvsim_chips * hvsim_cores;
	u64 i, first, n;
	u8 *buf, *e;
	long rc;

	rc = hvsim_block(c, HTM_SYSPROC_ENTRY_SIZE, total, &buf, &first, &n);
	if (rc != H_SUCCESS && rc != H_PARTIAL)
		return rc;
	hvsim_put_be(buf + HVSIM_HDR_TOTAL, total, 8);

	e = buf + HTM_BLOCK_HDR_SIZE;
	for (i = first; i < first + n; i++, e += HTM_SYSPROC_ENTRY_SIZE) {
		memset(e, 0, HTM_SYSPROC_ENTRY_SIZE);
		hvsim_put_be(e + 0x0, i / hvsim_cores / hvsim_chips, 2);
		hvsim_put_be(e + 0x2, i / hvsim_cores % hvsim_chips, 2);
		hvsim_put_be(e + 0x4, i % hvsim_cores, 2);
		e[0x6] = HVSIM_TYPES_MASK;
		e[0x7] = HVSIM_THREADS;
		hvsim_put_be(e + 0x8, i * HVSIM_THREADS, 4);
	}
	hvsim_strict_header(buf, false);
	return rc;
}

/*
 * DUMP_SYSMEM_CONF: one 32-byte entry per chip, which owns HVSIM_MEM_SIZE
 * bytes of memory, in (node, chip) order. Caller holds hvsim_lock.
 */
static long hvsim_sysmem(const struct hvsim_call *c)
{
	u64 total = (u64)hvsim_nodes * hvsim_chips;
	u64 i, first, n, node, chip;
	u8 *buf, *e;
	long rc;

	rc = hvsim_block(c, HTM_SYSMEM_ENTRY_SIZE, total, &buf, &first, &n);
	if (rc != H_SUCCESS && rc != H_PARTIAL)
		return rc;
	hvsim_put_be(buf + HVSIM_HDR_TOTAL, total, 8);

	e = buf + HTM_BLOCK_HDR_SIZE;
	for (i = first; i < first + n; i++, e += HTM_SYSMEM_ENTRY_SIZE) {
		node = i / hvsim_chips;
		chip = i % hvsim_chips;
		memset(e, 0, HTM_SYSMEM_ENTRY_SIZE);
		hvsim_put_be(e + 0x00, node, 2);
		hvsim_put_be(e + 0x02, chip, 2);
		hvsim_put_be(e + 0x08, node << 44 | chip << 40, 8);
		hvsim_put_be(e + 0x10, HVSIM_MEM_SIZE, 8);
		hvsim_put_be(e + 0x18, i * HVSIM_MEM_SIZE, 8);
	}
	hvsim_strict_header(buf, false);
	return rc;
}

/*
 * STATUS: the header describes the addressed target; the entries list the
 * units of the same type on the same chip, one per core. Caller holds
 * hvsim_lock.
 */
static long hvsim_status(const struct hvsim_call *c, struct hvsim_target *t,
			 ktime_t now)
{
	unsigned int esize = c->type == HTMTRACE_TYPE_CORE ?
			     HTM_STATUS_ENTRY_CORE : HTM_STATUS_ENTRY_NEST;
	struct hvsim_target *u;
	u64 i, first, n;
	u8 *buf, *e;
	long rc;

	rc = hvsim_block(c, esize, hvsim_cores, &buf, &first, &n);
	if (rc != H_SUCCESS && rc != H_PARTIAL)
		return rc;
	/*
	 * Public for nest and core only: llat may leave it unset, or hold a
	 * byte that is no size of its buffer (here a quarter of it).
	 */
	if (c->type != HTMTRACE_TYPE_LLAT ||
	    hvsim_alt(HVSIM_ALT_STATUS_SIZE) == HVSIM_SIZE_ALL)
		buf[HTM_STATUS_LOG2_SIZE] = t->log2_size;
	else if (hvsim_alt(HVSIM_ALT_STATUS_SIZE) == HVSIM_SIZE_WRONG)
		buf[HTM_STATUS_LOG2_SIZE] = t->log2_size - 2;
	buf[HVSIM_HDR_STATE] = t->state;
	buf[HVSIM_HDR_FLAGS] = hvsim_status_flags(t, now);
	hvsim_put_be(buf + HVSIM_HDR_RECORDS, hvsim_records(t, now), 8);

	e = buf + HTM_BLOCK_HDR_SIZE;
	for (i = first; i < first + n; i++, e += esize) {
		u = hvsim_target(c->type, c->node, c->chip, i);
		hvsim_sync(u, now);
		memset(e, 0, esize);
		hvsim_put_be(e + 0x0, i, 2);
		e[0x2] = u->state;
		e[0x3] = u->log2_size;
		e[0x4] = hvsim_status_flags(u, now);
	}
	/* strict: the entries' layout is not public either */
	hvsim_strict_header(buf, true);
	if (hvsim_strict)
		hvsim_random(buf + HTM_BLOCK_HDR_SIZE, n * esize);
	return rc;
}

static long hvsim_setup(struct hvsim_target *t, unsigned long log2_size)
{
	if (t->state != HVSIM_IDLE)
		return H_STATE;
	if (log2_size < HVSIM_LOG2_MIN || log2_size > HVSIM_LOG2_MAX)
		return H_P4;
	t->log2_size = log2_size;
	return H_SUCCESS;
}

static long hvsim_configure(struct hvsim_target *t, unsigned long flags,
			    unsigned long mask, unsigned long value)
{
	if (t->state != HVSIM_IDLE)
		return H_STATE;
	t->state = HVSIM_CONFIGURED;
	t->nowrap = flags & HTM_FLAGS_NOWRAP;
	/* Recorded, not modelled: the trace is the same in every mode. */
	t->mode_mask = mask;
	t->mode_value = value;
	t->full = false;
	t->base = 0;
	return H_SUCCESS;
}

/* START from CONFIGURED or STOPPED: a new trace, from an empty buffer. */
static long hvsim_start(struct hvsim_target *t, ktime_t now)
{
	if (t->state != HVSIM_CONFIGURED && t->state != HVSIM_STOPPED)
		return H_STATE;
	t->state = HVSIM_TRACING;
	t->full = false;
	t->stop_refused = false;
	t->base = 0;
	t->since = now;
	return H_SUCCESS;
}

/*
 * A no-wrap trace that stopped itself answers STOP as the stop_full
 * alternative says: H_SUCCESS (it stays stopped) or H_STATE. A running
 * trace, as stop_running says: stopped, or, the first time for the trace,
 * H_STATE while it runs on.
 */
static long hvsim_stop(struct hvsim_target *t, ktime_t now)
{
	if (t->state == HVSIM_STOPPED && t->full &&
	    hvsim_alt(HVSIM_ALT_STOP_FULL) == HVSIM_FULL_SUCCESS)
		return H_SUCCESS;
	if (t->state != HVSIM_TRACING)
		return H_STATE;
	if (!t->stop_refused &&
	    hvsim_alt(HVSIM_ALT_STOP_RUNNING) == HVSIM_STOPRUN_STATE) {
		t->stop_refused = true;
		return H_STATE;
	}
	t->base = hvsim_records(t, now);
	t->state = HVSIM_STOPPED;
	return H_SUCCESS;
}

/* From tracing too: a deconfigure ends the trace (a model choice). */
static long hvsim_deconfigure(struct hvsim_target *t)
{
	if (t->state == HVSIM_IDLE)
		return H_STATE;
	t->state = HVSIM_IDLE;
	t->nowrap = false;
	t->full = false;
	t->base = 0;
	return H_SUCCESS;
}

static void hvsim_put_be64(u8 *p, u64 v)
{
	__be64 w = cpu_to_be64(v);

	memcpy(p, &w, sizeof(w));	/* one store; @p may be unaligned */
}

/**
 * hvsim_fill_run() - write consecutive records of one target
 * @dst: where the first record goes
 * @target: the target word
 * @seq: sequence number of the first record
 * @nr: number of records
 *
 * Copies ready-made records from hvsim_pattern, a pattern at a time, and
 * stamps the target, sequence number and check word into each copy while
 * it is still in the cache.
 */
static void hvsim_fill_run(u8 *dst, u64 target, u64 seq, u64 nr)
{
	u64 i, n;
	u8 *rec;

	while (nr) {
		n = min_t(u64, nr, HVSIM_PATTERN_RECORDS);
		memcpy(dst, hvsim_pattern, n * HVSIM_RECORD_SIZE);
		for (i = 0, rec = dst; i < n; i++, seq++, rec += HVSIM_RECORD_SIZE) {
			hvsim_put_be64(rec + 8, target);
			hvsim_put_be64(rec + 16, seq);
			hvsim_put_be64(rec + 8 * HVSIM_RECORD_CHECK_WORD,
				       hvsim_record_check(target, seq));
		}
		dst += n * HVSIM_RECORD_SIZE;
		nr -= n;
	}
}

/*
 * Write @nr records of a buffer of @nslots slots, from slot @slot on, as they
 * are after @written records: each slot holds the record hvsim_slot_seq()
 * names, or zeros if it was never written. Slots that follow each other
 * hold consecutive records up to the newest one, record written - 1; the
 * slot after it holds the oldest. Neither sleeps nor allocates.
 */
static void hvsim_fill(u8 *dst, u64 target, u64 slot, u64 nr, u64 nslots,
		       u64 written)
{
	u64 end = slot + nr, n, seq;

	/* never written (only before a trace wraps): zeros */
	if (written < end) {
		n = max(slot, written);
		memset(dst + (n - slot) * HVSIM_RECORD_SIZE, 0,
		       (end - n) * HVSIM_RECORD_SIZE);
		end = n;
	}
	while (slot < end) {
		hvsim_slot_seq(slot, nslots, written, &seq);
		n = min(end - slot, written - seq);
		hvsim_fill_run(dst, target, seq, n);
		dst += n * HVSIM_RECORD_SIZE;
		slot += n;
	}
}

/**
 * hvsim_dump_data() - DUMP_DATA: copy part of a stopped trace buffer
 * @c: the call: p1 = destination, p2 = length, p3 = offset in the buffer
 * @t: the addressed target
 *
 * Copies min(length, buffer size - offset) bytes, or only short_xfer bytes
 * when that fault is set (then H_PARTIAL: "all available data can't be
 * returned"), leaving the rest of the destination as it was. The bytes are
 * copied after hvsim_lock is dropped, from a snapshot of the target: a dump
 * may be large, and only the channel that owns the target may change it.
 * Neither sleeps nor allocates, in any context.
 *
 * Return: H_SUCCESS (also when fewer bytes than asked were left before the
 * end of the buffer); H_PARTIAL for a transfer cut by short_xfer;
 * H_NOT_AVAILABLE if the offset is past the end (dump_end), or the request
 * reaches past the buffer's end under dump_span not_available; H_STATE
 * unless stopped (and counted in dump_tracing if tracing);
 * H_P5 for a length that is 0, not a multiple of 128 or above max_xfer;
 * H_P4 for a destination that is not RAM; H_P6 for an offset that is not a
 * multiple of 128.
 */
static long hvsim_dump_data(const struct hvsim_call *c, struct hvsim_target *t)
{
	u64 len = c->p2, off = c->p3;
	u64 size, end, written, max_xfer, short_xfer, n, start, ns;
	unsigned long irqflags;
	u8 state, log2_size;
	ktime_t now;
	long rc;
	u8 *dst;

	dst = hvsim_dest(c->p1, len);

	raw_spin_lock_irqsave(&hvsim_lock, irqflags);
	now = ktime_get();
	hvsim_sync(t, now);
	state = t->state;
	log2_size = t->log2_size;
	written = hvsim_records(t, now);
	max_xfer = hvsim_faults.max_xfer;
	short_xfer = hvsim_faults.short_xfer;
	if (state == HVSIM_TRACING)
		hvsim_misuse.dump_tracing++;
	if (!PAGE_ALIGNED(c->p1) || !PAGE_ALIGNED(len))
		hvsim_misuse.dump_unaligned++;
	raw_spin_unlock_irqrestore(&hvsim_lock, irqflags);

	/* a running trace: H_STATE, and counted above (no caller asks) */
	if (state != HVSIM_STOPPED)
		return H_STATE;
	if (max_xfer && len > max_xfer) {
		static const long xfer_rc[] = {
			[HVSIM_XFER_P5] = H_P5,
			[HVSIM_XFER_PARAMETER] = H_PARAMETER,
			[HVSIM_XFER_P4] = H_P4,
		};

		return xfer_rc[hvsim_alt(HVSIM_ALT_XFER_LONG)];
	}
	if (!len || len % HVSIM_RECORD_SIZE)
		return H_P5;
	if (!dst)
		return H_P4;
	if (off % HVSIM_RECORD_SIZE)
		return H_P6;
	size = 1ULL << log2_size;
	/* dump_end written: a trace that never wrapped ends at its records */
	end = size;
	if (hvsim_alt(HVSIM_ALT_DUMP_END) == HVSIM_END_WRITTEN &&
	    written < size / HVSIM_RECORD_SIZE)
		end = written * HVSIM_RECORD_SIZE;
	if (off >= end)
		return H_NOT_AVAILABLE;
	/* dump_span not_available: a request across the buffer's end */
	if (len > size - off &&
	    hvsim_alt(HVSIM_ALT_DUMP_SPAN) == HVSIM_SPAN_NA)
		return H_NOT_AVAILABLE;

	n = min(len, end - off);
	rc = H_SUCCESS;
	if (short_xfer && round_down(short_xfer, HVSIM_RECORD_SIZE) < n) {
		n = round_down(short_xfer, HVSIM_RECORD_SIZE);
		rc = H_PARTIAL;
	}
	if (!n)
		return rc;

	start = ktime_get_ns();
	hvsim_fill(dst, hvsim_target_word(c->type, c->node, c->chip, c->core),
		   off / HVSIM_RECORD_SIZE, n / HVSIM_RECORD_SIZE,
		   size / HVSIM_RECORD_SIZE, written);
	ns = ktime_get_ns() - start;

	raw_spin_lock_irqsave(&hvsim_lock, irqflags);
	hvsim_stats.dump_bytes += n;
	hvsim_stats.dump_ns += ns;
	raw_spin_unlock_irqrestore(&hvsim_lock, irqflags);
	return rc;
}

/* Run a call that addresses one target. */
static long hvsim_target_op(const struct hvsim_call *c)
{
	unsigned long irqflags;
	struct hvsim_target *t;
	ktime_t now;
	long rc;

	if (c->type < HTMTRACE_TYPE_NEST || c->type > HTMTRACE_TYPE_LLAT)
		return H_P3;
	/* no bits set outside the three indices */
	if (c->target != (HTM_TARGET_NODE(c->node) | HTM_TARGET_CHIP(c->chip) |
			  HTM_TARGET_CORE(c->core)) ||
	    c->node >= hvsim_nodes || c->chip >= hvsim_chips ||
	    c->core >= hvsim_cores)
		return H_P2;
	t = hvsim_target(c->type, c->node, c->chip, c->core);

	if (c->op == HTM_OP_DUMP_DATA)
		return hvsim_dump_data(c, t);

	raw_spin_lock_irqsave(&hvsim_lock, irqflags);
	now = ktime_get();
	hvsim_sync(t, now);
	switch (c->op) {
	case HTM_OP_STATUS:
		rc = hvsim_status(c, t, now);
		break;
	case HTM_OP_SETUP:
		rc = hvsim_setup(t, c->p1);
		break;
	case HTM_OP_CONFIGURE:
		rc = hvsim_configure(t, c->flags, c->p1, c->p2);
		break;
	case HTM_OP_START:
		rc = hvsim_start(t, now);
		break;
	case HTM_OP_STOP:
		rc = hvsim_stop(t, now);
		break;
	case HTM_OP_DECONFIGURE:
		rc = hvsim_deconfigure(t);
		break;
	default:
		rc = H_P3;
		break;
	}
	raw_spin_unlock_irqrestore(&hvsim_lock, irqflags);
	return rc;
}

/* Run a call about the whole machine: the target word is not looked at. */
static long hvsim_system_op(const struct hvsim_call *c)
{
	unsigned long irqflags;
	long rc;

	if (c->type > HTMTRACE_TYPE_LLAT && c->type != HTMTRACE_TYPE_GLOBAL)
		return H_P3;

	raw_spin_lock_irqsave(&hvsim_lock, irqflags);
	switch (c->op) {
	case HTM_OP_CAPABILITIES:
		rc = hvsim_caps(c);
		break;
	case HTM_OP_DUMP_SYSPROC_CONF:
		rc = hvsim_sysproc(c);
		break;
	case HTM_OP_DUMP_SYSMEM_CONF:
		rc = hvsim_sysmem(c);
		break;
	default:
		rc = H_P3;
		break;
	}
	raw_spin_unlock_irqrestore(&hvsim_lock, irqflags);
	return rc;
}

/*
 * Does the armed fail_op fault answer this call of @op? Counts the call of
 * fail_op and the failure. Caller holds hvsim_lock.
 */
static bool hvsim_fail_due(unsigned int op)
{
	if (!hvsim_faults.fail_op || !hvsim_faults.fail_rc ||
	    op != hvsim_faults.fail_op)
		return false;
	if (++hvsim_stats.fail_seen <= hvsim_faults.fail_after)
		return false;
	if (hvsim_faults.fail_count &&
	    hvsim_stats.fail_done >= hvsim_faults.fail_count)
		return false;
	hvsim_stats.fail_done++;
	return true;
}

/**
 * hvsim_inject() - count a call and pick the fault that answers it, if any
 * @op: the operation the call asks for
 *
 * The faults are tried in a fixed order: the armed fail_op fault, then
 * long_busy, then busy_every. Every count involved is updated here, under
 * hvsim_lock, so a given sequence of calls always meets the same faults.
 * Caller holds hvsim_lock.
 *
 * Return: the status to answer without running the call, or H_SUCCESS to
 * run it.
 */
static long hvsim_inject(unsigned int op)
{
	long rc;

	hvsim_stats.calls++;
	hvsim_stats.op_calls[op < HVSIM_NR_OPS ? op : 0]++;

	if (hvsim_fail_due(op)) {
		rc = (s64)hvsim_faults.fail_rc;
	} else if (hvsim_faults.long_busy && hvsim_faults.long_busy_count) {
		hvsim_faults.long_busy_count--;
		rc = hvsim_faults.long_busy;
	} else if (hvsim_faults.busy_every &&
		   hvsim_stats.calls % hvsim_faults.busy_every == 0) {
		rc = H_BUSY;
	} else {
		return H_SUCCESS;
	}
	hvsim_stats.injected++;
	return rc;
}

/**
 * hvsim_can_sleep() - may an H_HTM call sleep where it is made?
 *
 * Not with interrupts disabled: irqs_disabled() is reliable in every
 * kernel, and is how the perf PMU's callbacks run (read() through an IPI
 * included). Not with a nonzero preempt count: it always counts hard and
 * soft interrupt context and disabled bottom halves, but a spinlock or
 * preempt_disable() only with CONFIG_PREEMPT_COUNT (the debug kernel has it
 * through DEBUG_ATOMIC_SLEEP, the release one does not); in_atomic() is the
 * same test, and no better. Not inside a preemptible-RCU read-side section.
 * So, without PREEMPT_COUNT, a caller holding a spinlock with interrupts on
 * would be slept on: htmtrace has none, it calls H_HTM holding mutexes in
 * process context, or with interrupts off.
 *
 * Return: true if the caller may sleep.
 */
static bool hvsim_can_sleep(void)
{
	return !irqs_disabled() && !preempt_count() && !rcu_preempt_depth();
}

/*
 * The injected per-call latency: slept where the caller may sleep, else
 * busy-waited in udelay() steps of at most HVSIM_UDELAY_MAX µs.
 */
static void hvsim_latency(u64 us)
{
	unsigned int step;

	if (hvsim_can_sleep()) {
		fsleep(us);
		return;
	}
	while (us) {
		step = min_t(u64, us, HVSIM_UDELAY_MAX);
		udelay(step);
		us -= step;
	}
}

/**
 * hvsim_htm() - the simulated H_HTM hypervisor call
 * @flags: HTM_FLAGS_*; HTM_FLAGS_HARDWARE_TARGET is required
 * @target: node, chip and core index of the target
 * @opword: HTM_OP() | HTM_TYPE()
 * @param1: first operation parameter
 * @param2: second operation parameter
 * @param3: third operation parameter
 *
 * Arguments are checked in this order: flags (H_PARAMETER), the op word
 * (H_P3), the type and target (H_P3, H_P2), the target's state (H_STATE),
 * then the operation's parameters. An injected fault answers before any
 * check and changes nothing. Callable in any context: it sleeps only for
 * latency_us, and only where hvsim_can_sleep() says it may.
 *
 * Return: an hcall status.
 */
static long hvsim_htm(unsigned long flags, unsigned long target,
		      unsigned long opword, unsigned long param1,
		      unsigned long param2, unsigned long param3)
{
	struct hvsim_call c = {
		.flags = flags,
		.target = target,
		.op = HTM_OP_OF(opword),
		.type = HTM_TYPE_OF(opword),
		.node = HTM_TARGET_NODE_OF(target),
		.chip = HTM_TARGET_CHIP_OF(target),
		.core = HTM_TARGET_CORE_OF(target),
		.p1 = param1,
		.p2 = param2,
		.p3 = param3,
	};
	unsigned long irqflags;
	u64 latency_us;
	long rc;

	raw_spin_lock_irqsave(&hvsim_lock, irqflags);
	rc = hvsim_inject(c.op);
	latency_us = hvsim_faults.latency_us;
	raw_spin_unlock_irqrestore(&hvsim_lock, irqflags);

	if (latency_us)
		hvsim_latency(latency_us);
	if (rc != H_SUCCESS)
		return rc;

	if (!(flags & HTM_FLAGS_HARDWARE_TARGET) ||
	    (flags & ~(HTM_FLAGS_HARDWARE_TARGET | HTM_FLAGS_NOWRAP)))
		return H_PARAMETER;
	if (opword != (HTM_OP(c.op) | HTM_TYPE(c.type)))
		return H_P3;

	switch (c.op) {
	case HTM_OP_CAPABILITIES:
	case HTM_OP_DUMP_SYSMEM_CONF:
	case HTM_OP_DUMP_SYSPROC_CONF:
		return hvsim_system_op(&c);
	case HTM_OP_STATUS:
	case HTM_OP_SETUP:
	case HTM_OP_CONFIGURE:
	case HTM_OP_START:
	case HTM_OP_STOP:
	case HTM_OP_DECONFIGURE:
	case HTM_OP_DUMP_DATA:
		return hvsim_target_op(&c);
	default:	/* including HTM_OP_DUMP_DETAILS, not modelled */
		return H_P3;
	}
}

/* Taken by htmtrace.ko backend=sim with symbol_get(), which pins us. */
const struct htmtrace_hv_ops htmtrace_hvsim_ops = {
	.name = "hvsim",
	.htm = hvsim_htm,
	.register_dtl = hvsim_dtl_register,
	.unregister_dtl = hvsim_dtl_unregister,
	.dtl_index = hvsim_dtl_index,
	.dtl_mask = hvsim_dtl_mask,
	.dtl_set_mask = hvsim_dtl_set_mask,
};
EXPORT_SYMBOL_GPL(htmtrace_hvsim_ops);

/* debugfs: numbers, read and written under hvsim_lock. */

static int hvsim_u64_get(void *data, u64 *val)
{
	raw_spin_lock_irq(&hvsim_lock);
	*val = *(u64 *)data;
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}

static int hvsim_u64_set(void *data, u64 val)
{
	raw_spin_lock_irq(&hvsim_lock);
	*(u64 *)data = val;
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_u64_fops, hvsim_u64_get, hvsim_u64_set,
			 "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(hvsim_u64_ro_fops, hvsim_u64_get, NULL, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(hvsim_s64_fops, hvsim_u64_get, hvsim_u64_set,
				"%lld\n");

/*
 * A new rate applies from now on: the records written so far at the old
 * rate are folded into each tracing target's base first.
 */
static int hvsim_rate_set(void *data, u64 val)
{
	struct hvsim_target *t;
	ktime_t now;
	unsigned int i;

	if (val > HVSIM_RATE_MAX)
		return -EINVAL;

	raw_spin_lock_irq(&hvsim_lock);
	now = ktime_get();
	for (i = 0; i < hvsim_nr_targets; i++) {
		t = &hvsim_targets[i];
		hvsim_sync(t, now);
		if (t->state != HVSIM_TRACING)
			continue;
		t->base = hvsim_records(t, now);
		t->since = now;
	}
	hvsim_model.rate = val;
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_rate_fops, hvsim_u64_get, hvsim_rate_set,
			 "%llu\n");

static int hvsim_latency_set(void *data, u64 val)
{
	if (val > HVSIM_LATENCY_MAX)
		return -EINVAL;
	return hvsim_u64_set(data, val);
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_latency_fops, hvsim_u64_get, hvsim_latency_set,
			 "%llu\n");

/* Writing fail_op arms the fault: its counting starts over. */
static int hvsim_fail_op_set(void *data, u64 val)
{
	raw_spin_lock_irq(&hvsim_lock);
	hvsim_faults.fail_op = val;
	hvsim_stats.fail_seen = 0;
	hvsim_stats.fail_done = 0;
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_fail_op_fops, hvsim_u64_get, hvsim_fail_op_set,
			 "%llu\n");

/* Every tracing target writes @val records at once. */
static int hvsim_advance_set(void *data, u64 val)
{
	struct hvsim_target *t;
	ktime_t now;
	unsigned int i;

	if (val > HVSIM_ADVANCE_MAX)
		return -EINVAL;

	raw_spin_lock_irq(&hvsim_lock);
	now = ktime_get();
	for (i = 0; i < hvsim_nr_targets; i++) {
		t = &hvsim_targets[i];
		hvsim_sync(t, now);
		if (t->state != HVSIM_TRACING)
			continue;
		t->base += val;
		hvsim_sync(t, now);
	}
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_advance_fops, NULL, hvsim_advance_set,
			 "%llu\n");

/* Clear every injected fault and every counter; targets are left alone. */
static int hvsim_reset_set(void *data, u64 val)
{
	raw_spin_lock_irq(&hvsim_lock);
	memset(&hvsim_faults, 0, sizeof(hvsim_faults));
	memset(&hvsim_stats, 0, sizeof(hvsim_stats));
	raw_spin_unlock_irq(&hvsim_lock);
	hvsim_dtl_reset();
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_reset_fops, NULL, hvsim_reset_set, "%llu\n");

/*
 * A kernel warning on request, for the test harness's own test: it proves
 * that a WARNING in the guest fails the post-mortem. Nothing else is done.
 */
static int hvsim_warn_set(void *data, u64 val)
{
	WARN(val, "htmtrace_hvsim: warning requested through debugfs (harness self-test)\n");
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_warn_fops, NULL, hvsim_warn_set, "%llu\n");

static int hvsim_op_calls_show(struct seq_file *m, void *v)
{
	u64 calls[HVSIM_NR_OPS];
	unsigned int op;

	raw_spin_lock_irq(&hvsim_lock);
	memcpy(calls, hvsim_stats.op_calls, sizeof(calls));
	raw_spin_unlock_irq(&hvsim_lock);

	for (op = 1; op < HVSIM_NR_OPS; op++)
		seq_printf(m, "%s %llu\n", hvsim_op_names[op], calls[op]);
	seq_printf(m, "%s %llu\n", hvsim_op_names[0], calls[0]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hvsim_op_calls);

/* Every target that is not idle with the default buffer size. */
static int hvsim_targets_show(struct seq_file *m, void *v)
{
	unsigned int i, type, node, chip, core;
	struct hvsim_target *t;
	ktime_t now;

	raw_spin_lock_irq(&hvsim_lock);
	now = ktime_get();
	for (i = 0; i < hvsim_nr_targets; i++) {
		t = &hvsim_targets[i];
		hvsim_sync(t, now);
		if (t->state == HVSIM_IDLE && t->log2_size == hvsim_log2_size)
			continue;
		/* the inverse of hvsim_target() */
		core = i % hvsim_cores;
		chip = i / hvsim_cores % hvsim_chips;
		node = i / hvsim_cores / hvsim_chips % hvsim_nodes;
		type = i / hvsim_cores / hvsim_chips / hvsim_nodes +
		       HTMTRACE_TYPE_NEST;
		seq_printf(m, "%s %u %u %u state=%s log2_size=%u nowrap=%d full=%d records=%llu",
			   hvsim_type_names[type], node, chip, core,
			   hvsim_state_names[t->state], t->log2_size,
			   t->nowrap, t->full, hvsim_records(t, now));
		/* The mode of a configured target, unless the default. */
		if (t->state != HVSIM_IDLE &&
		    (t->mode_mask != -1UL || t->mode_value != -1UL))
			seq_printf(m, " mode=%#lx:%#lx", t->mode_mask,
				   t->mode_value);
		seq_putc(m, '\n');
	}
	raw_spin_unlock_irq(&hvsim_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hvsim_targets);

static void hvsim_debugfs_init(void)
{
	struct dentry *d;

	d = debugfs_create_dir("htmtrace_hvsim", NULL);
	hvsim_dir = d;

	/* model */
	debugfs_create_file_unsafe("rate", 0600, d, &hvsim_model.rate,
				   &hvsim_rate_fops);
	debugfs_create_file_unsafe("entries_per_call", 0600, d,
				   &hvsim_model.entries_per_call,
				   &hvsim_u64_fops);
	debugfs_create_file_unsafe("advance", 0200, d, NULL,
				   &hvsim_advance_fops);

	/* faults */
	debugfs_create_file_unsafe("busy_every", 0600, d,
				   &hvsim_faults.busy_every, &hvsim_u64_fops);
	debugfs_create_file_unsafe("long_busy", 0600, d,
				   &hvsim_faults.long_busy, &hvsim_u64_fops);
	debugfs_create_file_unsafe("long_busy_count", 0600, d,
				   &hvsim_faults.long_busy_count,
				   &hvsim_u64_fops);
	debugfs_create_file_unsafe("fail_op", 0600, d, &hvsim_faults.fail_op,
				   &hvsim_fail_op_fops);
	debugfs_create_file_unsafe("fail_rc", 0600, d, &hvsim_faults.fail_rc,
				   &hvsim_s64_fops);
	debugfs_create_file_unsafe("fail_after", 0600, d,
				   &hvsim_faults.fail_after, &hvsim_u64_fops);
	debugfs_create_file_unsafe("fail_count", 0600, d,
				   &hvsim_faults.fail_count, &hvsim_u64_fops);
	debugfs_create_file_unsafe("latency_us", 0600, d,
				   &hvsim_faults.latency_us,
				   &hvsim_latency_fops);
	debugfs_create_file_unsafe("max_xfer", 0600, d,
				   &hvsim_faults.max_xfer, &hvsim_u64_fops);
	debugfs_create_file_unsafe("short_xfer", 0600, d,
				   &hvsim_faults.short_xfer, &hvsim_u64_fops);
	debugfs_create_file_unsafe("reset", 0200, d, NULL, &hvsim_reset_fops);
	debugfs_create_file_unsafe("warn", 0200, d, NULL, &hvsim_warn_fops);

	/* counters and state */
	debugfs_create_file_unsafe("calls", 0400, d, &hvsim_stats.calls,
				   &hvsim_u64_ro_fops);
	debugfs_create_file_unsafe("injected", 0400, d, &hvsim_stats.injected,
				   &hvsim_u64_ro_fops);
	debugfs_create_file_unsafe("dump_bytes", 0400, d,
				   &hvsim_stats.dump_bytes, &hvsim_u64_ro_fops);
	debugfs_create_file_unsafe("dump_ns", 0400, d, &hvsim_stats.dump_ns,
				   &hvsim_u64_ro_fops);
	debugfs_create_file_unsafe("dump_tracing", 0400, d,
				   &hvsim_misuse.dump_tracing,
				   &hvsim_u64_ro_fops);
	debugfs_create_file_unsafe("dump_unaligned", 0400, d,
				   &hvsim_misuse.dump_unaligned,
				   &hvsim_u64_ro_fops);
	debugfs_create_file("op_calls", 0400, d, NULL, &hvsim_op_calls_fops);
	debugfs_create_file("targets", 0400, d, NULL, &hvsim_targets_fops);
}

static int __init hvsim_init(void)
{
	unsigned int i;
	int ret;

	if (!hvsim_nodes || hvsim_nodes > HVSIM_MAX_NODES ||
	    !hvsim_chips || hvsim_chips > HVSIM_MAX_CHIPS ||
	    !hvsim_cores || hvsim_cores > HVSIM_MAX_CORES) {
		pr_err("topology %ux%ux%u out of range (nodes 1-%u, chips 1-%u, cores 1-%u)\n",
		       hvsim_nodes, hvsim_chips, hvsim_cores, HVSIM_MAX_NODES,
		       HVSIM_MAX_CHIPS, HVSIM_MAX_CORES);
		return -EINVAL;
	}
	if (hvsim_log2_size < HVSIM_LOG2_MIN ||
	    hvsim_log2_size > HVSIM_LOG2_MAX) {
		pr_err("log2_size %u out of range (%u-%u)\n", hvsim_log2_size,
		       HVSIM_LOG2_MIN, HVSIM_LOG2_MAX);
		return -EINVAL;
	}
	if (hvsim_rate > HVSIM_RATE_MAX) {
		pr_err("rate %lu above %llu\n", hvsim_rate, HVSIM_RATE_MAX);
		return -EINVAL;
	}

	hvsim_nr_targets = HVSIM_NR_TYPES * hvsim_nodes * hvsim_chips *
			   hvsim_cores;
	hvsim_targets = kvcalloc(hvsim_nr_targets, sizeof(*hvsim_targets),
				 GFP_KERNEL);
	if (!hvsim_targets)
		return -ENOMEM;
	for (i = 0; i < hvsim_nr_targets; i++)
		hvsim_targets[i].log2_size = hvsim_log2_size;
	hvsim_model.rate = hvsim_rate;
	hvsim_model.entries_per_call = 3;
	prandom_seed_state(&hvsim_rnd, get_random_u64());
	/* target and sequence 0: DUMP_DATA stamps both, and the check word */
	for (i = 0; i < HVSIM_PATTERN_RECORDS; i++)
		hvsim_record_fill(hvsim_pattern + i * HVSIM_RECORD_SIZE, 0, 0);

	hvsim_debugfs_init();
	ret = hvsim_dtl_init(hvsim_dir);
	if (ret)
		goto err;

	pr_info("simulating H_HTM: %u nodes, %u chips per node, %u cores per chip\n",
		hvsim_nodes, hvsim_chips, hvsim_cores);
	return 0;

err:
	debugfs_remove_recursive(hvsim_dir);
	kvfree(hvsim_targets);
	return ret;
}

static void __exit hvsim_exit(void)
{
	hvsim_dtl_exit();
	debugfs_remove_recursive(hvsim_dir);
	kvfree(hvsim_targets);
}

module_init(hvsim_init);
module_exit(hvsim_exit);

MODULE_DESCRIPTION("Simulated PowerVM H_HTM hypervisor call for htmtrace");
MODULE_LICENSE("GPL");
