// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace record: trace one HTM unit while a workload runs and write the
 * files perf writes for htmdecode.
 *
 * Order: open the channel and create the output files (so that a bad -o
 * fails before the hardware is touched), fork the workload held on a pipe,
 * configure, start, release the workload (or sleep, or wait for a signal),
 * stop, read the trace, fetch the memory configuration, deconfigure.
 *
 * Until the trace is taken (stopped), every failure deconfigures and
 * removes both files. Once it is taken, nothing destroys it: the HTM
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

#include "htmtrace.h"

/*
 * Stop the channel if it is still tracing (no-wrap may have stopped it).
 * Returns 0, 1 if the hypervisor refused the stop (H_STATE: the target is
 * in no state to stop, so it may have stopped by itself; the read then
 * decides), or -1 (reported).
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
		pr_err("the hypervisor refused the stop: the trace may have stopped by itself; reading it, the hypervisor's answer decides");
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
	/* As perf does: the memory configuration is asked of target 0. */
	struct htmtrace_target zero = { 0 };
	unsigned char *buf;
	size_t bad;
	int err;

	if (fetch_hvbuf(fd, dev, HTMTRACE_IOC_SYSMEM, "memory configuration",
			&zero, &buf, len))
		return -1;
	if (count_blocks(buf, *len, SYSMEM_ENTRY_SIZE, nr_blocks, nr_entries,
			 &bad)) {
		pr_err("memory configuration %s: malformed block at offset %zu of %zu bytes",
		       dev, bad, *len);
		free(buf);
		return -1;
	}
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
	size_t bs;
	int mode;		/* of the progress line */
};

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
			     __u64 *trace_len, size_t *xlate_len,
			     __u64 *nr_blocks, __u64 *nr_entries)
{
	sig_atomic_t seen = interrupted;
	struct htmtrace_status after;
	struct trace_copy tc = { 0 };
	struct progress prog;
	char text[160], d[PATH_MAX + 8], x[4 * PATH_MAX + 8];
	int copied, err, xlate_ok = 0, deconfigured, close_failed = 0;

	progress_init(&prog, rf->mode);
	prog.total = st->buffer_size;
	copied = !copy_trace(rf->fd, rf->dev, rf->trace_fd, rf->trace_name,
			     rf->bs, &prog, &tc);
	*trace_len = tc.done;
	if (!copied && !tc.done && !tc.write_err && !tc.stopped &&
	    (refused || !trace_remains(tc.err))) {
		if (refused)
			pr_err("the hypervisor refused the stop and the read: no trace to keep");
		return TAKEN_NONE;
	}

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

int cmd_record(int argc, char **argv)
{
	char trace_name[PATH_MAX], xlate_name[PATH_MAX];
	char text[128];
	const char *outdir = NULL;
	struct htmtrace_config cfg;
	struct htmtrace_status st;
	struct workload wl = WORKLOAD_INIT;
	struct cmd_opts co = { .operands = 1 };
	const char *dev = co.dev;
	int dry_run = 0, mode = PROGRESS_AUTO, refused;
	enum taken taken;
	struct record_files rf;
	size_t bs = DEFAULT_BS, xlate_len = 0;
	__u64 trace_len = 0, nr_blocks = 0, nr_entries = 0;
	/*
	 * No-wrap unless asked: every public PowerVM user forces it, and with
	 * no write pointer a wrapped dump cannot be put in time order.
	 */
	__u32 flags = HTMTRACE_CFG_NOWRAP;
	__u64 mask = 0, value = 0;
	int fd, trace_fd, xlate_fd, opt, err, ret = EXIT_FAIL;

	/* '+': the first operand starts the command and its own options. */
	while ((opt = next_option(argc, argv, "+:t:n:p:c:d:o:h", record_options,
				  &co)) > 0) {
		switch (opt) {
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
	if (target_require(&co.ta, TARGET_ALL) ||
	    workload_operands(&wl, argc, argv))
		return EXIT_USAGE;
	if (trace_file_name(trace_name, sizeof(trace_name), outdir, "htm.bin",
			    &co.ta.t) ||
	    trace_file_name(xlate_name, sizeof(xlate_name), outdir,
			    "translation", &co.ta.t))
		return usage_err("output directory name too long");
	if (dry_run) {
		printf("%s\n%s\n", trace_name, xlate_name);
		return EXIT_OK;
	}

	if (catch_signals(0))
		return EXIT_FAIL;
	fd = open_device(dev, O_RDWR);
	if (fd < 0)
		return EXIT_FAIL;
	trace_fd = create_file(trace_name);
	if (trace_fd < 0) {
		pr_errno(-trace_fd, "create %s", trace_name);
		goto out_dev;
	}
	xlate_fd = create_file(xlate_name);
	if (xlate_fd < 0) {
		pr_errno(-xlate_fd, "create %s", xlate_name);
		close(trace_fd);
		unlink(trace_name);
		goto out_dev;
	}
	if (workload_prepare(&wl))
		goto out_files;

	memset(&cfg, 0, sizeof(cfg));
	cfg.target = co.ta.t;
	cfg.flags = flags;
	cfg.mode_mask = mask;
	cfg.mode_value = value;
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_CONFIGURE, &cfg, "configure"))
		goto out_workload;
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_START, NULL, "start"))
		goto out_deconfigure;

	/*
	 * On a failure here the trace is worthless: stop it as best we can;
	 * the deconfigure that follows reports what is left.
	 */
	if (wl.argv && !interrupted) {
		if (workload_go(&wl) || workload_reap(&wl)) {
			ioctl(fd, HTMTRACE_IOC_STOP);
			goto out_deconfigure;
		}
	} else if (wl.have_secs) {
		sleep_for(wl.secs);
	} else if (!wl.argv) {
		err = wait_for_signal();
		if (err) {
			pr_errno(-err, "wait for a signal");
			ioctl(fd, HTMTRACE_IOC_STOP);
			goto out_deconfigure;
		}
	}

	refused = stop_trace(fd, dev, &st);
	if (refused < 0)
		goto out_deconfigure;
	rf.dev = dev;
	rf.fd = fd;
	rf.trace_name = trace_name;
	rf.xlate_name = xlate_name;
	rf.trace_fd = trace_fd;
	rf.xlate_fd = xlate_fd;
	rf.bs = bs;
	rf.mode = mode;
	taken = take_trace(&rf, &st, refused, &trace_len, &xlate_len,
			   &nr_blocks, &nr_entries);
	trace_fd = rf.trace_fd;
	xlate_fd = rf.xlate_fd;
	if (taken == TAKEN_NONE)
		goto out_deconfigure;
	format_target(text, sizeof(text), &co.ta.t);
	printf("traced %s on %s\n", text, dev);
	print_workload(&wl);
	if (taken == TAKEN_PART)
		goto out_dev;
	format_of_buffer(text, sizeof(text), trace_len, &st);
	printf("wrote %s to %s%s\n", text, trace_name,
	       ended_early(trace_len, &st));
	if (taken != TAKEN_NO_XLATE)
		printf("wrote %zu bytes of memory configuration (%llu blocks, %llu entries) to %s\n",
		       xlate_len, (unsigned long long)nr_blocks,
		       (unsigned long long)nr_entries, xlate_name);
	if (taken == TAKEN_ALL)
		ret = EXIT_OK;
	goto out_dev;

out_deconfigure:
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_DECONFIGURE, NULL, "deconfigure"))
		ret = EXIT_FAIL;
out_workload:
	if (workload_reap(&wl))
		ret = EXIT_FAIL;
out_files:
	if (trace_fd >= 0)
		close(trace_fd);
	if (xlate_fd >= 0)
		close(xlate_fd);
	unlink(trace_name);
	unlink(xlate_name);
	pr_err("removed the partial %s and %s", trace_name, xlate_name);
out_dev:
	close(fd);
	return ret;
}
