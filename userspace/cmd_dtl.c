// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl record / dtl report: capture the dispatch trace log of a set
 * of CPUs from /dev/vpa_dtl into a file, and decode such a file.
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
 * report: the input is mapped (a pipe or a device first copied into an
 * unnamed temporary file) and checked whole before anything is printed, so
 * that a damaged file gives one error and no partial report; then its
 * records go out in time order through a bounded reorder window.
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
	__u64 bytes, records, entries, lost;
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
		if (ftruncate(cp->out, cp->bytes))
			pr_errno(errno, "cut %s back to %llu bytes of whole records",
				 cp->outname, (unsigned long long)cp->bytes);
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
			       (unsigned long long)cp->bytes);
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

	fprintf(f, "%-6s %-10s %-6s %12s %12s %12s %12s\n", "cpu", "state",
		"log", "entries", "overwritten", "dropped", "wakeups");
	for (i = 0; i < count; i++) {
		const struct htmtrace_dtl_cpu_stats *s = &stats[i];

		state = dtl_cpu_state_name(s->state);
		if (!state) {
			snprintf(num, sizeof(num), "%u", s->state);
			state = num;
		}
		fprintf(f, "%-6u %-10s %-6s %12llu %12llu %12llu %12llu\n",
			s->cpu, state, s->kernel_owned ? "kernel" : "own",
			(unsigned long long)s->entries,
			(unsigned long long)s->overwritten,
			(unsigned long long)s->dropped,
			(unsigned long long)s->wakeups);
	}
}

static const struct option record_options[] = {
	DEVICE_OPTION,
	{ "cpus", required_argument, NULL, 'C' },
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
	ended = capture(&cp, &wl, &waitmask);
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
		       outname, (unsigned long long)cp.bytes);
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
		pr_err("kept %llu bytes (%llu records: %llu entries, %llu lost) in %s: whole records, the capture cut short there",
		       (unsigned long long)cp.bytes,
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
		fprintf(msg, "wrote %llu bytes (%llu records: %llu entries, %llu lost) to %s\n",
			(unsigned long long)cp.bytes,
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
	return ret;
}

/* --- report ---------------------------------------------------------------- */

enum dtl_format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_JSONL };

#define NR_CPU_EVENTS	(HTMTRACE_DTL_CPU_FAILED + 1)	/* [0]: others */

struct cpu_sum {
	__u32 cpu;
	__u64 entries, overwritten, dropped, lost_other;
	__u64 events[NR_CPU_EVENTS];
	__u64 last_tb;		/* timebase of its last entry, if has_last */
	int has_last;
	struct wait_hist wait;	/* enqueue_to_dispatch */
};

/*
 * The reorder window: records wait in a heap ordered by time (timebase),
 * then by offset, and leave it as it overflows. A record more than
 * REORDER_WINDOW records late in the file is printed when reached: then
 * out of order, and counted.
 */
#define REORDER_WINDOW		(1 << 20)

struct pending {
	__u64 key;		/* timebase */
	size_t off;		/* of the record; ties in file order */
	size_t clock_off;	/* of the CLOCK record in force there */
};

struct report {
	enum dtl_format fmt;
	const char *file;
	struct cpu_table cpus_sum;		/* of struct cpu_sum */
	struct htmtrace_dtl_clock clock;	/* the one in force */
	int have_clock;
	__u64 dispatch[256], preempt[256];
	__u64 entries, overwritten, dropped, lost_other, unknown;
	__u64 bad_time;		/* entries dtl_entry_time() refuses */
	int first;				/* JSON: no comma yet */
	struct wait_hist dwait[256], pwait[256];	/* by reason */
	/* --cpu and --time: what is reported (cpus NULL: every CPU). */
	__u64 *cpus;
	size_t cpu_words;
	long long t_start, t_end;
	/* The reorder window. */
	const unsigned char *buf;
	struct pending *heap;
	size_t nheap, heap_cap;
	__u64 last_key, out_of_order;
	int emitted;
};

/* The summary of a CPU, added in CPU order. NULL if out of memory. */
static struct cpu_sum *cpu_sum(struct report *r, __u32 cpu)
{
	return cpu_table_get(&r->cpus_sum, cpu);
}

