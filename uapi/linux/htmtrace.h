/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * htmtrace: user ABI of the POWER Hardware Trace Macro character devices.
 *
 * Each /dev/htmN is one HTM channel. A channel is configured for one
 * hardware target (type, node, chip, core), started, stopped and then read:
 * the file position of /dev/htmN is the byte offset in the target's HTM
 * buffer, and read() returns 0 where the hypervisor says the data ends
 * (H_NOT_AVAILABLE, at any offset, as IBM's drivers read it), or at the
 * buffer size STATUS gave.
 *
 * Errors shared by every command:
 *   -ENOTTY  unknown command
 *   -EFAULT  the argument points outside the caller's memory
 *   -EINVAL  a reserved field or unknown flag is non-zero, or a value is out
 *            of range
 *   -EINTR   a fatal signal came while the command waited for the channel;
 *            or a signal came while the driver waited out a long-busy
 *            hypervisor (the command is restarted instead where the
 *            handler has SA_RESTART): what was done stays done and the
 *            command may be repeated (an interrupted DECONFIGURE may leave
 *            the trace stopped, an interrupted START of a stopped channel
 *            may leave it configured with no trace: see START)
 *   -EBUSY   the hypervisor stayed busy for longer than the driver waits
 *   -EIO     the hypervisor failed the request (H_STATE, H_HARDWARE, ...),
 *            or answered in a way the driver cannot use
 * and, from every command that reaches the hypervisor, what it may answer:
 *   -EPERM      the partition may not use HTM (H_AUTHORITY, H_PRIVILEGE)
 *   -EOPNOTSUPP the hypervisor has no H_HTM, or not this operation
 *   -ENOBUFS    the hypervisor lacks the resources (H_RESOURCE)
 *   -ENXIO      the hypervisor closed the facility (H_CLOSED)
 *
 * Further errors, by command:
 *   HTMTRACE_IOC_CONFIGURE  -EPERM without CAP_PERFMON or CAP_SYS_ADMIN;
 *                           -EBADFD if the channel is configured already;
 *                           -EBUSY if the target, or one that overlaps it
 *                           (HTMTRACE_TYPE_GLOBAL overlaps every unit, a
 *                           nest target the other nest targets of its
 *                           chip), is held by another channel or a perf
 *                           event;
 *                           -ENOMEM
 *   HTMTRACE_IOC_START      -EPERM as above; -EBADFD unless configured or
 *                           stopped. A stopped channel is configured
 *                           again first (DECONFIGURE, then CONFIGURE, as
 *                           IBM's HTM PMU proposal does for every trace):
 *                           if DECONFIGURE fails, or a signal cuts its
 *                           wait short, the stopped trace is left as it
 *                           was; once it is done, the CONFIGURE after it
 *                           waits out a busy hypervisor whatever signal
 *                           comes (10 s at most), and if it fails the
 *                           command fails with its error and leaves the
 *                           channel HTMTRACE_STATE_IDLE, its target
 *                           released and the trace gone: CONFIGURE again
 *   HTMTRACE_IOC_STOP       -EPERM as above; -EBADFD if never started (a
 *                           stopped channel stops again with success);
 *                           -EIO if the hypervisor refuses it (H_STATE):
 *                           the channel then stays TRACING with
 *                           HTMTRACE_STATUS_STOP_REFUSED (see below)
 *   HTMTRACE_IOC_DECONFIGURE -EPERM as above; -EBADFD if not configured.
 *                           A STOP that fails does not keep the target:
 *                           DECONFIGURE is asked for regardless.
 *   HTMTRACE_IOC_SETUP      -EPERM without CAP_SYS_ADMIN; -EBUSY if the
 *                           target, or one that overlaps it, is held by a
 *                           channel or a perf event (it is not resized
 *                           under its holder)
 *   HTMTRACE_IOC_STATUS     -ENOMEM; -EINTR as above (idle: no hcall):
 *                           a failed STATUS request of the hypervisor is
 *                           reported in the answer (@status_error), not
 *                           as the command's error. The size it learns is
 *                           the one later read()s and SEEK_END use for the
 *                           trace (a busy answer leaves it unknown, to be
 *                           asked again)
 *   HTMTRACE_IOC_CAPS, _SYSMEM, _SYSPROC
 *                           -ENOSPC if the buffer is too small (the only
 *                           meaning of -ENOSPC), -ENOMEM. They do not
 *                           hold up the channel's other commands and
 *                           files while the hypervisor is busy.
 * None of the queries (STATUS, CAPS, SYSMEM, SYSPROC, lseek SEEK_END)
 * changes the channel or the trace (STATUS and SEEK_END refresh the size
 * the driver knows, as above), and none needs a capability. SEEK_END gives
 * where the data ends, once a read of the trace found it, else the buffer
 * size; -ENODATA when neither is known (read until 0 instead).
 *
 * Reading. read() of an unconfigured channel, or of one that was never
 * started, fails with -ENODATA, and poll() reports EPOLLERR | EPOLLHUP for
 * it. read() of a tracing channel stops the trace (unless HTMTRACE_CFG_WAIT),
 * so it needs what HTMTRACE_IOC_STOP needs, checked against whoever opened
 * the file: -EPERM otherwise, and the trace goes on. With HTMTRACE_CFG_WAIT
 * it waits until the trace is stopped through the driver (HTMTRACE_IOC_STOP
 * from any file, or a read of a file that may stop it): a no-wrap trace
 * that fills its buffer stops in the hypervisor, which tells no one, so a
 * waiting reader needs a STOP (-EAGAIN with O_NONBLOCK). Each open file
 * has a bounce buffer of its own, allocated at its first read() (-ENOMEM if
 * not even 64 KiB can be had), so that files reading at different offsets
 * do not refetch each other's chunks.
 *
 * A file reads one trace: the one its first read() after open() or lseek()
 * found (or waited for). Once that trace is gone - restarted by a START, or
 * dropped by a DECONFIGURE, from any file - read() fails with -ESTALE, and
 * poll() reports EPOLLIN | EPOLLERR, until the file is lseek()ed: bytes of
 * two traces are never spliced. HTMTRACE_IOC_STATUS reports the generation
 * of the channel's trace, which changes at every START and DECONFIGURE. A
 * read() that waits out a busy hypervisor (for the STOP it sends, the
 * STATUS it asks for the size, or the data) does not hold up the channel's
 * other files meanwhile; if its trace goes while it waits, it fails with
 * -ESTALE.
 *
 * The driver follows IBM's public drivers (mainline htmdump.c, the HTM PMU
 * proposal htm-perf.c): it never asks for the data of a trace it knows to
 * run (a channel configured to wait is stopped only through the driver: the
 * hypervisor is not polled); H_PARTIAL is success on every request;
 * H_STATE is -EIO on every request, STOP included; the buffer size is not
 * needed to read. A no-wrap trace stopped before its buffer filled ends
 * early: read() returns 0 there, and HTMTRACE_IOC_STATUS says where
 * (@data_size). H_HTM returns no byte count, and the driver asks for whole
 * pages: bytes of a transfer the hypervisor did not write (H_PARTIAL, the
 * rest of the chunk where the data ends) read as zeros, never as older
 * trace or other memory.
 *
 * Not confirmed on PowerVM, and so handled whichever way it answers (the
 * test simulator offers each answer): whether STOP of a no-wrap trace that
 * filled its buffer succeeds or answers H_STATE; whether the data of a
 * short trace ends at its records or at the buffer size; whether STATUS
 * gives the size of llat and global units (the driver reads it for nest
 * and core only, as public code does); how an information iteration ends
 * (-1, 0, or H_NOT_AVAILABLE, H_P6 or H_PARAMETER for the iterator the
 * last block gave: the blocks before it are returned); what H_PARTIAL on
 * an information block leaves out; whether the core index names a nest
 * unit of its own (the nest targets of one chip are held as one); whether
 * a DUMP_DATA that reaches past the buffer's end writes the part inside
 * or is refused whole (without a size, the driver asks a page at a time).
 *
 * The information blocks (capabilities, memory and processor configuration)
 * are passed through as the hypervisor writes them. Their layout is not
 * public beyond what the comments below say; treat the rest as opaque.
 */
#ifndef _UAPI_LINUX_HTMTRACE_H
#define _UAPI_LINUX_HTMTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* 0xB9 is free in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define HTMTRACE_IOC_MAGIC	0xB9

/* HTM types, as encoded in the H_HTM operation word. */
#define HTMTRACE_TYPE_NEST	0x01
#define HTMTRACE_TYPE_CORE	0x02
#define HTMTRACE_TYPE_LLAT	0x03
#define HTMTRACE_TYPE_GLOBAL	0xff

/* Largest node, chip and core index the H_HTM target word can carry. */
#define HTMTRACE_INDEX_MAX	0xffff

/*
 * How a target is named. H_HTM also defines logical and processor-id
 * targets; their meaning is not public, and other kinds fail with -EINVAL.
 */
#define HTMTRACE_TARGET_HW	0	/* a hardware unit: node, chip, core */

/**
 * struct htmtrace_target - one HTM unit
 * @type: HTMTRACE_TYPE_*
 * @node: node index
 * @chip: chip index on the node
 * @core: core index on the chip
 * @kind: HTMTRACE_TARGET_HW
 * @reserved: must be zero
 */
struct htmtrace_target {
	__u32 type;
	__u32 node;
	__u32 chip;
	__u32 core;
	__u32 kind;
	__u32 reserved;
};

/* Stop tracing when the buffer is full instead of wrapping. */
#define HTMTRACE_CFG_NOWRAP	0x1
/* read() and poll() wait for a STOP through the driver instead of stopping. */
#define HTMTRACE_CFG_WAIT	0x2
/* Use @mode_mask and @mode_value instead of the hypervisor's default mode. */
#define HTMTRACE_CFG_MODE	0x4
#define HTMTRACE_CFG_FLAGS	(HTMTRACE_CFG_NOWRAP | HTMTRACE_CFG_WAIT | \
				 HTMTRACE_CFG_MODE)

