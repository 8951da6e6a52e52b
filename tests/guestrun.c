// SPDX-License-Identifier: GPL-2.0
/*
 * guestrun: the host's end of the test guest's command channel. It runs one
 * shell command in a guest that tests/guest.py started and gives back the
 * command's stdout, stderr and exit status as its own. The guest's end is
 * tests/guest/cmdserver.c, which describes the protocol.
 *
 *   guestrun DIR TIMEOUT TEXT...
 *
 * DIR is the guest's state folder (build/VARIANT/guests/NAME): "state" (where
 * "sock" names the channel's unix socket), "lock" (one
 * command at a time) and "wedged" (written when the guest stopped
 * answering: later commands then fail at once). TEXT's words are joined
 * with spaces and run by sh -c; TIMEOUT is the guest's bound on it, in
 * seconds. Exit status 124: the guest timed the command out, or stopped
 * answering; 125: the channel failed, and why is on stderr.
 *
 * A request the guest finds damaged is sent again (at most MAX_SENDS times
 * in all), a reply found damaged is asked for again (at most MAX_REPLY_ASKS
 * times). HTMTRACE_GUEST_DAMAGE=request[:N],reply[:N] damages one character
 * of each of the first N requests sent (replies received) on purpose, for
 * the channel's own tests. HTMTRACE_TIMING_LOG=FILE appends each command's
 * time in the channel, its status and its first 100 characters to FILE.
 *
 * A test run makes thousands of these calls: a C client costs the host a
 * millisecond where a Python one cost 60.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "guest/chan.h"

#define GRACE		30	/* s the host waits beyond the guest's timeout */
#define ACK_TIMEOUT	15	/* the server acknowledges a request once read */
#define MAX_SENDS	4	/* a request found damaged: sent this often */
#define MAX_NOACKS	2	/* a request that got no answer: sent this often */
#define MAX_REPLY_ASKS	3	/* a reply found damaged: asked for this often */
#define PIECE		256	/* bytes sent to the tty at a time */

struct buf {
	char *p;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("guest: out of memory\n", stderr);
		exit(125);
	}
	return p;
}

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A diagnostic, at once (the command's own stderr comes at the end). */
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("guest: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
}

/* --- damage on purpose (HTMTRACE_GUEST_DAMAGE) --------------------------- */

static long damage_left[2];	/* requests, replies */
enum { REQUEST, REPLY };

static void damage_parse(const char *spec)
{
	char *copy = strdup(spec ? spec : ""), *save = NULL, *item;

	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		size_t wlen = colon ? (size_t)(colon - item) : strlen(item);
		const char *n = colon && colon[1] ? colon + 1 : "1";
		int what = -1;

		if (wlen == 7 && !strncmp(item, "request", 7))
			what = REQUEST;
		else if (wlen == 5 && !strncmp(item, "reply", 5))
			what = REPLY;
		if (what < 0 || !*n || strspn(n, "0123456789") != strlen(n)) {
			note("HTMTRACE_GUEST_DAMAGE: \"%s\" is not request[:N] or reply[:N]", item);
			exit(125);
		}
		damage_left[what] = atol(n);
	}
	free(copy);
}

static int damage_take(int what)
{
	if (damage_left[what] <= 0)
		return 0;
	damage_left[what]--;
	note("damaging this %s on purpose (HTMTRACE_GUEST_DAMAGE)",
	     what == REQUEST ? "request" : "reply");
	return 1;
}

/* Replace s[i] by another base64 character. */
static void flip(char *s, size_t i)
{
	s[i] = s[i] == 'A' ? 'B' : 'A';
}

/* --- the wire ------------------------------------------------------------- */

static int sock = -1;

/*
 * Send to the guest's tty a piece at a time: a long burst into the
 * spapr-vty once made the debug kernel report a KASAN splat in
 * n_tty_receive_buf_common (hvc flip buffers, not htmtrace).
 */
