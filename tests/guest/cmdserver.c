// SPDX-License-Identifier: GPL-2.0
/*
 * cmdserver: the test guest's command server, PID 1 after tests/guest/init
 * has mounted the file systems. It serves shell commands from the host
 * (tests/guest.py) on a tty, one at a time, and costs one fork and one exec
 * (of sh) per command: under KASAN and TCG every exec is expensive, so the
 * server itself does the framing and the base64 that a shell loop would
 * hand to helper processes.
 *
 *   cmdserver TTY
 *
 * Protocol: lines of ASCII; payloads are base64 so any byte survives the tty.
 * CRC is the CRC-32 of zlib and Ethernet (Python's zlib.crc32), as 8 lower-case
 * hex digits; a line CRC covers the line's text before its last space.
 *   host -> guest   REQ <id> <timeout-seconds> <length> <base64 of shell text> <line CRC>
 *                   RES <id> <line CRC>         send the reply to <id> again
 *   guest -> host   @@HTMG-ACK <id>            as soon as the line is read
 *                   @@HTMG-OUT <id>
 *                   <base64 of stdout, wrapped>
 *                   @@HTMG-ERR <id>
 *                   <base64 of stderr, wrapped>
 *                   @@HTMG-END <id> <exit status> <stdout length> <stdout CRC>
 *                              <stderr length> <stderr CRC> <line CRC>
 * <length> is the shell text's length in bytes, decoded ("-" is the empty text). A request whose
 * line CRC or length does not match (the tty damaged it: a run once failed
 * with a syntax error on a command that passes every other time) is not run:
 * it is answered with "@@HTMG-BAD <id or first word>" so that the host
 * resends at once. A request whose id is one of the last ones served is a
 * resend of a request already taken (the host resends when an
 * acknowledgement does not come): it is answered "@@HTMG-DUP <id>" and not
 * run again. The host checks the reply's lengths and CRCs; on a mismatch it
 * asks for it again with RES, served from the last command's output (kept
 * until the next request); RES for another id is answered
 * "@@HTMG-GONE <id>".
 *
 * The text runs as `sh -c TEXT` in /, in a session (and process group) of its
 * own (a text of plain words whose first is a program on PATH is exec'd
 * without the shell: exec_plain()), stdin from /dev/null, stdout and stderr
 * to unlinked files (background jobs may outlive the command; what they
 * write later goes nowhere). After the timeout the whole process group is
 * killed and the status is 124, with a line on stderr; a process that does
 * not die (stuck in the kernel) is named with its wchan and left behind, and
 * the server goes on serving. As PID 1 the server also reaps every orphan.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "chan.h"

#define LINE_MAX_BYTES	(1 << 20)
#define KILL_WAIT_S	5
#define ID_MAX		32
#define RECENT_IDS	16

static int tty;
static char line[LINE_MAX_BYTES + 1];
static size_t line_len;

/* The ids of the last requests taken, for resends; the last one's output. */
static char recent[RECENT_IDS][ID_MAX + 1];
static unsigned int recent_next;
static struct {
	char id[ID_MAX + 1];
	int out, err, rc;
} last = { .out = -1, .err = -1 };

static void put(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(tty, buf, len);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/*
 * Send the contents of fd as base64, 76 characters per line; its length and
 * CRC into *len and *crc.
 */
static void put_base64(int fd, unsigned long *len, unsigned int *crc)
{
	unsigned char in[57 * 64];
	char out[77 * 64];
	size_t have = 0, o, i;
	ssize_t n;
	int eof = 0;

	*len = 0;
	*crc = 0;
	lseek(fd, 0, SEEK_SET);
	while (!eof || have) {
		while (!eof && have < sizeof(in)) {
			n = read(fd, in + have, sizeof(in) - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				eof = 1;
			} else {
				*crc = crc32_update(*crc, in + have, n);
				*len += n;
				have += n;
			}
		}
		/* Whole 57-byte lines while more may follow; the rest at the end. */
		size_t take = eof ? have : have - have % 57;

		o = 0;
		for (i = 0; i < take; i += 57) {
			o += base64_encode(in + i, take - i < 57 ? take - i : 57,
					   out + o);
			out[o++] = '\n';
		}
		put(out, o);
		memmove(in, in + take, have - take);
		have -= take;
	}
}

static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Wait up to secs for pid; its wait status, or -1 if it is still there. */
static int wait_for(pid_t pid, double secs)
{
	struct timespec end, now, left;
	sigset_t chld;
	int status;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		pid_t r;

		/*
		 * One wait for any child: the command, or an orphan handed to
		 * PID 1. (Waiting for the command and then reaping orphans with
		 * a second wait lost the command's status whenever it exited
		 * in between, and the command then "ran" until its timeout.)
		 */
		while ((r = waitpid(-1, &status, WNOHANG)) > 0)
			if (r == pid)
				return status;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return -1;
		/* SIGCHLD is blocked: it stays pending until taken here. */
		sigtimedwait(&chld, NULL, &left);
	}
}

