/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: command-line values, names and formatting (parse.c). Pure: no I/O.
 */
#ifndef _HTMTRACE_PARSE_H
#define _HTMTRACE_PARSE_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

#define DEFAULT_DEVICE		"/dev/htm0"
#define DEVICE_PREFIX		"/dev/htm"
#define DTL_DEVICE		"/dev/vpa_dtl"

/* Default and largest read() size of a trace. */
#define DEFAULT_BS		(1U << 20)
#define MAX_BS			(1U << 30)

/* Which fields of a target the command line gave. */
#define TARGET_TYPE		(1U << 0)
#define TARGET_NODE		(1U << 1)
#define TARGET_CHIP		(1U << 2)
#define TARGET_CORE		(1U << 3)
#define TARGET_ALL		(TARGET_TYPE | TARGET_NODE | TARGET_CHIP | \
				 TARGET_CORE)

struct target_arg {
	struct htmtrace_target t;
	unsigned int given;
};

/* parse.c: command-line values, names and formatting. */
int parse_u64(const char *s, __u64 *val);
int parse_type(const char *s, __u32 *type);
int parse_index(const char *s, __u32 *index);
int parse_index_list(const char *s, __u32 *vals, size_t *n, size_t max);
int parse_size(const char *s, __u64 *val);
int parse_seconds(const char *s, double *secs);
int parse_mode(const char *s, __u64 *mask, __u64 *value);
int device_path(char *buf, size_t len, const char *arg);
const char *type_name(__u32 type);
int format_target(char *buf, size_t len, const struct htmtrace_target *t);
int trace_file_name(char *buf, size_t len, const char *dir,
		    const char *prefix, const struct htmtrace_target *t);
const char *state_name(__u32 state);
int format_flags(char *buf, size_t len, __u32 flags);
int split_module_param(const char *arg, const char **name, int *to_sim);

#endif /* _HTMTRACE_PARSE_H */