static int send_paced(const char *p, size_t len)
{
	for (size_t off = 0; off < len;) {
		size_t n = len - off < PIECE ? len - off : PIECE;
		ssize_t w = send(sock, p + off, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += w;
		if (off < len)
			nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	return 0;
}

/* "\nTEXT CRC\n": a line for the server, TEXT then its CRC. */
static void frame(struct buf *out, const char *text, size_t len)
{
	char crc[16];

	out->len = 0;
	buf_add(out, "\n", 1);
	buf_add(out, text, len);
	snprintf(crc, sizeof(crc), " %08x\n", crc32_update(0, text, len));
	buf_add(out, crc, strlen(crc));
}

/* --- the replies to one request, line by line, as events ---------------- */

enum ev { EV_ACK, EV_BAD, EV_GONE, EV_END, EV_TIMEOUT, EV_EOF, EV_WAIT };

static char rid[13];
static int acked, damage_next;
static enum { SEC_NONE, SEC_OUT, SEC_ERR } section;
static struct buf inbuf;		/* what came; inbuf_off of it taken */
static size_t inbuf_off;
static char *rest;			/* a line's rest, from a glued marker */
/* OUT's and ERR's base64; once EV_END came, decoded if whole */
static struct buf parts[2];
static int status, whole;		/* the reply, or why not */
static char why[512];

#define MAX_WORDS 9

/* Split a copy of line into at most MAX_WORDS words; their count. */
static int words(const char *line, char *copy, size_t size, char **w)
{
	char *save = NULL, *tok;
	int n = 0;

	snprintf(copy, size, "%s", line);
	for (tok = strtok_r(copy, " \t", &save); tok && n < MAX_WORDS;
	     tok = strtok_r(NULL, " \t", &save))
		w[n++] = tok;
	return n;
}

/*
 * The END line checked, the parts decoded in place and checked: sets
 * whole, or why not (a reply sent again starts its parts afresh).
 */
static void reply_end(const char *line)
{
	char copy[512], *w[MAX_WORDS];
	const char *sp = strrchr(line, ' ');
	int nw = words(line, copy, sizeof(copy), w);

	whole = 0;
	if (nw != 8 || !sp || strlen(w[7]) != 8 ||
	    strtoul(w[7], NULL, 16) != crc32_update(0, line, sp - line)) {
		snprintf(why, sizeof(why), "the reply's last line is damaged: '%.100s'", line);
		return;
	}
	for (int k = 0; k < 2; k++) {
		struct buf *b = &parts[k];
		const char *what = k ? "stderr" : "stdout";
		unsigned int crc;
		long len;

		buf_add(b, "", 0);	/* (allocated, even if empty) */
		len = base64_decode(b->p, b->len);
		if (len < 0) {
			snprintf(why, sizeof(why), "the reply is no base64 (%s)", what);
			return;
		}
		b->len = len;
		crc = crc32_update(0, b->p, b->len);
		if (strtoul(w[3 + 2 * k], NULL, 10) != b->len ||
		    strtoul(w[4 + 2 * k], NULL, 16) != crc) {
			snprintf(why, sizeof(why),
				 "%s is damaged: %zu bytes, CRC %08x for %s bytes, CRC %s",
				 what, b->len, crc, w[3 + 2 * k], w[4 + 2 * k]);
			return;
		}
	}
	status = atoi(w[2]);
	whole = 1;
}

/* Damage on purpose: the END line's status, plus one (0 if no number). */
static void damage_status(char *line, size_t size)
{
	char copy[512], *w[MAX_WORDS], rc[24];
	int nw = words(line, copy, size < sizeof(copy) ? size : sizeof(copy), w);
	size_t o = 0;

	if (nw < 3)
		return;
	snprintf(rc, sizeof(rc), "%ld", strspn(w[2], "0123456789") == strlen(w[2]) ?
		 atol(w[2]) + 1 : 0L);
	w[2] = rc;
	for (int i = 0; i < nw && o < size; i++)
		o += snprintf(line + o, size - o, "%s%s", i ? " " : "", w[i]);
}

/* Take one line; the event it makes, or EV_WAIT for none. */
static enum ev take_line(char *line)
{
	char copy[512], marker[512], *w[MAX_WORDS];
	const char *kind;
	int nw;

	if (strncmp(line, "@@HTMG-", 7)) {
		if (section != SEC_NONE && *line) {
			if (damage_next) {
				damage_next = 0;
				flip(line, strlen(line) / 2);
			}
			buf_add(&parts[section == SEC_ERR], line, strlen(line));
		}
		return EV_WAIT;
	}
	nw = words(line, copy, sizeof(copy), w);
	kind = w[0] + 7;
	if (nw < 2 || strcmp(w[1], rid)) {
		section = SEC_NONE;	/* a stale or damaged marker */
		/* a request whose id the tty damaged is ours too: the server
		 * takes a request once, whatever is sent again
		 */
		return !strcmp(kind, "BAD") && !acked ? EV_BAD : EV_WAIT;
	}
	if (!strcmp(kind, "ACK") || !strcmp(kind, "DUP")) {
		acked = 1;
		return EV_ACK;
	}
	if (!strcmp(kind, "BAD"))
		return EV_BAD;
	if (!strcmp(kind, "GONE"))
		return EV_GONE;
	if (!strcmp(kind, "OUT")) {	/* a reply sent again starts afresh */
		parts[0].len = parts[1].len = 0;
		damage_next = damage_take(REPLY);
		section = SEC_OUT;
		return EV_WAIT;
	}
	if (!strcmp(kind, "ERR")) {
		section = SEC_ERR;
		return EV_WAIT;
	}
	section = SEC_NONE;
	if (strcmp(kind, "END"))
		return EV_WAIT;
	snprintf(marker, sizeof(marker), "%s", line);
	if (damage_next) {
		damage_next = 0;
		damage_status(marker, sizeof(marker));
	}
	reply_end(marker);
	return EV_END;
}

/*
 * The next line of what came, in place: NUL-terminated, stripped of
 * surrounding white space, and cut where a marker is glued to the text
 * before it (a newline lost). NULL when no whole line is left.
 */
static char *next_line(void)
{
	char *s, *e, *nl, *m;

	if (rest) {
		s = rest;
		*s = '@';
		rest = NULL;
	} else {
		s = inbuf.p + inbuf_off;
		nl = inbuf.p ? memchr(s, '\n', inbuf.len - inbuf_off) : NULL;
		if (!nl)
			return NULL;
		inbuf_off = nl + 1 - inbuf.p;
		*nl = '\0';
		for (char *c = s; c < nl; c++)	/* (as no base64 or marker) */
			if (!*c || (unsigned char)*c > 126)
				*c = '?';
		for (e = nl; e > s && strchr(" \t\r\f\v", e[-1]); )
			*--e = '\0';
		while (*s && strchr(" \t\r\f\v", *s))
			s++;
	}
	m = *s ? strstr(s + 1, "@@HTMG-") : NULL;
	if (m) {
		*m = '\0';
		rest = m;
	}
	return s;
}

/* The next event before deadline (later while output flows). */
static enum ev next_event(double deadline)
{
	char data[65536], *line;

	for (;;) {
		while ((line = next_line())) {
			enum ev ev = take_line(line);

			if (ev != EV_WAIT)
				return ev;
		}
		double left = deadline - now();
		struct pollfd p = { .fd = sock, .events = POLLIN };
		ssize_t n;
		int r;

		if (left <= 0)
			return EV_TIMEOUT;
		r = poll(&p, 1, left > INT_MAX / 1000 ? INT_MAX : (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue;	/* the deadline, checked above */
		n = recv(sock, data, sizeof(data), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return EV_EOF;
		if (section != SEC_NONE && deadline < now() + GRACE)
			deadline = now() + GRACE;	/* output flows: be patient */
		if (inbuf_off) {	/* drop what was taken: all but a part line */
			inbuf.len -= inbuf_off;
			memmove(inbuf.p, inbuf.p + inbuf_off, inbuf.len);
			inbuf_off = 0;
		}
		buf_add(&inbuf, data, n);
	}
}

/* --- one command --------------------------------------------------------- */

static const char *text;

/*
 * Send the request and take its reply, sending again what was damaged:
 * NULL with the reply in out, err and status, or what went wrong (from
 * "wedged: " if the guest stopped answering).
 */
static const char *exchange(unsigned int timeout)
{
	static char fail[600];
	struct buf req = { 0 }, send = { 0 }, line = { 0 };
	size_t len = strlen(text), b64start;
	int sends = 0, noacks = 0, asks = 0, recovered = 0;
	enum ev ev = EV_WAIT;
	double wait;
	char head[64];

	/* REQ <id> <timeout> <length> <base64 of the text> */
	snprintf(head, sizeof(head), "REQ %s %u %zu ", rid, timeout, len);
	buf_add(&line, head, strlen(head));
	b64start = line.len + 1;	/* (after frame()'s leading newline) */
	if (len) {
		char *b = xrealloc(NULL, len / 3 * 4 + 8);

		buf_add(&line, b, base64_encode((const unsigned char *)text, len, b));
		free(b);
	} else {
		buf_add(&line, "-", 1);
	}
	frame(&req, line.p, line.len);
	/* A leading newline (in the frame) ends whatever partial line the
	 * tty may hold.
	 */
	while (!acked) {
		sends++;
		send.len = 0;
		buf_add(&send, req.p, req.len);
		if (damage_take(REQUEST))
			flip(send.p, (b64start + strrchr(send.p, ' ') - send.p) / 2);
		if (send_paced(send.p, send.len))
			return "QEMU closed the channel (guest died?)";
		ev = next_event(now() + ACK_TIMEOUT);
		if (ev == EV_ACK || ev == EV_END)
			break;
		if (ev == EV_EOF)
			return "QEMU closed the channel (guest died?)";
		if (ev == EV_TIMEOUT) {
			/* lost on the way (not that the command hangs): send it
			 * again; the server takes a request once, whatever is
			 * sent again
			 */
			if (++noacks >= MAX_NOACKS)
				return "wedged: the command channel lost the request twice";
			note("request not acknowledged in %d s (attempt %d): %.80s",
			     ACK_TIMEOUT, sends, text);
		} else if (sends >= MAX_SENDS) {
			snprintf(fail, sizeof(fail),
				 "the guest found the request damaged %d times: giving up",
				 sends);
			return fail;
		} else {
			note("the guest found the request damaged (attempt %d of %d): %s",
			     sends, MAX_SENDS, "sending it again");
		}
	}
	/* Then the reply: asked for again (RES) when it came damaged, and
	 * once when none came (its last line may be what was lost).
	 */
	wait = timeout + GRACE;
	for (;;) {
		const char *reason;

		if (ev != EV_END)
			ev = next_event(now() + wait);
		if (ev == EV_EOF)
			return "QEMU closed the channel (guest died?)";
		if (ev == EV_END && whole)
			return NULL;
		if (ev == EV_GONE)
			return "the guest has no reply to send again";
		if (ev == EV_ACK || ev == EV_BAD) {	/* a late answer to a resend */
			ev = EV_WAIT;
			continue;
		}
		if (ev == EV_TIMEOUT && !recovered && !asks) {
			recovered = 1;
			note("no answer %u s after the request was read: %s",
			     timeout + GRACE, "asking for the reply again");
		} else if (ev == EV_TIMEOUT && recovered && !asks) {
			snprintf(fail, sizeof(fail),
				 "wedged: no answer %u s after the request was read",
				 timeout + GRACE);
			return fail;
		} else {
			reason = ev == EV_END ? why : "the reply asked for again did not come";
			if (++asks > MAX_REPLY_ASKS) {
				snprintf(fail, sizeof(fail),
					 "the reply came damaged %d times: giving up (%s)",
					 asks, reason);
				return fail;
			}
			note("%s (attempt %d): asking for it again", reason, asks);
		}
		snprintf(head, sizeof(head), "RES %s", rid);
		frame(&send, head, strlen(head));
		if (send_paced(send.p, send.len))
			return "QEMU closed the channel (guest died?)";
		wait = ACK_TIMEOUT;
		ev = EV_WAIT;
	}
}

/* --- the guest's state ---------------------------------------------------- */

static char *dir_file(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		fputs("guest: out of memory\n", stderr);
		exit(125);
	}
	return p;
}

/* The whole of a small file, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	struct buf b = { 0 };
	char chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf_add(&b, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, n);
	close(fd);
	return b.p;
}

/*
 * The channel's socket, from the state tests/guest.py start wrote; NULL if
 * there is none. Whether QEMU still serves it, connect() tells.
 */
static char *guest_socket(const char *dir)
{
	char *path = dir_file(dir, "state"), *st = slurp(path), *save = NULL;
	char *l, *sockp = NULL;

	free(path);
	for (l = st ? strtok_r(st, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, "sock ", 5))
			sockp = strdup(l + 5);
	free(st);
	return sockp;
}

static void timing_log(double secs, int rc)
{
	const char *log = getenv("HTMTRACE_TIMING_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "%.3f %d '", secs, rc);
	for (const char *c = text; *c && c < text + 100; c++) {
		if (*c == '\n')
			fputs("\\n", f);
		else
			fputc(*c, f);
	}
	fputs("'\n", f);
	fclose(f);
}

static void put_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= n;
	}
}

int main(int argc, char **argv)
{
	const char *dir, *name, *what;
	struct buf joined = { 0 };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	unsigned char id[6];
	char *path, *wedged, *sockp;
	unsigned long timeout;
	double t0;
	int lock, rc;

	timeout = argc < 4 ? 0 : strtoul(argv[2], &path, 10);
	if (!timeout || *path) {
		fputs("usage: guestrun DIR TIMEOUT TEXT...\n", stderr);
		return 125;
	}
	dir = argv[1];
	name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	for (int i = 3; i < argc; i++) {
		if (i > 3)
			buf_add(&joined, " ", 1);
		buf_add(&joined, argv[i], strlen(argv[i]));
	}
	text = joined.p;
	chan_crc_init();

	path = dir_file(dir, "wedged");
	wedged = slurp(path);
	free(path);
	if (wedged) {
		note("wedged earlier by: %s", wedged);
		return 125;
	}
	sockp = guest_socket(dir);
	if (!sockp) {
		note("%s is not running", name);
		return 125;
	}
	if (getrandom(id, sizeof(id), 0) != sizeof(id)) {
		note("getrandom: %s", strerror(errno));
		return 125;
	}
	for (size_t i = 0; i < sizeof(id); i++)
		sprintf(rid + 2 * i, "%02x", id[i]);
	damage_parse(getenv("HTMTRACE_GUEST_DAMAGE"));

	path = dir_file(dir, "lock");
	lock = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (lock < 0 || flock(lock, LOCK_EX)) {
		note("cannot lock the channel: %s", strerror(errno));
		return 125;
	}
	t0 = now();
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sockp);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		note("%s is not running (cannot reach the guest: [Errno %d] %s)",
		     name, errno, strerror(errno));
		return 125;
	}
	what = exchange(timeout);
	close(sock);
	close(lock);
	if (!what) {
		timing_log(now() - t0, status);
		put_all(1, parts[0].p, parts[0].len);
		put_all(2, parts[1].p, parts[1].len);
		return status;
	}
	rc = 125;
	if (!strncmp(what, "wedged: ", 8)) {
		FILE *f;

		what += 8;
		rc = 124;
		path = dir_file(dir, "wedged");
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s: %s", what, text);
			fclose(f);
		}
		free(path);
	}
	timing_log(now() - t0, rc);
	note("%s: %s", what, text);
	if (rc == 124)
		note("the guest is wedged; later commands fail");
	return rc;
}
