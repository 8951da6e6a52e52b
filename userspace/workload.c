// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: what the capturing commands (record, dtl record) share: the
 * workload held on a pipe until tracing runs, the duration, and Ctrl-C.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "util.h"
#include "workload.h"

/* SIGINT, SIGTERM and SIGHUP received so far. */
volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
}

/* Only there so that SIGCHLD interrupts ppoll(). */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* The signals that end a capture; with @chld also SIGCHLD. */
void capture_sigset(sigset_t *set, int chld)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	if (chld)
		sigaddset(set, SIGCHLD);
}

/*
 * SIGINT, SIGTERM and SIGHUP end the workload phase, not the tool; with
 * @chld, a handler for SIGCHLD too, so that the end of the workload
 * interrupts a wait. Returns 0 or -errno.
 */
static int set_handlers(int chld)
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
	if (chld) {
		sa.sa_handler = on_sigchld;
		sa.sa_flags = SA_NOCLDSTOP;
		if (sigaction(SIGCHLD, &sa, NULL))
			return -errno;
	}
	return 0;
}

/*
 * The signal handlers of a capture or a dump. Returns 0 or -1 after a
 * message. A file size limit (RLIMIT_FSIZE) then makes write() fail with
 * EFBIG, a write error like a full disk, instead of killing the tool with
 * SIGXFSZ before it can say what it kept.
 */
int catch_signals(int chld)
{
	int err = set_handlers(chld);

	if (!err && signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
		err = -errno;
	if (err) {
		pr_errno(-err, "signal handlers");
		return -1;
	}
	return 0;
}

/*
 * The first SIGINT, SIGTERM or SIGHUP of a dump stopped it: the next one
 * ends the tool at once, as if no handler was there, whatever the cleanup
 * is waiting for. What is left to do is only saying what was kept, and
 * that is printed before anything that may wait.
 */
void release_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
}

/* --duration SECONDS. Returns 0, or EXIT_USAGE after a message. */
int workload_duration(struct workload *wl, const char *arg)
{
	if (parse_seconds(arg, &wl->secs))
		return usage_err("bad duration '%s': expected seconds, e.g. 2 or 0.5",
				 arg);
	wl->have_secs = 1;
	return 0;
}

/*
 * The operands from optind on are the workload's command (none: no
 * workload). Returns 0, or EXIT_USAGE after a message.
 */
int workload_operands(struct workload *wl, int argc, char **argv)
{
	wl->argv = optind < argc ? argv + optind : NULL;
	if (wl->argv && wl->have_secs)
		return usage_err("--duration and a COMMAND exclude each other");
	return 0;
}

/*
 * A workload is forked before tracing starts and held on a pipe, so that
 * fork() costs nothing inside the trace and a command that cannot be run is
 * reported as such.
 */
static int fork_held(struct workload *wl, char **argv)
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
		if (wl->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
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

static void workload_close(struct workload *wl)
{
	if (wl->go_fd >= 0) {
		close(wl->go_fd);
		wl->go_fd = -1;
	}
	if (wl->err_fd >= 0) {
		close(wl->err_fd);
		wl->err_fd = -1;
	}
}

/* Fork the command, if any. Returns 0 or -1 after a message. */
int workload_prepare(struct workload *wl)
{
	int err;

	if (!wl->argv)
		return 0;
	err = fork_held(wl, wl->argv);
	if (err) {
		pr_errno(-err, "prepare workload '%s'", wl->argv[0]);
		return -1;
	}
	return 0;
}

/* Wait for the workload to end. Returns 0 or -errno. */
static int reap(struct workload *wl)
{
	workload_close(wl);
	if (wl->reaped)
		return 0;
	while (waitpid(wl->pid, &wl->status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	wl->reaped = 1;
	return 0;
}

/*
 * Wait for the command, if any, to end. Returns 0 or -1 after a message.
 */
int workload_reap(struct workload *wl)
{
	int err;

	if (!wl->argv)
		return 0;
	err = reap(wl);
	if (err) {
		pr_errno(-err, "wait for '%s'", wl->argv[0]);
		return -1;
	}
	return 0;
}

/* Reap the workload if it ended. Returns 1 if it did, 0, or -errno. */
static int poll_reap(struct workload *wl)
{
	pid_t pid;

	if (wl->reaped)
		return 1;
	pid = waitpid(wl->pid, &wl->status, WNOHANG);
	if (pid < 0)
		return -errno;
	if (!pid)
		return 0;
	workload_close(wl);
	wl->reaped = 1;
	return 1;
}

/*
 * Reap the command, if any, if it ended. Returns 1 if it did, 0, or -1
 * after a message.
 */
int workload_poll(struct workload *wl)
{
	int ret;

	if (!wl->argv)
		return 0;
	ret = poll_reap(wl);
	if (ret < 0) {
		pr_errno(-ret, "wait for '%s'", wl->argv[0]);
		return -1;
	}
	return ret;
}

/* Let the child exec. Returns 0, or the -errno of a failed exec. */
static int go(struct workload *wl)
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

/* Let the command exec. Returns 0 or -1 after a message. */
int workload_go(struct workload *wl)
{
	int err;

	if (!wl->argv)
		return 0;
	err = go(wl);
	if (err) {
		pr_errno(-err, "run '%s'", wl->argv[0]);
		return -1;
	}
	return 0;
}

void sleep_for(double secs)
{
	struct timespec ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (!interrupted && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Wait for SIGINT, SIGTERM or SIGHUP. */
int wait_for_signal(void)
{
	sigset_t block, old;

	capture_sigset(&block, 0);
	if (sigprocmask(SIG_BLOCK, &block, &old))
		return -errno;
	fprintf(stderr, "htmtrace %s: tracing; press Ctrl-C to stop\n",
		cmd_name);
	while (!interrupted)
		sigsuspend(&old);
	if (sigprocmask(SIG_SETMASK, &old, NULL))
		return -errno;
	return 0;
}

/* The start (@stop 0) or the end of what is traced, for print_workload(). */
void workload_mark(struct workload *wl, int stop)
{
	struct timespec ts;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (stop)
		wl->stop_ns = ns;
	else
		wl->start_ns = ns;
}

/*
 * What ended the trace: the workload's exit, or the time traced (after a
 * Ctrl-C, the time actually traced, of the time asked for).
 */
void print_workload(FILE *f, const struct workload *wl)
{
	if (wl->argv && wl->reaped) {
		if (WIFEXITED(wl->status))
			fprintf(f, "workload exited with status %d\n",
				   WEXITSTATUS(wl->status));
		else if (WIFSIGNALED(wl->status))
			fprintf(f, "workload killed by signal %d\n",
				   WTERMSIG(wl->status));
	} else if (wl->have_secs && interrupted && wl->stop_ns) {
		fprintf(f, "traced for %.3f s of %g s (interrupted)\n",
			(wl->stop_ns - wl->start_ns) / 1e9, wl->secs);
	} else if (wl->have_secs) {
		fprintf(f, "traced for %g s%s\n", wl->secs,
			   interrupted ? " (interrupted)" : "");
	} else if (!wl->argv) {
		fprintf(f, "traced until a signal\n");
	}
}

/*
 * The exit status of a command that ran a workload, as perf record's: the
 * tool's own failure first (@ret); else the workload's exit status, or
 * 128 + the signal that killed it (as a shell gives it; perf raises that
 * signal instead); else @ret.
 */
int workload_exit(const struct workload *wl, int ret)
{
	if (ret != EXIT_OK || !wl->argv || !wl->reaped)
		return ret;
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return ret;
}