/**
 * struct htmtrace_config - argument of HTMTRACE_IOC_CONFIGURE
 * @target: the unit to trace; held by this channel until deconfigured
 * @flags: HTMTRACE_CFG_*
 * @reserved0: must be zero
 * @mode_mask: with HTMTRACE_CFG_MODE, the mask CONFIGURE passes to the
 *	hypervisor (its first parameter), else must be zero; without the flag
 *	the driver passes what mainline htmdump does: all ones twice (the
 *	hypervisor's "default HTM mode") with HTMTRACE_CFG_NOWRAP, else zeros
 * @mode_value: with HTMTRACE_CFG_MODE, the value passed with @mode_mask
 *	(the second parameter), else must be zero. That the two are a mask and
 *	a value over the HTM mode register is how public code reads them; the
 *	driver passes them through unchecked.
 * @reserved: must be zero
 */
struct htmtrace_config {
	struct htmtrace_target target;
	__u32 flags;
	__u32 reserved0;
	__u64 mode_mask;
	__u64 mode_value;
	__u64 reserved[2];
};

/**
 * struct htmtrace_setup - argument of HTMTRACE_IOC_SETUP
 * @target: the unit whose trace buffer is sized
 * @log2_size: buffer size as a power of two (e.g. 33 for 8 GiB); 1..62, so
 *	that the size is a valid file offset
 * @reserved: must be zero
 *
 * On PowerVM the new size may take effect only after a CEC reboot.
 */
