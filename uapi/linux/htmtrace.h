/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * htmtrace: user ABI of the POWER Hardware Trace Macro character devices.
 *
 * Each /dev/htmN is one HTM channel. A channel is configured for one
 * hardware target (type, node, chip, core), started, stopped and then read:
 * the file position of /dev/htmN is the byte offset in the target's HTM
 * buffer, and read() returns 0 once the hypervisor reports the offset past
 * the end of the buffer.
 *
 * Errors shared by every command:
 *   -ENOTTY  unknown command
 *   -EFAULT  the argument points outside the caller's memory
 *   -EINVAL  a reserved field or unknown flag is non-zero, or a value is out
 *            of range
 *   -EINTR   a fatal signal came while the command waited for the channel
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
 *                           (HTMTRACE_TYPE_GLOBAL overlaps every unit), is
 *                           held by another channel or a perf event;
 *                           -ENOMEM
 *   HTMTRACE_IOC_START      -EPERM as above; -EBADFD unless configured or
 *                           stopped
 *   HTMTRACE_IOC_STOP       -EPERM as above; -EBADFD if never started (a
 *                           stopped channel stops again with success)
 *   HTMTRACE_IOC_DECONFIGURE -EPERM as above; -EBADFD if not configured.
 *                           A STOP that fails does not keep the target:
 *                           DECONFIGURE is asked for regardless.
 *   HTMTRACE_IOC_SETUP      -EPERM without CAP_SYS_ADMIN
 *   HTMTRACE_IOC_STATUS     none beyond the shared ones (idle: no hcall)
 *   HTMTRACE_IOC_CAPS, _SYSMEM, _SYSPROC
 *                           -ENOSPC if the buffer is too small (the only
 *                           meaning of -ENOSPC), -ENOMEM
 * None of the queries (STATUS, CAPS, SYSMEM, SYSPROC, lseek SEEK_END)
 * changes anything, and none needs a capability.
 *
 * Reading. read() of an unconfigured channel, or of one that was never
 * started, fails with -ENODATA, and poll() reports EPOLLERR | EPOLLHUP for
 * it. read() of a tracing channel stops the trace (unless HTMTRACE_CFG_WAIT),
 * so it needs what HTMTRACE_IOC_STOP needs, checked against whoever opened
 * the file: -EPERM otherwise, and the trace goes on. With HTMTRACE_CFG_WAIT
 * it waits for the trace to stop (-EAGAIN with O_NONBLOCK). Each open file
 * has a bounce buffer of its own, allocated at its first read() (-ENOMEM if
 * not even 64 KiB can be had), so that files reading at different offsets
 * do not refetch each other's chunks.
 *
 * A file reads one trace: the one its first read() after open() or lseek()
 * found (or waited for). Once that trace is gone - restarted by a START, or
 * dropped by a DECONFIGURE, from any file - read() fails with -ESTALE, and
 * poll() reports EPOLLIN | EPOLLERR, until the file is lseek()ed: bytes of
 * two traces are never spliced. HTMTRACE_IOC_STATUS reports the generation
 * of the channel's trace, which changes at every START and DECONFIGURE.
 *
 * A hypervisor that reports the end of the data before the buffer size it
 * gave makes read() fail with -EIO, never return 0 early.
 * H_HTM returns no byte count: bytes of a transfer the hypervisor did not
 * write (H_PARTIAL) read as zeros, never as older trace or other memory.
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
/* read() and poll() wait for the trace to stop instead of stopping it. */
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
 *	the driver passes all ones twice, the hypervisor's "default HTM mode"
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

/**
 * struct htmtrace_status - result of HTMTRACE_IOC_STATUS
 * @state: HTMTRACE_STATE_*
 * @flags: HTMTRACE_CFG_* the channel was configured with
 * @target: the configured target (zero when idle)
 * @buffer_size: size in bytes of the target's HTM buffer, as the hypervisor
 *	reports it (0 when idle)
 * @generation: the trace's generation; it changes at every START and every
 *	DECONFIGURE of the channel, so two equal values read around a dump say
 *	that the dump is of one trace
 * @reserved: zero
 */
struct htmtrace_status {
	__u32 state;
	__u32 flags;
	struct htmtrace_target target;
	__u64 buffer_size;
	__u64 generation;
	__u64 reserved[3];
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

#define HTMTRACE_IOC_CAPS	_IOWR(HTMTRACE_IOC_MAGIC, 0x01, struct htmtrace_hvbuf)
#define HTMTRACE_IOC_SETUP	_IOW(HTMTRACE_IOC_MAGIC, 0x02, struct htmtrace_setup)
#define HTMTRACE_IOC_CONFIGURE	_IOW(HTMTRACE_IOC_MAGIC, 0x03, struct htmtrace_config)
#define HTMTRACE_IOC_START	_IO(HTMTRACE_IOC_MAGIC, 0x04)
#define HTMTRACE_IOC_STOP	_IO(HTMTRACE_IOC_MAGIC, 0x05)
#define HTMTRACE_IOC_DECONFIGURE _IO(HTMTRACE_IOC_MAGIC, 0x06)
#define HTMTRACE_IOC_STATUS	_IOR(HTMTRACE_IOC_MAGIC, 0x07, struct htmtrace_status)
#define HTMTRACE_IOC_SYSMEM	_IOWR(HTMTRACE_IOC_MAGIC, 0x08, struct htmtrace_hvbuf)
#define HTMTRACE_IOC_SYSPROC	_IOWR(HTMTRACE_IOC_MAGIC, 0x09, struct htmtrace_hvbuf)

#endif /* _UAPI_LINUX_HTMTRACE_H */
