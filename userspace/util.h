/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: reporting and I/O helpers (util.c).
 */
#ifndef _HTMTRACE_UTIL_H
#define _HTMTRACE_UTIL_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/htmtrace.h>

#include "compiler.h"

/* Exit status of the tool. */
#define EXIT_OK			0
#define EXIT_FAIL		1
#define EXIT_USAGE		2

/* util.c: reporting and I/O helpers. */
/* The running command's name, for messages, and its help text (for -h). */
extern const char *prog_name;
extern const char *cmd_name;
extern const char *cmd_help;

__printf(1, 2) void pr_err(const char *fmt, ...);
__printf(2, 3) void pr_errno(int err, const char *fmt, ...);
__printf(1, 2) int usage_err(const char *fmt, ...);
int write_all(int fd, const void *buf, size_t len);
const char *plural(unsigned long long n, const char *one, const char *many);
int read_file(const char *path, unsigned char **bufp, size_t *lenp);
int create_file(const char *path);

/*
 * An output file written under a temporary name in its folder and renamed
 * over @path by out_commit(): a user's file is never truncated or removed
 * before the new one exists. A path that exists and is no regular file (a
 * FIFO, /dev/null, a terminal) is written in place.
 */
struct out_file {
	const char *path;
	char tmp[PATH_MAX];
	int staged;		/* written under @tmp until out_commit() */
	int existed;		/* a file was at @path: it stays until then */
	int committed;		/* renamed: the new file is at @path */
};
int out_open(struct out_file *of, const char *path);
int out_commit(struct out_file *of);
void out_discard(struct out_file *of);
int same_file(int fd, const char *path);
int shell_word(char *buf, size_t len, const char *s);
int device_word(char *buf, size_t len, const char *dev);
int sync_close(int fd);
void hexdump(FILE *f, const unsigned char *buf, size_t len);
void json_string(FILE *f, const char *s);
void json_hex(FILE *f, const unsigned char *buf, size_t len);
void json_target(FILE *f, const struct htmtrace_target *t);

#endif /* _HTMTRACE_UTIL_H */