struct htmtrace_setup {
	struct htmtrace_target target;
	__u32 log2_size;
	__u32 reserved;
};

/* Channel states reported by HTMTRACE_IOC_STATUS. */
#define HTMTRACE_STATE_IDLE		0	/* not configured */
#define HTMTRACE_STATE_CONFIGURED	1	/* configured, never started */
#define HTMTRACE_STATE_TRACING		2
#define HTMTRACE_STATE_STOPPED		3	/* trace ready to read */

/* HTMTRACE_IOC_STATUS @hv_flags */
/* @data_size is where the hypervisor said the trace data ends. */
#define HTMTRACE_STATUS_DATA_END	0x1
/*
 * The hypervisor answered STOP with H_STATE: the target is in no state to
 * stop, so the driver does not know whether it still traces. The STOP
 * failed (-EIO) and @state stays TRACING. As the HTM PMU proposal (no dump
 * of a buffer the hypervisor may still write), the data is never asked
 * for then: read() sends STOP again (and fails -EIO while it is refused),
 * or, configured to wait, fails -EIO; a STOP that succeeds later makes the
 * trace readable; DECONFIGURE gives the target back.
 */
#define HTMTRACE_STATUS_STOP_REFUSED	0x2

/**
 * struct htmtrace_status - result of HTMTRACE_IOC_STATUS
 * @state: HTMTRACE_STATE_*, as the driver knows it
 * @flags: HTMTRACE_CFG_* the channel was configured with
 * @target: the configured target (zero when idle)
 * @buffer_size: size in bytes of the target's HTM buffer, as the hypervisor
 *	reports it in the STATUS block; 0 when idle or unknown (the STATUS
 *	request failed, see @status_error, or the block gives no usable size:
 *	public sources define the size byte for nest and core only). The dump
 *	does not need it: read() goes on until the hypervisor says the data
 *	ends.
 * @generation: the trace's generation; it changes at every START and every
 *	DECONFIGURE of the channel, so two equal values read around a dump say
 *	that the dump is of one trace
 * @data_size: with HTMTRACE_STATUS_DATA_END, the bytes of the trace before
 *	the offset where the hypervisor said the data ends (H_NOT_AVAILABLE),
 *	as found by a read() of this generation; a no-wrap trace stopped
 *	before its buffer filled may end there, before @buffer_size
 * @status_error: 0, or the negative errno of the hypervisor's STATUS
 *	request made for this answer (then @buffer_size is 0)
 * @hv_flags: HTMTRACE_STATUS_*
 * @reserved: zero
 */
