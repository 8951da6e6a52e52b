// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl record: capture the dispatch trace log of a set of CPUs from
 * /dev/vpa_dtl into a file.
 *
 * record: open the device and create the file (so that a bad -o fails
 * before anything is configured), fork the workload held on a pipe,
 * configure, start, release the workload, copy the stream while it runs
 * (or for the duration, or until Ctrl-C; with --latency, a FLUSH at least
 * that often), stop, copy the rest until read() returns 0, read the
 * counters, deconfigure. Once configured, every exit path deconfigures.
 * The file is written under a temporary name and renamed over FILE once
 * something was captured: a failure before that removes the new file and
 * leaves what FILE held as it was; after, the file
 * keeps the whole records written until then (a full disk, a read error, a
 * second Ctrl-C while the rest is copied): the log is a stream, read once,
 * so what was copied is kept and said so.
 *
 * dtl report is in dtl_report.c and the files it names.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chan.h"
#include "commands.h"
#include "dtl.h"
#include "dtl_svg.h"
#include "opts.h"
#include "util.h"
#include "workload.h"

/* read() size of the stream: many records, and always one whole. */
#define DTL_READ_SIZE		65536

/* CPUs the first STATS asks for; grown to the count the driver gives. */
#define DTL_STATS_GUESS		64
#define DTL_STATS_TRIES		4

#define RING_KB_MIN		4
#define RING_KB_MAX		65536

/* --latency: milliseconds between two FLUSHes at most (0: none). */
#define LATENCY_MS_MAX		60000

/* Report a failed DTL ioctl with a hint for the errors the ABI documents. */
static int dtl_ioctl(int fd, const char *dev, unsigned long cmd, void *arg,
		     const char *what)
{
	int err;

	if (!ioctl(fd, cmd, arg))
		return 0;
	err = errno;
	pr_errno(err, "%s %s", what, dev);
	switch (err) {
	case EPERM:
		pr_err("this needs CAP_PERFMON or CAP_SYS_ADMIN");
		break;
	case EBUSY:
		if (cmd == HTMTRACE_IOC_DTL_CONFIGURE)
			pr_err("a dispatch trace log session exists already (one at a time)");
		break;
	case ENOTTY:
		pr_err("%s is not the htmtrace dispatch trace log device", dev);
		break;
	}
	return -1;
}

/* What the copy of a stream has seen. */
struct dtl_copy {
	int fd, out;
	const char *dev, *outname;
	unsigned char *buf;
	__u64 base;		/* bytes of the file header before the stream */
	__u64 bytes, records, entries, lost;	/* of the stream */
	__u64 cpus_taken;	/* CPU records: another user took the log */
	int write_err;		/* -errno of the output's failure, or 0 */
	struct out_file *of;	/* renamed over its name once data is in */
	long long flush_ns;	/* --latency, or 0 */
	long long next_flush;	/* CLOCK_MONOTONIC of the next FLUSH, ns */
};

/*
 * One read() of the stream into the file. Returns the bytes copied, 0 at
 * the end of the stream, -EAGAIN if there is nothing yet, or -1 after a
 * message.
 */
