/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the option loop and the options the commands share (opts.c).
 */
#ifndef _HTMTRACE_OPTS_H
#define _HTMTRACE_OPTS_H

#include <limits.h>
#include "parse.h"

/* Options with no short form, the values getopt_long() returns for them. */
enum {
	OPT_BS = 256,
	OPT_DIR,
	OPT_DRY_RUN,
	OPT_DURATION,
	OPT_FORMAT,
	OPT_HEADER,
	OPT_HEADER_ONLY,
	OPT_HEX,
	OPT_INPUT,
	OPT_JSON,
	OPT_LATENCY,
	OPT_MIN_WAIT,
	OPT_MODE,
	OPT_NOWRAP,
	OPT_PREEMPT,
	OPT_DISPATCH,
	OPT_NO_PROGRESS,
	OPT_OFFSET,
	OPT_PROGRESS,
	OPT_RELTIME,
	OPT_RING_KB,
	OPT_ROOT,
	OPT_WRAP,
	OPT_SIM,
	OPT_SUMMARY,
	OPT_TIME,
	OPT_WAIT,
	OPT_WINDOW,
	OPT_WORST,
};

/* Entries of a command's struct option table, spelt once. */
#define TARGET_OPTIONS \
	{ "type", required_argument, NULL, 't' }, \
	{ "node", required_argument, NULL, 'n' }, \
	{ "chip", required_argument, NULL, 'p' }, \
	{ "core", required_argument, NULL, 'c' }
#define DEVICE_OPTION	{ "device", required_argument, NULL, 'd' }
#define PROGRESS_OPTIONS \
	{ "progress", no_argument, NULL, OPT_PROGRESS }, \
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS }
#define HELP_OPTION	{ "help", no_argument, NULL, 'h' }
#define OPTIONS_END	{ NULL, 0, NULL, 0 }

/*
 * The options the commands share, gathered by next_option(): the target
 * (-t -n -p -c) and the channel (-d). The caller zero-initialises it and
 * sets @operands if the command takes operands after its options.
 */
struct cmd_opts {
	struct target_arg ta;
	char dev[PATH_MAX];	/* DEFAULT_DEVICE unless -d or preset */
	int dev_given;
	int dev_is_path;	/* -d takes a path only, not a channel number */
	int operands;
	int own_targets;	/* -t -n -p -c -d go to the command */
	int status;		/* exit status after OPTS_STOP */
};

/* What next_option() returns besides the command's own options. */
#define OPTS_END	0	/* options done: go on */
#define OPTS_STOP	(-1)	/* return cmd_opts.status: help or usage error */

struct option;
int next_option(int argc, char **argv, const char *optstring,
		const struct option *longopts, struct cmd_opts *co);
int target_require(const struct target_arg *ta, unsigned int need);
int device_opt(char *buf, size_t len, const char *arg, int is_path);
int read_file_operand(int argc, char **argv, const char **file,
		      unsigned char **bufp, size_t *lenp);

#endif /* _HTMTRACE_OPTS_H */
