/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the progress line of a long dump on a terminal (progress.c).
 */
#ifndef _HTMTRACE_PROGRESS_H
#define _HTMTRACE_PROGRESS_H

#include <stddef.h>
#include <linux/types.h>

/* progress.c: the progress line of a long dump on a terminal. */
enum { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

struct progress {
	int on;		/* show the line */
	__u64 total;	/* bytes expected, 0 if unknown */
	__u64 done;	/* bytes copied */
	double start;	/* CLOCK_MONOTONIC seconds */
	double last;	/* of the last update */
	size_t width;	/* of the line shown, 0 if none */
	__u64 base;	/* bytes of earlier copies (several traces) */
	int more;	/* another copy follows: a good end keeps the line */
};

void progress_init(struct progress *p, int mode);
void progress_update(struct progress *p, __u64 done);
void progress_end(struct progress *p, int ok);

#endif /* _HTMTRACE_PROGRESS_H */
