// SPDX-License-Identifier: GPL-2.0
/*
 * htmtest: system calls on /dev/htmN that a shell cannot make, for the bats
 * suites in the guest. Each command prints "ok" or the errno's name (EBUSY,
 * ENOTTY, ...) and exits 0 on success, 1 on failure, 2 on bad usage.
 *
 *   htmtest configure DEV TYPE NODE CHIP CORE [FLAGS [RESERVED [KIND
 *		[TRESERVED [MASK VALUE]]]]]	RESERVED goes to reserved[0],
 *				KIND and TRESERVED to the target's kind and
 *				reserved word, MASK and VALUE to the mode
 *   htmtest start|stop|deconfigure DEV
 *   htmtest setup DEV TYPE NODE CHIP CORE LOG2 [RESERVED]
 *   htmtest status DEV		prints "state S flags F size N"
 *   htmtest hvstatus DEV	prints "state S size N data_end N|none
 *				status_error E[ stop_refused]"
 *   htmtest generation DEV	prints the trace generation STATUS reports
 *   htmtest info-file DEV caps|sysmem|sysproc OUT
 *				the ioctl's blocks, written to OUT
 *   htmtest stale DEV		on a stopped channel: read 128 bytes, START
 *				from another file, read and poll again, seek
 *				to 0 and read; prints each result
 *   htmtest info DEV caps|sysmem|sysproc SIZE [LENGTH [RESERVED0 [RESERVED1]]]
 *				prints "length L"; LENGTH and RESERVEDn are
 *				what the call passes in those fields (0)
 *   htmtest ioctl-unknown DEV	an ioctl number the driver does not know
 *   htmtest ioctl-badptr DEV	CONFIGURE from an unmapped address
 *   htmtest read DEV COUNT [nonblock]	one read(); prints the byte count
 *   htmtest poll DEV MS		prints "ready" (POLLIN), "stale" (POLLIN and
 *				POLLERR), "hangup" (POLLERR or POLLHUP, no
 *				POLLIN) or "timeout"
 *   htmtest pread DEV REF N SEED	N preads at random offsets, compared
 *				with the file REF
 *   htmtest seek-end DEV		prints lseek(fd, 0, SEEK_END)
 *   htmtest copy DEV OUT BS	read() BS at a time into OUT until 0 or an
 *				error; prints "bytes N" and then "eof" or the
 *				errno's name
 *   htmtest runas UID CMD...	run CMD as UID (and GID UID), no capabilities
 *   htmtest load FILE.ko [PARAM...] [FILE.ko [PARAM...]...]
 *				load each module FILE.ko with the words after
 *				it as its parameters (a word ending in .ko
 *				starts the next module) in turn, as insmod
 *				does (finit_module(2)), in one process; stops
 *				at the first that fails: "insmod FILE: ERROR",
 *				status 1; silent otherwise. Plain words: the
 *				guest's command server runs it without sh
 *   htmtest mark WORD... [++ COMMAND...]
 *				the words, joined by spaces, into the kernel
 *				log (/dev/kmsg); then, if "++" follows, the
 *				htmtest COMMAND after it, in this process (a
 *				test's mark and setup in one exec)
 *   htmtest log-since WORD...
 *				the kernel log, as dmesg prints it, after its
 *				last line that holds the words joined by
 *				spaces (a test's mark); all of it if none does:
 *				a test's own log in one exec, no sh, dmesg or
 *				awk
 *   htmtest pagesize		the guest kernel's page size in bytes
 *   htmtest cleanup [--misuse] [MODULE...]
 *				between tests: clear the simulator's injected
 *				faults (its "reset", if it is loaded), SIGKILL
 *				every orphan (a process
 *				whose parent is PID 1, the command server)
 *				but our own shell, wait until they are gone,
 *				deconfigure every /dev/htmN and /dev/vpa_dtl,
 *				then remove each MODULE that is loaded, in
 *				order, as rmmod does (delete_module(2),
 *				O_NONBLOCK): one process where an rmmod per
 *				module cost each test a process more under
 *				KASAN and TCG. Silent but for a module that
 *				will not go: "rmmod MODULE: ERROR", status 1.
 *				--misuse first prints "misuse T U", the
 *				simulator's counts since load of DUMP_DATAs to
 *				a running trace and of unaligned ones, if it
 *				is loaded
 *   htmtest blocked PID read|poll MS
 *				wait up to MS ms until process PID sleeps in
 *				that system call (/proc/PID/stat and syscall):
 *				prints "blocked", or what it saw instead
 *   htmtest orphans N	leave N orphans (children of PID 1), then exit
 *				just as they all do; prints "ok"
 *
 *   htmtest many N CHIPS CORES RECORDS
 *				in one process: configure /dev/htm0..N-1 for
 *				core targets node i / (CHIPS * CORES), chip,
 *				core in turn, start them all, have the
 *				simulator write RECORDS records to each, then
 *				read each dump and check every byte (the
 *				records, zeros after them), deconfigure; prints
 *				"verified" or what was wrong
 *
 * The dispatch trace log, on /dev/vpa_dtl (DEV):
 *   htmtest dtl-configure DEV CPUS MASK [RING_KB [FLAGS]]
 *				FLAGS default HTMTRACE_DTL_F_KEEP (1): the
 *				session outlives this process; 0 ends it at exit
 *				CPUS: "all" or a list like 0,1; MASK 1-7
 *   htmtest dtl-start|dtl-stop|dtl-deconfigure|dtl-flush DEV
 *   htmtest dtl-dump FILE	one line per record but entries: "clock",
 *				"cpu C EVENT", "lost C WHY COUNT"
 *   htmtest dtl-race DEV ROUNDS	two processes, each on a file of its own,
 *				doing ROUNDS random transitions (configure
 *				with and without KEEP, start, stop,
 *				deconfigure, close, read, stats, flush, the
 *				vpa_dtl PMU on CPU 0, CPU 1 offline/online);
 *				prints "raced N"
 *   htmtest dtl-stats DEV	one line per CPU: "cpu C state S entries E
 *				overwritten O dropped D kernel K"
 *   htmtest dtl-wakeups DEV	one line per CPU: "cpu C wakeups W"
 *   htmtest dtl-verify FILE MASK
 *				check a stream the simulator fed: every entry
 *				is hvsim_dtl_fill() of its CPU and number but
 *				the timebase, which never goes back; between
 *				two entries of one capture of a CPU (a JOINED
 *				record starts one), the events of a type in
 *				MASK equal the entries LOST records report
 *				there; and the records of a capture come in
 *				order (JOINED, entries and LOST records, what
 *				ended it). Prints "clock N", then per CPU "cpu C
 *				entries E overwritten O dropped D events
 *				J/F/L/X" (joined, offline, lost, failed
 *				records), then "bad B"; exits 1 if B > 0
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/htmtrace.h>
#include <linux/perf_event.h>
#include "../../module/hvsim/hvsim_record.h"

#define HVSIM_DEBUGFS "/sys/kernel/debug/htmtrace_hvsim"

static int fail(void)
{
	printf("%s\n", strerrorname_np(errno));
	return 1;
}

static int done(int ret)
{
	if (ret < 0)
		return fail();
	printf("ok\n");
	return 0;
}

static int open_dev(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		exit(1);
	}
	return fd;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "htmtest: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void target(struct htmtrace_target *t, char **argv)
{
	t->type = num(argv[0]);
	t->node = num(argv[1]);
	t->chip = num(argv[2]);
	t->core = num(argv[3]);
}

static int cmd_pread(int fd, const char *ref, unsigned long n,
		     unsigned long seed)
{
	struct stat st;
	char *want, *got;
	unsigned long i;
	int rfd;

	rfd = open(ref, O_RDONLY);
	if (rfd < 0 || fstat(rfd, &st) < 0 || st.st_size == 0)
		return fail();
	want = malloc(st.st_size);
	got = malloc(st.st_size);
	if (!want || !got || read(rfd, want, st.st_size) != st.st_size)
		return fail();
	close(rfd);

	srandom(seed);
	for (i = 0; i < n; i++) {
		off_t off = random() % st.st_size;
		size_t len = 1 + random() % 70000;
		ssize_t r = pread(fd, got, len, off);
		size_t expect = len;

		if ((off_t)len > st.st_size - off)
			expect = st.st_size - off;
		if (r < 0)
			return fail();
		/* a read may end at a chunk boundary: never past, never wrong */
		if ((size_t)r > expect || r == 0 ||
		    memcmp(got, want + off, r)) {
			printf("mismatch at offset %lld len %zu got %zd\n",
			       (long long)off, len, r);
			return 1;
		}
	}
	/* past the end: 0, not an error */
	if (pread(fd, got, 10, st.st_size) != 0) {
		printf("no EOF at %lld\n", (long long)st.st_size);
		return 1;
	}
	free(want);
	free(got);
	printf("ok\n");
	return 0;
}