static int tmpfile_fd(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);

	if (fd < 0) {
		char name[] = "/tmp/.cmdserver.XXXXXX";

		fd = mkstemp(name);
		if (fd >= 0)
			unlink(name);
	}
	return fd;
}

/* The wchan of every process still in group pgid, for the stderr report. */
static void report_stuck(pid_t pgid, int err)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	char path[300], buf[128];

	while (proc && (d = readdir(proc))) {
		FILE *f;
		int pg = 0;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%*d %*s %*c %*d %d", &pg) != 1)
			pg = 0;
		fclose(f);
		if (pg != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/wchan", d->d_name);
		f = fopen(path, "r");
		buf[0] = '\0';
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		dprintf(err, "htmtrace-guest: pid %s does not die (wchan %s)\n",
			d->d_name, buf[0] ? buf : "?");
	}
	if (proc)
		closedir(proc);
}

/* The reply to the last request: its output, and the END line. */
static void reply(void)
{
	unsigned long olen = 0, elen = 0;
	unsigned int ocrc = 0, ecrc = 0;
	char end[256];
	int n;

	say("@@HTMG-OUT %s\n", last.id);
	if (last.out >= 0)
		put_base64(last.out, &olen, &ocrc);
	say("@@HTMG-ERR %s\n", last.id);
	if (last.err >= 0)
		put_base64(last.err, &elen, &ecrc);
	n = snprintf(end, sizeof(end), "@@HTMG-END %s %d %lu %08x %lu %08x",
		     last.id, last.rc, olen, ocrc, elen, ecrc);
	say("%s %08x\n", end, crc32_update(0, end, n));
}

static void forget_last(void)
{
	if (last.out >= 0)
		close(last.out);
	if (last.err >= 0)
		close(last.err);
	last.out = last.err = -1;
	last.id[0] = '\0';
}

/*
 * Exec a text of plain words, returning only if it is none or cannot be
 * exec'd. Most of what the tests send is plain ("htmtest stop /dev/htm0"):
 * no quoting, expansion, redirection, operator or comment, words apart by
 * spaces. Its first word, looked up on PATH, is then exec'd
 * without sh -c, whose exec costs the debug guest as much as the
 * program's (about 0.05 s of host CPU each). A name that is no program
 * on PATH (a builtin, a function, a typo) returns, and sh -c runs the
 * text as ever, with sh's own messages.
 */
#define PLAIN_WORDS	64

static void exec_plain(const char *text)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./=:,+- ";
	char *argv[PLAIN_WORDS + 1], *words, *dir, *dirs, *save = NULL;
	char prog[512];
	const char *path = getenv("PATH");
	int n = 0;

	if (strspn(text, plain) != strlen(text))
		return;
	words = strdup(text);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (n == PLAIN_WORDS)
			return;
		argv[n++] = w;
	}
	argv[n] = NULL;
	if (!n || strchr(argv[0], '='))		/* no words, or an assignment */
		return;
	if (strchr(argv[0], '/')) {
		execv(argv[0], argv);
		return;
	}
	dirs = strdup(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		snprintf(prog, sizeof(prog), "%s/%s", dir, argv[0]);
		if (!stat(prog, &st) && S_ISREG(st.st_mode) && !access(prog, X_OK)) {
			execv(prog, argv);
			return;
		}
	}
}

