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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "htmtrace.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGINT, SIGTERM and SIGHUP end the workload phase, not the tool. */
static int catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal must end nanosleep() and sigsuspend(). */
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	return 0;
}

/*
 * A workload is forked before tracing starts and held on a pipe, so that
 * fork() costs nothing inside the trace and a command that cannot be run is
 * reported as such.
 */
struct workload {
	pid_t pid;
	int go_fd;	/* write end: one byte lets the child exec */
	int err_fd;	/* read end: errno of a failed exec, or EOF */
	int status;	/* wait status once reaped */
	int reaped;
};

static int workload_prepare(struct workload *wl, char **argv)
{
	int go[2], err[2], e;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		e = -errno;
		goto out_go;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		goto out_err;
	}
	if (!pid) {
		ssize_t n;
		char c;

		close(go[1]);
		close(err[0]);
		do {
			n = read(go[0], &c, 1);
		} while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		n = write(err[1], &e, sizeof(e));
		_exit(n == sizeof(e) ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	wl->pid = pid;
	wl->go_fd = go[1];
	wl->err_fd = err[0];
	wl->reaped = 0;
	return 0;

out_err:
	close(err[0]);
	close(err[1]);
out_go:
	close(go[0]);
	close(go[1]);
	return e;
}

static int workload_reap(struct workload *wl)
{
	if (wl->go_fd >= 0) {
		close(wl->go_fd);
		wl->go_fd = -1;
	}
	if (wl->err_fd >= 0) {
		close(wl->err_fd);
		wl->err_fd = -1;
	}
	if (wl->reaped)
		return 0;
	while (waitpid(wl->pid, &wl->status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	wl->reaped = 1;
	return 0;
}

/* Let the child exec. Returns 0, or the -errno of a failed exec. */
static int workload_go(struct workload *wl)
{
	ssize_t n;
	char c = 1;
	int e;

	n = write(wl->go_fd, &c, 1);
	if (n != 1)
		return n < 0 ? -errno : -EIO;
	close(wl->go_fd);
	wl->go_fd = -1;
	/* EOF: exec closed the close-on-exec pipe. */
	do {
		n = read(wl->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e))
		return -e;
	if (n < 0)
		return -errno;
	return 0;
}

static void sleep_for(double secs)
{
	struct timespec ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (!interrupted && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Wait for SIGINT, SIGTERM or SIGHUP. */
static int wait_for_signal(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, &old))
		return -errno;
	fputs("htmtrace record: tracing; press Ctrl-C to stop\n", stderr);
	while (!interrupted)
		sigsuspend(&old);
	if (sigprocmask(SIG_SETMASK, &old, NULL))
		return -errno;
	return 0;
}

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

static void print_workload(const struct workload *wl, char **command,
			   int have_secs, double secs)
{
	if (command && wl->reaped) {
		if (WIFEXITED(wl->status))
			printf("workload exited with status %d\n",
			       WEXITSTATUS(wl->status));
		else if (WIFSIGNALED(wl->status))
			printf("workload killed by signal %d\n",
			       WTERMSIG(wl->status));
	} else if (have_secs) {
		printf("traced for %g s%s\n", secs,
		       interrupted ? " (interrupted)" : "");
	} else if (!command) {
		printf("traced until a signal\n");
	}
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
	struct workload wl = { .go_fd = -1, .err_fd = -1 };
	struct cmd_opts co = { .operands = 1 };
	const char *dev = co.dev;
	char **command = NULL;
	int have_secs = 0, dry_run = 0, keep = 0;
	double secs = 0;
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
			if (parse_mode(optarg, &mask, &value))
				return usage_err("bad mode '%s': expected MASK:VALUE, e.g. 0xff:0x1",
						 optarg);
			flags |= HTMTRACE_CFG_MODE;
			break;
		case OPT_DURATION:
			if (parse_seconds(optarg, &secs))
				return usage_err("bad duration '%s': expected seconds, e.g. 2 or 0.5",
						 optarg);
			have_secs = 1;
			break;
		case OPT_BS:
			if (parse_bs(optarg, &bs))
				return EXIT_USAGE;
			break;
		case OPT_DRY_RUN:
			dry_run = 1;
			break;
		}
	}
	if (opt)
		return co.status;
	if (optind < argc)
		command = argv + optind;
	if (target_require(&co.ta, TARGET_ALL))
		return EXIT_USAGE;
	if (command && have_secs)
		return usage_err("--duration and a COMMAND exclude each other");
	if (trace_file_name(trace_name, sizeof(trace_name), outdir, "htm.bin",
			    &co.ta.t) ||
	    trace_file_name(xlate_name, sizeof(xlate_name), outdir,
			    "translation", &co.ta.t))
		return usage_err("output directory name too long");
	if (dry_run) {
		printf("%s\n%s\n", trace_name, xlate_name);
		return EXIT_OK;
	}

	err = catch_signals();
	if (err) {
		pr_errno(-err, "signal handlers");
		return EXIT_FAIL;
	}
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
	if (command) {
		err = workload_prepare(&wl, command);
		if (err) {
			pr_errno(-err, "prepare workload '%s'", command[0]);
			goto out_files;
		}
	}

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
	if (command && !interrupted) {
		err = workload_go(&wl);
		if (err) {
			pr_errno(-err, "run '%s'", command[0]);
			ioctl(fd, HTMTRACE_IOC_STOP);
			goto out_deconfigure;
		}
		err = workload_reap(&wl);
		if (err) {
			pr_errno(-err, "wait for '%s'", command[0]);
			ioctl(fd, HTMTRACE_IOC_STOP);
			goto out_deconfigure;
		}
	} else if (have_secs) {
		sleep_for(secs);
	} else if (!command) {
		err = wait_for_signal();
		if (err) {
			pr_errno(-err, "wait for a signal");
			ioctl(fd, HTMTRACE_IOC_STOP);
			goto out_deconfigure;
		}
	}

	if (stop_trace(fd, dev, &st))
		goto out_deconfigure;
	if (copy_trace(fd, dev, trace_fd, trace_name, bs, &trace_len))
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
	if (command) {
		err = workload_reap(&wl);
		if (err) {
			pr_errno(-err, "wait for '%s'", command[0]);
			ret = EXIT_FAIL;
		}
	}
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
		print_workload(&wl, command, have_secs, secs);
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
