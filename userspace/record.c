// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace record: trace HTM units while a workload runs and write the
 * files perf writes for htmdecode, a pair per unit (target).
 *
 * Order: create the output files of every target (so that a bad -o fails
 * before the hardware is touched), fork the workload held on a pipe, claim
 * and configure a channel per target (nothing stays configured if one
 * cannot be had), start them all, release the workload (or sleep, or wait
 * for a signal), stop them all, then per target: read the trace, fetch the
 * memory configuration, deconfigure.
 *
 * What follows holds per target.
 * The files are written under temporary names in the output folder
 * (util.c's out_open()) and renamed over the old ones once the trace is
 * taken: until then every failure deconfigures and removes the new files,
 * and files of an earlier record stay as they were. Once it is taken, nothing destroys it: the HTM
 * buffer lives in the hypervisor until DECONFIGURE, so the channel is
 * deconfigured only once the whole trace is on disk (written, flushed and
 * closed). If the copy fails (a full disk, a read error) or Ctrl-C stops
 * it, the trace file keeps what was written, under its own name, the
 * channel is left configured and stopped, and the commands that finish
 * the job are printed: a dump resumed at the offset reached, the memory
 * configuration, the deconfigure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "chan.h"
#include "commands.h"
#include "hvblock.h"
#include "opts.h"
#include "progress.h"
#include "util.h"
#include "workload.h"

/*
 * Stop the channel if it is still tracing (no-wrap may have stopped it).
 * Returns 0, 1 if the hypervisor refused the stop (H_STATE: the trace may
 * still run, so the driver reads none of it; the read sends the stop again
 * and reads the trace only if that one succeeds), or -1 (reported).
 */
static int stop_trace(int fd, const char *dev, struct htmtrace_status *st)
{
	struct htmtrace_status after;
	int err;

	memset(st, 0, sizeof(*st));
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_STATUS, st, "status"))
		return -1;
	if (st->state != HTMTRACE_STATE_TRACING)
		return 0;
	if (!ioctl(fd, HTMTRACE_IOC_STOP)) {
		st->state = HTMTRACE_STATE_STOPPED;
		return 0;
	}
	err = errno;
	query_status(fd, &after);
	if (err == EIO && (after.hv_flags & HTMTRACE_STATUS_STOP_REFUSED)) {
		pr_errno(err, "stop %s", dev);
		pr_err("the hypervisor refused the stop: no data is read while the trace may run; the read asks for the stop again");
		*st = after;
		return 1;
	}
	chan_ioctl_err(err, "stop", dev);
	return -1;
}

/* Fetch the memory configuration and write it. Returns 0 or -1 (reported). */
static int save_sysmem(int fd, const char *dev, int out, const char *outname,
		       size_t *len, __u64 *nr_blocks, __u64 *nr_entries)
{
	unsigned char *buf;
	int err;

	if (fetch_sysmem(fd, dev, &buf, len, nr_blocks, nr_entries))
		return -1;
	err = write_all(out, buf, *len);
	free(buf);
	if (err) {
		pr_errno(-err, "write %s", outname);
		return -1;
	}
	return 0;
}

/* Where record writes, for what follows the trace. */
struct record_files {
	const char *dev;
	int fd;			/* the channel */
	const char *trace_name, *xlate_name;
	int trace_fd, xlate_fd;
	struct out_file *trace_of, *xlate_of;	/* renamed once taken */
	size_t bs;
};

/*
 * The trace is taken: the new files replace the old ones under their own
 * names. A rename that fails leaves the new file under its temporary name,
 * and says so. Returns 0 or -1 (reported).
 */
static int commit_files(struct record_files *rf)
{
	struct out_file *of[2] = { rf->trace_of, rf->xlate_of };
	const char **name[2] = { &rf->trace_name, &rf->xlate_name };
	int i, err, ret = 0;

	for (i = 0; i < 2; i++) {
		err = out_commit(of[i]);
		if (!err)
			continue;
		pr_errno(-err, "rename %s to %s", of[i]->tmp, *name[i]);
		*name[i] = of[i]->tmp;
		ret = -1;
	}
	return ret;
}