static int cmd_copy(int fd, const char *path, size_t bs)
{
	char *buf = malloc(bs);
	unsigned long long total = 0;
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t r;

	if (!buf || out < 0)
		return fail();
	while ((r = read(fd, buf, bs)) > 0) {
		if (write(out, buf, r) != r)
			return fail();
		total += r;
	}
	printf("bytes %llu\n", total);
	free(buf);
	close(out);
	if (r < 0)
		return fail();
	printf("eof\n");
	return 0;
}

/* State and system call of a process: 'S' and the syscall number when asleep. */
static int proc_syscall(long pid, char *state, long *nr)
{
	char path[64], buf[512], *p;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	p = ok ? strrchr(buf, ')') : NULL;
	if (!p || sscanf(p, ") %c", state) != 1)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "running", or the number and its arguments; -1 for "in no syscall" */
	if (fscanf(f, "%ld", nr) != 1)
		*nr = -2;
	fclose(f);
	return 0;
}

static int cmd_blocked(long pid, const char *call, unsigned long ms)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	long want[2], nr = -2;
	char state = '?';
	unsigned long waited;

	if (!strcmp(call, "read")) {
		want[0] = SYS_read;
		want[1] = SYS_read;
	} else if (!strcmp(call, "poll")) {
		want[0] = SYS_poll;
		want[1] = SYS_ppoll;
	} else {
		fprintf(stderr, "htmtest: blocked: read or poll, not %s\n", call);
		return 2;
	}
	for (waited = 0; ; waited += 10) {
		if (proc_syscall(pid, &state, &nr)) {
			printf("gone\n");
			return 1;
		}
		if (state == 'S' && (nr == want[0] || nr == want[1])) {
			printf("blocked\n");
			return 0;
		}
		if (waited >= ms)
			break;
		nanosleep(&tick, NULL);
	}
	printf("not blocked: state %c syscall %ld\n", state, nr);
	return 1;
}

/* WORDS[0..N) joined by spaces into BUF of SIZE; -1 if they do not fit. */
static int join_words(char *buf, size_t size, char **words, int n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", words[i]);

		if (w < 0 || (size_t)w >= size - len)
			return -1;
		len += w;
	}
	return 0;
}

