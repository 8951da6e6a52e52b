// SPDX-License-Identifier: GPL-2.0
/*
 * htmperf: a perf_event_open client of the htm and vpa_dtl PMUs, for the
 * bats suites in the guest. No perf tool, no libperf: the raw system call,
 * the ring buffer and the AUX area mapped by hand.
 *
 *   htmperf htm CONFIG [-C CPU] [-a AUX_KB] [-r] [-o FILE] [-m MEMFILE]
 *		[-w MS | -s FILE] [-p DATA_PAGES] [-v] [-E] [-R N] [-O]
 *	One htm event on CPU (0) with config CONFIG, an AUX area of AUX_KB
 *	(64; rounded up to a power-of-two number of pages), RAW samples
 *	if -r. ENABLE (the trace starts), sleep MS (100) or, with -s, create
 *	FILE.ready and wait until FILE exists (60 s at most: a test sets a
 *	fault between the two, before the first read), then drain: read()
 *	the count, copy what came into AUX to FILE and the RAW payloads of
 *	the samples (each cut to the length its header gives) to MEMFILE,
 *	until the count is 0. Prints
 *	"reads=N counts=SUM aux_bytes=B raw_blocks=K raw_bytes=R
 *	 aux_records=A truncated=T partial=P lost=L drain_us=D" (D: from the
 *	first read to the last, copies to the files included); with -v,
 *	before it, "read N count C aux A" for each read (A: AUX bytes it
 *	brought). -E opens the event enabled, before anything is mapped;
 *	-R N unmaps the AUX area after the Nth read and maps it again; -O
 *	drains the AUX area only when the count is 1 (and at the end), and
 *	then hands back an odd number of bytes (all but one when even).
 *	-Y forks a helper bound to CPU with a pinned per-task software event
 *	(task-clock) of its own, blocked on a pipe, and wakes it (and waits
 *	for its answer) once after ENABLE and before each read: each wake-up
 *	switches a task with a pinned event in on the htm event's CPU, which
 *	makes the perf core del and add the CPU's flexible events there. The
 *	summary then ends with " switch_ins=K" (the wake-ups answered).
 *	-S opens a software event (cpu-clock) in the htm event's group, on
 *	its CPU, before ENABLE.
 *   htmperf dtl CONFIG -C CPUS [-a AUX_KB] -o PREFIX [-d MS] [-p DATA_PAGES]
 *		[-n] [-r FILE] [-P PERIOD_NS]
 *	One vpa_dtl event per CPU of CPUS (a list like 0,1), event mask
 *	CONFIG, sample_period PERIOD_NS (1000000000). ENABLE all, poll() and
 *	drain each AUX area into PREFIX.cpuN for MS ms (500; 0: until SIGTERM
 *	or SIGINT; with -n, no drain then: the AUX area fills), read() the
 *	counts, DISABLE, then read the counts every 20 ms until two agree
 *	(the PMU ends the capture just after DISABLE) and drain again.
 *	Prints per CPU "cpu=N aux_bytes=B entries=E final=F aux_records=A
 *	truncated=T partial=P lost=L" (entries: the count read before
 *	DISABLE; final: after it). -r creates FILE once every event is
 *	enabled (and SIGTERM handled).
 *   htmperf dtl-decode FILE CPU MASK FIRST END
 *	Decode FILE as mainline's vpa_dtl AUX format (the public facts:
 *	arch/powerpc/perf/vpa-dtl.c, tools/perf/util/powerpc-vpadtl.c): a
 *	struct boottb_freq first (host-endian u64 boot_tb, tb_freq, timebase
 *	0, three u64 of padding), then 48-byte big-endian struct dtl_entry
 *	records, nothing else. Check them against the simulator's log of
 *	CPU: each entry is hvsim_dtl_fill() of its number (srr1) but for the
 *	timebase, which never goes back and is past boot_tb; the entries are
 *	exactly the simulator's events FIRST..END-1 of a type in MASK, in
 *	order, but for those missing. Prints "boottb tb_freq F first_s S"
 *	(S: the first entry's time since boot, in seconds) and "entries E
 *	missing M gaps G bad B" (G: runs of missing entries); exits 1 if
 *	B > 0.
 *   htmperf open PMU CONFIG [-C CPU] [--counting] [--task] [--inherit]
 *	[--freq] [--exclude-user] [--exclude-kernel] [--exclude-hv]
 *	[--type-off N] [--callchain] [--branch] [--sample BITS]
 *	[--config1 V] [--config2 V] [--group-of PMU:CONFIG] [--drop-caps]
 *	[--hold SECS] [--period N] [--sample-freq N]
 *	perf_event_open of the valid attribute above with these changes:
 *	prints "ok" or the errno's name, exits 0 or 1. --sample ORs BITS into
 *	sample_type (with register 0 for REGS_USER, REGS_INTR); --group-of opens a leader of PMU (its valid attribute,
 *	CONFIG) on the same CPU first and the event in its group (an error
 *	opening the leader is "leader ERRNO"). --drop-caps clears
 *	CAP_PERFMON and CAP_SYS_ADMIN from the effective set first; --hold
 *	keeps the event open SECS seconds (or until killed) after "ok".
 *	--period sets sample_period N (the default is 1); --sample-freq sets
 *	frequency mode with sample_freq N.
 *   htmperf resched CPU US COUNT
 *	On CPU, with a pinned task-clock event of its own (enabled), sleep
 *	US microseconds COUNT times: each time the task runs again, perf
 *	takes CPU's flexible CPU-wide events off and puts them back (pmu::del,
 *	pmu::add), for the task's pinned event goes first. Prints
 *	"resched COUNT".
 *
 * Exit status: 0 success, 1 a system call failed (said on stderr, or the
 * errno's name for open), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include "../../module/hvsim/hvsim_record.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/wait.h>

#define MAX_CPUS	64

/* One event: its fd, ring buffer and AUX area, and what came through. */
struct ev {
	int cpu;
	int fd;
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	size_t data_size;
	unsigned char *aux;
	size_t aux_size;
	FILE *out;
	FILE *mem;
	/* counters */
	unsigned long long reads, counts, aux_bytes, raw_blocks, raw_bytes;
	unsigned long long aux_records, truncated, partial, lost;
};