/* Check the whole stream. Returns 0 or -1 after a message. */
static int check_stream(const char *file, const unsigned char *buf,
			size_t len)
{
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_rec hdr;
	enum dtl_rec_status rs;
	const char *name;
	char tname[16];
	int have_clock = 0;
	size_t off;

	if (!len) {
		pr_err("%s: empty file: no records", file);
		return -1;
	}
	for (off = 0; (rs = dtl_rec_check(buf, len, off, &hdr)) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&clock, buf + off, sizeof(clock));
			if (!clock.tb_freq) {
				pr_err("%s: CLOCK record at offset %zu: timebase frequency 0",
				       file, off);
				return -1;
			}
			have_clock = 1;
		} else if (hdr.type == HTMTRACE_DTL_REC_ENTRY && !have_clock) {
			pr_err("%s: ENTRY record at offset %zu comes before any CLOCK record: its time cannot be converted",
			       file, off);
			return -1;
		}
	}
	if (rs == DTL_REC_END)
		return 0;
	name = dtl_rec_name(hdr.type);
	if (!name) {
		snprintf(tname, sizeof(tname), "type %u", hdr.type);
		name = tname;
	}
	switch (rs) {
	case DTL_REC_TRUNC_HDR:
		pr_err("%s: truncated record at offset %zu: %zu bytes left, a header is %zu",
		       file, off, len - off, sizeof(hdr));
		break;
	case DTL_REC_TRUNC:
		pr_err("%s: truncated %s record at offset %zu: length %u, %zu bytes left",
		       file, name, off, hdr.len, len - off);
		break;
	case DTL_REC_SHORT:
		pr_err("%s: bad %s record at offset %zu: length %u is less than 8",
		       file, name, off, hdr.len);
		break;
	case DTL_REC_ALIGN:
		pr_err("%s: bad %s record at offset %zu: length %u is not a multiple of 8",
		       file, name, off, hdr.len);
		break;
	case DTL_REC_SMALL:
		pr_err("%s: bad %s record at offset %zu: length %u, expected at least %zu",
		       file, name, off, hdr.len, dtl_rec_min_len(hdr.type));
		break;
	case DTL_REC_SWAPPED:
		pr_err("%s: the stream was written with the other byte order",
		       file);
		break;
	default:
		pr_err("%s: bad record at offset %zu", file, off);
		break;
	}
	return -1;
}

/* A code's name, or the code as a number. */
static const char *code_name(const char *name, unsigned int code, char *buf,
			     size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "%u", code);
	return buf;
}

/* JSON: a name as a string, or null. Names need no escaping. */
static void json_name(const char *key, const char *name)
{
	if (name)
		printf("\"%s\": \"%s\"", key, name);
	else
		printf("\"%s\": null", key);
}

/* JSON: a name as an array's string element, or null. */
static void json_value(const char *name)
{
	if (name)
		printf("\"%s\"", name);
	else
		printf("null");
}

static void json_sep(struct report *r)
{
	if (r->fmt == FMT_JSON)
		printf("%s\n    ", r->first ? "" : ",");
	r->first = 0;
}