struct htmtrace_status {
	__u32 state;
	__u32 flags;
	struct htmtrace_target target;
	__u64 buffer_size;
	__u64 generation;
	__u64 data_size;
	__s32 status_error;
	__u32 hv_flags;
	__u64 reserved;
};

/**
 * struct htmtrace_hvbuf - a hypervisor information block, copied to the user
 * @target: the unit the query is about (type 0 is allowed here)
 * @addr: user address of the destination buffer
 * @size: size of the destination buffer in bytes
 * @length: out: bytes the complete answer takes; ignored on input, so that
 *	a caller may retry with @size set to it
 * @reserved: must be zero
 *
 * The configuration dumps (HTMTRACE_IOC_SYSMEM, HTMTRACE_IOC_SYSPROC) are
 * iterated: the driver asks the hypervisor for block after block and stores
 * the blocks back to back, each exactly as the hypervisor wrote it: a 32-byte
 * header whose big-endian u64 at offset 0x10 counts the entries that follow,
 * then the entries (32 bytes each for SYSMEM, 16 for SYSPROC). The rest of
 * the header and the SYSPROC entries have no public layout. A SYSMEM entry,
 * as public code reads it: big-endian u64 real address (bit 63 excluded) at
 * 0x00, u64 logical address at 0x08 (all ones: unused entry), u32 partition
 * index at 0x10, u8 memory tier at 0x14, u8 memory type at 0x15, u64 size
 * at 0x18.
 * HTMTRACE_IOC_CAPS stores the 128-byte capabilities block, whose layout is
 * not public.
 *
 * When @size is too small, nothing is stored, @length tells the size needed
 * and the command fails with -ENOSPC.
 */
struct htmtrace_hvbuf {
	struct htmtrace_target target;
	__u64 addr;
	__u32 size;
	__u32 length;
	__u64 reserved[2];
};

/* Size of the capabilities block. */
#define HTMTRACE_CAPS_SIZE	128

/*
 * The layout of the blocks HTMTRACE_IOC_SYSMEM and HTMTRACE_IOC_SYSPROC
 * store (and of every H_HTM information block): the header's size, the
 * offsets of its big-endian u64 "next entry" iterator and entry count,
 * and the size of one entry.
 */
#define HTMTRACE_BLOCK_HDR_SIZE		32
#define HTMTRACE_BLOCK_NEXT		0x08
#define HTMTRACE_BLOCK_NR_ENTRIES	0x10
#define HTMTRACE_SYSMEM_ENTRY_SIZE	32
#define HTMTRACE_SYSPROC_ENTRY_SIZE	16

#define HTMTRACE_IOC_CAPS	_IOWR(HTMTRACE_IOC_MAGIC, 0x01, struct htmtrace_hvbuf)
#define HTMTRACE_IOC_SETUP	_IOW(HTMTRACE_IOC_MAGIC, 0x02, struct htmtrace_setup)
#define HTMTRACE_IOC_CONFIGURE	_IOW(HTMTRACE_IOC_MAGIC, 0x03, struct htmtrace_config)
#define HTMTRACE_IOC_START	_IO(HTMTRACE_IOC_MAGIC, 0x04)
#define HTMTRACE_IOC_STOP	_IO(HTMTRACE_IOC_MAGIC, 0x05)
#define HTMTRACE_IOC_DECONFIGURE _IO(HTMTRACE_IOC_MAGIC, 0x06)
#define HTMTRACE_IOC_STATUS	_IOR(HTMTRACE_IOC_MAGIC, 0x07, struct htmtrace_status)
#define HTMTRACE_IOC_SYSMEM	_IOWR(HTMTRACE_IOC_MAGIC, 0x08, struct htmtrace_hvbuf)
#define HTMTRACE_IOC_SYSPROC	_IOWR(HTMTRACE_IOC_MAGIC, 0x09, struct htmtrace_hvbuf)

