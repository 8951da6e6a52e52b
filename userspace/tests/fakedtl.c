// SPDX-License-Identifier: GPL-2.0
/*
 * fakedtl.so: a fake /dev/vpa_dtl for the host tests of htmtrace dtl record
 * (tests/bats/host-dtl.bats), loaded with LD_PRELOAD. A test fixture: it
 * models the dispatch trace log ABI of uapi/linux/htmtrace.h closely
 * enough to drive every path of the tool, not the driver's behaviour.
 *
 * Opening $FAKE_DTL_DEV gives an fd (of /dev/null) whose ioctl(), read(),
 * poll() and ppoll() follow the ABI for one session that lives as long as
 * the process. read() serves the records of the file $FAKE_DTL_STREAM,
 * whole records only; every operation is appended to $FAKE_DTL_LOG.
 *
 *   FAKE_DTL_LIVE    bytes of the stream readable before STOP (default
 *                    all); the rest comes after STOP, then EOF
 *   FAKE_DTL_CHUNK   largest read() answer in bytes, at least one record
 *                    (default: as much as the buffer holds)
 *   FAKE_DTL_READ_US microseconds each read() of records takes (default 0;
 *                    with FAKE_DTL_VTIME, of the virtual clock)
 *   FAKE_DTL_NCPUS   CPUs of a session of every CPU (default 4)
 *   FAKE_DTL_FAIL    op:errno: fail op (configure, start, stop,
 *                    deconfigure, stats, read, flush) with errno;
 *                    flush:errno:N fails the N-th FLUSH and those after
 *   FAKE_DTL_VTIME   1: the tool runs on a virtual clock, so that when it
 *                    does what is exact: CLOCK_MONOTONIC stands still but
 *                    for a ppoll() that would wait for the fake fd with a
 *                    timeout, which returns at once, the clock moved on by
 *                    the timeout; each FLUSH is logged with the time since
 *                    START ("FLUSH at 300 ms")
 *
 * The counters of STATS are those of the stream: entries and lost counts
 * of each CPU's records, wakeups 100 + cpu, kernel_owned for odd CPUs,
 * state ended for a CPU with an offline, lost or failed record.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/htmtrace.h>
#include "fakecommon.h"

enum { IDLE, CONFIGURED, RUNNING, STOPPED };

#define MAX_CPUS	8192

static int state;
static long long vtime_ns, vstart_ns;	/* FAKE_DTL_VTIME: now, START */
static unsigned long flushes;		/* FLUSHes so far */
static unsigned char *stream;
static size_t stream_len, pos;
static unsigned char cpus[MAX_CPUS];	/* CPUs of the session */

const char fake_dev_var[] = "FAKE_DTL_DEV";
const char fake_log_var[] = "FAKE_DTL_LOG";
const char fake_fail_var[] = "FAKE_DTL_FAIL";

/* Should @op fail? Returns the errno, or 0. */
static int injected(const char *op)
{
	return injected_err(op, NULL);
}

static void load_stream(void)
{
	const char *path = getenv("FAKE_DTL_STREAM");
	size_t cap = 0, got;
	FILE *f;

	free(stream);
	stream = NULL;
	stream_len = 0;
	pos = 0;
	f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	for (;;) {
		if (stream_len == cap) {
			unsigned char *n;

			cap = cap ? cap * 2 : 4096;
			n = realloc(stream, cap);
			if (!n)
				break;
			stream = n;
		}
		got = fread(stream + stream_len, 1, cap - stream_len, f);
		if (!got)
			break;
		stream_len += got;
	}
	fclose(f);
}

/* Bytes readable now. */
static size_t readable_end(void)
{
	size_t live = env_num("FAKE_DTL_LIVE", stream_len);

	if (state == STOPPED || live > stream_len)
		return stream_len;
	return state == RUNNING ? live : 0;
}

static int ready(void)
{
	return state == STOPPED || (state == RUNNING && pos < readable_end());
}

void fake_opened(int flags)
{
	log_op("OPEN%s", flags & O_NONBLOCK ? " nonblock" : "");
}

void fake_closed(void)
{
	log_op("CLOSE");
}

/* A stream: no position to seek to. */
off_t fake_lseek(off_t off, int whence)
{
	(void)off;
	(void)whence;
	errno = ESPIPE;
	return -1;
}