static void out_clock(struct report *r, size_t off,
		      const struct htmtrace_dtl_clock *c)
{
	char secs[32], mono[32], wall[48];

	format_seconds(secs, sizeof(secs), (long long)c->boottime_ns);
	format_seconds(mono, sizeof(mono), (long long)c->monotonic_ns);
	format_utc(wall, sizeof(wall), (long long)c->realtime_ns);
	switch (r->fmt) {
	case FMT_TEXT:
		printf("CLOCK tb_freq=%llu timebase=%llu boottime=%s monotonic=%s realtime=%s\n",
		       (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase, secs, mono, wall);
		break;
	case FMT_CSV:
		printf("clock,%zu,,%s,%s,%llu,,,,,,,,,,,,,,,,,\n", off, secs, wall,
		       (unsigned long long)c->timebase);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"clock\", %zu, %u, %llu, %llu, %llu, %llu, %llu, %s, \"%s\"]",
		       off, c->version, (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase,
		       (unsigned long long)c->monotonic_ns,
		       (unsigned long long)c->boottime_ns,
		       (unsigned long long)c->realtime_ns, secs, wall);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"clock\", \"offset\": %zu, \"version\": %u, \"tb_freq\": %llu, \"timebase\": %llu, \"monotonic_ns\": %llu, \"boottime_ns\": %llu, \"realtime_ns\": %llu, \"seconds\": %s, \"realtime\": \"%s\"}",
		       off, c->version, (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase,
		       (unsigned long long)c->monotonic_ns,
		       (unsigned long long)c->boottime_ns,
		       (unsigned long long)c->realtime_ns, secs, wall);
		break;
	}
}

static void out_entry(struct report *r, size_t off, __u32 cpu,
		      const struct dtl_entry *e)
{
	const struct htmtrace_dtl_clock *c = &r->clock;
	const char *dname = dtl_dispatch_name(e->dispatch_reason);
	const char *pname = dtl_preempt_name(e->preempt_reason);
	char secs[32], wall[48], e2d[32], r2e[32], w2r[32];
	char dnum[8], pnum[8];

	format_seconds(secs, sizeof(secs),
		       dtl_tb_to_ns(c, e->timebase, c->boottime_ns));
	format_utc(wall, sizeof(wall),
		   dtl_tb_to_ns(c, e->timebase, c->realtime_ns));
	format_us(e2d, sizeof(e2d),
		  dtl_ticks_to_ns(e->enqueue_to_dispatch, c->tb_freq));
	format_us(r2e, sizeof(r2e),
		  dtl_ticks_to_ns(e->ready_to_enqueue, c->tb_freq));
	format_us(w2r, sizeof(w2r),
		  dtl_ticks_to_ns(e->waiting_to_ready, c->tb_freq));
	switch (r->fmt) {
	case FMT_TEXT:
		printf("%s %s cpu=%u dispatch=%s preempt=%s processor=%u enqueue_to_dispatch=%sus ready_to_enqueue=%sus waiting_to_ready=%sus fault=0x%llx srr0=0x%llx\n",
		       secs, wall, cpu,
		       code_name(dname, e->dispatch_reason, dnum, sizeof(dnum)),
		       code_name(pname, e->preempt_reason, pnum, sizeof(pnum)),
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0);
		break;
	case FMT_CSV:
		printf("entry,%zu,%u,%s,%s,%llu,%s,%s,%u,%s,%s,%s,0x%llx,0x%llx,0x%llx,,,,,,,,\n",
		       off, cpu, secs, wall, (unsigned long long)e->timebase,
		       code_name(dname, e->dispatch_reason, dnum, sizeof(dnum)),
		       code_name(pname, e->preempt_reason, pnum, sizeof(pnum)),
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"entry\", %zu, %u, %s, %llu, %u, %u, %u, %s, %s, %s, \"0x%llx\", \"0x%llx\", \"0x%llx\"]",
		       off, cpu, secs, (unsigned long long)e->timebase,
		       e->dispatch_reason, e->preempt_reason, e->processor_id,
		       e2d, r2e, w2r, (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"entry\", \"offset\": %zu, \"cpu\": %u, \"seconds\": %s, \"realtime\": \"%s\", \"timebase\": %llu, \"dispatch_reason\": %u, ",
		       off, cpu, secs, wall, (unsigned long long)e->timebase,
		       e->dispatch_reason);
		json_name("dispatch", dname);
		printf(", \"preempt_reason\": %u, ", e->preempt_reason);
		json_name("preempt", pname);
		printf(", \"processor_id\": %u, \"enqueue_to_dispatch_us\": %s, \"ready_to_enqueue_us\": %s, \"waiting_to_ready_us\": %s, \"fault_addr\": \"0x%llx\", \"srr0\": \"0x%llx\", \"srr1\": \"0x%llx\"}",
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	}
}

static void out_lost(struct report *r, size_t off,
		     const struct htmtrace_dtl_lost *l)
{
	const char *why = dtl_lost_name(l->why);
	char num[16];

	switch (r->fmt) {
	case FMT_TEXT:
		printf("LOST cpu=%u count=%llu why=%s\n", l->hdr.cpu,
		       (unsigned long long)l->count,
		       code_name(why, l->why, num, sizeof(num)));
		break;
	case FMT_CSV:
		printf("lost,%zu,%u,,,,,,,,,,,,,%llu,%s,,,,,,\n", off, l->hdr.cpu,
		       (unsigned long long)l->count,
		       code_name(why, l->why, num, sizeof(num)));
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"lost\", %zu, %u, %llu, %u, ", off, l->hdr.cpu,
		       (unsigned long long)l->count, l->why);
		json_value(why);
		putchar(']');
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"lost\", \"offset\": %zu, \"cpu\": %u, \"count\": %llu, \"why_code\": %u, ",
		       off, l->hdr.cpu, (unsigned long long)l->count, l->why);
		json_name("why", why);
		putchar('}');
		break;
	}
}

static void out_cpu(struct report *r, size_t off,
		    const struct htmtrace_dtl_cpu *c)
{
	const char *ev = dtl_cpu_event_name(c->event);
	char num[16];

	switch (r->fmt) {
	case FMT_TEXT:
		printf("CPU cpu=%u event=%s", c->hdr.cpu,
		       code_name(ev, c->event, num, sizeof(num)));
		if (c->error)
			printf(" error=%d", c->error);
		putchar('\n');
		break;
	case FMT_CSV:
		printf("cpu,%zu,%u,,,,,,,,,,,,,,,%s,%d,,,,\n", off, c->hdr.cpu,
		       code_name(ev, c->event, num, sizeof(num)), c->error);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"cpu\", %zu, %u, %u, ", off, c->hdr.cpu, c->event);
		json_value(ev);
		printf(", %d]", c->error);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"cpu\", \"offset\": %zu, \"cpu\": %u, \"event_code\": %u, ",
		       off, c->hdr.cpu, c->event);
		json_name("event", ev);
		printf(", \"error\": %d}", c->error);
		break;
	}
}

