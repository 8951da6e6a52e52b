// SPDX-License-Identifier: GPL-2.0
/*
 * htm-read: the smallest HTM collector, on /dev/htmN alone. It sizes the
 * target's buffer (with LOG2_SIZE), configures the channel so that poll()
 * and read() wait for the trace to stop, starts it, waits in poll() until
 * it is stopped (htmtrace stop, or Ctrl-C here, which sends the STOP),
 * reads the trace into FILE and gives the target back.
 *
 *   htm-read DEVICE TYPE:NODE:CHIP:CORE FILE [LOG2_SIZE]
 *   htm-read /dev/htm0 2:0:1:2 htm.bin      (core 2 of chip 1 of node 0)
 *
 * TYPE: 1 nest, 2 core, 3 llat. Needs CAP_PERFMON (LOG2_SIZE:
 * CAP_SYS_ADMIN) and only <linux/htmtrace.h>: cc -I../uapi htm-read.c
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/htmtrace.h>

static int chan = -1;
static volatile sig_atomic_t started, stop_asked, stop_errno;

/* Ctrl-C: stop the trace (once started); poll() then reports it. */
static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	stop_asked = 1;
	if (started && ioctl(chan, HTMTRACE_IOC_STOP) < 0)
		stop_errno = errno;
	errno = saved;
}

/* Report what failed, with the errno; returns 1, the exit status. */
static int failed(const char *what)
{
	fprintf(stderr, "htm-read: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Read the stopped trace into @out; returns 0, or 1 (reported). */
static int copy_trace(int out, const char *name)
{
	static char buf[1 << 20];
	unsigned long long total = 0;
	ssize_t n, w;

	/* The file position is the offset in the HTM buffer; 0 at the end. */
	while ((n = read(chan, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return failed("read");
		for (ssize_t done = 0; done < n; done += w)
			if ((w = write(out, buf + done, n - done)) < 0)
				return failed(name);
		total += n;
	}
	if (close(out) < 0)
		return failed(name);
	printf("wrote %llu bytes to %s\n", total, name);
	return fflush(stdout) ? failed("standard output") : 0;
}

/* Start, wait for the stop, copy into @name: returns 0, or 1 (reported). */
static int trace(const char *dev, const char *name)
{
	struct pollfd pfd = { .fd = chan, .events = POLLIN };
	int out = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (out < 0)
		return failed(name);
	if (ioctl(chan, HTMTRACE_IOC_START) < 0)
		return failed("START");
	started = 1;
	if (stop_asked)		/* a Ctrl-C came before the START */
		on_signal(0);
	fprintf(stderr, "htm-read: tracing until stopped (htmtrace stop -d %s, or Ctrl-C)\n",
		dev);
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return failed("poll");
	if (stop_errno) {
		errno = stop_errno;
		return failed("STOP");
	}
	return copy_trace(out, name);
}

int main(int argc, char **argv)
{
	struct htmtrace_config cfg = { .flags = HTMTRACE_CFG_NOWRAP | HTMTRACE_CFG_WAIT };
	struct sigaction sa = { .sa_handler = on_signal };
	struct htmtrace_target *t = &cfg.target;
	char extra;
	int ret;

	if ((argc != 4 && argc != 5) || sscanf(argv[2], "%u:%u:%u:%u%c", &t->type,
					       &t->node, &t->chip, &t->core, &extra) != 4) {
		fprintf(stderr, "usage: htm-read DEVICE TYPE:NODE:CHIP:CORE FILE [LOG2_SIZE]\n");
		return 2;
	}
	chan = open(argv[1], O_RDWR | O_CLOEXEC);
	if (chan < 0)
		return failed(argv[1]);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return failed("sigaction");
	if (argc == 5) {
		/* On PowerVM a new size may take effect at the next CEC boot. */
		struct htmtrace_setup setup = { .target = cfg.target,
						.log2_size = atoi(argv[4]) };

		if (ioctl(chan, HTMTRACE_IOC_SETUP, &setup) < 0)
			return failed("SETUP");
	}
	if (ioctl(chan, HTMTRACE_IOC_CONFIGURE, &cfg) < 0)
		return failed("CONFIGURE");
	/* The target is ours until DECONFIGURE: every way out gives it back. */
	ret = trace(argv[1], argv[3]);
	if (ioctl(chan, HTMTRACE_IOC_DECONFIGURE) < 0)
		ret = failed("DECONFIGURE");
	return ret;
}