/* Load each module args[2k] with the parameters args[2k + 1], as insmod does. */
static int insmod_pairs(char **args, int n)
{
	int i, fd;

	for (i = 0; i < n; i += 2) {
		fd = open(args[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, args[i + 1], 0)) {
			fprintf(stderr, "insmod %s: %s\n", args[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
	}
	return 0;
}

/*
 * load: the (module, parameters) pairs from words, a word ending in ".ko"
 * starting each module and the words after it, joined by spaces, its
 * parameters.
 */
static int cmd_load(char **words, int n)
{
	char *args[64], params[32][1024];
	int i = 0, m = 0, k;

	while (i < n && m < 32) {
		size_t len = strlen(words[i]);

		if (len <= 3 || strcmp(words[i] + len - 3, ".ko"))
			break;
		/* the words up to the next FILE.ko: its parameters */
		for (k = i + 1; k < n; k++) {
			len = strlen(words[k]);
			if (len > 3 && !strcmp(words[k] + len - 3, ".ko"))
				break;
		}
		if (join_words(params[m], sizeof(params[m]), words + i + 1, k - i - 1))
			break;
		args[2 * m] = words[i];
		args[2 * m + 1] = params[m];
		m++;
		i = k;
	}
	if (i < n || !m) {
		fprintf(stderr, "usage: htmtest load FILE.ko [PARAM...] [FILE.ko [PARAM...]...]\n");
		return 2;
	}
	return insmod_pairs(args, 2 * m);
}

/* The first line of FILE into BUF (newline cut); false if it cannot be read. */
static int read_line(const char *file, char *buf, int size)
{
	FILE *f = fopen(file, "r");
	int ok = f && fgets(buf, size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static int cmd_cleanup(char **mods, int nmods)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	pid_t shell = getppid(), killed[256];
	int n = 0, i, tries, fd;
	struct dirent *d;
	DIR *dir;

	if (nmods && !strcmp(mods[0], "--misuse")) {
		char t[64], u[64];

		mods++;
		nmods--;
		if (read_line(HVSIM_DEBUGFS "/dump_tracing", t, sizeof(t)) &&
		    read_line(HVSIM_DEBUGFS "/dump_unaligned", u, sizeof(u)))
			printf("misuse %s %s\n", t, u);
		fflush(stdout);
	}
	fd = open(HVSIM_DEBUGFS "/reset", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1\n", 2) != 2)
			fprintf(stderr, "htmtest: the simulator's reset: %s\n",
				strerror(errno));
		close(fd);
	}

	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		char path[300], buf[512], *p;
		long pid = strtol(d->d_name, &p, 10);
		long ppid;
		FILE *f;

		if (*p || pid <= 1 || pid == getpid() || pid == shell)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (!p || sscanf(p, ") %*c %ld", &ppid) != 1 || ppid != 1)
			continue;
		if (!kill(pid, SIGKILL) && n < 256)
			killed[n++] = pid;
	}
	if (dir)
		closedir(dir);
	/* The command server reaps them; wait (bounded) until it has. */
	for (i = 0; i < n; i++) {
		for (tries = 0; tries < 500 && !kill(killed[i], 0); tries++)
			nanosleep(&tick, NULL);
	}

	dir = opendir("/dev");
	while (dir && (d = readdir(dir))) {
		char path[300];
		int fd;

		if (strncmp(d->d_name, "htm", 3) || d->d_name[3] < '0' ||
		    d->d_name[3] > '9')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ioctl(fd, HTMTRACE_IOC_DECONFIGURE);
			close(fd);
		}
	}
	if (dir)
		closedir(dir);
	fd = open("/dev/vpa_dtl", O_RDONLY);
	if (fd >= 0) {
		ioctl(fd, HTMTRACE_IOC_DTL_DECONFIGURE);
		close(fd);
	}

	for (i = 0; i < nmods; i++) {
		char path[300];
		struct stat st;

		snprintf(path, sizeof(path), "/sys/module/%s", mods[i]);
		if (stat(path, &st))
			continue;
		if (syscall(SYS_delete_module, mods[i], O_NONBLOCK)) {
			fprintf(stderr, "rmmod %s: %s\n", mods[i], strerror(errno));
			return 1;
		}
	}
	return 0;
}

/*
 * For the command server: its command exits just as orphans it must reap
 * exit too. N sleepers are handed to PID 1 (their parent exits at once),
 * then all wake together when this process closes the pipe they wait on,
 * and this process exits with them.
 */
static int cmd_orphans(unsigned long n)
{
	unsigned long i;
	int fds[2];
	char c;
	pid_t mid;

	if (pipe(fds))
		return fail();
	mid = fork();
	if (mid < 0)
		return fail();
	if (mid == 0) {
		for (i = 0; i < n; i++) {
			if (fork() == 0) {
				close(fds[1]);
				_exit(read(fds[0], &c, 1) ? 1 : 0);
			}
		}
		_exit(0);
	}
	if (waitpid(mid, NULL, 0) != mid)
		return fail();
	printf("ok\n");
	fflush(stdout);
	close(fds[1]);
	return 0;
}

static int cmd_many(unsigned long n, unsigned long chips, unsigned long cores,
		    unsigned long records)
{
	unsigned char want[HVSIM_RECORD_SIZE], *buf;
	const size_t size = 1 << 20;
	unsigned long i, r;
	char path[32];
	int fd;
	FILE *adv;

	buf = malloc(size);
	if (!buf)
		return fail();
	for (i = 0; i < n; i++) {
		struct htmtrace_config cfg = {
			.target = { .type = HTMTRACE_TYPE_CORE,
				    .node = i / (chips * cores),
				    .chip = i / cores % chips,
				    .core = i % cores },
		};

		snprintf(path, sizeof(path), "/dev/htm%lu", i);
		fd = open_dev(path, O_RDONLY);
		if (ioctl(fd, HTMTRACE_IOC_CONFIGURE, &cfg) ||
		    ioctl(fd, HTMTRACE_IOC_START)) {
			printf("htm%lu: ", i);
			return fail();
		}
		close(fd);
	}
	adv = fopen(HVSIM_DEBUGFS "/advance", "w");
	if (!adv || fprintf(adv, "%lu\n", records) < 0 || fclose(adv))
		return fail();
	for (i = 0; i < n; i++) {
		__u64 target = hvsim_target_word(HTMTRACE_TYPE_CORE,
						 i / (chips * cores),
						 i / cores % chips, i % cores);
		ssize_t len, got = 0;

		snprintf(path, sizeof(path), "/dev/htm%lu", i);
		fd = open_dev(path, O_RDONLY);
		while ((len = read(fd, buf + got, size - got)) > 0)
			got += len;
		if (len < 0)
			return fail();
		for (r = 0; r < (unsigned long)got / HVSIM_RECORD_SIZE; r++) {
			memset(want, 0, sizeof(want));
			if (r < records)
				hvsim_record_fill(want, target, r);
			if (memcmp(buf + r * HVSIM_RECORD_SIZE, want,
				   sizeof(want))) {
				printf("htm%lu: record %lu is not the simulator's\n",
				       i, r);
				return 1;
			}
		}
		if (got % HVSIM_RECORD_SIZE || (size_t)got < records *
		    HVSIM_RECORD_SIZE) {
			printf("htm%lu: %zd bytes\n", i, got);
			return 1;
		}
		if (ioctl(fd, HTMTRACE_IOC_DECONFIGURE))
			return fail();
		close(fd);
	}
	free(buf);
	printf("verified\n");
	return 0;
}

/* dispatch trace log */

static int cmd_dtl_configure(int fd, int argc, char **argv)
{
	struct htmtrace_dtl_config cfg = {};
	__u64 cpus[16] = {};
	char *list = argv[3], *tok;

	if (strcmp(list, "all")) {
		for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
			unsigned long cpu = num(tok);

			if (cpu >= 64 * 16)
				return 2;
			cpus[cpu / 64] |= 1ULL << (cpu % 64);
		}
		cfg.cpus = (uintptr_t)cpus;
		cfg.cpus_size = sizeof(cpus);
	}
	cfg.mask = num(argv[4]);
	if (argc > 5)
		cfg.ring_kb = num(argv[5]);
	cfg.flags = argc > 6 ? num(argv[6]) : HTMTRACE_DTL_F_KEEP;
	return done(ioctl(fd, HTMTRACE_IOC_DTL_CONFIGURE, &cfg));
}

/* The vpa_dtl PMU's perf type, or -1. */
static int dtl_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/vpa_dtl/type", "r");
	int type = -1;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

static void dtl_cpu1_online(int on)
{
	int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, on ? "1" : "0", 1) < 0)
			errno = 0;
		close(fd);
	}
}