/*
 * The dispatch trace log: /dev/vpa_dtl.
 *
 * The hypervisor logs, per virtual processor, why it was dispatched and
 * preempted, into a 4 KiB ring of 85 big-endian 48-byte entries (struct
 * dtl_entry in the kernel). /dev/vpa_dtl collects the entries of a set of
 * CPUs into one stream of records. Configure (CAP_PERFMON or
 * CAP_SYS_ADMIN), start, then read(); stop ends the stream once it is
 * drained (read() returns 0). One session at a time: -EBUSY for a second
 * configuration, from any file, or while vpa_dtl perf events hold the log.
 *
 * read() returns whole records only: -EINVAL if the buffer cannot hold the
 * next one (HTMTRACE_DTL_REC_MAX always can); it blocks while the stream is
 * empty and the session is configured or running (-EAGAIN with O_NONBLOCK),
 * fails with -ENODATA when there is no session. One reader copies at a
 * time: another waits until that copy is over (-EAGAIN with O_NONBLOCK); a
 * reader whose copy never ends (a page fault on userfaultfd or FUSE memory)
 * is detached when its session ends, and holds up no reader of the next.
 * poll() reports EPOLLIN when a record is ready and no other reader is
 * copying, so that an O_NONBLOCK read() then never gets -EAGAIN
 * (EPOLLIN | EPOLLHUP at the end, EPOLLERR | EPOLLHUP without a session).
 * The stream is not seekable. A START after a STOP continues the stream
 * with a new clock record; up to 16 STARTs' clock records wait for a
 * reader, and a START after that shares the last one's (its clock values
 * are those of that earlier START). HTMTRACE_IOC_DTL_STATS
 * answers from CONFIGURE to DECONFIGURE, the counters adding up over
 * restarts; without a session it fails with -ENODATA.
 *
 * The session belongs to the file that configured it: closing that file
 * ends it (as DECONFIGURE does), unless it was configured with
 * HTMTRACE_DTL_F_KEEP (for configure, start, then cat /dev/vpa_dtl from
 * another process); such a session lasts until a DECONFIGURE from any file.
 *
 * Delivery latency: each CPU's log is polled by a timer whose period
 * adapts to the CPU's rate, from 250 us under load to 200 ms when the CPU
 * logs nothing (or is the fixed period of the module parameter
 * dtl_period_us, up to 1 s), so an entry can reach the reader up to 200 ms
 * (or that fixed period) after it was logged. A CPU record (JOINED, or what ended a capture) goes
 * into the stream when the driver notices the event, if the ring has room
 * (a change by another user: at the CPU's next poll). A reader that needs a
 * tighter bound issues HTMTRACE_IOC_DTL_FLUSH as often as the bound: when
 * it returns, every entry the selected CPUs logged before it is in the
 * stream (or counted as dropped if the ring is full), and so is every
 * record that waited for room and now fits; it needs no capability, and
 * fails with -EBADFD unless the session is running (htmtrace dtl record
 * --latency MS does this every MS milliseconds). While a CPU's ring
 * is full and unread, the timer backs off to the idle period (entries
 * logged meanwhile are counted as overwritten or dropped).
 *
 * Nothing is skipped silently: entries the hypervisor overwrote before the
 * driver copied them, and entries dropped because their CPU's ring was
 * full, are counted exactly and reported in the stream by a LOST record,
 * placed where they would have been.
 *
 * A CPU's records come in the order of its capture: JOINED, entries and
 * LOST records, then the CPU record of what ended it. Records that find the
 * ring full wait for room, in that order; a capture the CPU begins
 * meanwhile (it came back online, or a START) has its records wait after
 * them, and its entries are dropped (and counted) until they are out.
 * Records of the captures before a START come out before that START's
 * clock record: every loss is in the capture it happened in. A CPU keeps
 * the records of up to 8 captures waiting at once; a capture that begins
 * while 8 have records waiting takes over the newest of them: that one's
 * end record (OFFLINE, LOST or FAILED), if it has one, is not in the
 * stream, its JOINED and losses stand for both (after the clock records of
 * the STARTs since it began), and the CPU's @folded counter
 * (HTMTRACE_IOC_DTL_STATS) counts it.
 *
 * Where the kernel owns a CPU's log for good (it registered one at boot for
 * stolen-time accounting, CONFIG_VIRT_CPU_ACCOUNTING_NATIVE, and never frees
 * it), the driver reads that ring with its own index and ORs its event mask
 * into the CPU's; the mask is restored at stop. The kernel then counts as
 * stolen the wait times of the extra event types too (debugfs dtl makes the
 * same trade). Elsewhere the driver registers a buffer of its own for each
 * CPU and unregisters it at stop. A kernel log that may be freed is never
 * read: without CONFIG_VIRT_CPU_ACCOUNTING_NATIVE the kernel has a log only
 * while /proc/powerpc/vcpudispatch_stats is enabled, and disabling it frees
 * the log under a lock modules cannot take. Such a log is another user's:
 * CONFIGURE fails with -EBUSY while it exists, and a CPU whose log appears
 * while it is captured ends its capture (HTMTRACE_DTL_CPU_LOST). Other
 * users of the log (debugfs dtl, vcpudispatch_stats, the kernel's vpa_dtl
 * PMU) cannot be locked out from a module: a CPU whose log or event mask is
 * changed under the driver - the mask widened or narrowed, the log replaced
 * or a kernel log appearing - ends its capture with a CPU record
 * (HTMTRACE_DTL_CPU_LOST), and at stop its mask is restored only if it is
 * still exactly what the driver set. Where the driver registers its own
 * buffer, a selected CPU whose event mask is not 0 at CONFIGURE is another
 * user's: CONFIGURE fails with -EBUSY (at START, such a CPU says so with a
 * HTMTRACE_DTL_CPU_FAILED record, error -EBUSY). The buffer is registered,
 * its index reset, and only then the mask set, as the kernel's own users
 * do. Another user's registration over it is noticed by the index going
 * back, or by the newest entry the index points at missing from the
 * driver's buffer (empty, or older than the last one read): the index of
 * the other buffer may have passed the driver's.
 *
 * Where the kernel owns the log, the stream carries every entry the CPU
 * logs while the driver reads it: with an event mask of cede only, the
 * kernel's preempt entries (it logs preemptions for its accounting) are
 * in the stream too.
 *
 * The vpa_dtl perf PMU (mainline's, registered by the driver on kernels
 * without one) takes the same log: perf_event_open() fails with -EBUSY for
 * a CPU whose log is another user's by the rules above, as CONFIGURE does.
 * Its AUX area keeps mainline's format (a boottb_freq record, then raw
 * dtl_entry records, nothing else): entries lost while the capture goes on
 * flag the next PERF_RECORD_AUX with PERF_AUX_FLAG_PARTIAL; a capture that
 * ends before its event (its registration refused, or another user's
 * change to the log) posts one with PERF_AUX_FLAG_TRUNCATED, and the perf
 * core is asked to disable the event.
 */

