/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the tool's internal interfaces.
 *
 * parse.c, hvblock.c and verify.c are pure: they take memory and return
 * values, never touch a device or print. The command files (cmd_*.c) do the
 * I/O and the reporting.
 */
#ifndef _HTMTRACE_TOOL_H
#define _HTMTRACE_TOOL_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))

/* Exit status of the tool. */
#define EXIT_OK			0
#define EXIT_FAIL		1
#define EXIT_USAGE		2

#define DEFAULT_DEVICE		"/dev/htm0"
#define DEVICE_PREFIX		"/dev/htm"
#define DTL_DEVICE		"/dev/vpa_dtl"

/* Default and largest read() size of a trace. */
#define DEFAULT_BS		(1U << 20)
#define MAX_BS			(1U << 30)

/*
 * Hypervisor information blocks (SYSMEM, SYSPROC): a 32-byte header with a
 * big-endian "next entry" iterator at +0x08 and a big-endian entry count at
 * +0x10, followed by the entries.
 */
#define HVBLOCK_HDR_SIZE	32
#define HVBLOCK_NEXT		0x08
#define HVBLOCK_NR_ENTRIES	0x10
#define SYSMEM_ENTRY_SIZE	32
#define SYSPROC_ENTRY_SIZE	16

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
__u64 target_word(const struct htmtrace_target *t);
void target_from_word(struct htmtrace_target *t, __u64 word);
int target_matches(__u64 word, const struct target_arg *filter);
int split_module_param(const char *arg, const char **name, int *to_sim);

/* hvblock.c: hypervisor information blocks. */
struct hvblock {
	size_t offset;		/* of the block in the buffer */
	size_t size;		/* header and entries */
	__u64 next;		/* iterator at +0x08 */
	__u64 nr_entries;	/* entry count at +0x10 */
};

__u64 get_be64(const unsigned char *p);
int hvblock_parse(const unsigned char *buf, size_t len, size_t off,
		  size_t entry_size, struct hvblock *blk);
int count_blocks(const unsigned char *buf, size_t len, size_t entry_size,
		 __u64 *nr_blocks, __u64 *nr_entries, size_t *bad_off);

/* verify.c: simulated trace records. */
enum verify_status {
	VERIFY_OK,
	VERIFY_EMPTY,		/* the dump has no bytes */
	VERIFY_PARTIAL,		/* the size is not a multiple of a record */
	VERIFY_MISMATCH,	/* a slot does not hold what it should */
	VERIFY_TOO_BIG,		/* larger than the buffer, or a bad buffer size */
};

struct verify_result {
	enum verify_status status;
	__u64 nslots;		/* slots of the buffer */
	__u64 nrecords;		/* whole records the dump holds */
	size_t tail;		/* bytes of a last record cut short */
	__u64 written;		/* records written since START, inferred */
	__u64 valid;		/* slots holding their record */
	__u64 zero;		/* slots never written and zero */
	__u64 bad;		/* slots holding something else */
	__u64 target;		/* target word of the records */
	int have_target;
	int wrapped;
	/* The first slot that is wrong (status VERIFY_MISMATCH). */
	__u64 bad_offset;	/* byte offset of the slot */
	__u64 bad_byte;		/* byte offset of its first wrong byte */
	int bad_expect_zero;	/* the slot should be zero */
	__u64 bad_expect_seq;	/* else the record it should hold */
};

void sim_slot_fill(unsigned char *rec, __u64 target, __u64 slot,
		   __u64 nslots, __u64 written);
void verify_dump(const unsigned char *buf, size_t size,
		 const struct target_arg *filter, __u64 buffer_size,
		 struct verify_result *res);

/* dtl.c: dispatch trace log streams and the dtl command line. */

/* Highest CPU a -C list may name (a mask of 1 KiB). */
#define DTL_CPU_MAX		8191

/* One hypervisor entry, decoded (struct htmtrace_dtl_entry_rec). */
struct dtl_entry {
	__u8 dispatch_reason;
	__u8 preempt_reason;
	__u16 processor_id;
	__u32 enqueue_to_dispatch;	/* timebase ticks */
	__u32 ready_to_enqueue;
	__u32 waiting_to_ready;
	__u64 timebase;
	__u64 fault_addr;
	__u64 srr0;
	__u64 srr1;
};

/* What dtl_rec_check() finds at an offset of a stream. */
enum dtl_rec_status {
	DTL_REC_OK,
	DTL_REC_END,		/* no bytes left */
	DTL_REC_TRUNC_HDR,	/* fewer bytes left than a header */
	DTL_REC_TRUNC,		/* fewer bytes left than the record's length */
	DTL_REC_SHORT,		/* length below a header */
	DTL_REC_ALIGN,		/* length not a multiple of 8 */
	DTL_REC_SMALL,		/* a known type shorter than its struct */
	DTL_REC_SWAPPED,	/* a stream of the other byte order */
};