/* One racer: ROUNDS random transitions on a file of its own. */
static void dtl_racer(const char *dev, unsigned long rounds, unsigned int seed)
{
	struct htmtrace_dtl_config cfg = { .mask = 7, .ring_kb = 4 };
	struct htmtrace_dtl_cpu_stats cs[64];
	struct htmtrace_dtl_stats st = {
		.addr = (uintptr_t)cs, .size = sizeof(cs),
	};
	struct perf_event_attr attr;
	int fd = open(dev, O_RDONLY | O_NONBLOCK), type = dtl_pmu_type(), pfd;
	static char buf[4096];
	unsigned long i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = 7;
	attr.sample_period = 1;
	attr.disabled = 1;
	srand(seed);
	for (i = 0; i < rounds && fd >= 0; i++) {
		switch (rand() % 11) {
		case 0:
			cfg.flags = rand() % 2 ? HTMTRACE_DTL_F_KEEP : 0;
			ioctl(fd, HTMTRACE_IOC_DTL_CONFIGURE, &cfg);
			break;
		case 1:
			ioctl(fd, HTMTRACE_IOC_DTL_START);
			break;
		case 2:
			ioctl(fd, HTMTRACE_IOC_DTL_STOP);
			break;
		case 3:
			ioctl(fd, HTMTRACE_IOC_DTL_DECONFIGURE);
			break;
		case 4:
			close(fd);
			fd = open(dev, O_RDONLY | O_NONBLOCK);
			break;
		case 5:
			if (read(fd, buf, sizeof(buf)) < 0)
				errno = 0;
			break;
		case 6:
			ioctl(fd, HTMTRACE_IOC_DTL_STATS, &st);
			break;
		case 7:
			ioctl(fd, HTMTRACE_IOC_DTL_FLUSH);
			break;
		case 8:
			pfd = type < 0 ? -1 :
			      syscall(__NR_perf_event_open, &attr, -1, 0, -1,
				      PERF_FLAG_FD_CLOEXEC);
			if (pfd >= 0)
				close(pfd);
			break;
		case 9:
			/* hotplug is slow: one round in ten of these */
			if (rand() % 10 == 0)
				dtl_cpu1_online(rand() % 2);
			break;
		default:
			ioctl(fd, HTMTRACE_IOC_DTL_START);
			ioctl(fd, HTMTRACE_IOC_DTL_STOP);
			break;
		}
	}
	if (fd < 0)
		exit(1);
	close(fd);
	exit(0);
}