/* "joined=1,offline=1", or "-". */
static void format_cpu_events(char *buf, size_t len, const struct cpu_sum *s)
{
	size_t used = 0;
	unsigned int ev;
	int n;

	buf[0] = '\0';
	for (ev = 1; ev <= NR_CPU_EVENTS; ev++) {
		unsigned int i = ev % NR_CPU_EVENTS;	/* others last */

		if (!s->events[i])
			continue;
		n = snprintf(buf + used, len - used, "%s%s=%llu",
			     used ? "," : "",
			     i ? dtl_cpu_event_name(i) : "other",
			     (unsigned long long)s->events[i]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	if (!used)
		snprintf(buf, len, "-");
}

static void text_reasons(const char *kind, const __u64 *counts,
			 const char *(*name)(unsigned int))
{
	unsigned int code;

	for (code = 0; code < 256; code++)
		if (counts[code])
			printf("%-9s %3u %-32s %12llu\n", kind, code,
			       name(code) ? name(code) : "unknown",
			       (unsigned long long)counts[code]);
}

static void json_reasons(const char *kind, const __u64 *counts,
			 const char *(*name)(unsigned int), const char *nl)
{
	const char *nl2 = *nl ? "\n      " : "";
	unsigned int code;
	int first = 1;

	printf("\"%s\": [", kind);
	for (code = 0; code < 256; code++) {
		if (!counts[code])
			continue;
		printf("%s%s{\"code\": %u, ", first ? "" : ",", nl2, code);
		json_name("name", name(code));
		printf(", \"count\": %llu}", (unsigned long long)counts[code]);
		first = 0;
	}
	printf("%s]", first ? "" : nl);
}

/* A wait in µs with three decimals. */
static const char *wait_us(char *buf, size_t len, const struct report *r,
			   __u64 ticks)
{
	format_us(buf, len, r->clock.tb_freq ?
		  dtl_ticks_to_ns(ticks, r->clock.tb_freq) : 0);
	return buf;
}

enum wait_style { WAIT_TEXT, WAIT_CSV, WAIT_JSON };

/* "COUNT P50 P90 P99 MAX" of a distribution, in µs. */
static void wait_cols(const struct report *r, const struct wait_hist *h,
		      enum wait_style style)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	char v[4][32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		wait_us(v[i], sizeof(v[i]), r, wait_hist_pct(h, pcts[i]));
	wait_us(v[3], sizeof(v[3]), r, h->max);
	if (style == WAIT_TEXT)
		printf(" %10llu %10s %10s %10s %10s\n",
		       (unsigned long long)h->n, v[0], v[1], v[2], v[3]);
	else if (style == WAIT_CSV)
		printf("%llu,,,,%s,%s,%s,%s\n", (unsigned long long)h->n, v[0],
		       v[1], v[2], v[3]);
	else
		printf("\"count\": %llu, \"p50_us\": %s, \"p90_us\": %s, \"p99_us\": %s, \"max_us\": %s",
		       (unsigned long long)h->n, v[0], v[1], v[2], v[3]);
}

static void json_wait(const struct report *r, const struct wait_hist *h)
{
	wait_cols(r, h, WAIT_JSON);
}

static void text_waits(const struct report *r, const char *kind,
		       const struct wait_hist *hs,
		       const char *(*name)(unsigned int))
{
	unsigned int code;
	char num[48];

	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		snprintf(num, sizeof(num), "%s %u %s", kind, code,
			 name(code) ? name(code) : "unknown");
		printf("%-42s", num);
		wait_cols(r, &hs[code], WAIT_TEXT);
	}
}

static void csv_waits(const struct report *r, const char *kind,
		      const struct wait_hist *hs,
		      const char *(*name)(unsigned int))
{
	unsigned int code;
	char num[8];

	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		printf("wait_%s,,,,,,%s,%s,,,,,,,,", kind,
		       kind[0] == 'd' ? code_name(name(code), code, num, sizeof(num)) : "",
		       kind[0] == 'p' ? code_name(name(code), code, num, sizeof(num)) : "");
		wait_cols(r, &hs[code], WAIT_CSV);
	}
}

static void json_waits(const struct report *r, const char *kind,
		       const struct wait_hist *hs,
		       const char *(*name)(unsigned int), const char *nl)
{
	unsigned int code;
	int first = 1;

	printf("\"%s\": [", kind);
	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		printf("%s%s{\"code\": %u, ", first ? "" : ",", nl, code);
		json_name("name", name(code));
		printf(", ");
		json_wait(r, &hs[code]);
		putchar('}');
		first = 0;
	}
	printf("%s]", first ? "" : nl);
}

static void text_summary(struct report *r)
{
	char events[160];
	size_t c;

	printf("\nsummary\n");
	printf("%-6s %12s %12s %12s  %s\n", "cpu", "entries", "overwritten",
	       "dropped", "events");
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		format_cpu_events(events, sizeof(events), s);
		printf("%-6u %12llu %12llu %12llu  %s\n", s->cpu,
		       (unsigned long long)s->entries,
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped, events);
	}
	text_reasons("dispatch", r->dispatch, dtl_dispatch_name);
	text_reasons("preempt", r->preempt, dtl_preempt_name);
	if (r->entries) {
		printf("\ndispatch wait (enqueue_to_dispatch), us\n");
		printf("%-42s %10s %10s %10s %10s %10s\n", "", "entries", "p50",
		       "p90", "p99", "max");
		for (c = 0; c < r->cpus_sum.n; c++) {
			const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;
			char name[24];

			if (!s->wait.n)
				continue;
			snprintf(name, sizeof(name), "cpu %u", s->cpu);
			printf("%-42s", name);
			wait_cols(r, &s->wait, WAIT_TEXT);
		}
		text_waits(r, "dispatch", r->dwait, dtl_dispatch_name);
		text_waits(r, "preempt", r->pwait, dtl_preempt_name);
	}
	printf("entries: %llu, lost: %llu (overwritten %llu, dropped %llu",
	       (unsigned long long)r->entries,
	       (unsigned long long)(r->overwritten + r->dropped + r->lost_other),
	       (unsigned long long)r->overwritten,
	       (unsigned long long)r->dropped);
	if (r->lost_other)
		printf(", other %llu", (unsigned long long)r->lost_other);
	printf("), unknown records skipped: %llu",
	       (unsigned long long)r->unknown);
	if (r->out_of_order)
		printf(", out of time order: %llu",
		       (unsigned long long)r->out_of_order);
	if (r->bad_time)
		printf(", ignored for a time out of range: %llu",
		       (unsigned long long)r->bad_time);
	putchar('\n');
}