static ssize_t copy_once(struct dtl_copy *cp)
{
	struct htmtrace_dtl_rec hdr;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu ev;
	enum dtl_rec_status rs;
	__u64 records = 0, entries = 0, nlost = 0, taken = 0;
	size_t off;
	ssize_t n;
	int err;

	do {
		n = read(cp->fd, cp->buf, DTL_READ_SIZE);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN)
			return -EAGAIN;
		pr_errno(errno, "read %s after %llu bytes", cp->dev,
			 (unsigned long long)cp->bytes);
		return -1;
	}
	/* The ABI gives whole records: anything else is not this stream. */
	for (off = 0; (rs = dtl_rec_check(cp->buf, n, off, &hdr)) == DTL_REC_OK;
	     off += hdr.len) {
		records++;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY)
			entries++;
		if (hdr.type == HTMTRACE_DTL_REC_LOST) {
			memcpy(&lost, cp->buf + off, sizeof(lost));
			nlost += lost.count;
		}
		if (hdr.type == HTMTRACE_DTL_REC_CPU &&
		    hdr.len >= sizeof(ev)) {
			memcpy(&ev, cp->buf + off, sizeof(ev));
			if (ev.event == HTMTRACE_DTL_CPU_LOST) {
				taken++;
				pr_err("CPU %u: another user took its dispatch trace log after %llu bytes of the capture: that CPU's capture ended there",
				       ev.hdr.cpu,
				       (unsigned long long)(cp->bytes + off));
			}
		}
	}
	if (rs != DTL_REC_END) {
		pr_err("read %s after %llu bytes: the driver returned %zd bytes that are not whole records",
		       cp->dev, (unsigned long long)cp->bytes, n);
		return -1;
	}
	err = write_all(cp->out, cp->buf, n);
	if (err) {
		pr_errno(-err, "write %s", cp->outname);
		cp->write_err = err;
		/* Whole records only: a write may have taken part of them. */
		if (ftruncate(cp->out, cp->base + cp->bytes))
			pr_errno(errno, "cut %s back to %llu bytes of whole records",
				 cp->outname,
				 (unsigned long long)(cp->base + cp->bytes));
		return -1;
	}
	cp->bytes += n;
	cp->records += records;
	cp->entries += entries;
	cp->lost += nlost;
	cp->cpus_taken += taken;
	/* More than the clock record: a capture, which replaces the old file. */
	if (cp->of && cp->of->staged && cp->records > 1) {
		err = out_commit(cp->of);
		if (err) {
			pr_errno(-err, "rename %s to %s", cp->of->tmp,
				 cp->outname);
			cp->outname = cp->of->tmp;
			cp->of->staged = 0;
		}
	}
	return n;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * --latency: copy every CPU's log into the stream now (the poll that
 * follows reads it), and again at most cp->flush_ns from now. A session
 * that is no longer running (EBADFD: stopped from another file) is no
 * error: its stream ends by itself. Returns 0, or -1 after a message.
 */
static int flush_stream(struct dtl_copy *cp, long long now)
{
	int err;

	cp->next_flush = now + cp->flush_ns;
	if (!ioctl(cp->fd, HTMTRACE_IOC_DTL_FLUSH) || errno == EBADFD)
		return 0;
	err = errno;
	pr_errno(err, "flush %s", cp->dev);
	if (err == ENOTTY)
		pr_err("the driver has no HTMTRACE_IOC_DTL_FLUSH (an htmtrace.ko older than this tool): --latency needs it");
	return -1;
}

/*
 * Copy the stream until the workload ends, @secs pass or a signal comes
 * (the capture signals are blocked: ppoll() lets them in); with --latency,
 * a FLUSH each time cp->next_flush comes. Returns 1 if the stream ended by
 * itself, 0, or -1 after a message.
 */
static int capture(struct dtl_copy *cp, struct workload *wl,
		   const sigset_t *waitmask)
{
	long long deadline = now_ns() + (long long)(wl->secs * 1e9), left;
	struct pollfd pfd = { .fd = cp->fd, .events = POLLIN };
	struct timespec ts, *tsp;
	long long now;
	ssize_t n;
	int ret;

	for (;;) {
		if (interrupted)
			return 0;
		ret = workload_poll(wl);
		if (ret < 0)
			return -1;
		if (ret)
			return 0;
		now = now_ns();
		left = -1;
		if (wl->have_secs) {
			left = deadline - now;
			if (left <= 0)
				return 0;
		}
		if (cp->flush_ns) {
			if (now >= cp->next_flush && flush_stream(cp, now))
				return -1;
			if (left < 0 || cp->next_flush - now < left)
				left = cp->next_flush - now;
		}
		tsp = NULL;
		if (left >= 0) {
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			tsp = &ts;
		}
		ret = ppoll(&pfd, 1, tsp, waitmask);
		if (ret < 0 && errno != EINTR) {
			pr_errno(errno, "poll %s", cp->dev);
			return -1;
		}
		if (ret <= 0)
			continue;
		n = copy_once(cp);
		if (n == -1)
			return -1;
		if (!n)
			return 1;
	}
}