/* Event mask bits (lppaca dtl_enable_mask). */
#define HTMTRACE_DTL_CEDE	0x1
#define HTMTRACE_DTL_PREEMPT	0x2
#define HTMTRACE_DTL_FAULT	0x4
#define HTMTRACE_DTL_ALL	0x7

/* Size in bytes of one hypervisor entry, and of the hypervisor's ring. */
#define HTMTRACE_DTL_ENTRY_SIZE	48
#define HTMTRACE_DTL_RING_ENTRIES	85

/**
 * struct htmtrace_dtl_config - argument of HTMTRACE_IOC_DTL_CONFIGURE
 * @cpus: user address of a CPU mask: an array of __u64, CPU n being bit
 *	n % 64 of element n / 64 (the layout of cpu_set_t on 64-bit Linux);
 *	0 with @cpus_size 0 for every possible CPU
 * @cpus_size: size of the mask in bytes, a multiple of 8 (0: every CPU)
 * @mask: HTMTRACE_DTL_* events to log, not 0
 * @ring_kb: size of the session's ring of records in KiB, 0 for the
 *	default (256); 4..65536, rounded up to a power of two (5 gives 8),
 *	shared evenly among the CPUs: a ring each, a power of two of at
 *	least 4 KiB
 * @flags: 0 or HTMTRACE_DTL_F_KEEP
 * @reserved: must be zero
 *
 * The CPUs selected are those of @cpus that are possible CPUs: bits for
 * CPUs that do not exist are ignored, so a full cpu_set_t selects every
 * CPU. A selected CPU that is offline joins the capture when it comes
 * online. Errors: -EINVAL (a bad field, a mask of no CPU that exists),
 * -EBUSY (a session exists, vpa_dtl perf events hold the log, or a
 * selected CPU's log is another user's: a kernel log that may be freed, or,
 * where the driver registers its own buffers, an event mask that is not
 * 0), -EPERM, -EFAULT, -ENOMEM.
 */