static void serve(const char *id, unsigned int limit, const char *text)
{
	int out = tmpfile_fd(), err = tmpfile_fd(), status, rc;
	pid_t pid;

	forget_last();
	snprintf(last.id, sizeof(last.id), "%s", id);
	last.out = out;
	last.err = err;
	if (out < 0 || err < 0) {
		last.rc = 125;
		reply();
		return;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setsid();
		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		closefrom(3);
		if (chdir("/"))
			_exit(125);
		exec_plain(text);
		execl("/bin/sh", "sh", "-c", text, (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		dprintf(err, "htmtrace-guest: fork: %s\n", strerror(errno));
		rc = 125;
	} else {
		status = wait_for(pid, limit);
		if (status == -1) {
			kill(-pid, SIGKILL);
			dprintf(err, "htmtrace-guest: killed after the %u s timeout\n", limit);
			if (wait_for(pid, KILL_WAIT_S) == -1)
				report_stuck(pid, err);
			rc = 124;
		} else if (WIFEXITED(status)) {
			rc = WEXITSTATUS(status);
		} else {
			rc = 128 + WTERMSIG(status);
		}
	}
	last.rc = rc;
	reply();
}

/* True if the line's last word is the CRC of the text before it (cut off). */
static int line_crc_ok(char *l)
{
	char *sp = strrchr(l, ' '), *end;
	unsigned long want;

	if (!sp || strlen(sp + 1) != 8)
		return 0;
	want = strtoul(sp + 1, &end, 16);
	if (*end)
		return 0;
	*sp = '\0';
	return crc32_update(0, l, sp - l) == want;
}

static int recently_taken(const char *id)
{
	for (unsigned int i = 0; i < RECENT_IDS; i++)
		if (!strcmp(recent[i], id))
			return 1;
	return 0;
}

static void handle(char *l)
{
	char *save, *tag, *id, *limit, *len, *text, *end;
	unsigned long secs, want;
	int crc_ok;

	/* a carriage return is no part of the protocol: a line ends at \n */
	crc_ok = line_crc_ok(l);
	tag = strtok_r(l, " ", &save);
	id = strtok_r(NULL, " ", &save);
	if (!tag)
		return;
	if (!id || strlen(id) > ID_MAX || !crc_ok) {
		say("@@HTMG-BAD %.32s\n", id ? id : tag);
		return;
	}
	if (!strcmp(tag, "RES")) {
		if (strtok_r(NULL, " ", &save) || strcmp(id, last.id))
			say("@@HTMG-GONE %s\n", id);
		else
			reply();
		return;
	}
	limit = strtok_r(NULL, " ", &save);
	len = strtok_r(NULL, " ", &save);
	text = strtok_r(NULL, " ", &save);
	if (strcmp(tag, "REQ") || !limit || !len || !text ||
	    strtok_r(NULL, " ", &save)) {
		say("@@HTMG-BAD %s\n", id);
		return;
	}
	secs = strtoul(limit, &end, 10);
	if (*end || !secs) {
		say("@@HTMG-BAD %s\n", id);
		return;
	}
	want = strtoul(len, &end, 10);
	if (!strcmp(text, "-"))		/* the empty text */
		*text = '\0';
	if (*end || base64_decode(text, strlen(text)) != (long)want) {
		say("@@HTMG-BAD %s\n", id);
		return;
	}
	if (recently_taken(id)) {
		say("@@HTMG-DUP %s\n", id);
		return;
	}
	snprintf(recent[recent_next], sizeof(recent[0]), "%s", id);
	recent_next = (recent_next + 1) % RECENT_IDS;
	say("@@HTMG-ACK %s\n", id);
	serve(id, secs, text);
}

int main(int argc, char **argv)
{
	struct termios t;
	sigset_t chld;
	ssize_t n;
	char c[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: cmdserver TTY\n");
		return 2;
	}
	tty = open(argv[1], O_RDWR | O_NOCTTY);
	if (tty < 0) {
		perror(argv[1]);
		return 1;
	}
	if (tcgetattr(tty, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(tty, TCSANOW, &t);
	}
	chan_crc_init();
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	/* guest.py waits for this line on the console. */
	{
		FILE *f = fopen("/proc/uptime", "r");
		double up = 0;

		if (f) {
			if (fscanf(f, "%lf", &up) != 1)
				up = 0;
			fclose(f);
		}
		printf("htmtrace-guest: ready after %.2f s\n", up);
		fflush(stdout);
	}

	for (;;) {
		n = read(tty, c, sizeof(c));
		if (n <= 0) {
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				sleep(1);
			reap_orphans();
			continue;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (c[i] == '\n') {
				line[line_len] = '\0';
				handle(line);
				line_len = 0;
			} else if (line_len < LINE_MAX_BYTES) {
				line[line_len++] = c[i];
			}
		}
		reap_orphans();
	}
}