static void csv_summary(struct report *r)
{
	size_t c;

	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		if (!s->wait.n)
			continue;
		printf("wait_cpu,,%u,,,,,,,,,,,,,", s->cpu);
		wait_cols(r, &s->wait, WAIT_CSV);
	}
	csv_waits(r, "dispatch", r->dwait, dtl_dispatch_name);
	csv_waits(r, "preempt", r->pwait, dtl_preempt_name);
}

/* The JSON summary object; @nl: "\n    " in the document, "" in lines. */
static void json_summary(struct report *r, const char *nl)
{
	const char *nl2 = *nl ? "\n      " : "";
	unsigned int i;
	size_t c;

	printf("{%s\"cpus\": [", nl);
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;
		int first = 1;

		printf("%s%s{\"cpu\": %u, \"entries\": %llu, \"overwritten\": %llu, \"dropped\": %llu, \"events\": {",
		       c ? "," : "", nl2, s->cpu,
		       (unsigned long long)s->entries,
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped);
		for (i = 1; i <= NR_CPU_EVENTS; i++) {
			unsigned int ev = i % NR_CPU_EVENTS;

			if (!s->events[ev])
				continue;
			printf("%s\"%s\": %llu", first ? "" : ", ",
			       ev ? dtl_cpu_event_name(ev) : "other",
			       (unsigned long long)s->events[ev]);
			first = 0;
		}
		printf("}, \"wait\": {");
		json_wait(r, &s->wait);
		printf("}}");
	}
	printf("%s],%s", r->cpus_sum.n ? nl : "", nl);
	json_reasons("dispatch", r->dispatch, dtl_dispatch_name, nl);
	printf(",%s", nl);
	json_reasons("preempt", r->preempt, dtl_preempt_name, nl);
	printf(",%s\"wait\": {\"of\": \"enqueue_to_dispatch\", \"method\": \"nearest rank; exact below 512 ticks, else rounded down to 1/256 of the power of two\", ",
	       nl);
	json_waits(r, "dispatch", r->dwait, dtl_dispatch_name,
		   *nl ? "\n        " : "");
	printf(", ");
	json_waits(r, "preempt", r->pwait, dtl_preempt_name,
		   *nl ? "\n        " : "");
	printf("},%s\"entries\": %llu, \"lost\": %llu, \"overwritten\": %llu, \"dropped\": %llu, \"lost_other\": %llu, \"unknown_records\": %llu, \"out_of_order\": %llu%s}",
	       nl, (unsigned long long)r->entries,
	       (unsigned long long)(r->overwritten + r->dropped +
				    r->lost_other),
	       (unsigned long long)r->overwritten,
	       (unsigned long long)r->dropped,
	       (unsigned long long)r->lost_other,
	       (unsigned long long)r->unknown,
	       (unsigned long long)r->out_of_order, *nl ? "\n  " : "");
}

static void out_summary(struct report *r)
{
	switch (r->fmt) {
	case FMT_TEXT:
		text_summary(r);
		break;
	case FMT_CSV:
		csv_summary(r);
		break;
	case FMT_JSON:
		printf("%s],\n  \"summary\": ", r->first ? "" : "\n  ");
		json_summary(r, "\n    ");
		printf("\n}\n");
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"summary\", \"summary\": ");
		json_summary(r, "");
		printf("}\n");
		break;
	}
}

/* Print the record at @p->off, with the clock in force there. */
static void emit(struct report *r, const struct pending *p)
{
	const unsigned char *rec = r->buf + p->off;
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;

	if (r->emitted && p->key < r->last_key)
		r->out_of_order++;
	else
		r->last_key = p->key;
	r->emitted = 1;
	memcpy(&r->clock, r->buf + p->clock_off, sizeof(r->clock));
	memcpy(&hdr, rec, sizeof(hdr));
	switch (hdr.type) {
	case HTMTRACE_DTL_REC_CLOCK:
		out_clock(r, p->off, &r->clock);
		break;
	case HTMTRACE_DTL_REC_ENTRY:
		memcpy(&er, rec, sizeof(er));
		dtl_entry_decode(er.entry, &e);
		out_entry(r, p->off, hdr.cpu, &e);
		break;
	case HTMTRACE_DTL_REC_LOST:
		memcpy(&lost, rec, sizeof(lost));
		out_lost(r, p->off, &lost);
		break;
	case HTMTRACE_DTL_REC_CPU:
		memcpy(&cpu, rec, sizeof(cpu));
		out_cpu(r, p->off, &cpu);
		break;
	}
	if (r->fmt == FMT_JSONL)
		putchar('\n');
}

