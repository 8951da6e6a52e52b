// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl top: a live view of the dispatch trace log.
 *
 * Configure /dev/vpa_dtl for the CPUs (all events), start, and every
 * interval flush the CPUs' logs into the stream (HTMTRACE_IOC_DTL_FLUSH),
 * read it all and print a line per CPU: dispatches, preempts, cedes and
 * faults per second, the share of the interval the CPU was not dispatched,
 * the mean and the largest dispatch wait, the entries lost. A wait longer
 * than the interval fills it; the rest is carried into the next ones. An entry is a
 * dispatch; its preempt reason says why the CPU had been taken off: H_CEDE
 * is a cede, the page faults (migration_hibernation_page_fault,
 * virtual_memory_page_fault) a fault, anything else a preempt. The time
 * not dispatched is the sum of the entries' three waits; the dispatch wait
 * is enqueue_to_dispatch.
 *
 * On a terminal the screen is redrawn; elsewhere a block per interval, or
 * a JSON object per line with --json. SIGINT, SIGTERM or SIGHUP end it:
 * stopped and deconfigured, exit 0. With --input FILE, a capture is
 * replayed instead (top_replay()), through dtl report's reading and
 * time-ordered merge.
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
#include <time.h>
#include <unistd.h>

#include "chan.h"
#include "dtl.h"
#include "dtl_report.h"
#include "dtl_svg.h"
#include "opts.h"
#include "parse.h"
#include "util.h"

#define TOP_READ_SIZE	65536

struct top_cpu {
	__u32 cpu;
	int offline;
	__u64 dispatches, preempts, cedes, faults, lost;
	__u64 off_ticks, wait_ticks, wait_max;
};

struct top {
	struct cpu_table cpus;		/* of struct top_cpu */
	__u64 tb_freq;
	int have_clock;
};

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static struct top_cpu *top_cpu(struct top *t, __u32 cpu)
{
	return cpu_table_get(&t->cpus, cpu);
}

/* Account one record at @rec (checked). Returns 0 or -1 after a message. */
static int top_account_one(struct top *t, const unsigned char *rec,
			   const struct htmtrace_dtl_rec *hdr)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct top_cpu *c;
	struct dtl_entry e;

	if (hdr->type == HTMTRACE_DTL_REC_CLOCK) {
		memcpy(&clock, rec, sizeof(clock));
		if (clock.tb_freq) {
			t->tb_freq = clock.tb_freq;
			t->have_clock = 1;
		}
		return 0;
	}
	if (hdr->type != HTMTRACE_DTL_REC_ENTRY &&
	    hdr->type != HTMTRACE_DTL_REC_LOST &&
	    hdr->type != HTMTRACE_DTL_REC_CPU)
		return 0;
	c = top_cpu(t, hdr->cpu);
	if (!c) {
		pr_errno(ENOMEM, "CPU table");
		return -1;
	}
	switch (hdr->type) {
	case HTMTRACE_DTL_REC_ENTRY:
		memcpy(&er, rec, sizeof(er));
		dtl_entry_decode(er.entry, &e);
		c->offline = 0;
		c->dispatches++;
		if (e.preempt_reason == 2)		/* H_CEDE */
			c->cedes++;
		else if (e.preempt_reason == 5 ||	/* page faults */
			 e.preempt_reason == 6)
			c->faults++;
		else
			c->preempts++;
		c->wait_ticks += e.enqueue_to_dispatch;
		if (e.enqueue_to_dispatch > c->wait_max)
			c->wait_max = e.enqueue_to_dispatch;
		c->off_ticks += (__u64)e.enqueue_to_dispatch +
			e.ready_to_enqueue + e.waiting_to_ready;
		break;
	case HTMTRACE_DTL_REC_LOST:
		memcpy(&lost, rec, sizeof(lost));
		c->lost += lost.count;
		break;
	case HTMTRACE_DTL_REC_CPU:
		memcpy(&cpu, rec, sizeof(cpu));
		c->offline = cpu.event != HTMTRACE_DTL_CPU_JOINED;
		break;
	}
	return 0;
}