/*
 * After the stop: copy what is left until read() returns 0. A signal stops
 * it (the capture signals, blocked but for ppoll(), are let in after each
 * read() as well, so that a ring that never runs dry cannot hide them),
 * and the next one ends the tool.
 */
static int drain(struct dtl_copy *cp, const sigset_t *waitmask)
{
	struct pollfd pfd = { .fd = cp->fd, .events = POLLIN };
	const struct timespec zero = { 0 };
	sig_atomic_t seen = interrupted;
	ssize_t n;
	int ret;

	for (;;) {
		n = copy_once(cp);
		if (!n)
			return 0;
		if (n == -1)
			return -1;
		ret = ppoll(n > 0 ? NULL : &pfd, n > 0 ? 0 : 1,
			    n > 0 ? &zero : NULL, waitmask);
		if (ret < 0 && errno != EINTR) {
			pr_errno(errno, "poll %s", cp->dev);
			return -1;
		}
		if (interrupted != seen) {
			release_signals();
			pr_err("interrupted while copying the rest of the stream: stopped after %llu bytes",
			       (unsigned long long)(cp->base + cp->bytes));
			return -1;
		}
	}
}

/* The counters of every CPU of the session. Returns 0 or -1 (reported). */
static int fetch_stats(int fd, const char *dev,
		       struct htmtrace_dtl_cpu_stats **statsp, __u32 *countp)
{
	struct htmtrace_dtl_cpu_stats *stats = NULL, *nstats;
	struct htmtrace_dtl_stats st;
	__u32 cap = DTL_STATS_GUESS;
	int tries;

	for (tries = 0; tries < DTL_STATS_TRIES; tries++) {
		nstats = realloc(stats, (size_t)cap * sizeof(*stats));
		if (!nstats) {
			pr_errno(ENOMEM, "counters of %u CPUs", cap);
			break;
		}
		stats = nstats;
		memset(&st, 0, sizeof(st));
		st.addr = (uintptr_t)stats;
		st.size = cap * sizeof(*stats);
		if (!ioctl(fd, HTMTRACE_IOC_DTL_STATS, &st)) {
			if (st.count > cap) {
				pr_err("counters %s: the driver answered an impossible count",
				       dev);
				break;
			}
			*statsp = stats;
			*countp = st.count;
			return 0;
		}
		if (errno != ENOSPC || st.count <= cap) {
			if (errno == ENOSPC)
				pr_err("counters %s: the driver answered an impossible count",
				       dev);
			else
				pr_errno(errno, "counters %s", dev);
			break;
		}
		cap = st.count;
		/* The size must fit the __u32 of struct htmtrace_dtl_stats. */
		if ((__u64)cap * sizeof(*stats) > UINT32_MAX) {
			pr_err("counters %s: %u CPUs do not fit in one request",
			       dev, cap);
			break;
		}
	}
	if (tries == DTL_STATS_TRIES)
		pr_err("counters %s: the CPU count kept growing", dev);
	free(stats);
	return -1;
}

static void print_stats(FILE *f, const struct htmtrace_dtl_cpu_stats *stats,
			__u32 count)
{
	const char *state;
	char num[16];
	__u32 i;

	fprintf(f, "%-6s %-10s %-6s %12s %12s %12s %12s %12s\n", "cpu",
		"state", "log", "entries", "overwritten", "dropped", "wakeups",
		"folded");
	for (i = 0; i < count; i++) {
		const struct htmtrace_dtl_cpu_stats *s = &stats[i];

		state = dtl_cpu_state_name(s->state);
		if (!state) {
			snprintf(num, sizeof(num), "%u", s->state);
			state = num;
		}
		fprintf(f, "%-6u %-10s %-6s %12llu %12llu %12llu %12llu %12u\n",
			s->cpu, state, s->kernel_owned ? "kernel" : "own",
			(unsigned long long)s->entries,
			(unsigned long long)s->overwritten,
			(unsigned long long)s->dropped,
			(unsigned long long)s->wakeups, s->folded);
	}
}