static int cmd_dtl_race(const char *dev, unsigned long rounds)
{
	int status, bad = 0, k;
	pid_t pid[2];

	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		if (pid[k] < 0)
			return fail();
		if (!pid[k])
			dtl_racer(dev, rounds, 1 + k + time(NULL));
	}
	for (k = 0; k < 2; k++)
		if (waitpid(pid[k], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	dtl_cpu1_online(1);
	if (bad) {
		printf("a racer failed\n");
		return 1;
	}
	printf("raced %lu\n", 2 * rounds);
	return 0;
}

static int cmd_dtl_stats(int fd, int wakeups)
{
	struct htmtrace_dtl_cpu_stats cs[64];
	struct htmtrace_dtl_stats st = {
		.addr = (uintptr_t)cs,
		.size = sizeof(cs),
	};
	unsigned int i;

	if (ioctl(fd, HTMTRACE_IOC_DTL_STATS, &st))
		return fail();
	for (i = 0; i < st.count; i++) {
		if (wakeups)
			printf("cpu %u wakeups %llu\n", cs[i].cpu,
			       (unsigned long long)cs[i].wakeups);
		else
			printf("cpu %u state %u entries %llu overwritten %llu dropped %llu kernel %u\n",
			       cs[i].cpu, cs[i].state,
			       (unsigned long long)cs[i].entries,
			       (unsigned long long)cs[i].overwritten,
			       (unsigned long long)cs[i].dropped,
			       cs[i].kernel_owned);
	}
	return 0;
}

struct dtl_seen {
	int any;		/* an entry was seen */
	__u64 n;		/* number of the last entry */
	__u64 tb;		/* its timebase */
	__u64 lost;		/* lost since it */
	__u64 entries, overwritten, dropped;
	unsigned int events[5];
	int in;			/* between its JOINED and what ended it */
};

/*
 * The next record header of a stream file: 1, 0 at the end of the file, or
 * -1 (and a line saying so) when fewer bytes than a header are left.
 */
static int read_rec_hdr(FILE *f, struct htmtrace_dtl_rec *hdr)
{
	long at = ftell(f);
	size_t n = fread(hdr, 1, sizeof(*hdr), f);

	/* htmtrace dtl record's file header, before the device's stream */
	if (n == sizeof(*hdr) && !at && hdr->type == HTMTRACE_DTL_REC_FILE) {
		if (hdr->len < sizeof(*hdr) ||
		    fseek(f, hdr->len - sizeof(*hdr), SEEK_CUR)) {
			printf("bad file header\n");
			return -1;
		}
		n = fread(hdr, 1, sizeof(*hdr), f);
	}

	if (n == sizeof(*hdr))
		return 1;
	if (n)
		printf("%zu trailing bytes, less than a record header\n", n);
	return n ? -1 : 0;
}

static int cmd_dtl_dump(const char *path)
{
	unsigned char rec[HTMTRACE_DTL_REC_MAX];
	struct htmtrace_dtl_rec hdr;
	FILE *f = fopen(path, "rb");
	int r;

	if (!f)
		return fail();
	while ((r = read_rec_hdr(f, &hdr)) > 0) {
		if (hdr.len < sizeof(hdr) || hdr.len > sizeof(rec) ||
		    fread(rec + sizeof(hdr), hdr.len - sizeof(hdr), 1, f) != 1) {
			printf("bad record\n");
			fclose(f);
			return 1;
		}
		memcpy(rec, &hdr, sizeof(hdr));
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			printf("clock\n");
		} else if (hdr.type == HTMTRACE_DTL_REC_CPU) {
			struct htmtrace_dtl_cpu *e = (void *)rec;

			printf("cpu %u %u\n", hdr.cpu, e->event);
		} else if (hdr.type == HTMTRACE_DTL_REC_LOST) {
			struct htmtrace_dtl_lost *l = (void *)rec;

			printf("lost %u %u %llu\n", hdr.cpu, l->why,
			       (unsigned long long)l->count);
		}
	}
	fclose(f);
	return r < 0;
}