/*
 * The copy did not finish: the trace file keeps what was written, the
 * channel the whole trace. Say so, and print the commands that finish
 * the job.
 */
static void print_kept(const struct record_files *rf,
		       const struct trace_copy *tc,
		       const struct htmtrace_status *st, __u64 kept,
		       int close_failed)
{
	char text[160], d[PATH_MAX + 8], x[4 * PATH_MAX + 8];

	format_of_buffer(text, sizeof(text), tc->done, st);
	if (close_failed)
		pr_err("%s may hold less than the %s written to it: the dump is redone from the start",
		       rf->trace_name, text);
	else
		pr_err("kept %s in %s: the dump is incomplete", text,
		       rf->trace_name);
	pr_err("%s still holds the whole trace, left configured and stopped; to finish%s, then release the channel:",
	       rf->dev, tc->write_err && out_of_room(tc->err) ?
	       " once there is room" : "");
	print_dump_command(rf->dev, rf->trace_name, kept);
	if (device_word(d, sizeof(d), rf->dev))
		snprintf(d, sizeof(d), "DEV");
	if (shell_word(x, sizeof(x), rf->xlate_name))
		snprintf(x, sizeof(x), "FILE");
	fprintf(stderr, "  htmtrace sysmem -d %s -o %s\n", d, x);
	fprintf(stderr, "  htmtrace deconfigure -d %s\n", d);
}

/* What take_trace() did. */
enum taken {
	TAKEN_NONE,		/* no trace to keep: clean up */
	TAKEN_PART,		/* the trace file is incomplete: channel kept */
	TAKEN_NO_XLATE,		/* the trace is whole, the translation missing */
	TAKEN_NOT_RELEASED,	/* both files whole, the deconfigure failed */
	TAKEN_ALL,		/* both files whole, deconfigured */
};

/*
 * The trace is taken (stopped, or its stop refused with @refused): read it
 * into the trace file, write the memory configuration, and deconfigure
 * once the whole trace is on disk. On a failure, what can be redone is:
 * the channel stays configured until the trace file is complete. Closes
 * both files, except with TAKEN_NONE: there is no trace to keep, and the
 * caller cleans up as before the trace. Returns what was done (reported).
 */