static long page_size;

static void bad_usage(void)
{
	fprintf(stderr, "htmperf: usage: see the comment at the top of htmperf.c\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "htmperf: %s: %s (%s)\n", what, strerror(errno),
		strerrorname_np(errno));
	exit(1);
}

static unsigned long long num(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "htmperf: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int pmu_type(const char *pmu)
{
	char path[256];
	FILE *f;
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	f = fopen(path, "r");
	if (!f)
		die(path);
	if (fscanf(f, "%d", &type) != 1) {
		fprintf(stderr, "htmperf: %s: not a number\n", path);
		exit(1);
	}
	fclose(f);
	return type;
}

/* The attribute every command starts from: sampling, CPU-wide, disabled. */
static void base_attr(struct perf_event_attr *attr, int type,
		      unsigned long long config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->sample_period = 1;
	attr->disabled = 1;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * Move the calling task to @cpu and open a pinned per-task software event
 * on it: each time the task is switched in there, perf schedules the CPU's
 * context out and in again (the flexible events, an htm or vpa_dtl event
 * among them, see del and add). Returns the event's fd, or -1 (errno).
 */
static int pin_with_pinned_event(int cpu)
{
	struct perf_event_attr attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.pinned = 1;
	return perf_open(&attr, 0, -1);
}

/* Round KB up to a power-of-two number of pages, in bytes. */
static size_t aux_bytes_for(unsigned long long kb)
{
	size_t pages = (kb * 1024 + page_size - 1) / page_size, n = 1;

	while (n < pages)
		n <<= 1;
	return n * page_size;
}

/* Map the ring (1 + DATA_PAGES pages) and the AUX area of AUX bytes. */
static void map_event(struct ev *e, size_t data_pages, size_t aux)
{
	void *p;

	e->data_size = data_pages * page_size;
	p = mmap(NULL, page_size + e->data_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, e->fd, 0);
	if (p == MAP_FAILED)
		die("mmap of the ring buffer");
	e->pg = p;
	e->data = (unsigned char *)p + page_size;

	e->pg->aux_offset = page_size + e->data_size;
	e->pg->aux_size = aux;
	p = mmap(NULL, aux, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd,
		 e->pg->aux_offset);
	if (p == MAP_FAILED)
		die("mmap of the AUX area");
	e->aux = p;
	e->aux_size = aux;
}

static void put(FILE *f, const void *buf, size_t len, const char *what)
{
	if (f && len && fwrite(buf, 1, len, f) != len)
		die(what);
}

/*
 * Copy the AUX bytes [aux_tail, aux_head) out, across the end of the area,
 * then hand them back: the head is read before the data (acquire), the
 * tail stored after it (release), as the perf ABI asks.
 */
static void drain_aux_odd(struct ev *e, int odd)
{
	__u64 head = __atomic_load_n(&e->pg->aux_head, __ATOMIC_ACQUIRE);
	__u64 tail = e->pg->aux_tail;

	if (odd && head > tail && !((head - tail) & 1))
		head--;

	while (tail < head) {
		size_t off = tail & (e->aux_size - 1);
		size_t n = e->aux_size - off;

		if (n > head - tail)
			n = head - tail;
		put(e->out, e->aux + off, n, "write of the AUX bytes");
		tail += n;
		e->aux_bytes += n;
	}
	__atomic_store_n(&e->pg->aux_tail, tail, __ATOMIC_RELEASE);
}

static void drain_aux(struct ev *e)
{
	drain_aux_odd(e, 0);
}

static __u64 be64(const unsigned char *p)
{
	__u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A RAW sample: u32 size, then a memory configuration block. */
static void raw_sample(struct ev *e, const unsigned char *rec, size_t len)
{
	const unsigned char *blk = rec + sizeof(struct perf_event_header) + 4;
	__u32 size;
	__u64 want;

	if (len < sizeof(struct perf_event_header) + 4) {
		fprintf(stderr, "htmperf: a sample of %zu bytes\n", len);
		exit(1);
	}
	memcpy(&size, rec + sizeof(struct perf_event_header), 4);
	if (size > len - sizeof(struct perf_event_header) - 4) {
		fprintf(stderr, "htmperf: RAW size %u past its record\n", size);
		exit(1);
	}
	/* The block: a 32-byte header, be64 entries at 0x10, 32 bytes each. */
	want = size;
	if (size >= 32) {
		want = 32 + be64(blk + 0x10) * 32;
		if (want > size) {
			fprintf(stderr, "htmperf: block of %llu bytes in a RAW payload of %u\n",
				(unsigned long long)want, size);
			exit(1);
		}
	}
	put(e->mem, blk, want, "write of the RAW payload");
	e->raw_blocks++;
	e->raw_bytes += want;
}

/* Walk the records of the ring buffer from data_tail to data_head. */
static void drain_ring(struct ev *e)
{
	__u64 head = __atomic_load_n(&e->pg->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = e->pg->data_tail;
	static unsigned char rec[65536];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & (e->data_size - 1), i;

		/* a record may wrap: copy it out byte by byte across the end */
		for (i = 0; i < sizeof(h); i++)
			rec[i] = e->data[(off + i) & (e->data_size - 1)];
		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			fprintf(stderr, "htmperf: bad record (type %u size %u)\n",
				h.type, h.size);
			exit(1);
		}
		for (i = sizeof(h); i < h.size; i++)
			rec[i] = e->data[(off + i) & (e->data_size - 1)];

		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			raw_sample(e, rec, h.size);
			break;
		case PERF_RECORD_AUX: {
			struct perf_record_aux {
				struct perf_event_header h;
				__u64 aux_offset, aux_size, flags;
			} a;

			memcpy(&a, rec, sizeof(a));
			e->aux_records++;
			if (a.flags & PERF_AUX_FLAG_TRUNCATED)
				e->truncated++;
			if (a.flags & PERF_AUX_FLAG_PARTIAL)
				e->partial++;
			break;
		}
		case PERF_RECORD_LOST: {
			__u64 lost;

			memcpy(&lost, rec + sizeof(h) + 8, 8);
			e->lost += lost;
			break;
		}
		default:
			break;
		}
		tail += h.size;
	}
	__atomic_store_n(&e->pg->data_tail, tail, __ATOMIC_RELEASE);
}

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static unsigned long long now_ms(void)
{
	return now_us() / 1000;
}

static void sleep_ms(unsigned long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

static void close_out(FILE *f)
{
	if (f && fclose(f))
		die("close of an output file");
}

/* -Y: the helper that switches in on the htm event's CPU. */
static int switcher_to[2] = { -1, -1 }, switcher_back[2] = { -1, -1 };
static pid_t switcher_pid;
static unsigned long long switch_ins;

static void switcher_start(int cpu)
{
	char c;
	int fd;

	if (pipe(switcher_to) || pipe(switcher_back))
		die("pipe");
	switcher_pid = fork();
	if (switcher_pid < 0)
		die("fork");
	if (!switcher_pid) {
		/* the ends it does not use: its read sees EOF at the stop */
		close(switcher_to[1]);
		close(switcher_back[0]);
		fd = pin_with_pinned_event(cpu);
		if (fd < 0)
			die("the switcher's pinned event on its CPU");
		c = 'r';
		if (write(switcher_back[1], &c, 1) != 1)
			_exit(1);
		while (read(switcher_to[0], &c, 1) == 1)
			if (write(switcher_back[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(switcher_to[0]);
	close(switcher_back[1]);
	if (read(switcher_back[0], &c, 1) != 1 || c != 'r') {
		fprintf(stderr, "htmperf: the switcher did not start\n");
		exit(1);
	}
}

/* Wake the switcher on its CPU and wait until it answered. */
static void switcher_kick(void)
{
	char c = 'k';

	if (switcher_pid <= 0)
		return;
	if (write(switcher_to[1], &c, 1) != 1 ||
	    read(switcher_back[0], &c, 1) != 1 || c != 'k')
		die("the switcher");
	switch_ins++;
}

static void switcher_stop(void)
{
	int st;

	if (switcher_pid <= 0)
		return;
	close(switcher_to[1]);
	if (waitpid(switcher_pid, &st, 0) != switcher_pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "htmperf: the switcher failed\n");
		exit(1);
	}
}

static int cmd_htm(int argc, char **argv)
{
	unsigned long long aux_kb = 64, wait = 100, data_pages = 8, stuck = 0;
	unsigned long long remap = 0;
	const char *out = NULL, *mem = NULL, *sync = NULL;
	struct perf_event_attr attr;
	struct ev e = { .cpu = 0 };
	int opt, raw = 0, verbose = 0, enabled = 0, odd = 0, switcher = 0;
	int sibling = 0, sfd = -1;
	__u64 count, before, start;

	while ((opt = getopt(argc, argv, "C:a:ro:m:w:s:p:vER:OYS")) != -1) {
		switch (opt) {
		case 'S':
			sibling = 1;
			break;
		case 'Y':
			switcher = 1;
			break;
		case 'E':
			enabled = 1;
			break;
		case 'R':
			remap = num(optarg);
			break;
		case 'O':
			odd = 1;
			break;
		case 'C':
			e.cpu = num(optarg);
			break;
		case 'a':
			aux_kb = num(optarg);
			break;
		case 'r':
			raw = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'm':
			mem = optarg;
			break;
		case 'w':
			wait = num(optarg);
			break;
		case 's':
			sync = optarg;
			break;
		case 'p':
			data_pages = num(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			bad_usage();
		}
	}
	if (optind != argc - 1 || !data_pages ||
	    (data_pages & (data_pages - 1)))
		bad_usage();

	base_attr(&attr, pmu_type("htm"), num(argv[optind]));
	if (raw)
		attr.sample_type = PERF_SAMPLE_RAW;
	attr.disabled = !enabled;
	e.fd = perf_open(&attr, -1, e.cpu);
	if (e.fd < 0)
		die("perf_event_open");
	map_event(&e, data_pages, aux_bytes_for(aux_kb));
	if (sibling) {
		struct perf_event_attr sattr;

		base_attr(&sattr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		sattr.sample_period = 0;
		sattr.disabled = 0;
		sfd = (int)syscall(__NR_perf_event_open, &sattr, -1, e.cpu,
				   e.fd, PERF_FLAG_FD_CLOEXEC);
		if (sfd < 0)
			die("perf_event_open of the sibling");
	}
	e.out = open_out(out);
	e.mem = open_out(mem);

	if (!enabled && ioctl(e.fd, PERF_EVENT_IOC_ENABLE, 0))
		die("ENABLE");
	if (switcher) {
		switcher_start(e.cpu);
		switcher_kick();
	}
	if (sync) {
		char ready[4096];
		int fd, i;

		snprintf(ready, sizeof(ready), "%s.ready", sync);
		fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die(ready);
		close(fd);
		for (i = 0; access(sync, F_OK); i++) {
			if (i == 6000) {
				fprintf(stderr, "htmperf: no %s after 60 s\n", sync);
				return 1;
			}
			sleep_ms(10);
		}
	} else {
		sleep_ms(wait);
	}
	start = now_us();
	for (;;) {
		switcher_kick();
		if (read(e.fd, &count, sizeof(count)) != sizeof(count))
			die("read of the count");
		e.reads++;
		e.counts += count;
		before = e.aux_bytes;
		if (!odd || count <= 1)
			drain_aux_odd(&e, odd && count == 1);
		drain_ring(&e);
		if (remap && e.reads == remap) {
			/* away and back mid-dump: the perf core stops the event */
			drain_aux(&e);
			if (munmap(e.aux, e.aux_size))
				die("munmap of the AUX area");
			e.aux = mmap(NULL, e.aux_size, PROT_READ | PROT_WRITE,
				     MAP_SHARED, e.fd, e.pg->aux_offset);
			if (e.aux == MAP_FAILED)
				die("mmap of the AUX area again");
		}
		if (verbose)
			printf("read %llu count %llu aux %llu\n", e.reads,
			       (unsigned long long)count, e.aux_bytes - before);
		if (!count)
			break;
		/* 1 again and again: the PMU bounds a busy hypervisor (10 s) */
		if (count == 1) {
			if (!stuck) {
				stuck = now_ms();
			} else if (now_ms() - stuck > 30000) {
				fprintf(stderr, "htmperf: the count stays 1 for 30 s\n");
				return 1;
			}
		} else {
			stuck = 0;
		}
	}
	close_out(e.out);
	close_out(e.mem);
	start = now_us() - start;
	/* the event first: without its sibling it would be scheduled again */
	close(e.fd);
	if (sfd >= 0)
		close(sfd);
	switcher_stop();
	printf("reads=%llu counts=%llu aux_bytes=%llu raw_blocks=%llu raw_bytes=%llu aux_records=%llu truncated=%llu partial=%llu lost=%llu drain_us=%llu",
	       e.reads, e.counts, e.aux_bytes, e.raw_blocks, e.raw_bytes,
	       e.aux_records, e.truncated, e.partial, e.lost,
	       (unsigned long long)start);
	if (switcher)
		printf(" switch_ins=%llu", switch_ins);
	printf("\n");
	return 0;
}

static int parse_cpus(const char *s, int *cpus)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_CPUS)
			bad_usage();
		cpus[n++] = num(tok);
	}
	free(copy);
	return n;
}

static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Until the deadline END (ms), or a SIGTERM or SIGINT if END is 0. */
static bool running(unsigned long long end)
{
	return !stop_requested && (!end || now_ms() < end);
}

static int cmd_dtl(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = request_stop };
	unsigned long long aux_kb = 64, ms = 500, data_pages = 8, end;
	unsigned long long period = 1000000000;
	const char *prefix = NULL, *cpu_list = NULL, *ready = NULL;
	static struct ev evs[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS];
	struct perf_event_attr attr;
	int cpus[MAX_CPUS], n, i, opt, type, drain = 1;
	__u64 counts[MAX_CPUS];

	while ((opt = getopt(argc, argv, "C:a:o:d:p:nr:P:")) != -1) {
		switch (opt) {
		case 'C':
			cpu_list = optarg;
			break;
		case 'P':
			period = num(optarg);
			break;
		case 'a':
			aux_kb = num(optarg);
			break;
		case 'o':
			prefix = optarg;
			break;
		case 'd':
			ms = num(optarg);
			break;
		case 'p':
			data_pages = num(optarg);
			break;
		case 'n':
			drain = 0;
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			bad_usage();
		}
	}
	if (optind != argc - 1 || !cpu_list || !prefix || !data_pages ||
	    (data_pages & (data_pages - 1)))
		bad_usage();
	n = parse_cpus(cpu_list, cpus);
	/* No SA_RESTART: the stop ends a poll() at once. */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction");
	type = pmu_type("vpa_dtl");
	base_attr(&attr, type, num(argv[optind]));
	attr.sample_period = period;

	for (i = 0; i < n; i++) {
		char path[4096];

		evs[i].cpu = cpus[i];
		evs[i].fd = perf_open(&attr, -1, cpus[i]);
		if (evs[i].fd < 0)
			die("perf_event_open");
		map_event(&evs[i], data_pages, aux_bytes_for(aux_kb));
		snprintf(path, sizeof(path), "%s.cpu%d", prefix, cpus[i]);
		evs[i].out = open_out(path);
		pfd[i].fd = evs[i].fd;
		pfd[i].events = POLLIN;
	}
	for (i = 0; i < n; i++) {
		if (ioctl(evs[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			die("ENABLE");
	}
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || close(fd))
			die(ready);
	}
	end = ms ? now_ms() + ms : 0;
	while (running(end)) {
		unsigned long long t = now_ms(), left = 20;

		if (end && end - t < left)
			left = end > t ? end - t : 0;
		if (!drain) {
			sleep_ms(left);
			continue;
		}
		if (poll(pfd, n, left) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < n && drain; i++) {
			drain_aux(&evs[i]);
			drain_ring(&evs[i]);
		}
	}
	for (i = 0; i < n; i++) {
		if (read(evs[i].fd, &counts[i], 8) != 8)
			die("read of the count");
	}
	for (i = 0; i < n; i++) {
		if (ioctl(evs[i].fd, PERF_EVENT_IOC_DISABLE, 0))
			die("DISABLE");
	}
	for (i = 0; i < n; i++) {
		struct ev *e = &evs[i];
		__u64 final, last = ~0ULL;
		int tries;

		/* The capture ends on the event's CPU just after DISABLE. */
		for (tries = 0; tries < 100; tries++) {
			sleep_ms(20);
			if (read(e->fd, &final, 8) != 8)
				die("read of the final count");
			if (final == last)
				break;
			last = final;
		}
		drain_aux(e);
		drain_ring(e);
		close_out(e->out);
		close(e->fd);
		printf("cpu=%d aux_bytes=%llu entries=%llu final=%llu aux_records=%llu truncated=%llu partial=%llu lost=%llu\n",
		       e->cpu, e->aux_bytes, (unsigned long long)counts[i],
		       (unsigned long long)final,
		       e->aux_records, e->truncated, e->partial, e->lost);
	}
	return 0;
}

/* Host-endian u64 at @p (the boottb_freq record is not big-endian). */
static __u64 host64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return v;
}

static int cmd_dtl_decode(int argc, char **argv)
{
	unsigned char first[48], e[48], want[48];
	unsigned long long entries = 0, missing = 0, gaps = 0, bad = 0;
	__u64 boot_tb, tb_freq, n, next, end, last_tb = 0;
	unsigned int cpu, mask;
	int in_gap = 0;
	FILE *f;

	if (argc != 6)
		bad_usage();
	cpu = num(argv[2]);
	mask = num(argv[3]);
	next = num(argv[4]);
	end = num(argv[5]);
	f = fopen(argv[1], "rb");
	if (!f)
		die(argv[1]);
	if (fread(first, sizeof(first), 1, f) != 1) {
		printf("no boottb_freq record\n");
		return 1;
	}
	boot_tb = host64(first);
	tb_freq = host64(first + 8);
	if (host64(first + 16) || host64(first + 24) || host64(first + 32) ||
	    host64(first + 40) || !tb_freq) {
		printf("the first record is no boottb_freq\n");
		bad++;
	}
	while (fread(e, sizeof(e), 1, f) == 1) {
		__u64 tb = hvsim_get_be(e + 16, 8);

		n = hvsim_get_be(e + 40, 8);
		if (!tb) {
			printf("a second boottb_freq record (or timebase 0)\n");
			bad++;
			continue;
		}
		if (!entries)
			printf("boottb tb_freq %llu first_s %.3f\n",
			       (unsigned long long)tb_freq,
			       (double)(tb - boot_tb) / tb_freq);
		entries++;
		hvsim_dtl_fill(want, cpu, hvsim_get_be(e + 2, 2), n, tb);
		if (memcmp(e, want, sizeof(e)) || tb <= boot_tb ||
		    tb < last_tb || n < next || n >= end ||
		    !(hvsim_dtl_type(cpu, n) & mask)) {
			printf("entry %llu (n %llu) is not the simulator's\n",
			       entries, (unsigned long long)n);
			bad++;
			continue;
		}
		last_tb = tb;
		/* the events of our types before it that are not here */
		for (; next < n; next++) {
			if (!(hvsim_dtl_type(cpu, next) & mask))
				continue;
			missing++;
			gaps += !in_gap;
			in_gap = 1;
		}
		in_gap = 0;
		next = n + 1;
	}
	for (; next < end; next++) {
		if (!(hvsim_dtl_type(cpu, next) & mask))
			continue;
		missing++;
		gaps += !in_gap;
		in_gap = 1;
	}
	if (!feof(f) || ferror(f)) {
		printf("trailing bytes\n");
		bad++;
	}
	/* a partial record at the end: fread() consumed it */
	if (ftell(f) % 48) {
		printf("%ld bytes: not whole records\n", ftell(f));
		bad++;
	}
	fclose(f);
	if (!entries)
		printf("boottb tb_freq %llu first_s -\n",
		       (unsigned long long)tb_freq);
	printf("entries %llu missing %llu gaps %llu bad %llu\n", entries,
	       missing, gaps, bad);
	return bad ? 1 : 0;
}

/* Clear CAP_PERFMON and CAP_SYS_ADMIN from the effective set. */
static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(__NR_capget, &hdr, data))
		die("capget");
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_PERFMON / 32].effective &= ~(1U << (CAP_PERFMON % 32));
	if (syscall(__NR_capset, &hdr, data))
		die("capset");
}