static int cmd_dtl_verify(const char *path, unsigned int mask)
{
	static struct dtl_seen seen[1024];
	unsigned char rec[HTMTRACE_DTL_REC_MAX];
	unsigned long bad = 0, clocks = 0;
	struct htmtrace_dtl_rec hdr;
	FILE *f = fopen(path, "rb");
	unsigned int cpu;
	int r;

	if (!f)
		return fail();
	while ((r = read_rec_hdr(f, &hdr)) > 0) {
		struct dtl_seen *c;

		if (hdr.len < sizeof(hdr) || hdr.len > sizeof(rec) ||
		    hdr.len % 8 ||
		    fread(rec + sizeof(hdr), hdr.len - sizeof(hdr), 1, f) != 1) {
			printf("truncated or bad record (type %u len %u)\n",
			       hdr.type, hdr.len);
			bad++;
			break;
		}
		memcpy(rec, &hdr, sizeof(hdr));
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK) {
			/* a session (or a START after a STOP) begins */
			for (cpu = 0; cpu < 1024; cpu++)
				seen[cpu].in = 0;
			clocks++;
			continue;
		}
		if (hdr.cpu >= 1024) {
			printf("record of cpu %u\n", hdr.cpu);
			bad++;
			continue;
		}
		c = &seen[hdr.cpu];
		/*
		 * The order of a capture: JOINED, then entries and LOST
		 * records, then at most one record of what ended it (a
		 * FAILED registration ends one that never joined).
		 */
		if (hdr.type == HTMTRACE_DTL_REC_CPU) {
			struct htmtrace_dtl_cpu *e = (void *)rec;
			int joined = e->event == HTMTRACE_DTL_CPU_JOINED;

			if (joined ? c->in :
			    !c->in && e->event != HTMTRACE_DTL_CPU_FAILED) {
				printf("cpu %u event %u %s a capture\n", hdr.cpu,
				       e->event, c->in ? "inside" : "outside");
				bad++;
			}
			c->in = joined;
		} else if (!c->in) {
			printf("cpu %u record type %u outside a capture\n",
			       hdr.cpu, hdr.type);
			bad++;
		}
		if (hdr.type == HTMTRACE_DTL_REC_LOST) {
			struct htmtrace_dtl_lost *l = (void *)rec;

			c->lost += l->count;
			if (l->why == HTMTRACE_DTL_LOST_OVERWRITTEN)
				c->overwritten += l->count;
			else
				c->dropped += l->count;
		} else if (hdr.type == HTMTRACE_DTL_REC_CPU) {
			struct htmtrace_dtl_cpu *e = (void *)rec;

			if (e->event >= 1 && e->event <= 4)
				c->events[e->event]++;
			/* a new capture of the CPU: no gap to account for */
			if (e->event == HTMTRACE_DTL_CPU_JOINED) {
				c->any = 0;
				c->lost = 0;
			}
		} else if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			unsigned char want[HVSIM_DTL_ENTRY_SIZE];
			unsigned char *got = rec + sizeof(hdr);
			__u64 n = hvsim_get_be(got + 40, 8);
			__u64 tb = hvsim_get_be(got + 16, 8);
			__u64 i, missing = 0;

			hvsim_dtl_fill(want, hdr.cpu, hvsim_get_be(got + 2, 2),
				       n, tb);
			if (memcmp(want, got, sizeof(want))) {
				printf("cpu %u entry %llu: not the simulator's\n",
				       hdr.cpu, (unsigned long long)n);
				bad++;
			}
			if (c->any) {
				for (i = c->n + 1; i < n; i++)
					missing += !!(hvsim_dtl_type(hdr.cpu, i) &
						      mask);
				if (n <= c->n || tb < c->tb ||
				    missing != c->lost) {
					printf("cpu %u entry %llu after %llu: %llu missing, %llu lost\n",
					       hdr.cpu, (unsigned long long)n,
					       (unsigned long long)c->n,
					       (unsigned long long)missing,
					       (unsigned long long)c->lost);
					bad++;
				}
			}
			if (!(hvsim_dtl_type(hdr.cpu, n) & mask)) {
				printf("cpu %u entry %llu: type not in the mask\n",
				       hdr.cpu, (unsigned long long)n);
				bad++;
			}
			c->any = 1;
			c->n = n;
			c->tb = tb;
			c->lost = 0;
			c->entries++;
		}
	}
	fclose(f);
	/* A stream is whole records: a tail shorter than a header is bad. */
	if (r < 0)
		bad++;
	printf("clock %lu\n", clocks);
	for (cpu = 0; cpu < 1024; cpu++) {
		struct dtl_seen *c = &seen[cpu];

		if (!c->entries && !c->overwritten && !c->dropped &&
		    !c->events[1] && !c->events[2] && !c->events[3] &&
		    !c->events[4])
			continue;
		printf("cpu %u entries %llu overwritten %llu dropped %llu events %u/%u/%u/%u\n",
		       cpu, (unsigned long long)c->entries,
		       (unsigned long long)c->overwritten,
		       (unsigned long long)c->dropped, c->events[1],
		       c->events[2], c->events[3], c->events[4]);
	}
	printf("bad %lu\n", bad);
	return bad ? 1 : 0;
}

static const char *poll_result(int r, short revents)
{
	if (!r)
		return "timeout";
	if (revents & POLLIN)
		return revents & POLLERR ? "stale" : "ready";
	return "hangup";
}

/* One read() of up to COUNT bytes: prints the byte count or the errno. */
static void read_once(int fd, size_t count)
{
	char buf[4096];
	ssize_t r = read(fd, buf, count < sizeof(buf) ? count : sizeof(buf));

	if (r < 0)
		printf("read %s\n", strerrorname_np(errno));
	else
		printf("read %zd\n", r);
}

static int cmd_stale(int fd, const char *dev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int other = open_dev(dev, O_RDONLY);

	read_once(fd, 128);
	if (ioctl(other, HTMTRACE_IOC_START))
		return fail();
	read_once(fd, 128);
	printf("poll %s\n", poll_result(poll(&p, 1, 0), p.revents));
	if (lseek(fd, 0, SEEK_SET))
		return fail();
	read_once(fd, 128);
	close(other);
	return 0;
}