/* Account the records of one read(). Returns 0 or -1 after a message. */
static int top_account(struct top *t, const unsigned char *buf, size_t len,
		       const char *dev)
{
	struct htmtrace_dtl_rec hdr;
	enum dtl_rec_status rs;
	size_t off;

	for (off = 0; (rs = dtl_rec_check(buf, len, off, &hdr)) == DTL_REC_OK;
	     off += hdr.len)
		if (top_account_one(t, buf + off, &hdr))
			return -1;
	if (rs != DTL_REC_END) {
		pr_err("read %s: the driver returned %zu bytes that are not whole records",
		       dev, len);
		return -1;
	}
	return 0;
}

/* Read until the stream is empty. 1 at its end, 0, or -1 after a message. */
static int top_read(struct top *t, int fd, unsigned char *buf,
		    const char *dev)
{
	ssize_t n;

	for (;;) {
		n = read(fd, buf, TOP_READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			pr_errno(errno, "read %s", dev);
			return -1;
		}
		if (!n)
			return 1;
		if (top_account(t, buf, n, dev))
			return -1;
	}
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double us(const struct top *t, __u64 ticks)
{
	return t->tb_freq ? (double)ticks * 1e6 / (double)t->tb_freq : 0;
}

/*
 * One interval's report, at @when (ns since the epoch: now, or in a
 * replayed capture its interval's end), then the counters start again.
 */
static void top_print(struct top *t, long long when, double secs, int json,
		      int tty)
{
	char utc[48];
	size_t i;

	format_utc(utc, sizeof(utc), when);
	if (json) {
		printf("{\"time\": \"%s\", \"interval_s\": %.6f, \"tb_freq\": %llu, \"cpus\": [",
		       utc, secs, (unsigned long long)t->tb_freq);
	} else {
		if (tty)
			fputs("\033[H\033[2J", stdout);
		printf("%s  interval %.3f s%s\n", utc, secs,
		       tty ? "  (Ctrl-C ends)" : "");
		printf("%5s %10s %10s %10s %10s %8s %11s %11s %8s\n", "cpu",
		       "disp/s", "preempt/s", "cede/s", "fault/s", "notdisp%",
		       "wait_avg_us", "wait_max_us", "lost");
	}
	for (i = 0; i < t->cpus.n; i++) {
		struct top_cpu *c = (struct top_cpu *)t->cpus.elems + i;
		double span = (double)t->tb_freq * secs;
		/*
		 * A wait longer than the interval is reported at its dispatch:
		 * this interval takes at most all of it, the rest is carried
		 * into the next ones, so that the share stays within 0 to 1.
		 */
		__u64 off = span > 0 && (double)c->off_ticks > span ?
			(__u64)span : c->off_ticks;
		__u64 carry = c->off_ticks - off;
		double share = span > 0 ? (double)off / span : 0;
		double mean = c->dispatches ?
			us(t, c->wait_ticks) / (double)c->dispatches : 0;

		if (json)
			printf("%s{\"cpu\": %u, \"offline\": %s, \"dispatches\": %llu, \"dispatches_per_s\": %.3f, \"preempts_per_s\": %.3f, \"cedes_per_s\": %.3f, \"faults_per_s\": %.3f, \"not_dispatched\": %.6f, \"dispatch_wait_mean_us\": %.3f, \"dispatch_wait_max_us\": %.3f, \"lost\": %llu}",
			       i ? ", " : "", c->cpu,
			       c->offline ? "true" : "false",
			       (unsigned long long)c->dispatches,
			       c->dispatches / secs, c->preempts / secs,
			       c->cedes / secs, c->faults / secs, share, mean,
			       us(t, c->wait_max),
			       (unsigned long long)c->lost);
		else
			printf("%5u %10.1f %10.1f %10.1f %10.1f %8.3f %11.3f %11.3f %8llu%s\n",
			       c->cpu, c->dispatches / secs,
			       c->preempts / secs, c->cedes / secs,
			       c->faults / secs, share * 100, mean,
			       us(t, c->wait_max),
			       (unsigned long long)c->lost,
			       c->offline ? " offline" : "");
		c->dispatches = c->preempts = c->cedes = c->faults = 0;
		c->lost = c->wait_ticks = c->wait_max = 0;
		c->off_ticks = carry;
	}
	if (json)
		printf("]}\n");
	else if (!tty)
		putchar('\n');
	fflush(stdout);
}

static int top_ioctl(int fd, const char *dev, unsigned long cmd, void *arg,
		     const char *what)
{
	if (!ioctl(fd, cmd, arg))
		return 0;
	pr_errno(errno, "%s %s", what, dev);
	if (errno == EPERM)
		pr_err("this needs CAP_PERFMON or CAP_SYS_ADMIN");
	else if (errno == EBUSY && cmd == HTMTRACE_IOC_DTL_CONFIGURE)
		pr_err("a dispatch trace log session exists already (one at a time)");
	else if (errno == ENOTTY)
		pr_err("%s is not the htmtrace dispatch trace log device", dev);
	return -1;
}

/*
 * dtl top --input FILE: a capture replayed interval by interval, as perf
 * stat -I prints a perf.data's counts: the intervals start at the first
 * record's time and follow the records' times (the report's time order),
 * not the clock on the wall.
 */
struct replay {
	struct top *t;
	long long every_ns;	/* the interval */
	long long next;		/* ns since boot: the current interval's end */
	long long last;		/* the last record's time */
	long long to_real;	/* since boot to since the epoch */
	__u64 count, done;
	int started, json, stopped, err;
};

/* @a + @b, held at the ends of the range (corrupt timebases). */
static long long sat_add(long long a, long long b)
{
	long long sum;

	if (__builtin_add_overflow(a, b, &sum))
		return b > 0 ? LLONG_MAX : LLONG_MIN;
	return sum;
}

/* Empty intervals printed in a row before a gap in the records is skipped. */
#define REPLAY_GAP_MAX		1000

static void replay_record(struct report *r, const struct pending *p)
{
	struct replay *rp = r->sink_data;
	struct htmtrace_dtl_clock c;
	struct htmtrace_dtl_rec hdr;
	long long t;
	int empty = 0;

	if (rp->stopped || rp->err)
		return;
	memcpy(&c, r->buf + p->clock_off, sizeof(c));
	memcpy(&hdr, r->buf + p->off, sizeof(hdr));
	t = c.tb_freq ? dtl_tb_to_ns(&c, p->key, c.boottime_ns) : rp->last;
	rp->to_real = (long long)(c.realtime_ns - c.boottime_ns);
	if (!rp->started) {
		rp->next = sat_add(t, rp->every_ns);
		rp->started = 1;
	}
	while (t >= rp->next) {
		if (++empty > REPLAY_GAP_MAX) {
			/* A long gap: on to the interval of this record. */
			rp->next += (long long)(((unsigned long long)t -
						 (unsigned long long)rp->next) /
						rp->every_ns * rp->every_ns);
			empty = 0;
		}
		top_print(rp->t, sat_add(rp->next, rp->to_real),
			  rp->every_ns / 1e9, rp->json, 0);
		/* A time at the end of the range (a corrupt timebase). */
		if (rp->next > LLONG_MAX - rp->every_ns) {
			rp->next = LLONG_MAX;
			break;
		}
		rp->next += rp->every_ns;
		if (rp->count && ++rp->done >= rp->count) {
			rp->stopped = 1;
			return;
		}
	}
	rp->last = t;
	if (top_account_one(rp->t, r->buf + p->off, &hdr))
		rp->err = 1;
}

/* Replay @file. Returns the exit status. */
static int top_replay(const char *file, struct top *t, double every,
		      int json, __u64 count, __u64 *cpus, __u32 cpus_size)
{
	static struct report r;		/* 16 KiB of counters: not on the stack */
	struct replay rp = {
		.t = t, .every_ns = (long long)(every * 1e9), .json = json,
		.count = count,
	};
	struct dtl_input in = { .fd = -1 };
	char why[160];
	int damaged, err, ret = EXIT_FAIL;
	double secs;

	r.cpus_sum.elem_size = sizeof(struct cpu_sum);
	dtl_filter_init(&r.filt);
	r.filt.cpus = cpus;
	r.filt.cpu_words = cpus_size / sizeof(*cpus);
	r.summary_only = 0;
	r.window_ms = DTL_STREAM_WINDOW_MS;	/* as dtl report's default */
	r.sink = replay_record;
	r.sink_data = &rp;
	r.file = strcmp(file, "-") ? file : "standard input";
	if (dtl_input_open(&in, file, r.file, 0))
		goto out;
	damaged = dtl_check_stream(r.file, in.map, in.len, &r.start, &r.end,
				   why, sizeof(why));
	if (damaged < 0)
		goto out;
	err = dtl_filter_check_cpus(&r.filt, r.file, in.map, r.start, r.end);
	if (err < 0)
		pr_errno(-err, "replay %s", r.file);
	if (err)
		goto out;
	err = report_stream(&r, in.map, r.end);
	if (err) {
		pr_errno(-err, "replay %s", r.file);
		goto out;
	}
	if (rp.err)
		goto out;
	/* The last interval, as long as its records go. */
	if (rp.started && !rp.stopped) {
		secs = ((double)rp.last - (double)rp.next + rp.every_ns) / 1e9;
		top_print(t, sat_add(secs > 0 ? rp.last : rp.next, rp.to_real),
			  secs > 0 ? secs : every, json, 0);
	}
	if (fflush(stdout) || ferror(stdout)) {
		pr_errno(errno ? errno : EIO, "write standard output");
		goto out;
	}
	ret = EXIT_OK;
	if (damaged) {
		pr_err("%s: %s: the replay stops there (%zu of %zu bytes read)",
		       r.file, why, r.end, in.len);
		ret = EXIT_FAIL;
	}
out:
	report_free(&r);
	dtl_input_close(&in);
	return ret;
}

static const struct option top_options[] = {
	DEVICE_OPTION,
	{ "cpus", required_argument, NULL, 'C' },
	{ "cpu", required_argument, NULL, 'C' },	/* perf's name */
	{ "interval", required_argument, NULL, 'I' },
	{ "count", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "input", required_argument, NULL, OPT_INPUT },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_dtl_top(int argc, char **argv)
{
	struct cmd_opts co = { .own_targets = 1, .dev_is_path = 1 };
	struct htmtrace_dtl_config cfg;
	struct top t = { .cpus.elem_size = sizeof(struct top_cpu) };
	struct sigaction sa;
	sigset_t block, waitmask;
	__u64 *cpus = NULL, count = 0, done = 0;
	__u32 cpus_size = 0;
	double every = 1;
	unsigned char *buf = NULL;
	long long last, next, now;
	int fd = -1, opt, json = 0, tty, ret = EXIT_FAIL, r, err;
	const char *input = NULL;
	char *end;

	snprintf(co.dev, sizeof(co.dev), "%s", DTL_DEVICE);
	while ((opt = next_option(argc, argv, ":d:C:I:i:n:h", top_options,
				  &co)) > 0) {
		switch (opt) {
		case 'd':
			if (device_opt(co.dev, sizeof(co.dev), optarg, 1)) {
				free(cpus);
				return EXIT_USAGE;
			}
			break;
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
			break;
		case 'I':
		case 'i':	/* the older name: perf's -i is an input file */
			errno = 0;
			every = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(every >= 0.1) ||
			    every > 3600) {
				free(cpus);
				return usage_err("bad interval '%s': expected 0.1 to 3600 seconds",
						 optarg);
			}
			break;
		case 'n':
			if (parse_u64(optarg, &count) || !count) {
				free(cpus);
				return usage_err("bad count '%s': expected a number of intervals, at least 1",
						 optarg);
			}
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_INPUT:
			input = optarg;
			break;
		}
	}
	if (opt) {
		free(cpus);
		return co.status;
	}
	if (optind < argc) {
		free(cpus);
		return usage_err("unexpected argument '%s'", argv[optind]);
	}
	tty = !json && isatty(STDOUT_FILENO);
	if (input) {
		ret = top_replay(input, &t, every, json, count, cpus,
				 cpus_size);
		free(t.cpus.elems);
		free(cpus);
		return ret;
	}

	buf = malloc(TOP_READ_SIZE);
	if (!buf) {
		pr_errno(ENOMEM, "read buffer");
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = top_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	/* Signals come in only while ppoll() waits. */
	if (sigprocmask(SIG_BLOCK, &block, &waitmask) ||
	    sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL)) {
		pr_errno(errno, "signals");
		goto out;
	}
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGHUP);

	/* A missing device is explained: is the module loaded? */
	fd = open_device(co.dev, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.cpus = (uintptr_t)cpus;
	cfg.cpus_size = cpus_size;
	cfg.mask = HTMTRACE_DTL_ALL;
	if (top_ioctl(fd, co.dev, HTMTRACE_IOC_DTL_CONFIGURE, &cfg,
		      "configure"))
		goto out;
	if (top_ioctl(fd, co.dev, HTMTRACE_IOC_DTL_START, NULL, "start"))
		goto out_deconfigure;

	last = mono_ns();
	next = last + (long long)(every * 1e9);
	while (!top_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec ts;

		now = mono_ns();
		if (now >= next) {
			/* Everything logged until now, then the report. */
			if (top_ioctl(fd, co.dev, HTMTRACE_IOC_DTL_FLUSH, NULL,
				      "flush"))
				goto out_stop;
			r = top_read(&t, fd, buf, co.dev);
			if (r < 0)
				goto out_stop;
			now = mono_ns();
			top_print(&t, real_ns(), (now - last) / 1e9, json, tty);
			last = now;
			next += (long long)(every * 1e9);
			if (next < now)
				next = now + (long long)(every * 1e9);
			if (r > 0) {
				pr_err("the driver ended the stream");
				goto out_stop;
			}
			if (count && ++done >= count)
				break;
			continue;
		}
		ts.tv_sec = (next - now) / 1000000000;
		ts.tv_nsec = (next - now) % 1000000000;
		r = ppoll(&pfd, 1, &ts, &waitmask);
		if (r < 0 && errno != EINTR) {
			pr_errno(errno, "poll %s", co.dev);
			goto out_stop;
		}
		if (r > 0) {
			r = top_read(&t, fd, buf, co.dev);
			if (r < 0)
				goto out_stop;
			if (r > 0) {
				pr_err("the driver ended the stream");
				goto out_stop;
			}
		}
	}
	ret = EXIT_OK;
out_stop:
	if (top_ioctl(fd, co.dev, HTMTRACE_IOC_DTL_STOP, NULL, "stop"))
		ret = EXIT_FAIL;
out_deconfigure:
	if (top_ioctl(fd, co.dev, HTMTRACE_IOC_DTL_DECONFIGURE, NULL,
		      "deconfigure"))
		ret = EXIT_FAIL;
out:
	if (fd >= 0)
		close(fd);
	free(t.cpus.elems);
	free(buf);
	free(cpus);
	return ret;
}