/* The session outlives the file that configured it. */
#define HTMTRACE_DTL_F_KEEP	0x1

struct htmtrace_dtl_config {
	__u64 cpus;
	__u32 cpus_size;
	__u32 mask;
	__u32 ring_kb;
	__u32 flags;
	__u64 reserved[2];
};

/*
 * Per-CPU state in struct htmtrace_dtl_cpu_stats: WAITING, not capturing now
 * (the CPU is offline, or the session is not running); CAPTURING; ENDED,
 * for good (its CPU record says why).
 */
#define HTMTRACE_DTL_CPU_WAITING	0
#define HTMTRACE_DTL_CPU_CAPTURING	1
#define HTMTRACE_DTL_CPU_ENDED		2

/**
 * struct htmtrace_dtl_cpu_stats - one CPU's counters
 * @cpu: logical CPU number
 * @state: HTMTRACE_DTL_CPU_*
 * @entries: entries copied into the stream
 * @overwritten: entries the hypervisor overwrote before they were copied
 * @dropped: entries dropped because the CPU's ring was full
 * @wakeups: times the capture timer ran on the CPU
 * @kernel_owned: 1 if the capture reads the kernel's own log
 * @folded: captures that took over the newest of the 8 captures of the
 *	CPU whose records waited for room (see "A CPU's records" above): the
 *	stream shows each such pair as one capture
 * @next_index: the log index of the next entry the capture reads (the
 *	CPU's lppaca dtl_idx once it has caught up)
 */
struct htmtrace_dtl_cpu_stats {
	__u32 cpu;
	__u32 state;
	__u64 entries;
	__u64 overwritten;
	__u64 dropped;
	__u64 wakeups;
	__u32 kernel_owned;
	__u32 folded;
	__u64 next_index;
};

/**
 * struct htmtrace_dtl_stats - argument of HTMTRACE_IOC_DTL_STATS
 * @addr: user address of an array of struct htmtrace_dtl_cpu_stats
 * @size: its size in bytes
 * @count: out: CPUs in the session; that many elements are stored if they
 *	fit, else nothing is and the command fails with -ENOSPC
 * @reserved: must be zero
 */
struct htmtrace_dtl_stats {
	__u64 addr;
	__u32 size;
	__u32 count;
	__u64 reserved[2];
};

/*
 * Stream records. Every record starts with struct htmtrace_dtl_rec: a type,
 * the record's length in bytes (header included, a multiple of 8) and the
 * CPU it is about. A reader skips a type it does not know by its length,
 * so new types can be added. Fields are in the byte order of the machine
 * that wrote the stream (a reader elsewhere recognises a swapped stream by
 * its first record, the clock, whose type then reads 0x0100), except the
 * hypervisor entry, which is passed through big-endian.
 */
#define HTMTRACE_DTL_REC_CLOCK	1	/* struct htmtrace_dtl_clock */
#define HTMTRACE_DTL_REC_ENTRY	2	/* struct htmtrace_dtl_entry_rec */
#define HTMTRACE_DTL_REC_LOST	3	/* struct htmtrace_dtl_lost */
#define HTMTRACE_DTL_REC_CPU	4	/* struct htmtrace_dtl_cpu */

/* No record is longer than this. */
#define HTMTRACE_DTL_REC_MAX	64

/*
 * Types from 0x8000 on are never the driver's: they are left to programs
 * that keep a stream in a file. htmtrace dtl record starts its file with
 * one of type HTMTRACE_DTL_REC_FILE (its layout: htmtrace(1), FILES); a
 * reader of the device never sees it.
 */
#define HTMTRACE_DTL_REC_FILE	0x8000

/**
 * struct htmtrace_dtl_rec - the header of every record
 * @type: HTMTRACE_DTL_REC_*
 * @len: bytes of the whole record
 * @cpu: the CPU the record is about (~0 for none)
 */