static int cmd_open(int argc, char **argv)
{
	struct perf_event_attr attr;
	struct perf_event_attr lattr;
	const char *leader = NULL;
	long hold = -1;
	pid_t pid = -1;
	int cpu = 0, i, fd, lfd = -1, type_off = 0;

	if (argc < 3)
		bad_usage();
	base_attr(&attr, 0, num(argv[2]));
	for (i = 3; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-C") && i + 1 < argc) {
			cpu = num(argv[++i]);
		} else if (!strcmp(a, "--counting")) {
			attr.sample_period = 0;
		} else if (!strcmp(a, "--task")) {
			pid = 0;
			cpu = -1;
		} else if (!strcmp(a, "--inherit")) {
			attr.inherit = 1;
		} else if (!strcmp(a, "--freq")) {
			attr.freq = 1;	/* sample_freq 1, the same word */
		} else if (!strcmp(a, "--exclude-user")) {
			attr.exclude_user = 1;
		} else if (!strcmp(a, "--exclude-kernel")) {
			attr.exclude_kernel = 1;
		} else if (!strcmp(a, "--exclude-hv")) {
			attr.exclude_hv = 1;
		} else if (!strcmp(a, "--type-off") && i + 1 < argc) {
			type_off = num(argv[++i]);
		} else if (!strcmp(a, "--callchain")) {
			attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		} else if (!strcmp(a, "--branch")) {
			attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
			attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
						  PERF_SAMPLE_BRANCH_KERNEL;
		} else if (!strcmp(a, "--sample") && i + 1 < argc) {
			attr.sample_type |= num(argv[++i]);
			/* the core wants registers named for these */
			if (attr.sample_type & PERF_SAMPLE_REGS_USER)
				attr.sample_regs_user = 1;
			if (attr.sample_type & PERF_SAMPLE_REGS_INTR)
				attr.sample_regs_intr = 1;
		} else if (!strcmp(a, "--config1") && i + 1 < argc) {
			attr.config1 = num(argv[++i]);
		} else if (!strcmp(a, "--config2") && i + 1 < argc) {
			attr.config2 = num(argv[++i]);
		} else if (!strcmp(a, "--group-of") && i + 1 < argc) {
			leader = argv[++i];
		} else if (!strcmp(a, "--drop-caps")) {
			drop_caps();
		} else if (!strcmp(a, "--hold") && i + 1 < argc) {
			hold = num(argv[++i]);
		} else if (!strcmp(a, "--period") && i + 1 < argc) {
			attr.sample_period = num(argv[++i]);
		} else if (!strcmp(a, "--sample-freq") && i + 1 < argc) {
			attr.freq = 1;
			attr.sample_freq = num(argv[++i]);
		} else {
			bad_usage();
		}
	}
	attr.type = pmu_type(argv[1]) + type_off;
	if (leader) {
		char pmu[64];
		const char *colon = strchr(leader, ':');

		if (!colon || colon - leader >= (long)sizeof(pmu))
			bad_usage();
		memcpy(pmu, leader, colon - leader);
		pmu[colon - leader] = 0;
		base_attr(&lattr, pmu_type(pmu), num(colon + 1));
		lfd = perf_open(&lattr, pid, cpu);
		if (lfd < 0) {
			printf("leader %s\n", strerrorname_np(errno));
			return 1;
		}
	}
	fd = leader ? (int)syscall(__NR_perf_event_open, &attr, pid, cpu, lfd,
				   PERF_FLAG_FD_CLOEXEC) :
		      perf_open(&attr, pid, cpu);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("ok\n");
	fflush(stdout);
	if (hold >= 0)
		sleep(hold);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	return 0;
}

static int cmd_resched(int argc, char **argv)
{
	struct timespec ts;
	unsigned long long i, count;
	int fd;

	if (argc != 4)
		bad_usage();
	fd = pin_with_pinned_event(num(argv[1]));
	if (fd < 0)
		die("a pinned event on the CPU");
	ts.tv_sec = 0;
	ts.tv_nsec = num(argv[2]) * 1000;
	count = num(argv[3]);
	for (i = 0; i < count; i++)
		if (nanosleep(&ts, NULL))
			die("nanosleep");
	close(fd);
	printf("resched %llu\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		bad_usage();
	if (!strcmp(argv[1], "htm"))
		return cmd_htm(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dtl"))
		return cmd_dtl(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dtl-decode"))
		return cmd_dtl_decode(argc - 1, argv + 1);
	if (!strcmp(argv[1], "open"))
		return cmd_open(argc - 1, argv + 1);
	if (!strcmp(argv[1], "resched"))
		return cmd_resched(argc - 1, argv + 1);
	bad_usage();
	return 2;
}