static int pending_before(const struct pending *a, const struct pending *b)
{
	return a->key < b->key || (a->key == b->key && a->off < b->off);
}

/* Take the earliest pending record out of the window and print it. */
static void heap_pop(struct report *r)
{
	struct pending *h = r->heap, top = h[0], last;
	size_t i = 0, c;

	last = h[--r->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && pending_before(&h[c + 1], &h[c]))
			c++;
		if (!pending_before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (r->nheap)
		h[i] = last;
	emit(r, &top);
}

/* Put a record in the window; the earliest leaves it once it is full. */
static int heap_push(struct report *r, __u64 key, size_t off,
		     size_t clock_off)
{
	struct pending p = { key, off, clock_off }, *h;
	size_t i, parent;

	if (r->nheap == REORDER_WINDOW)
		heap_pop(r);
	if (r->nheap == r->heap_cap) {
		size_t ncap = r->heap_cap ? r->heap_cap * 2 : 1024;

		h = realloc(r->heap, ncap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		r->heap = h;
		r->heap_cap = ncap;
	}
	h = r->heap;
	for (i = r->nheap++; i; i = parent) {
		parent = (i - 1) / 2;
		if (!pending_before(&p, &h[parent]))
			break;
		h[i] = h[parent];
	}
	h[i] = p;
	return 0;
}

/* In --time's range: the time of @tb since boot, on @c. */
static int in_time(const struct report *r, const struct htmtrace_dtl_clock *c,
		   __u64 tb)
{
	long long t = dtl_tb_to_ns(c, tb, c->boottime_ns);

	return t >= r->t_start && t <= r->t_end;
}

/*
 * Print a checked stream in time order (through the reorder window),
 * keeping the records of --cpu and --time. An entry's time is its
 * timebase, a CLOCK's its own; a LOST or CPU record takes the time of its
 * CPU's entry before it in the file (or of the CLOCK in force). Returns 0
 * or -ENOMEM.
 */
static int report_stream(struct report *r, const unsigned char *buf,
			 size_t len)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;
	struct cpu_sum *s;
	size_t off, clock_off = 0;
	__u64 key;

	r->buf = buf;
	if (r->fmt == FMT_CSV)
		printf("kind,offset,cpu,seconds,realtime,timebase,dispatch,preempt,processor_id,enqueue_to_dispatch_us,ready_to_enqueue_us,waiting_to_ready_us,fault_addr,srr0,srr1,count,why,event,error,wait_p50_us,wait_p90_us,wait_p99_us,wait_max_us\n");
	if (r->fmt == FMT_JSON) {
		/* "clock": the first CLOCK record, the one of the session. */
		for (off = 0; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
		     off += hdr.len)
			if (hdr.type == HTMTRACE_DTL_REC_CLOCK)
				break;
		printf("{\n  \"clock\": ");
		if (off < len) {
			memcpy(&clock, buf + off, sizeof(clock));
			printf("{\"version\": %u, \"tb_freq\": %llu, \"timebase\": %llu, \"monotonic_ns\": %llu, \"boottime_ns\": %llu, \"realtime_ns\": %llu}",
			       clock.version,
			       (unsigned long long)clock.tb_freq,
			       (unsigned long long)clock.timebase,
			       (unsigned long long)clock.monotonic_ns,
			       (unsigned long long)clock.boottime_ns,
			       (unsigned long long)clock.realtime_ns);
		} else {
			printf("null");
		}
		/*
		 * The records as arrays, each kind's columns named once: a
		 * JSON tool holds a fifth of what the objects of jsonl cost.
		 * The reasons' names are in the summary's "dispatch" and
		 * "preempt"; an entry's realtime follows from its seconds
		 * and the clock.
		 */
		printf(",\n  \"columns\": {\n    %s,\n    %s,\n    %s,\n    %s\n  }",
		       "\"clock\": [\"kind\", \"offset\", \"version\", \"tb_freq\", \"timebase\", \"monotonic_ns\", \"boottime_ns\", \"realtime_ns\", \"seconds\", \"realtime\"]",
		       "\"entry\": [\"kind\", \"offset\", \"cpu\", \"seconds\", \"timebase\", \"dispatch_reason\", \"preempt_reason\", \"processor_id\", \"enqueue_to_dispatch_us\", \"ready_to_enqueue_us\", \"waiting_to_ready_us\", \"fault_addr\", \"srr0\", \"srr1\"]",
		       "\"lost\": [\"kind\", \"offset\", \"cpu\", \"count\", \"why_code\", \"why\"]",
		       "\"cpu\": [\"kind\", \"offset\", \"cpu\", \"event_code\", \"event\", \"error\"]");
		printf(",\n  \"records\": [");
		r->first = 1;
	}
	memset(&clock, 0, sizeof(clock));
	for (off = 0; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			memcpy(&clock, buf + off, sizeof(clock));
			clock_off = off;
			if (heap_push(r, clock.timebase, off, clock_off))
				return -ENOMEM;
			continue;
		}
		if (hdr.type != HTMTRACE_DTL_REC_ENTRY &&
		    hdr.type != HTMTRACE_DTL_REC_LOST &&
		    hdr.type != HTMTRACE_DTL_REC_CPU) {
			r->unknown++;
			continue;
		}
		if (!cpu_listed(r->cpus, r->cpu_words, hdr.cpu))
			continue;
		/* A damaged timebase or clock: counted, not printed. */
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY && clock.tb_freq) {
			memcpy(&er, buf + off, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			if (dtl_entry_time(&clock, &e, NULL)) {
				r->bad_time++;
				continue;
			}
		}
		s = cpu_sum(r, hdr.cpu);
		if (!s)
			return -ENOMEM;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			memcpy(&er, buf + off, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			key = e.timebase;
			s->last_tb = key;
			s->has_last = 1;
		} else {
			key = s->has_last ? s->last_tb : clock.timebase;
		}
		if (clock.tb_freq && !in_time(r, &clock, key))
			continue;
		switch (hdr.type) {
		case HTMTRACE_DTL_REC_ENTRY:
			s->entries++;
			r->entries++;
			r->dispatch[e.dispatch_reason]++;
			r->preempt[e.preempt_reason]++;
			if (wait_hist_add(&s->wait, e.enqueue_to_dispatch) ||
			    wait_hist_add(&r->dwait[e.dispatch_reason],
					  e.enqueue_to_dispatch) ||
			    wait_hist_add(&r->pwait[e.preempt_reason],
					  e.enqueue_to_dispatch))
				return -ENOMEM;
			break;
		case HTMTRACE_DTL_REC_LOST:
			memcpy(&lost, buf + off, sizeof(lost));
			if (lost.why == HTMTRACE_DTL_LOST_OVERWRITTEN) {
				s->overwritten += lost.count;
				r->overwritten += lost.count;
			} else if (lost.why == HTMTRACE_DTL_LOST_DROPPED) {
				s->dropped += lost.count;
				r->dropped += lost.count;
			} else {
				s->lost_other += lost.count;
				r->lost_other += lost.count;
			}
			break;
		case HTMTRACE_DTL_REC_CPU:
			memcpy(&cpu, buf + off, sizeof(cpu));
			s->events[cpu.event < NR_CPU_EVENTS ? cpu.event : 0]++;
			break;
		}
		if (heap_push(r, key, off, clock_off))
			return -ENOMEM;
	}
	while (r->nheap)
		heap_pop(r);
	/* The summary converts waits with the last clock. */
	memcpy(&r->clock, &clock, sizeof(r->clock));
	out_summary(r);
	if (r->bad_time)
		pr_err("%s: %llu entries ignored: time out of range (damaged timebase or clock record)",
		       r->file, (unsigned long long)r->bad_time);
	if (r->out_of_order)
		pr_err("%s: %llu records more than %u records late in the file are printed out of time order",
		       r->file, (unsigned long long)r->out_of_order,
		       REORDER_WINDOW);
	return 0;
}