static enum taken take_trace(struct record_files *rf,
			     struct htmtrace_status *st, int refused,
			     struct progress *prog, __u64 *trace_len,
			     size_t *xlate_len, __u64 *nr_blocks,
			     __u64 *nr_entries)
{
	sig_atomic_t seen = interrupted;
	struct htmtrace_status after;
	struct trace_copy tc = { 0 };
	char text[160], d[PATH_MAX + 8], x[4 * PATH_MAX + 8];
	int copied, err, xlate_ok = 0, deconfigured, close_failed = 0;

	/* Stopped: the trace exists, in the hypervisor; the files replace. */
	if (!refused)
		commit_files(rf);
	copied = !copy_trace(rf->fd, rf->dev, rf->trace_fd, rf->trace_name,
			     rf->bs, prog, &tc);
	*trace_len = tc.done;
	if (!copied && !tc.done && !tc.write_err && !tc.stopped &&
	    (refused || !trace_remains(tc.err))) {
		if (refused)
			pr_err("the hypervisor refused the stop and the read: no trace to keep");
		return TAKEN_NONE;
	}
	/* A refused stop: a trace, now that the read found one. */
	commit_files(rf);

	/* Flushed, so that the deconfigure cannot lose what the disk lacks. */
	err = sync_close(rf->trace_fd);
	rf->trace_fd = -1;
	if (err) {
		pr_errno(-err, "close %s", rf->trace_name);
		/* What reached the disk is not known: from the start. */
		copied = 0;
		close_failed = 1;
		if (!tc.err) {
			tc.err = err;
			tc.write_err = 1;
		}
	}
	/*
	 * The size and where the data ended, as the read found them; not
	 * after Ctrl-C, which asks for no more hypervisor calls.
	 */
	if (!tc.stopped) {
		query_status(rf->fd, &after);
		if (!after.buffer_size)
			after.buffer_size = st->buffer_size;
		*st = after;
	}

	if (!copied) {
		close(rf->xlate_fd);
		rf->xlate_fd = -1;
		unlink(rf->xlate_name);
		print_kept(rf, &tc, st, close_failed ? 0 : tc.done,
			   close_failed);
		return TAKEN_PART;
	}

	/* The whole trace is on disk: the hypervisor's copy may go. */
	if (interrupted != seen) {
		pr_err("interrupted: the memory configuration was not fetched");
	} else if (!save_sysmem(rf->fd, rf->dev, rf->xlate_fd,
				rf->xlate_name, xlate_len, nr_blocks,
				nr_entries)) {
		err = sync_close(rf->xlate_fd);
		rf->xlate_fd = -1;
		if (err)
			pr_errno(-err, "close %s", rf->xlate_name);
		else
			xlate_ok = 1;
	}
	if (rf->xlate_fd >= 0)
		close(rf->xlate_fd);
	rf->xlate_fd = -1;
	deconfigured = !chan_ioctl(rf->fd, rf->dev, HTMTRACE_IOC_DECONFIGURE,
				   NULL, "deconfigure");
	if (xlate_ok)
		return deconfigured ? TAKEN_ALL : TAKEN_NOT_RELEASED;
	unlink(rf->xlate_name);
	format_of_buffer(text, sizeof(text), tc.done, st);
	pr_err("kept the whole trace in %s: %s", rf->trace_name, text);
	if (device_word(d, sizeof(d), rf->dev))
		snprintf(d, sizeof(d), "DEV");
	if (shell_word(x, sizeof(x), rf->xlate_name))
		snprintf(x, sizeof(x), "FILE");
	pr_err("the memory configuration is missing; to fetch it:");
	fprintf(stderr, "  htmtrace sysmem -d %s -o %s\n", d, x);
	return TAKEN_NO_XLATE;
}

/*
 * A Ctrl-C stopped an earlier target's copy: this one's trace is not read
 * (no more hypervisor calls). Its file stays, empty; its channel keeps
 * the whole trace, configured and stopped. Returns TAKEN_PART.
 */
static enum taken leave_trace(struct record_files *rf,
			      const struct htmtrace_status *st)
{
	struct trace_copy tc = { 0 };

	commit_files(rf);
	close(rf->trace_fd);
	rf->trace_fd = -1;
	close(rf->xlate_fd);
	rf->xlate_fd = -1;
	unlink(rf->xlate_name);
	print_kept(rf, &tc, st, 0, 0);
	return TAKEN_PART;
}

/* Most targets of one record: one channel each, and channels are 1..64. */
#define RECORD_MAX_TARGETS	64

/* One target of a record, from its channel to its files. */
struct rec_target {
	struct htmtrace_target t;
	char name[128];		/* "core node 0 chip 2 core 5" */
	char dev[PATH_MAX];
	int fd;			/* the channel, -1 before one is claimed */
	int configured, started;
	int refused;		/* the hypervisor refused its stop */
	char trace_name[PATH_MAX], xlate_name[PATH_MAX];
	int trace_fd, xlate_fd;
	struct out_file trace_of, xlate_of;
	struct htmtrace_status st;
	enum taken taken;
	__u64 trace_len;
	size_t xlate_len;
	__u64 nr_blocks, nr_entries;
};

/* The target values the command line gave: lists, one per field. */
struct target_lists {
	__u32 type[RECORD_MAX_TARGETS];
	__u32 node[RECORD_MAX_TARGETS];
	__u32 chip[RECORD_MAX_TARGETS];
	__u32 core[RECORD_MAX_TARGETS];
	size_t ntype, nnode, nchip, ncore;
};