/* The words up to "++" into the kernel log; their count, or -1. */
static int kmsg_mark(char **words, int n)
{
	char line[1024];
	int i, fd;

	for (i = 0; i < n && strcmp(words[i], "++"); i++)
		;
	if (join_words(line, sizeof(line) - 1, words, i)) {
		fprintf(stderr, "htmtest mark: the mark is too long\n");
		return -1;
	}
	strcat(line, "\n");
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0 || write(fd, line, strlen(line)) < 0) {
		fprintf(stderr, "htmtest mark: /dev/kmsg: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return i;
}

/* log-since: see the comment at the top */
static int cmd_log_since(char **words, int n)
{
	char mark[1024], *buf, *line, *end, *from;
	int size, len;

	if (join_words(mark, sizeof(mark), words, n)) {
		fprintf(stderr, "htmtest log-since: the mark is too long\n");
		return 2;
	}
	/* klogctl(2): 10 is SYSLOG_ACTION_SIZE_BUFFER, 3 SYSLOG_ACTION_READ_ALL */
	size = klogctl(10, NULL, 0);
	buf = size > 0 ? malloc(size) : NULL;
	len = buf ? klogctl(3, buf, size) : -1;
	if (len < 0) {
		fprintf(stderr, "htmtest log-since: %s\n", strerror(errno));
		free(buf);
		return 1;
	}
	/* after the last line holding the mark, each line as dmesg prints it:
	 * without its "<level>"
	 */
	from = buf;
	for (line = buf; line < buf + len; line = end + 1) {
		end = memchr(line, '\n', buf + len - line);
		if (!end)
			end = buf + len;
		if (memmem(line, end - line, mark, strlen(mark)))
			from = end + 1;
	}
	for (line = from; line < buf + len; line = end + 1) {
		end = memchr(line, '\n', buf + len - line);
		if (!end)
			end = buf + len;
		if (*line == '<') {
			char *gt = memchr(line, '>', end - line);

			if (gt)
				line = gt + 1;
		}
		printf("%.*s\n", (int)(end - line), line);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int fd;

	if (argc >= 3 && !strcmp(cmd, "mark")) {
		int n = kmsg_mark(argv + 2, argc - 2);

		if (n < 0)
			return 1;
		if (2 + n == argc)
			return 0;
		/* "++" takes the place of argv[0]: the command follows it */
		argv += 2 + n;
		argc -= 2 + n;
		cmd = argc > 1 ? argv[1] : "";
		if (!strcmp(cmd, "mark")) {
			fprintf(stderr, "htmtest mark: one mark a call\n");
			return 2;
		}
	}
	if (argc >= 2 && !strcmp(cmd, "load"))
		return cmd_load(argv + 2, argc - 2);
	if (argc >= 2 && !strcmp(cmd, "cleanup"))
		return cmd_cleanup(argv + 2, argc - 2);
	if (argc >= 3 && !strcmp(cmd, "log-since"))
		return cmd_log_since(argv + 2, argc - 2);
	if (argc == 2 && !strcmp(cmd, "pagesize")) {
		printf("%ld\n", sysconf(_SC_PAGESIZE));
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: see the comment at the top of htmtest.c\n");
		return 2;
	}
	if (!strcmp(cmd, "runas")) {
		uid_t id = num(argv[2]);

		if (argc < 4 || setgroups(0, NULL) || setresgid(id, id, id) ||
		    setresuid(id, id, id))
			return fail();
		execvp(argv[3], argv + 3);
		return fail();
	}

	if (!strcmp(cmd, "orphans") && argc == 3)
		return cmd_orphans(num(argv[2]));
	if (!strcmp(cmd, "blocked") && argc == 5)
		return cmd_blocked(num(argv[2]), argv[3], num(argv[4]));
	if (!strcmp(cmd, "many") && argc == 6)
		return cmd_many(num(argv[2]), num(argv[3]), num(argv[4]),
				num(argv[5]));
	if (!strcmp(cmd, "dtl-verify") && argc == 4)
		return cmd_dtl_verify(argv[2], num(argv[3]));
	if (!strcmp(cmd, "dtl-dump") && argc == 3)
		return cmd_dtl_dump(argv[2]);
	if (!strcmp(cmd, "dtl-race") && argc == 4)
		return cmd_dtl_race(argv[2], num(argv[3]));

	fd = open_dev(argv[2], !strcmp(cmd, "read") && argc > 4 ?
			       O_RDONLY | O_NONBLOCK : O_RDONLY);

	if (!strcmp(cmd, "dtl-configure") && argc >= 5 && argc <= 7)
		return cmd_dtl_configure(fd, argc, argv);
	if (!strcmp(cmd, "dtl-start"))
		return done(ioctl(fd, HTMTRACE_IOC_DTL_START));
	if (!strcmp(cmd, "dtl-stop"))
		return done(ioctl(fd, HTMTRACE_IOC_DTL_STOP));
	if (!strcmp(cmd, "dtl-deconfigure"))
		return done(ioctl(fd, HTMTRACE_IOC_DTL_DECONFIGURE));
	if (!strcmp(cmd, "dtl-flush"))
		return done(ioctl(fd, HTMTRACE_IOC_DTL_FLUSH));
	if (!strcmp(cmd, "dtl-stats"))
		return cmd_dtl_stats(fd, 0);
	if (!strcmp(cmd, "dtl-wakeups"))
		return cmd_dtl_stats(fd, 1);
	if (!strcmp(cmd, "configure") && argc >= 7) {
		struct htmtrace_config cfg = {};

		target(&cfg.target, argv + 3);
		if (argc > 7)
			cfg.flags = num(argv[7]);
		if (argc > 8)
			cfg.reserved[0] = num(argv[8]);
		if (argc > 9)
			cfg.target.kind = num(argv[9]);
		if (argc > 10)
			cfg.target.reserved = num(argv[10]);
		if (argc > 12) {
			cfg.mode_mask = strtoull(argv[11], NULL, 0);
			cfg.mode_value = strtoull(argv[12], NULL, 0);
		}
		return done(ioctl(fd, HTMTRACE_IOC_CONFIGURE, &cfg));
	}
	if (!strcmp(cmd, "start"))
		return done(ioctl(fd, HTMTRACE_IOC_START));
	if (!strcmp(cmd, "stop"))
		return done(ioctl(fd, HTMTRACE_IOC_STOP));
	if (!strcmp(cmd, "deconfigure"))
		return done(ioctl(fd, HTMTRACE_IOC_DECONFIGURE));
	if (!strcmp(cmd, "setup") && (argc == 8 || argc == 9)) {
		struct htmtrace_setup s = {};

		target(&s.target, argv + 3);
		s.log2_size = num(argv[7]);
		if (argc == 9)
			s.reserved = num(argv[8]);
		return done(ioctl(fd, HTMTRACE_IOC_SETUP, &s));
	}
	if (!strcmp(cmd, "status")) {
		struct htmtrace_status st;

		if (ioctl(fd, HTMTRACE_IOC_STATUS, &st))
			return fail();
		printf("state %u flags %u size %llu\n", st.state, st.flags,
		       (unsigned long long)st.buffer_size);
		return 0;
	}
	/* what the driver knows of the hypervisor's view (issue 17) */
	if (!strcmp(cmd, "hvstatus")) {
		struct htmtrace_status st;

		if (ioctl(fd, HTMTRACE_IOC_STATUS, &st))
			return fail();
		printf("state %u size %llu", st.state,
		       (unsigned long long)st.buffer_size);
		if (st.hv_flags & HTMTRACE_STATUS_DATA_END)
			printf(" data_end %llu",
			       (unsigned long long)st.data_size);
		else
			printf(" data_end none");
		printf(" status_error %d%s\n", st.status_error,
		       st.hv_flags & HTMTRACE_STATUS_STOP_REFUSED ?
		       " stop_refused" : "");
		return 0;
	}
	if (!strcmp(cmd, "generation")) {
		struct htmtrace_status st;

		if (ioctl(fd, HTMTRACE_IOC_STATUS, &st))
			return fail();
		printf("%llu\n", (unsigned long long)st.generation);
		return 0;
	}
	if (!strcmp(cmd, "stale"))
		return cmd_stale(fd, argv[2]);
	if (!strcmp(cmd, "info") && argc >= 5 && argc <= 8) {
		struct htmtrace_hvbuf hb = {};
		unsigned long req;
		void *buf;
		int ret;

		if (!strcmp(argv[3], "caps"))
			req = HTMTRACE_IOC_CAPS;
		else if (!strcmp(argv[3], "sysmem"))
			req = HTMTRACE_IOC_SYSMEM;
		else
			req = HTMTRACE_IOC_SYSPROC;
		hb.size = num(argv[4]);
		if (argc > 5)
			hb.length = num(argv[5]);
		if (argc > 6)
			hb.reserved[0] = num(argv[6]);
		if (argc > 7)
			hb.reserved[1] = num(argv[7]);
		buf = malloc(hb.size + 1);
		hb.addr = (uintptr_t)buf;
		ret = ioctl(fd, req, &hb);
		printf("length %u\n", hb.length);
		free(buf);
		return done(ret);
	}
	if (!strcmp(cmd, "info-file") && argc == 5) {
		struct htmtrace_hvbuf hb = { .size = 1 << 20 };
		unsigned long req = !strcmp(argv[3], "caps") ? HTMTRACE_IOC_CAPS :
				    !strcmp(argv[3], "sysmem") ?
				    HTMTRACE_IOC_SYSMEM : HTMTRACE_IOC_SYSPROC;
		void *buf = malloc(hb.size);
		int out, ret;

		hb.addr = (uintptr_t)buf;
		ret = buf ? ioctl(fd, req, &hb) : -1;
		if (ret)
			return fail();
		out = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || write(out, buf, hb.length) != (ssize_t)hb.length)
			return fail();
		close(out);
		free(buf);
		return 0;
	}
	if (!strcmp(cmd, "ioctl-unknown"))
		return done(ioctl(fd, _IO(HTMTRACE_IOC_MAGIC, 0x7f)));
	if (!strcmp(cmd, "ioctl-badptr"))
		return done(ioctl(fd, HTMTRACE_IOC_CONFIGURE, (void *)8));
	if (!strcmp(cmd, "read") && argc >= 4) {
		size_t count = num(argv[3]);
		char *buf = malloc(count + 1);
		ssize_t r = read(fd, buf, count);

		free(buf);
		if (r < 0)
			return fail();
		printf("%zd\n", r);
		return 0;
	}
	if (!strcmp(cmd, "poll") && argc == 4) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, num(argv[3]));

		if (r < 0)
			return fail();
		printf("%s\n", poll_result(r, p.revents));
		return 0;
	}
	if (!strcmp(cmd, "pread") && argc == 6)
		return cmd_pread(fd, argv[3], num(argv[4]), num(argv[5]));
	if (!strcmp(cmd, "copy") && argc == 5)
		return cmd_copy(fd, argv[3], num(argv[4]));
	if (!strcmp(cmd, "seek-end")) {
		off_t off = lseek(fd, 0, SEEK_END);

		if (off < 0)
			return fail();
		printf("%lld\n", (long long)off);
		return 0;
	}
	fprintf(stderr, "htmtest: unknown command or arguments: %s\n", cmd);
	return 2;
}