/*
 * The input of a report, as one piece of memory: a regular file is mapped;
 * anything else (a pipe, standard input, a device) is copied into an
 * unnamed temporary file as it is read, up to the first header that
 * cannot be one (so that /dev/zero ends at once), and that is mapped.
 * Memory stays bounded: the pages are the file's.
 */
struct input {
	int fd;
	void *map;
	size_t len;
};

/* Copy @in into the temporary file @out. Returns 0 or -errno. */
static int spool(int in, int out)
{
	unsigned char buf[DTL_READ_SIZE];
	struct htmtrace_dtl_rec hdr;
	size_t have = 0, off;
	ssize_t n;
	int err;

	for (;;) {
		n = read(in, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		have += n;
		/* Whole records go out; a bad header ends the copy with it. */
		for (off = 0; have - off >= sizeof(hdr); off += hdr.len) {
			memcpy(&hdr, buf + off, sizeof(hdr));
			if (hdr.len < sizeof(hdr) || hdr.len % 8) {
				err = write_all(out, buf, off + sizeof(hdr));
				return err;
			}
			if (hdr.len > have - off)
				break;
		}
		err = write_all(out, buf, off);
		if (err)
			return err;
		memmove(buf, buf + off, have - off);
		have -= off;
	}
	return write_all(out, buf, have);
}

/* An unnamed temporary file in @dir. Returns the fd or -errno. */
static int spool_file(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd < 0 ? -errno : fd;
	/* A file system without O_TMPFILE: a name, removed at once. */
	if ((size_t)snprintf(path, sizeof(path), "%s/.htmtrace.XXXXXX", dir) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

static int open_input(struct input *in, const char *file)
{
	const char *tmpdir = getenv("TMPDIR");
	struct stat st;
	int fd, tmp, err;

	in->map = NULL;
	in->len = 0;
	if (!strcmp(file, "-"))
		fd = dup(STDIN_FILENO);
	else
		fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	in->fd = fd;
	if (fstat(fd, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode)) {
		tmp = spool_file(tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (tmp < 0)
			return tmp;
		err = spool(fd, tmp);
		close(fd);
		in->fd = tmp;
		if (err)
			return err;
		if (fstat(tmp, &st))
			return -errno;
	}
	if ((__u64)st.st_size >= SIZE_MAX)
		return -EFBIG;
	in->len = st.st_size;
	if (!in->len)
		return 0;
	in->map = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (in->map == MAP_FAILED) {
		in->map = NULL;
		return -errno;
	}
	/* Read front to back: pages behind may go. */
	madvise(in->map, in->len, MADV_SEQUENTIAL);
	return 0;
}

static void close_input(struct input *in)
{
	if (in->map)
		munmap(in->map, in->len);
	if (in->fd >= 0)
		close(in->fd);
}

static const struct option report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "time", required_argument, NULL, OPT_TIME },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_dtl_report(int argc, char **argv)
{
	static struct report r;		/* 16 KiB of counters: not on the stack */
	struct cmd_opts co = { .operands = 1 };
	struct input in = { .fd = -1 };
	struct dtl_svg_filter filt;
	const char *outname = NULL;
	int svg = 0;		/* the picture (dtl_svg.c), not a listing */
	__u32 cpus_size = 0;
	unsigned int i;
	int opt, err, ret = EXIT_FAIL;

	r.fmt = FMT_TEXT;
	r.cpus_sum.elem_size = sizeof(struct cpu_sum);
	r.t_start = LLONG_MIN;
	r.t_end = LLONG_MAX;
	while ((opt = next_option(argc, argv, ":o:C:h", report_options,
				  &co)) > 0) {
		switch (opt) {
		case 'o':
			if (!*optarg)
				return usage_err("bad output '': expected a file name or -");
			outname = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'C':
			free(r.cpus);
			r.cpus = NULL;
			err = parse_cpu_list(optarg, &r.cpus, &cpus_size);
			if (err == -ENOMEM) {
				pr_errno(ENOMEM, "CPU list");
				return EXIT_FAIL;
			}
			if (err)
				return usage_err("bad CPU list '%s': expected CPU numbers and ranges 0..%u, e.g. 0-3,8",
						 optarg, DTL_CPU_MAX);
			r.cpu_words = cpus_size / sizeof(*r.cpus);
			break;
		case OPT_TIME:
			if (parse_time_range(optarg, &r.t_start, &r.t_end)) {
				free(r.cpus);
				return usage_err("bad time range '%s': expected START,END in seconds since boot, e.g. 1000.5,1002 (either may be left out)",
						 optarg);
			}
			break;
		case OPT_FORMAT:
			svg = 0;
			if (!strcmp(optarg, "text"))
				r.fmt = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				r.fmt = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				r.fmt = FMT_JSON;
			else if (!strcmp(optarg, "jsonl"))
				r.fmt = FMT_JSONL;
			else if (!strcmp(optarg, "svg"))
				svg = 1;
			else
				return usage_err("bad format '%s': expected text, csv, json, jsonl or svg",
						 optarg);
			break;
		}
	}
	if (opt) {
		free(r.cpus);
		return co.status;
	}
	if (optind >= argc) {
		free(r.cpus);
		return usage_err("missing FILE");
	}
	if (optind + 1 < argc) {
		free(r.cpus);
		return usage_err("unexpected argument '%s'", argv[optind + 1]);
	}
	r.file = argv[optind];
	err = open_input(&in, r.file);
	if (!strcmp(r.file, "-"))
		r.file = "standard input";
	if (err) {
		pr_errno(-err, "read %s", r.file);
		goto out;
	}
	/* As cp: the report never replaces what it reads. */
	if (outname && in.fd >= 0 && same_file(in.fd, outname)) {
		pr_err("%s is the input %s: give another output", outname,
		       r.file);
		goto out;
	}
	if (check_stream(r.file, in.map, in.len))
		goto out;
	/* Created once the stream is known good: no file for a bad one. */
	if (outname && !freopen(outname, "w", stdout)) {
		pr_errno(errno, "create %s", outname);
		goto out;
	}
	if (svg) {
		filt.cpus = r.cpus;
		filt.cpu_words = r.cpu_words;
		filt.t_start = r.t_start;
		filt.t_end = r.t_end;
		err = dtl_svg_write(stdout, r.file, in.map, in.len, &filt);
	} else {
		err = report_stream(&r, in.map, in.len);
	}
	if (err) {
		pr_errno(-err, "report %s", r.file);
		goto out;
	}
	if (fflush(stdout) || ferror(stdout) || (outname && fsync(1))) {
		pr_errno(errno, "write %s", outname ? outname : "standard output");
		goto out;
	}
	ret = EXIT_OK;
out:
	for (i = 0; i < r.cpus_sum.n; i++)
		free(((struct cpu_sum *)r.cpus_sum.elems)[i].wait.bins);
	for (i = 0; i < 256; i++) {
		free(r.dwait[i].bins);
		free(r.pwait[i].bins);
	}
	free(r.cpus_sum.elems);
	free(r.heap);
	free(r.cpus);
	close_input(&in);
	return ret;
}
