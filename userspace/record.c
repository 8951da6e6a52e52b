// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace record: trace one HTM unit while a workload runs and write the
 * files perf writes for htmdecode.
 *
 * Order: open the channel and create the output files (so that a bad -o
 * fails before the hardware is touched), fork the workload held on a pipe,
 * configure, start, release the workload (or sleep, or wait for a signal),
 * stop, read the trace, fetch the memory configuration, deconfigure. Once
 * configured, every exit path deconfigures; until both files are complete,
 * every failure removes them.
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

/* Stop the channel if it is still tracing (no-wrap may have stopped it). */
static int stop_trace(int fd, const char *dev, struct htmtrace_status *st)
{
	memset(st, 0, sizeof(*st));
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_STATUS, st, "status"))
		return -1;
	if (st->state != HTMTRACE_STATE_TRACING)
		return 0;
	if (chan_ioctl(fd, dev, HTMTRACE_IOC_STOP, NULL, "stop"))
		return -1;
	st->state = HTMTRACE_STATE_STOPPED;
	return 0;
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
	int dry_run = 0, keep = 0, mode = PROGRESS_AUTO;
	struct progress prog;
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

	if (stop_trace(fd, dev, &st))
		goto out_deconfigure;
	progress_init(&prog, mode);
	prog.total = st.buffer_size;
	if (copy_trace(fd, dev, trace_fd, trace_name, bs, &prog, &trace_len))
		goto out_deconfigure;
	if (save_sysmem(fd, dev, xlate_fd, xlate_name, &xlate_len, &nr_blocks,
			&nr_entries))
		goto out_deconfigure;
	/* Data may first fail to reach the disk at close (NFS, quotas). */
	err = close(trace_fd) ? errno : 0;
	trace_fd = -1;
	if (err) {
		pr_errno(err, "close %s", trace_name);
		goto out_deconfigure;
	}
	err = close(xlate_fd) ? errno : 0;
	xlate_fd = -1;
	if (err) {
		pr_errno(err, "close %s", xlate_name);
		goto out_deconfigure;
	}
	keep = 1;
	ret = EXIT_OK;

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
	if (!keep) {
		unlink(trace_name);
		unlink(xlate_name);
		pr_err("removed the partial %s and %s", trace_name,
		       xlate_name);
	} else {
		format_target(text, sizeof(text), &co.ta.t);
		printf("traced %s on %s\n", text, dev);
		print_workload(&wl);
		printf("wrote %llu bytes of trace to %s\n",
		       (unsigned long long)trace_len, trace_name);
		printf("wrote %zu bytes of memory configuration (%llu blocks, %llu entries) to %s\n",
		       xlate_len, (unsigned long long)nr_blocks,
		       (unsigned long long)nr_entries, xlate_name);
	}
out_dev:
	close(fd);
	return ret;
}