int parse_cpu_list(const char *s, __u64 **maskp, __u32 *sizep);
int format_cpu_list(char *buf, size_t len, const __u64 *mask, size_t words);
int parse_dtl_events(const char *s, __u32 *mask);
int format_dtl_events(char *buf, size_t len, __u32 mask);
const char *dtl_dispatch_name(unsigned int code);
const char *dtl_preempt_name(unsigned int code);
const char *dtl_rec_name(__u16 type);
const char *dtl_lost_name(__u32 why);
const char *dtl_cpu_event_name(__u32 event);
const char *dtl_cpu_state_name(__u32 state);
size_t dtl_rec_min_len(__u16 type);
enum dtl_rec_status dtl_rec_check(const unsigned char *buf, size_t len,
				  size_t off, struct htmtrace_dtl_rec *hdr);
void dtl_entry_decode(const unsigned char *p, struct dtl_entry *e);
long long dtl_tb_to_ns(const struct htmtrace_dtl_clock *c, __u64 tb,
		       __u64 clock_ns);
__u64 dtl_ticks_to_ns(__u64 ticks, __u64 tb_freq);
int format_seconds(char *buf, size_t len, long long ns);
int format_utc(char *buf, size_t len, long long ns);
int format_us(char *buf, size_t len, __u64 ns);

/* workload.c: the workload, the duration and Ctrl-C of the captures. */
extern volatile sig_atomic_t interrupted;

struct workload {
	pid_t pid;
	int go_fd;	/* write end: one byte lets the child exec */
	int err_fd;	/* read end: errno of a failed exec, or EOF */
	int status;	/* wait status once reaped */
	int reaped;
	char **argv;	/* the command, or NULL for none */
	int have_secs;	/* --duration given: run for secs */
	double secs;
};

#define WORKLOAD_INIT	{ .go_fd = -1, .err_fd = -1 }

void capture_sigset(sigset_t *set, int chld);
int catch_signals(int chld);
void release_signals(void);
int workload_duration(struct workload *wl, const char *arg);
int workload_operands(struct workload *wl, int argc, char **argv);
int workload_prepare(struct workload *wl);
int workload_go(struct workload *wl);
int workload_reap(struct workload *wl);
int workload_poll(struct workload *wl);
void sleep_for(double secs);
int wait_for_signal(void);
void print_workload(const struct workload *wl);

/* util.c: reporting and I/O helpers. */
extern const char *cmd_name;

__printf(1, 2) void pr_err(const char *fmt, ...);
__printf(2, 3) void pr_errno(int err, const char *fmt, ...);
__printf(1, 2) int usage_err(const char *fmt, ...);
int write_all(int fd, const void *buf, size_t len);
int read_file(const char *path, unsigned char **bufp, size_t *lenp);
int create_file(const char *path);
int shell_word(char *buf, size_t len, const char *s);
int device_word(char *buf, size_t len, const char *dev);
int sync_close(int fd);
void hexdump(FILE *f, const unsigned char *buf, size_t len);
void json_string(FILE *f, const char *s);
void json_hex(FILE *f, const unsigned char *buf, size_t len);
void json_target(FILE *f, const struct htmtrace_target *t);

/* progress.c: the progress line of a long dump on a terminal. */
enum { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

struct progress {
	int on;		/* show the line */
	__u64 total;	/* bytes expected, 0 if unknown */
	__u64 done;	/* bytes copied */
	double start;	/* CLOCK_MONOTONIC seconds */
	double last;	/* of the last update */
	size_t width;	/* of the line shown, 0 if none */
};

void progress_init(struct progress *p, int mode);
void progress_update(struct progress *p, __u64 done);
void progress_end(struct progress *p, int ok);

/* htmtrace.c: option helpers shared by the commands. */

/* Options with no short form, the values getopt_long() returns for them. */
enum {
	OPT_BS = 256,
	OPT_DIR,
	OPT_DRY_RUN,
	OPT_DURATION,
	OPT_FORMAT,
	OPT_HEX,
	OPT_JSON,
	OPT_BUFFER_SIZE,
	OPT_MIN_RECORDS,
	OPT_MODE,
	OPT_NOWRAP,
	OPT_NO_PROGRESS,
	OPT_OFFSET,
	OPT_PROGRESS,
	OPT_RING_KB,
	OPT_ROOT,
	OPT_WRAP,
	OPT_SIM,
	OPT_WAIT,
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
	int status;		/* exit status after OPTS_STOP */
};

/* What next_option() returns besides the command's own options. */
#define OPTS_END	0	/* options done: go on */
#define OPTS_STOP	(-1)	/* return cmd_opts.status: help or usage error */

struct option;
int next_option(int argc, char **argv, const char *optstring,
		const struct option *longopts, struct cmd_opts *co);
int target_require(const struct target_arg *ta, unsigned int need);
int read_file_operand(int argc, char **argv, const char **file,
		      unsigned char **bufp, size_t *lenp);

/* The commands: each returns an exit status. */
int cmd_caps(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_configure(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_deconfigure(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_sysmem(int argc, char **argv);
int cmd_sysproc(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_simgen(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_dtl_record(int argc, char **argv);
int cmd_dtl_report(int argc, char **argv);

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
int parse_bs(const char *arg, size_t *bs);
int parse_mode_opt(const char *arg, __u64 *mask, __u64 *value, __u32 *flags);

#endif /* _HTMTRACE_TOOL_H */