/* -t TYPE[,TYPE...]. Returns EXIT_OK or, after a message, EXIT_USAGE. */
static int add_types(struct target_lists *tl, const char *arg)
{
	char item[64];
	const char *s = arg, *end;
	__u32 type;
	size_t i, len;
	int err;

	do {
		end = strchrnul(s, ',');
		len = end - s;
		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, s, len);
		item[len] = '\0';
		err = parse_type(item, &type);
		if (err == -ERANGE)
			return usage_err("HTM type '%s' out of range 0..255",
					 item);
		if (err)
			return usage_err("unknown HTM type '%s': expected nest, core, llat, global or a number 0..255",
					 item);
		for (i = 0; i < tl->ntype && tl->type[i] != type; i++)
			;
		if (i == tl->ntype) {
			if (tl->ntype == RECORD_MAX_TARGETS)
				return usage_err("too many targets: at most %d",
						 RECORD_MAX_TARGETS);
			tl->type[tl->ntype++] = type;
		}
		s = end + 1;
	} while (*end);
	return EXIT_OK;
}

/* -n, -p or -c LIST. Returns EXIT_OK or, after a message, EXIT_USAGE. */
static int add_indices(struct target_lists *tl, int opt, const char *arg)
{
	const char *name = opt == 'n' ? "node" : opt == 'p' ? "chip" : "core";
	__u32 *vals = opt == 'n' ? tl->node : opt == 'p' ? tl->chip : tl->core;
	size_t *n = opt == 'n' ? &tl->nnode : opt == 'p' ? &tl->nchip :
		    &tl->ncore;
	int err = parse_index_list(arg, vals, n, RECORD_MAX_TARGETS);

	/* One index: the messages of every command's target options. */
	if (err == -ERANGE && !strpbrk(arg, ",-"))
		return usage_err("%s index '%s' out of range 0..%u", name, arg,
				 HTMTRACE_INDEX_MAX);
	if (err && err != -E2BIG && !strpbrk(arg, ",-"))
		return usage_err("%s index '%s' is not a number", name, arg);
	if (err == -ERANGE)
		return usage_err("%s index in '%s' out of range 0..%u", name,
				 arg, HTMTRACE_INDEX_MAX);
	if (err == -E2BIG)
		return usage_err("too many targets: at most %d",
				 RECORD_MAX_TARGETS);
	if (err)
		return usage_err("bad %s list '%s': expected indices or ranges such as 0-7,9",
				 name, arg);
	return EXIT_OK;
}

/*
 * Every combination of the lists, in the order given (type, node, chip,
 * core, the core varying fastest), into @rt. Returns the number of
 * targets, or 0 after a usage message.
 */
static size_t expand_targets(const struct target_lists *tl,
			     struct rec_target *rt)
{
	size_t a, b, c, d, n = 0;

	if (!tl->ntype || !tl->nnode || !tl->nchip || !tl->ncore) {
		usage_err("missing target: %s is required",
			  !tl->ntype ? "-t TYPE" : !tl->nnode ? "-n NODE" :
			  !tl->nchip ? "-p CHIP" : "-c CORE");
		return 0;
	}
	if (tl->ntype * tl->nnode * tl->nchip * tl->ncore >
	    RECORD_MAX_TARGETS) {
		usage_err("too many targets: %zu, at most %d",
			  tl->ntype * tl->nnode * tl->nchip * tl->ncore,
			  RECORD_MAX_TARGETS);
		return 0;
	}
	for (a = 0; a < tl->ntype; a++)
		for (b = 0; b < tl->nnode; b++)
			for (c = 0; c < tl->nchip; c++)
				for (d = 0; d < tl->ncore; d++, n++) {
					rt[n].t.type = tl->type[a];
					rt[n].t.node = tl->node[b];
					rt[n].t.chip = tl->chip[c];
					rt[n].t.core = tl->core[d];
				}
	return n;
}