static const struct option record_options[] = {
	DEVICE_OPTION,
	{ "cpus", required_argument, NULL, 'C' },
	{ "cpu", required_argument, NULL, 'C' },	/* perf's name */
	{ "events", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "ring-kb", required_argument, NULL, OPT_RING_KB },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_dtl_record(int argc, char **argv)
{
	struct cmd_opts co = { .operands = 1, .dev_is_path = 1 };
	struct workload wl = WORKLOAD_INIT;
	struct htmtrace_dtl_cpu_stats *stats = NULL;
	struct htmtrace_dtl_config cfg;
	struct dtl_copy cp = { .fd = -1, .out = -1 };
	struct out_file of = { .staged = 0 };
	struct dtl_header_info hinfo;
	unsigned char *header = NULL;
	size_t header_len = 0;
	FILE *msg = stdout;	/* the counters: stderr with -o - */
	sigset_t block, waitmask;
	const char *dev = co.dev, *outname = NULL, *cpus_arg = NULL;
	char cpus_text[256], events_text[64];
	__u64 *cpus = NULL, ring_kb = 0, latency_ms = 0;
	__u32 cpus_size = 0, events = HTMTRACE_DTL_ALL, nstats = 0;
	int blocked = 0, keep = 0, ended = 0, partial = 0, to_stdout;
	int fd, opt, err, ret = EXIT_FAIL;

	snprintf(co.dev, sizeof(co.dev), "%s", DTL_DEVICE);
	/* '+': the first operand starts the command and its own options. */
	while ((opt = next_option(argc, argv, "+:d:C:e:o:h", record_options,
				  &co)) > 0) {
		switch (opt) {
		case 'C':
			free(cpus);
			cpus = NULL;
			err = parse_cpu_list(optarg, &cpus, &cpus_size);
			if (err == -ENOMEM) {
				pr_errno(ENOMEM, "CPU list");
				return EXIT_FAIL;
			}
			if (err)
				return usage_err("bad CPU list '%s': expected CPU numbers and ranges 0..%u, e.g. 0-3,8",
						 optarg, DTL_CPU_MAX);
			cpus_arg = optarg;
			break;
		case 'e':
			if (parse_dtl_events(optarg, &events)) {
				free(cpus);
				return usage_err("bad event list '%s': expected cede, preempt, fault or all, comma-separated",
						 optarg);
			}
			break;
		case 'o':
			outname = optarg;
			break;
		case OPT_RING_KB:
			if (parse_u64(optarg, &ring_kb) ||
			    ring_kb < RING_KB_MIN || ring_kb > RING_KB_MAX) {
				free(cpus);
				return usage_err("bad ring size '%s': expected %u to %u KiB",
						 optarg, RING_KB_MIN,
						 RING_KB_MAX);
			}
			break;
		case OPT_DURATION:
			if (workload_duration(&wl, optarg)) {
				free(cpus);
				return EXIT_USAGE;
			}
			break;
		case OPT_LATENCY:
			if (parse_u64(optarg, &latency_ms) ||
			    latency_ms > LATENCY_MS_MAX) {
				free(cpus);
				return usage_err("bad latency '%s': expected 1 to %u milliseconds, or 0 for none",
						 optarg, LATENCY_MS_MAX);
			}
			break;
		}
	}
	if (opt) {
		free(cpus);
		return co.status;
	}
	if (workload_operands(&wl, argc, argv))
		ret = EXIT_USAGE;
	else if (!outname)
		ret = usage_err("missing output: -o FILE is required");
	else if (!*outname)
		ret = usage_err("bad output '': expected a file name, or - for standard output");
	if (ret == EXIT_USAGE) {
		free(cpus);
		return ret;
	}
	to_stdout = !strcmp(outname, "-");
	wl.stdout_to_stderr = to_stdout;
	if (cpus_arg)
		format_cpu_list(cpus_text, sizeof(cpus_text), cpus,
				cpus_size / sizeof(*cpus));
	format_dtl_events(events_text, sizeof(events_text), events);

	if (catch_signals(1))
		goto out_free;
	cp.buf = malloc(DTL_READ_SIZE);
	if (!cp.buf) {
		pr_errno(ENOMEM, "read buffer of %u bytes", DTL_READ_SIZE);
		goto out_free;
	}
	fd = open_device(dev, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		goto out_free;
	cp.fd = fd;
	cp.dev = dev;
	if (to_stdout) {
		/* The stream goes to standard output, the messages to stderr. */
		outname = "standard output";
		cp.outname = outname;
		cp.out = dup(STDOUT_FILENO);
		msg = stderr;
		if (cp.out < 0 || isatty(cp.out)) {
			pr_err("standard output %s: the stream is binary; pipe it to 'htmtrace dtl report -' or give -o FILE",
			       cp.out < 0 ? "is closed" : "is a terminal");
			goto out_dev;
		}
	} else {
		cp.outname = outname;
		cp.of = &of;
		cp.out = out_open(&of, outname);
		if (cp.out < 0) {
			pr_errno(-cp.out, "create %s", outname);
			goto out_dev;
		}
	}
	/* The file header, before the stream (dtl_header.c). */
	hinfo.cpus = cpus_arg ? cpus_text : NULL;
	hinfo.events = events_text;
	hinfo.ring_kb = ring_kb;
	hinfo.argc = argc;
	hinfo.argv = argv;
	err = dtl_header_make(&header, &header_len, &hinfo);
	if (!err)
		err = write_all(cp.out, header, header_len);
	free(header);
	if (err) {
		pr_errno(-err, "write %s", outname);
		goto out_file;
	}
	cp.base = header_len;
	if (workload_prepare(&wl))
		goto out_file;

	memset(&cfg, 0, sizeof(cfg));
	cfg.cpus = (uintptr_t)cpus;
	cfg.cpus_size = cpus_size;
	cfg.mask = events;
	cfg.ring_kb = ring_kb;
	if (dtl_ioctl(fd, dev, HTMTRACE_IOC_DTL_CONFIGURE, &cfg, "configure"))
		goto out_workload;
	if (dtl_ioctl(fd, dev, HTMTRACE_IOC_DTL_START, NULL, "start"))
		goto out_deconfigure;
	/* --latency: a driver without FLUSH fails here, before the workload. */
	cp.flush_ns = (long long)latency_ms * 1000000;
	if (cp.flush_ns && flush_stream(&cp, now_ns())) {
		ioctl(fd, HTMTRACE_IOC_DTL_STOP);
		goto out_deconfigure;
	}

	/* From here the capture signals only come in while ppoll() waits. */
	capture_sigset(&block, 1);
	if (sigprocmask(SIG_BLOCK, &block, &waitmask)) {
		pr_errno(errno, "block signals");
		ioctl(fd, HTMTRACE_IOC_DTL_STOP);
		goto out_deconfigure;
	}
	blocked = 1;
	/*
	 * On a failure here the capture is worthless: stop it as best we can;
	 * the deconfigure that follows reports what is left.
	 */
	if (wl.argv && !interrupted) {
		if (workload_go(&wl)) {
			ioctl(fd, HTMTRACE_IOC_DTL_STOP);
			goto out_deconfigure;
		}
	} else if (!wl.argv && !wl.have_secs) {
		fprintf(stderr, "htmtrace %s: capturing; press Ctrl-C to stop\n",
			cmd_name);
	}
	/* From here what was copied is kept, whatever fails. */
	workload_mark(&wl, 0);
	ended = capture(&cp, &wl, &waitmask);
	workload_mark(&wl, 1);
	if (ended < 0) {
		ioctl(fd, HTMTRACE_IOC_DTL_STOP);
		goto out_partial;
	}
	/* A stream that ended by itself has nothing left to stop or read. */
	if (!ended) {
		if (dtl_ioctl(fd, dev, HTMTRACE_IOC_DTL_STOP, NULL, "stop"))
			goto out_partial;
		if (drain(&cp, &waitmask))
			goto out_partial;
	}
	/* Data may first fail to reach the disk at close (NFS, quotas). */
	err = sync_close(cp.out);
	cp.out = -1;
	if (err) {
		pr_errno(-err, "close %s", outname);
		pr_err("%s may hold less than the %llu bytes written to it",
		       outname, (unsigned long long)(cp.base + cp.bytes));
		goto out_partial;
	}
	keep = 1;
	ret = EXIT_OK;
	err = out_commit(&of);
	if (err) {
		pr_errno(-err, "rename %s to %s", of.tmp, outname);
		outname = of.tmp;
		ret = EXIT_FAIL;
	}
	if (fetch_stats(fd, dev, &stats, &nstats))
		ret = EXIT_FAIL;
	/* A capture that silently lost a CPU is no success (htmtrace(1)). */
	if (cp.cpus_taken) {
		pr_err("the capture of %llu CPU(s) ended early: another user (perf's vpa_dtl, debugfs dtl) took their log; %s holds what came before",
		       (unsigned long long)cp.cpus_taken, outname);
		ret = EXIT_FAIL;
	}
	goto out_deconfigure;

out_partial:
	/* Nothing but the header is no capture: removed, as before. */
	partial = cp.records > 1;
	keep = partial;
	if (keep && out_commit(&of)) {
		pr_errno(errno, "rename %s to %s", of.tmp, outname);
		outname = of.tmp;
	}

out_deconfigure:
	if (dtl_ioctl(fd, dev, HTMTRACE_IOC_DTL_DECONFIGURE, NULL,
		      "deconfigure"))
		ret = EXIT_FAIL;
	if (blocked)
		sigprocmask(SIG_SETMASK, &waitmask, NULL);
out_workload:
	if (workload_reap(&wl))
		ret = EXIT_FAIL;
out_file:
	outname = cp.outname;	/* the temporary name, if a rename failed */
	if (cp.out >= 0)
		close(cp.out);
	if (!keep) {
		if (!to_stdout) {
			out_discard(&of);
			if (of.existed)
				pr_err("nothing captured: %s left as it was",
				       outname);
			else
				pr_err("removed the partial %s", outname);
		}
	} else if (partial) {
		pr_err("kept %llu bytes (a header of %llu and %llu records: %llu entries, %llu lost) in %s: whole records, the capture cut short there",
		       (unsigned long long)(cp.base + cp.bytes),
		       (unsigned long long)cp.base,
		       (unsigned long long)cp.records,
		       (unsigned long long)cp.entries,
		       (unsigned long long)cp.lost, outname);
		pr_err("the rest of the capture is lost: the dispatch trace log is a stream, read once");
	} else {
		if (cpus_arg)
			fprintf(msg, "captured CPUs %s on %s, events %s\n",
				cpus_text, dev, events_text);
		else
			fprintf(msg, "captured all CPUs on %s, events %s\n",
				dev, events_text);
		print_workload(msg, &wl);
		if (ended)
			fprintf(msg, "the driver ended the stream before the stop\n");
		fprintf(msg, "wrote %llu bytes (a header of %llu and %llu records: %llu entries, %llu lost) to %s\n",
			(unsigned long long)(cp.base + cp.bytes),
			(unsigned long long)cp.base,
			(unsigned long long)cp.records,
			(unsigned long long)cp.entries,
			(unsigned long long)cp.lost, outname);
		if (stats)
			print_stats(msg, stats, nstats);
	}
out_dev:
	close(fd);
out_free:
	free(stats);
	free(cp.buf);
	free(cpus);
	/* A workload that failed makes the capture's status its own. */
	return workload_exit(&wl, ret);
}

/* --- report ---------------------------------------------------------------- */
