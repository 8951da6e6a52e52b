/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: channel helpers the commands share (cmd_dev.c).
 */
#ifndef _HTMTRACE_CHAN_H
#define _HTMTRACE_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

struct progress;

/* cmd_dev.c: device helpers used by record. */
int open_device(const char *path, int flags);
void chan_ioctl_err(int err, const char *what, const char *dev);
int chan_ioctl(int fd, const char *dev, unsigned long cmd, void *arg,
	       const char *what);

/* What copy_trace() did. */
struct trace_copy {
	__u64 start;	/* offset of the channel the copy began at (in) */
	__u64 done;	/* bytes written to the output since, all of them */
	int err;	/* -errno of the read() or write() that failed, or 0 */
	int write_err;	/* it was the output's write() */
	int stopped;	/* a signal stopped the copy */
};

int copy_trace(int fd, const char *dev, int out, const char *outname,
	       size_t bs, struct progress *prog, struct trace_copy *tc);
void query_status(int fd, struct htmtrace_status *st);
bool trace_remains(int err);
bool out_of_room(int err);
int format_of_buffer(char *buf, size_t len, __u64 bytes,
		     const struct htmtrace_status *st);
const char *ended_early(__u64 bytes, const struct htmtrace_status *st);
void print_dump_command(const char *dev, const char *file, __u64 offset);
int fetch_hvbuf(int fd, const char *dev, unsigned long cmd, const char *what,
		const struct htmtrace_target *t, unsigned char **bufp,
		size_t *lenp);
int fetch_sysmem(int fd, const char *dev, unsigned char **bufp, size_t *lenp,
		 __u64 *nr_blocks, __u64 *nr_entries);
void print_sysmem_written(FILE *f, size_t len, __u64 nr_blocks,
			  __u64 nr_entries, const char *name);
int parse_bs(const char *arg, size_t *bs);
int parse_mode_opt(const char *arg, __u64 *mask, __u64 *value, __u32 *flags);

#endif /* _HTMTRACE_CHAN_H */