/*
 * Claim a channel for every target and configure it. With -d, the
 * channels given, one per target in order; else the first free ones of
 * /dev/htm0, /dev/htm1, ... (a channel configured by someone else is
 * skipped). Returns 0, or -1 after a message naming the target (the
 * caller deconfigures what was configured).
 */
static int claim_channels(struct rec_target *rt, size_t n,
			  char (*devs)[PATH_MAX], size_t ndevs,
			  const struct htmtrace_config *tmpl)
{
	struct htmtrace_config cfg;
	unsigned int next = 0, seen = 0, in_use = 0;
	size_t i;
	int fd, err;

	for (i = 0; i < n; i++) {
		for (;;) {
			if (ndevs) {
				memcpy(rt[i].dev, devs[i], sizeof(rt[i].dev));
				fd = open_device(rt[i].dev, O_RDWR);
				if (fd < 0)
					return -1;
			} else {
				if (next >= RECORD_MAX_TARGETS)
					goto too_few;
				snprintf(rt[i].dev, sizeof(rt[i].dev), "%s%u",
					 DEVICE_PREFIX, next++);
				fd = open(rt[i].dev, O_RDWR | O_CLOEXEC);
				if (fd < 0 && errno == ENOENT && seen)
					goto too_few;
				if (fd < 0) {
					/* Reported as open_device() does. */
					close(open_device(rt[i].dev, O_RDWR));
					return -1;
				}
				seen++;
			}
			cfg = *tmpl;
			cfg.target = rt[i].t;
			if (!ioctl(fd, HTMTRACE_IOC_CONFIGURE, &cfg))
				break;
			err = errno;
			if (err == EBADFD && !ndevs) {
				/* Configured by someone else: not free. */
				close(fd);
				in_use++;
				continue;
			}
			close(fd);
			chan_ioctl_err(err, "configure", rt[i].dev);
			if (n > 1 && err == EBUSY)
				pr_err("target %s (%zu of %zu) is busy: nothing left configured",
				       rt[i].name, i + 1, n);
			else if (n > 1)
				pr_err("could not configure target %s (%zu of %zu): nothing left configured",
				       rt[i].name, i + 1, n);
			return -1;
		}
		rt[i].fd = fd;
		rt[i].configured = 1;
	}
	return 0;

too_few:
	pr_err("too few channels: no free channel for target %s (%zu targets; %u channels, %u of them in use by others)",
	       rt[i].name, n, seen, in_use);
	pr_err("load htmtrace with channels=%zu or more, or deconfigure a channel; nothing left configured",
	       n + in_use);
	return -1;
}

static const struct option record_options[] = {
	TARGET_OPTIONS,
	DEVICE_OPTION,
	{ "output", required_argument, NULL, 'o' },
	{ "nowrap", no_argument, NULL, OPT_NOWRAP },
	{ "wrap", no_argument, NULL, OPT_WRAP },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	PROGRESS_OPTIONS,
	HELP_OPTION,
	OPTIONS_END,
};

/* Stop every started trace as best we can: the trace is worthless. */
static void stop_all(struct rec_target *rt, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rt[i].started)
			ioctl(rt[i].fd, HTMTRACE_IOC_STOP);
}

/*
 * Before the trace was taken: deconfigure @rt's channel and remove its
 * files. Returns 0, or -1 if the deconfigure failed (reported).
 */
