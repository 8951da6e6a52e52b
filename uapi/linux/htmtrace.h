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
 *   -EPERM   the command changes tracing state and the caller has neither
 *            CAP_PERFMON nor CAP_SYS_ADMIN (HTMTRACE_IOC_SETUP: not
 *            CAP_SYS_ADMIN)
 *   -EBADFD  the channel is not in a state where the command applies
 *            (e.g. START on an unconfigured channel)
 *   -EBUSY   the target, or one that overlaps it (HTMTRACE_TYPE_GLOBAL
 *            overlaps every unit), is held by another channel or perf
 *            event, or the hypervisor stayed busy for longer than the
 *            driver waits
 *   -EIO     the hypervisor failed the request (H_STATE, H_HARDWARE, ...)
 *   -EINTR   a fatal signal came while the command waited for the channel
 *
 * read() of an unconfigured channel, or of one that was never started,
 * fails with -ENODATA, and poll() reports EPOLLERR | EPOLLHUP for it.
 * read() of a tracing channel stops the trace (unless HTMTRACE_CFG_WAIT), so
 * it needs what HTMTRACE_IOC_STOP needs, checked against whoever opened the
 * file: -EPERM otherwise, and the trace goes on. The queries (STATUS, CAPS,
 * SYSMEM, SYSPROC, lseek SEEK_END) change nothing and need no capability.
 *
 * A hypervisor that reports the end of the data before the buffer size it
 * gave makes read() fail with -EIO, never return 0 early.
 * H_HTM returns no byte count: bytes of a transfer the hypervisor did not
 * write (H_PARTIAL) read as zeros, never as older trace or other memory.
 */
#ifndef _UAPI_LINUX_HTMTRACE_H
#define _UAPI_LINUX_HTMTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HTMTRACE_IOC_MAGIC	0xB9

/* HTM types, as encoded in the H_HTM operation word. */
#define HTMTRACE_TYPE_NEST	0x01
#define HTMTRACE_TYPE_CORE	0x02
#define HTMTRACE_TYPE_LLAT	0x03
#define HTMTRACE_TYPE_GLOBAL	0xff

/* Largest node, chip and core index the H_HTM target word can carry. */
#define HTMTRACE_INDEX_MAX	0xffff

/**
 * struct htmtrace_target - one HTM unit
 * @type: HTMTRACE_TYPE_*
 * @node: node index
 * @chip: chip index on the node
 * @core: core index on the chip
 */
struct htmtrace_target {
	__u32 type;
	__u32 node;
	__u32 chip;
	__u32 core;
};

/* Stop tracing when the buffer is full instead of wrapping. */
#define HTMTRACE_CFG_NOWRAP	0x1
/* read() and poll() wait for the trace to stop instead of stopping it. */
#define HTMTRACE_CFG_WAIT	0x2
#define HTMTRACE_CFG_FLAGS	(HTMTRACE_CFG_NOWRAP | HTMTRACE_CFG_WAIT)

/**
 * struct htmtrace_config - argument of HTMTRACE_IOC_CONFIGURE
 * @target: the unit to trace; held by this channel until deconfigured
 * @flags: HTMTRACE_CFG_*
 * @reserved: must be zero
 */
struct htmtrace_config {
	struct htmtrace_target target;
	__u32 flags;
	__u32 reserved[3];
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
 * @reserved: zero
 */
struct htmtrace_status {
	__u32 state;
	__u32 flags;
	struct htmtrace_target target;
	__u64 buffer_size;
	__u64 reserved[4];
};

/**
 * struct htmtrace_hvbuf - a hypervisor information block, copied to the user
 * @target: the unit the query is about (type 0 is allowed here)
 * @addr: user address of the destination buffer
 * @size: size of the destination buffer in bytes
 * @length: out: bytes the complete answer takes
 * @reserved: must be zero
 *
 * The configuration dumps (HTMTRACE_IOC_SYSMEM, HTMTRACE_IOC_SYSPROC) are
 * iterated: the driver asks the hypervisor for block after block and stores
 * the blocks back to back, each exactly as the hypervisor wrote it (a 32-byte
 * header whose big-endian u64 at offset 0x10 counts the entries that follow).
 * HTMTRACE_IOC_CAPS stores the 128-byte capabilities block.
 *
 * When @size is too small, nothing is stored, @length tells the size needed
 * and the command fails with -ENOSPC; @length must be zero on input.
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