static int configure(struct htmtrace_dtl_config *cfg)
{
	const uint64_t *mask = (const uint64_t *)(uintptr_t)cfg->cpus;
	char words[512];
	size_t used = 0, i, n = cfg->cpus_size / 8, c;
	int err = injected("configure");

	words[0] = '\0';
	for (i = 0; i < n && used < sizeof(words) - 24; i++)
		used += snprintf(words + used, sizeof(words) - used, "%s0x%llx",
				 i ? "," : "", (unsigned long long)mask[i]);
	log_op("CONFIGURE cpus=[%s] cpus_size=%u mask=0x%x ring_kb=%u flags=0x%x reserved=%llu,%llu",
	       words, cfg->cpus_size, cfg->mask, cfg->ring_kb, cfg->flags,
	       (unsigned long long)cfg->reserved[0],
	       (unsigned long long)cfg->reserved[1]);
	if (err)
		return fail("CONFIGURE", err);
	if (state != IDLE)
		return fail("CONFIGURE", EBUSY);
	if (cfg->flags || cfg->reserved[0] || cfg->reserved[1] ||
	    !cfg->mask || (cfg->mask & ~HTMTRACE_DTL_ALL) ||
	    cfg->cpus_size % 8 || !cfg->cpus != !cfg->cpus_size ||
	    cfg->cpus_size > MAX_CPUS / 8 ||
	    (cfg->ring_kb && (cfg->ring_kb < 4 || cfg->ring_kb > 65536)))
		return fail("CONFIGURE", EINVAL);
	memset(cpus, 0, sizeof(cpus));
	if (!n) {
		for (c = 0; c < env_num("FAKE_DTL_NCPUS", 4) && c < MAX_CPUS; c++)
			cpus[c] = 1;
	} else {
		for (c = 0; c < n * 64; c++)
			cpus[c] = (mask[c / 64] >> (c % 64)) & 1;
	}
	load_stream();
	state = CONFIGURED;
	return 0;
}

static void cpu_stats(unsigned int cpu, struct htmtrace_dtl_cpu_stats *s)
{
	struct htmtrace_dtl_rec hdr;
	size_t off;

	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->state = HTMTRACE_DTL_CPU_CAPTURING;
	s->wakeups = 100 + cpu;
	s->kernel_owned = cpu & 1;
	s->folded = cpu;
	for (off = 0; off + sizeof(hdr) <= stream_len; off += hdr.len) {
		memcpy(&hdr, stream + off, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > stream_len - off)
			break;
		if (hdr.cpu != cpu)
			continue;
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			s->entries++;
		} else if (hdr.type == HTMTRACE_DTL_REC_LOST &&
			   hdr.len >= sizeof(struct htmtrace_dtl_lost)) {
			struct htmtrace_dtl_lost l;

			memcpy(&l, stream + off, sizeof(l));
			if (l.why == HTMTRACE_DTL_LOST_OVERWRITTEN)
				s->overwritten += l.count;
			else
				s->dropped += l.count;
		} else if (hdr.type == HTMTRACE_DTL_REC_CPU &&
			   hdr.len >= sizeof(struct htmtrace_dtl_cpu)) {
			struct htmtrace_dtl_cpu c;

			memcpy(&c, stream + off, sizeof(c));
			if (c.event != HTMTRACE_DTL_CPU_JOINED)
				s->state = HTMTRACE_DTL_CPU_ENDED;
		}
	}
}

static int stats(struct htmtrace_dtl_stats *st)
{
	struct htmtrace_dtl_cpu_stats *out;
	unsigned int c, count = 0, i = 0;
	int err = injected("stats");

	if (err)
		return fail("STATS", err);
	if (state == IDLE)
		return fail("STATS", EBADFD);
	for (c = 0; c < MAX_CPUS; c++)
		count += cpus[c];
	st->count = count;
	/* Logged in elements, so that the tests outlive a growing struct. */
	if (st->size % sizeof(*out) || st->reserved[0] || st->reserved[1])
		return fail("STATS", EINVAL);
	if (st->size < count * sizeof(*out)) {
		log_op("STATS room=%zu ENOSPC count=%u",
		       st->size / sizeof(*out), count);
		errno = ENOSPC;
		return -1;
	}
	out = (struct htmtrace_dtl_cpu_stats *)(uintptr_t)st->addr;
	for (c = 0; c < MAX_CPUS; c++)
		if (cpus[c])
			cpu_stats(c, &out[i++]);
	log_op("STATS room=%zu count=%u", st->size / sizeof(*out), count);
	return 0;
}