static int clean_target(struct rec_target *rt)
{
	int ret = 0, kept_old;

	if (rt->configured &&
	    chan_ioctl(rt->fd, rt->dev, HTMTRACE_IOC_DECONFIGURE, NULL,
		       "deconfigure"))
		ret = -1;
	rt->configured = 0;
	if (rt->trace_fd >= 0)
		close(rt->trace_fd);
	if (rt->xlate_fd >= 0)
		close(rt->xlate_fd);
	rt->trace_fd = -1;
	rt->xlate_fd = -1;
	/* Renamed already (the stop succeeded, the read found nothing)? */
	kept_old = (rt->trace_of.existed || rt->xlate_of.existed) &&
		   !rt->trace_of.committed && !rt->xlate_of.committed;
	out_discard(&rt->trace_of);
	out_discard(&rt->xlate_of);
	if (kept_old)
		pr_err("no trace taken: %s and %s left as they were",
		       rt->trace_name, rt->xlate_name);
	else
		pr_err("removed the partial %s and %s", rt->trace_name,
		       rt->xlate_name);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static char devs[RECORD_MAX_TARGETS][PATH_MAX];
	struct target_lists tl = { .ntype = 0 };
	const char *outdir = NULL;
	struct htmtrace_config cfg;
	struct workload wl = WORKLOAD_INIT;
	struct cmd_opts co = { .operands = 1, .own_targets = 1 };
	int dry_run = 0, mode = PROGRESS_AUTO;
	struct rec_target *rt;
	struct record_files rf;
	struct progress prog;
	sig_atomic_t seen;
	size_t bs = DEFAULT_BS, n, ndevs = 0, i;
	/*
	 * No-wrap unless asked: every public PowerVM user forces it, and with
	 * no write pointer a wrapped dump cannot be put in time order.
	 */
	__u32 flags = HTMTRACE_CFG_NOWRAP;
	__u64 mask = 0, value = 0, total;
	int opt, err, ret = EXIT_FAIL, all_ok;

	/* '+': the first operand starts the command and its own options. */
	while ((opt = next_option(argc, argv, "+:t:n:p:c:d:o:h", record_options,
				  &co)) > 0) {
		switch (opt) {
		case 't':
			if (add_types(&tl, optarg))
				return EXIT_USAGE;
			break;
		case 'n':
		case 'p':
		case 'c':
			if (add_indices(&tl, opt, optarg))
				return EXIT_USAGE;
			break;
		case 'd':
			if (ndevs == RECORD_MAX_TARGETS)
				return usage_err("too many channels: at most %d",
						 RECORD_MAX_TARGETS);
			if (device_opt(devs[ndevs], sizeof(devs[ndevs]),
				       optarg, 0))
				return EXIT_USAGE;
			for (i = 0; i < ndevs; i++)
				if (!strcmp(devs[i], devs[ndevs]))
					return usage_err("channel %s given twice",
							 devs[i]);
			ndevs++;
			break;
		case 'o':
			outdir = optarg;
			break;
		case OPT_NOWRAP:
			flags |= HTMTRACE_CFG_NOWRAP;
			break;
		case OPT_WRAP:
			flags &= ~HTMTRACE_CFG_NOWRAP;
			break;
		case OPT_MODE:
			if (parse_mode_opt(optarg, &mask, &value, &flags))
				return EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (workload_duration(&wl, optarg))
				return EXIT_USAGE;
			break;
		case OPT_BS:
			if (parse_bs(optarg, &bs))
				return EXIT_USAGE;
			break;
		case OPT_DRY_RUN:
			dry_run = 1;
			break;
		case OPT_PROGRESS:
			mode = PROGRESS_ON;
			break;
		case OPT_NO_PROGRESS:
			mode = PROGRESS_OFF;
			break;
		}
	}
	if (opt)
		return co.status;

	rt = calloc(RECORD_MAX_TARGETS, sizeof(*rt));
	if (!rt) {
		pr_errno(ENOMEM, "targets");
		return EXIT_FAIL;
	}
	n = expand_targets(&tl, rt);
	if (!n || workload_operands(&wl, argc, argv)) {
		ret = EXIT_USAGE;
		goto out_free;
	}
	if (ndevs && ndevs != n) {
		ret = usage_err("%zu targets need %zu channels: -d given %zu times (without -d, free channels are claimed)",
				n, n, ndevs);
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		rt[i].fd = -1;
		rt[i].trace_fd = -1;
		rt[i].xlate_fd = -1;
		format_target(rt[i].name, sizeof(rt[i].name), &rt[i].t);
		if (trace_file_name(rt[i].trace_name,
				    sizeof(rt[i].trace_name), outdir,
				    "htm.bin", &rt[i].t) ||
		    trace_file_name(rt[i].xlate_name,
				    sizeof(rt[i].xlate_name), outdir,
				    "translation", &rt[i].t)) {
			ret = usage_err("output directory name too long");
			goto out_free;
		}
	}
	if (dry_run) {
		for (i = 0; i < n; i++)
			printf("%s\n%s\n", rt[i].trace_name,
			       rt[i].xlate_name);
		ret = EXIT_OK;
		goto out_free;
	}

	if (catch_signals(0))
		goto out_free;
	/* A bad -o fails before the hardware is touched. */
	for (i = 0; i < n; i++) {
		err = out_open(&rt[i].trace_of, rt[i].trace_name);
		if (err < 0) {
			pr_errno(-err, "create %s", rt[i].trace_name);
			goto out_created;
		}
		rt[i].trace_fd = err;
		err = out_open(&rt[i].xlate_of, rt[i].xlate_name);
		if (err < 0) {
			pr_errno(-err, "create %s", rt[i].xlate_name);
			goto out_created;
		}
		rt[i].xlate_fd = err;
	}
	if (workload_prepare(&wl))
		goto out_files;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	cfg.mode_mask = mask;
	cfg.mode_value = value;
	if (claim_channels(rt, n, devs, ndevs, &cfg))
		goto out_deconfigure;
	/* Started together: one START after the other, nothing between. */
	for (i = 0; i < n; i++) {
		if (chan_ioctl(rt[i].fd, rt[i].dev, HTMTRACE_IOC_START, NULL,
			       "start")) {
			if (n > 1)
				pr_err("could not start target %s: nothing left configured",
				       rt[i].name);
			stop_all(rt, n);
			goto out_deconfigure;
		}
		rt[i].started = 1;
	}

	/*
	 * On a failure here the traces are worthless: stop them as best we
	 * can; the deconfigures that follow report what is left.
	 */
	if (wl.argv && !interrupted) {
		if (workload_go(&wl) || workload_reap(&wl)) {
			stop_all(rt, n);
			goto out_deconfigure;
		}
	} else if (wl.have_secs) {
		workload_mark(&wl, 0);
		sleep_for(wl.secs);
		workload_mark(&wl, 1);
	} else if (!wl.argv) {
		err = wait_for_signal();
		if (err) {
			pr_errno(-err, "wait for a signal");
			stop_all(rt, n);
			goto out_deconfigure;
		}
	}

	/* Stopped together, before any is read. */
	for (i = 0; i < n; i++)
		rt[i].refused = stop_trace(rt[i].fd, rt[i].dev, &rt[i].st);
	seen = interrupted;

	progress_init(&prog, mode);
	for (i = 0, total = 0; i < n; i++) {
		if (rt[i].refused >= 0 && total != (__u64)-1)
			total = rt[i].st.buffer_size ?
				total + rt[i].st.buffer_size : (__u64)-1;
	}
	prog.total = total == (__u64)-1 ? 0 : total;
	for (i = 0; i < n; i++) {
		if (rt[i].refused < 0) {
			rt[i].taken = TAKEN_NONE;
			continue;
		}
		rf.dev = rt[i].dev;
		rf.fd = rt[i].fd;
		rf.trace_name = rt[i].trace_name;
		rf.xlate_name = rt[i].xlate_name;
		rf.trace_fd = rt[i].trace_fd;
		rf.xlate_fd = rt[i].xlate_fd;
		rf.trace_of = &rt[i].trace_of;
		rf.xlate_of = &rt[i].xlate_of;
		rf.bs = bs;
		if (interrupted != seen) {
			rt[i].taken = leave_trace(&rf, &rt[i].st);
		} else {
			prog.more = i + 1 < n;
			rt[i].taken = take_trace(&rf, &rt[i].st,
						 rt[i].refused, &prog,
						 &rt[i].trace_len,
						 &rt[i].xlate_len,
						 &rt[i].nr_blocks,
						 &rt[i].nr_entries);
			prog.base += rt[i].trace_len;
		}
		rt[i].trace_fd = rf.trace_fd;
		rt[i].xlate_fd = rf.xlate_fd;
	}
	prog.more = 0;
	progress_end(&prog, 1);

	all_ok = 1;
	for (i = 0; i < n; i++) {
		if (rt[i].taken == TAKEN_NONE) {
			all_ok = 0;
			clean_target(&rt[i]);
			continue;
		}
		printf("traced %s on %s\n", rt[i].name, rt[i].dev);
	}
	for (i = 0; i < n && rt[i].taken == TAKEN_NONE; i++)
		;
	if (i < n)
		print_workload(stdout, &wl);
	for (i = 0; i < n; i++) {
		char text[128];

		if (rt[i].taken != TAKEN_ALL)
			all_ok = 0;
		if (rt[i].taken == TAKEN_NONE || rt[i].taken == TAKEN_PART)
			continue;
		format_of_buffer(text, sizeof(text), rt[i].trace_len,
				 &rt[i].st);
		printf("wrote %s to %s%s\n", text, rt[i].trace_name,
		       ended_early(rt[i].trace_len, &rt[i].st));
		if (rt[i].taken != TAKEN_NO_XLATE)
			print_sysmem_written(stdout, rt[i].xlate_len,
					     rt[i].nr_blocks, rt[i].nr_entries,
					     rt[i].xlate_name);
	}
	if (n > 1 && !all_ok) {
		size_t done = 0;

		for (i = 0; i < n; i++)
			done += rt[i].taken == TAKEN_ALL;
		pr_err("%zu of %zu traces not finished: see the messages above",
		       n - done, n);
	}
	ret = all_ok ? EXIT_OK : EXIT_FAIL;
	goto out_close;

out_deconfigure:
	for (i = 0; i < n; i++)
		if (rt[i].configured &&
		    chan_ioctl(rt[i].fd, rt[i].dev, HTMTRACE_IOC_DECONFIGURE,
			       NULL, "deconfigure"))
			ret = EXIT_FAIL;
	if (workload_reap(&wl))
		ret = EXIT_FAIL;
out_files:
	for (i = 0; i < n; i++) {
		close(rt[i].trace_fd);
		close(rt[i].xlate_fd);
		out_discard(&rt[i].trace_of);
		out_discard(&rt[i].xlate_of);
	}
	if (n == 1 && (rt[0].trace_of.existed || rt[0].xlate_of.existed))
		pr_err("no trace taken: %s and %s left as they were",
		       rt[0].trace_name, rt[0].xlate_name);
	else if (n == 1)
		pr_err("removed the partial %s and %s", rt[0].trace_name,
		       rt[0].xlate_name);
	else
		pr_err("removed the partial files of the %zu targets", n);
	goto out_close;
out_created:
	/* The files created before the one that failed: removed silently. */
	for (i = 0; i < n; i++) {
		if (rt[i].trace_fd >= 0) {
			close(rt[i].trace_fd);
			out_discard(&rt[i].trace_of);
		}
		if (rt[i].xlate_fd >= 0) {
			close(rt[i].xlate_fd);
			out_discard(&rt[i].xlate_of);
		}
	}
out_close:
	for (i = 0; i < n; i++)
		if (rt[i].fd >= 0)
			close(rt[i].fd);
out_free:
	free(rt);
	/* A workload that failed makes the trace's status its own. */
	return workload_exit(&wl, ret);
}