struct htmtrace_dtl_rec {
	__u16 type;
	__u16 len;
	__u32 cpu;
};

/**
 * struct htmtrace_dtl_clock - the first record of every session
 * @hdr: type HTMTRACE_DTL_REC_CLOCK, cpu ~0
 * @version: 1
 * @reserved: zero
 * @tb_freq: timebase ticks per second
 * @timebase: a timebase value, read together with the three clocks
 * @monotonic_ns: CLOCK_MONOTONIC at @timebase, in ns
 * @boottime_ns: CLOCK_BOOTTIME at @timebase, in ns
 * @realtime_ns: CLOCK_REALTIME at @timebase, in ns since the epoch
 *
 * An entry's timebase t is at @realtime_ns + (t - @timebase) * 10^9 /
 * @tb_freq on the wall clock, and likewise on the other clocks.
 */
struct htmtrace_dtl_clock {
	struct htmtrace_dtl_rec hdr;
	__u32 version;
	__u32 reserved;
	__u64 tb_freq;
	__u64 timebase;
	__u64 monotonic_ns;
	__u64 boottime_ns;
	__u64 realtime_ns;
};

/**
 * struct htmtrace_dtl_entry_rec - one hypervisor entry
 * @hdr: type HTMTRACE_DTL_REC_ENTRY, the CPU whose log held it
 * @entry: the 48-byte entry as the hypervisor wrote it (big-endian):
 *	u8 dispatch reason @0, u8 preempt reason @1, u16 processor id @2,
 *	u32 enqueue-to-dispatch, ready-to-enqueue and waiting-to-ready times
 *	@4, @8, @12 (timebase ticks), u64 timebase @16, fault address @24,
 *	SRR0 @32, SRR1 @40
 */
struct htmtrace_dtl_entry_rec {
	struct htmtrace_dtl_rec hdr;
	__u8 entry[HTMTRACE_DTL_ENTRY_SIZE];
};

/* Why entries were lost. */
#define HTMTRACE_DTL_LOST_OVERWRITTEN	1	/* by the hypervisor, unread */
#define HTMTRACE_DTL_LOST_DROPPED	2	/* the CPU's ring was full */

/**
 * struct htmtrace_dtl_lost - entries of a CPU that are not in the stream
 * @hdr: type HTMTRACE_DTL_REC_LOST
 * @why: HTMTRACE_DTL_LOST_*
 * @reserved: zero
 * @count: entries lost at this point of the CPU's sequence
 */
struct htmtrace_dtl_lost {
	struct htmtrace_dtl_rec hdr;
	__u32 why;
	__u32 reserved;
	__u64 count;
};

/* CPU events. */
#define HTMTRACE_DTL_CPU_JOINED		1	/* capture began on the CPU */
#define HTMTRACE_DTL_CPU_OFFLINE	2	/* the CPU went offline: ended */
#define HTMTRACE_DTL_CPU_LOST		3	/* another user changed its log */
#define HTMTRACE_DTL_CPU_FAILED		4	/* registration failed: @error */

/**
 * struct htmtrace_dtl_cpu - a CPU joined or left the capture
 * @hdr: type HTMTRACE_DTL_REC_CPU
 * @event: HTMTRACE_DTL_CPU_*
 * @error: for HTMTRACE_DTL_CPU_FAILED, the negative errno; else 0
 */
struct htmtrace_dtl_cpu {
	struct htmtrace_dtl_rec hdr;
	__u32 event;
	__s32 error;
};

#define HTMTRACE_IOC_DTL_CONFIGURE	_IOW(HTMTRACE_IOC_MAGIC, 0x20, struct htmtrace_dtl_config)
#define HTMTRACE_IOC_DTL_START		_IO(HTMTRACE_IOC_MAGIC, 0x21)
#define HTMTRACE_IOC_DTL_STOP		_IO(HTMTRACE_IOC_MAGIC, 0x22)
#define HTMTRACE_IOC_DTL_DECONFIGURE	_IO(HTMTRACE_IOC_MAGIC, 0x23)
#define HTMTRACE_IOC_DTL_STATS		_IOWR(HTMTRACE_IOC_MAGIC, 0x24, struct htmtrace_dtl_stats)
#define HTMTRACE_IOC_DTL_FLUSH		_IO(HTMTRACE_IOC_MAGIC, 0x25)

#endif /* _UAPI_LINUX_HTMTRACE_H */
