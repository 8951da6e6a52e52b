// SPDX-License-Identifier: GPL-2.0
/*
 * dtl-read: the smallest dispatch trace log reader, on /dev/vpa_dtl alone.
 * It configures every CPU for every event, starts, and prints each record
 * as poll() and read() deliver it, until a line or the end of standard
 * input sends the STOP; then it reads the rest of the stream, up to its
 * end. An entry: its time in seconds since boot, CPU, dispatch and preempt
 * reasons (as the Linux perf tool names them) and dispatch wait. Ctrl-C
 * ends it at once (the session ends with the file that configured it).
 * Needs CAP_PERFMON and only <linux/htmtrace.h>: cc -I../uapi dtl-read.c
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/htmtrace.h>

static const char *const dispatch[] = { "external_interrupt",
	"firmware_internal_event", "H_PROD", "decrementer_interrupt",
	"system_reset", "firmware_internal_event", "conferred_cycles",
	"time_slice", "virtual_memory_page_fault", "expropriated_adjunct",
	"priv_doorbell" };
static const char *const preempt[] = { "unused", "firmware_internal_event",
	"H_CEDE", "H_CONFER", "time_slice", "migration_hibernation_page_fault",
	"virtual_memory_page_fault", "H_CONFER_ADJUNCT", "hcall_adjunct",
	"HDEC_adjunct" };
static const char *const cpu_event[] = { "?", "joined", "offline",
	"lost (another user changed its log)", "failed" };
#define NAME(names, i) ((i) < sizeof(names) / sizeof(names[0]) ? names[i] : "?")

/* A record of a known type is as long as its struct, at least. */
union record {
	struct htmtrace_dtl_rec h;
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_entry_rec entry;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
};
static const size_t min_len[] = { 8, sizeof(struct htmtrace_dtl_clock),
	sizeof(struct htmtrace_dtl_entry_rec), sizeof(struct htmtrace_dtl_lost),
	sizeof(struct htmtrace_dtl_cpu) };

static struct htmtrace_dtl_clock clk;	/* the latest CLOCK record */

static int failed(const char *what)
{
	fprintf(stderr, "dtl-read: %s: %s\n", what, strerror(errno));
	return 1;
}

static void print_record(const union record *r)
{
	const __u8 *e = r->entry.entry;	/* the hypervisor's, big-endian */
	unsigned long long wait_ns;
	__u32 wait;
	__u64 tb;

	switch (r->h.type) {
	case HTMTRACE_DTL_REC_CLOCK:
		clk = r->clock;
		printf("clock: %llu ticks per second\n", (unsigned long long)clk.tb_freq);
		break;
	case HTMTRACE_DTL_REC_ENTRY:
		memcpy(&wait, e + 4, sizeof(wait));	/* enqueue to dispatch */
		memcpy(&tb, e + 16, sizeof(tb));
		wait_ns = be32toh(wait) * 1000000000ULL / clk.tb_freq;
		printf("%.6f cpu %u dispatch %s preempt %s wait %llu.%03llu us\n",
		       (clk.boottime_ns + (double)(long long)(be64toh(tb) - clk.timebase) *
			1e9 / clk.tb_freq) / 1e9, r->h.cpu, NAME(dispatch, e[0]),
		       NAME(preempt, e[1]), wait_ns / 1000, wait_ns % 1000);
		break;
	case HTMTRACE_DTL_REC_LOST:
		printf("cpu %u lost %llu entries (%s)\n", r->h.cpu, (unsigned long long)r->lost.count,
		       r->lost.why == HTMTRACE_DTL_LOST_OVERWRITTEN ? "overwritten" : "dropped");
		break;
	case HTMTRACE_DTL_REC_CPU:
		printf("cpu %u %s%s%s\n", r->h.cpu, NAME(cpu_event, r->cpu.event),
		       r->cpu.error ? ": " : "", r->cpu.error ? strerror(-r->cpu.error) : "");
		break;
	}			/* a newer type: skipped */
}

int main(void)
{
	struct htmtrace_dtl_config cfg = { .mask = HTMTRACE_DTL_ALL }; /* every CPU */
	struct pollfd pfd[2] = { { .events = POLLIN }, { .fd = 0, .events = POLLIN } };
	static __u64 buf[8192];	/* records are 8-byte aligned */
	ssize_t n, off, len;
	int dev, stopped = 0;

	pfd[0].fd = dev = open("/dev/vpa_dtl", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return failed("/dev/vpa_dtl");
	if (ioctl(dev, HTMTRACE_IOC_DTL_CONFIGURE, &cfg) < 0)
		return failed("CONFIGURE");
	/* The session is ours until DECONFIGURE, or until dev is closed. */
	if (ioctl(dev, HTMTRACE_IOC_DTL_START) < 0)
		return failed("START");
	fprintf(stderr, "dtl-read: capturing every CPU; Enter stops\n");
	/* read() returns whole records, and 0 once stopped and drained. */
	for (;;) {
		if (poll(pfd, stopped ? 1 : 2, -1) < 0)
			return failed("poll");
		if (!stopped && pfd[1].revents) {
			if (ioctl(dev, HTMTRACE_IOC_DTL_STOP) < 0)
				return failed("STOP");
			stopped = 1;
		}
		if (!pfd[0].revents)
			continue;
		n = read(dev, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0)
			return failed("read");
		for (off = 0; off < n; off += len) {
			const union record *r = (const void *)((char *)buf + off);

			len = r->h.len;
			/* (and no entry comes before the first CLOCK) */
			if (len < 8 || len % 8 || len > n - off || (r->h.type < 5 &&
			    len < (ssize_t)min_len[r->h.type]) ||
			    (r->h.type == HTMTRACE_DTL_REC_ENTRY && !clk.tb_freq)) {
				fprintf(stderr, "dtl-read: a malformed record in the stream\n");
				return 1;
			}
			print_record(r);
		}
	}
	if (ioctl(dev, HTMTRACE_IOC_DTL_DECONFIGURE) < 0)
		return failed("DECONFIGURE");
	return fflush(stdout) ? failed("standard output") : 0;
}