int fake_ioctl(unsigned long req, void *arg)
{
	char *end;
	int err;

	switch (req) {
	case HTMTRACE_IOC_DTL_CONFIGURE:
		return configure(arg);
	case HTMTRACE_IOC_DTL_START:
		err = injected("start");
		if (err)
			return fail("START", err);
		if (state != CONFIGURED)
			return fail("START", EBADFD);
		state = RUNNING;
		vstart_ns = vtime_ns;
		log_op("START");
		return 0;
	case HTMTRACE_IOC_DTL_STOP:
		err = injected("stop");
		if (err)
			return fail("STOP", err);
		if (state != RUNNING)
			return fail("STOP", EBADFD);
		state = STOPPED;
		log_op("STOP");
		return 0;
	case HTMTRACE_IOC_DTL_DECONFIGURE:
		err = injected("deconfigure");
		if (err)
			return fail("DECONFIGURE", err);
		if (state == IDLE)
			return fail("DECONFIGURE", EBADFD);
		state = IDLE;
		free(stream);
		stream = NULL;
		stream_len = pos = 0;
		log_op("DECONFIGURE");
		return 0;
	case HTMTRACE_IOC_DTL_STATS:
		return stats(arg);
	case HTMTRACE_IOC_DTL_FLUSH:
		flushes++;
		err = injected_err("flush", &end);
		if (err && *end == ':' && flushes < strtoul(end + 1, NULL, 0))
			err = 0;
		if (err)
			return fail("FLUSH", err);
		if (state == IDLE)
			return fail("FLUSH", EBADFD);
		if (env_num("FAKE_DTL_VTIME", 0))
			log_op("FLUSH at %lld ms", (vtime_ns - vstart_ns) / 1000000);
		else
			log_op("FLUSH");
		return 0;
	}
	return fail("UNKNOWN", ENOTTY);
}

ssize_t fake_read(void *buf, size_t count)
{
	size_t end, n = 0, chunk;
	struct htmtrace_dtl_rec hdr;
	int err;

	if (state == IDLE || state == CONFIGURED)
		return fail("READ", EBADFD);
	err = injected("read");
	if (err)
		return fail("READ", err);
	end = readable_end();
	if (pos >= end) {
		if (state == STOPPED) {
			log_op("READ EOF at %zu", pos);
			return 0;
		}
		errno = EAGAIN;
		return -1;
	}
	chunk = env_num("FAKE_DTL_CHUNK", count);
	if (chunk > count)
		chunk = count;
	/* Whole records: as many as fit, at least one if the buffer holds it. */
	while (pos + n + sizeof(hdr) <= end) {
		memcpy(&hdr, stream + pos + n, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || pos + n + hdr.len > end ||
		    hdr.len > count - n || (n && n + hdr.len > chunk))
			break;
		n += hdr.len;
	}
	if (!n)
		return fail("READ", EINVAL);
	memcpy(buf, stream + pos, n);
	pos += n;
	log_op("READ %zu", n);
	if (env_num("FAKE_DTL_VTIME", 0))
		vtime_ns += env_num("FAKE_DTL_READ_US", 0) * 1000LL;
	else if (env_num("FAKE_DTL_READ_US", 0))
		usleep(env_num("FAKE_DTL_READ_US", 0));
	return n;
}

/*
 * The fake fd is ready when read() has something to say; otherwise it is
 * left out of the real wait, which still honours the timeout and signals.
 */
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
	  const sigset_t *sigmask)
{
	static int (*real_ppoll)(struct pollfd *, nfds_t,
				 const struct timespec *, const sigset_t *);
	nfds_t i, fake = nfds;
	int ret;

	if (!real_ppoll)
		real_ppoll = dlsym(RTLD_NEXT, "ppoll");
	for (i = 0; i < nfds; i++)
		if (fake_fd >= 0 && fds[i].fd == fake_fd)
			fake = i;
	if (fake == nfds)
		return real_ppoll(fds, nfds, tmo, sigmask);
	if (ready() && (fds[fake].events & POLLIN)) {
		for (i = 0; i < nfds; i++)
			fds[i].revents = 0;
		fds[fake].revents = POLLIN;
		return 1;
	}
	if (tmo && nfds == 1 && env_num("FAKE_DTL_VTIME", 0)) {
		vtime_ns += tmo->tv_sec * 1000000000LL + tmo->tv_nsec;
		fds[fake].revents = 0;
		return 0;
	}
	fds[fake].fd = -1;
	ret = real_ppoll(fds, nfds, tmo, sigmask);
	fds[fake].fd = fake_fd;
	fds[fake].revents = 0;
	return ret;
}

/* FAKE_DTL_VTIME: CLOCK_MONOTONIC is the virtual clock (from 1000 s). */
int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static int (*real_clock_gettime)(clockid_t, struct timespec *);
	long long t;

	if (clk == CLOCK_MONOTONIC && env_num("FAKE_DTL_VTIME", 0)) {
		t = 1000000000000LL + vtime_ns;
		ts->tv_sec = t / 1000000000;
		ts->tv_nsec = t % 1000000000;
		return 0;
	}
	if (!real_clock_gettime)
		real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	return real_clock_gettime(clk, ts);
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct timespec ts, *tsp = NULL;

	if (timeout >= 0) {
		ts.tv_sec = timeout / 1000;
		ts.tv_nsec = (timeout % 1000) * 1000000L;
		tsp = &ts;
	}
	return ppoll(fds, nfds, tsp, NULL);
}
