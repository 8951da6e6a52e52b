// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the file header of a dtl capture. dtl record writes it before
 * the device's stream, a record of the tool's own (type
 * HTMTRACE_DTL_REC_FILE, which the driver never uses): its struct
 * htmtrace_dtl_rec, the magic "HTMTRDTL", a __u32 version (1) and a __u32
 * of zero, then "key\0value\0" pairs, padded with NULs to a multiple of 8
 * (an empty key ends them). It says what the capture is: when, where
 * (host, LPAR), of what (CPUs, events, ring) and by which command. A
 * capture without it (an older tool's, or the device read with cat) is
 * still read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "commands.h"
#include "dtl.h"
#include "util.h"

#define LPARCFG			"/proc/powerpc/lparcfg"

/* The fixed part: the record header, magic, version, reserved. */
#define HEADER_FIXED		24
/* A record's length is a __u16 and a multiple of 8. */
#define HEADER_MAX		65528
/* The command line is cut beyond this many bytes, with "...". */
#define CMDLINE_MAX		4096

static const char magic[8] = "HTMTRDTL";

struct header_buf {
	unsigned char *p;
	size_t len, cap;
	int full;		/* a field did not fit: left out */
};

static void add_field(struct header_buf *b, const char *key, const char *val)
{
	size_t kl = strlen(key) + 1, vl = strlen(val) + 1;

	if (!*val)
		return;
	/* Room for the pair, the ending empty key and the padding. */
	if (b->len + kl + vl + 1 + 7 > b->cap) {
		b->full = 1;
		return;
	}
	memcpy(b->p + b->len, key, kl);
	memcpy(b->p + b->len + kl, val, vl);
	b->len += kl + vl;
}

/* The value of KEY= in /proc/powerpc/lparcfg, or "" (not an LPAR). */
static void lparcfg_value(const unsigned char *cfg, size_t len,
			  const char *key, char *val, size_t vlen)
{
	size_t kl = strlen(key), off = 0, end, n;

	val[0] = '\0';
	while (off < len) {
		const unsigned char *nl = memchr(cfg + off, '\n', len - off);

		end = nl ? (size_t)(nl - cfg) : len;
		if (end - off > kl && !memcmp(cfg + off, key, kl) &&
		    cfg[off + kl] == '=') {
			n = end - off - kl - 1;
			if (n >= vlen)
				n = vlen - 1;
			memcpy(val, cfg + off + kl + 1, n);
			val[n] = '\0';
			return;
		}
		off = end + 1;
	}
}

/* "htmtrace dtl ARGS", each a shell word, cut at CMDLINE_MAX. */
static void command_line(char *buf, size_t len, int argc, char **argv)
{
	char word[CMDLINE_MAX];
	size_t used;
	int i;

	used = snprintf(buf, len, "htmtrace dtl");
	for (i = 0; i < argc; i++) {
		if (shell_word(word, sizeof(word), argv[i]) ||
		    used + 1 + strlen(word) + 4 > len) {
			snprintf(buf + used, len - used, " ...");
			return;
		}
		used += snprintf(buf + used, len - used, " %s", word);
	}
}

/**
 * dtl_header_make() - the file header of a capture starting now
 * @bufp: out: the record, malloc()ed; the caller frees it
 * @lenp: out: its length
 * @info: what the command line asked for
 *
 * The host, kernel release and architecture from uname(), the LPAR's name
 * and partition id from /proc/powerpc/lparcfg (left out where it has
 * none), the start time (UTC), the tool's version, the CPUs, events and
 * ring size asked for and the command line. Return: 0 or -ENOMEM.
 */
int dtl_header_make(unsigned char **bufp, size_t *lenp,
		    const struct dtl_header_info *info)
{
	struct header_buf b = { .cap = HEADER_MAX };
	struct htmtrace_dtl_rec hdr = {
		.type = HTMTRACE_DTL_REC_FILE, .cpu = ~0U,
	};
	char val[256], cmd[CMDLINE_MAX + 16];
	unsigned char *cfg = NULL;
	struct utsname uts;
	struct timespec ts;
	size_t cfg_len = 0;
	__u32 version = DTL_FILE_VERSION, zero = 0;
	struct tm tm;

	b.p = calloc(1, b.cap);
	if (!b.p)
		return -ENOMEM;
	memcpy(b.p + sizeof(hdr), magic, sizeof(magic));
	memcpy(b.p + 16, &version, sizeof(version));
	memcpy(b.p + 20, &zero, sizeof(zero));
	b.len = HEADER_FIXED;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(val, sizeof(val), "%Y-%m-%dT%H:%M:%SZ", &tm);
	add_field(&b, "captured_on", val);
	if (!uname(&uts))
		add_field(&b, "hostname", uts.nodename);
	if (!read_file(LPARCFG, &cfg, &cfg_len)) {
		lparcfg_value(cfg, cfg_len, "partition_name", val, sizeof(val));
		add_field(&b, "lpar_name", val);
		lparcfg_value(cfg, cfg_len, "partition_id", val, sizeof(val));
		add_field(&b, "partition_id", val);
		free(cfg);
	}
	if (!uname(&uts)) {
		add_field(&b, "os_release", uts.release);
		add_field(&b, "arch", uts.machine);
	}
	add_field(&b, "htmtrace_version", TOOL_VERSION);
	add_field(&b, "cpus", info->cpus ? info->cpus : "all");
	add_field(&b, "events", info->events);
	if (info->ring_kb)
		snprintf(val, sizeof(val), "%u KiB", info->ring_kb);
	else
		snprintf(val, sizeof(val), "the driver's default");
	add_field(&b, "ring", val);
	command_line(cmd, sizeof(cmd), info->argc, info->argv);
	add_field(&b, "cmdline", cmd);
	/* The empty key that ends the pairs, then NULs to a multiple of 8. */
	b.len = (b.len + 1 + 7) / 8 * 8;
	hdr.len = b.len;
	memcpy(b.p, &hdr, sizeof(hdr));
	*bufp = b.p;
	*lenp = b.len;
	return 0;
}

/**
 * dtl_header_check() - where the device's stream starts in a file
 * @buf: the file
 * @len: its length
 * @start: out: the header's length, or 0 for a capture without one
 *
 * Return: DTL_FILE_OK; DTL_FILE_BAD for a header that is damaged (a
 * length that does not hold its fixed part, a version this tool does not
 * know); DTL_FILE_SWAPPED for one of the other byte order; DTL_FILE_PERF
 * for a perf.data file; DTL_FILE_OTHER for a file that is not a capture:
 * without a header, its first record is none of the device's.
 */
enum dtl_file_status dtl_header_check(const unsigned char *buf, size_t len,
				      size_t *start)
{
	struct htmtrace_dtl_rec hdr;
	__u32 version;

	*start = 0;
	if (len >= 8 && !memcmp(buf, "PERFILE", 7))
		return DTL_FILE_PERF;
	if (len < sizeof(hdr))
		return DTL_FILE_OK;	/* a damaged capture: said later */
	memcpy(&hdr, buf, sizeof(hdr));
	if (len >= 16 && !memcmp(buf + 8, magic, sizeof(magic))) {
		if (hdr.type == __builtin_bswap16(HTMTRACE_DTL_REC_FILE))
			return DTL_FILE_SWAPPED;
		if (hdr.type != HTMTRACE_DTL_REC_FILE || hdr.len % 8 ||
		    hdr.len < HEADER_FIXED + 8 || hdr.len > len)
			return DTL_FILE_BAD;
		memcpy(&version, buf + 16, sizeof(version));
		if (version != DTL_FILE_VERSION)
			return DTL_FILE_BAD;
		*start = hdr.len;
		return DTL_FILE_OK;
	}
	switch (hdr.type) {
	case HTMTRACE_DTL_REC_CLOCK:
	case HTMTRACE_DTL_REC_ENTRY:
	case HTMTRACE_DTL_REC_LOST:
	case HTMTRACE_DTL_REC_CPU:
	case __builtin_bswap16(HTMTRACE_DTL_REC_CLOCK):
		return DTL_FILE_OK;
	}
	return DTL_FILE_OTHER;
}

/**
 * dtl_header_field() - the next key and value of a checked header
 * @buf: the header (dtl_header_check() gave its length)
 * @len: its length
 * @pos: in/out: where to read; 0 for the first pair
 * @key: out: the key
 * @val: out: its value
 *
 * Return: 1 with @key and @val, 0 at the end. A pair cut by the end of the
 * header (a damaged file) ends them.
 */
int dtl_header_field(const unsigned char *buf, size_t len, size_t *pos,
		     const char **key, const char **val)
{
	size_t p = *pos ? *pos : HEADER_FIXED;
	const unsigned char *kend, *vend;

	if (p >= len || !buf[p])
		return 0;
	kend = memchr(buf + p, '\0', len - p);
	if (!kend || (size_t)(kend - buf) + 1 >= len)
		return 0;
	vend = memchr(kend + 1, '\0', len - (kend + 1 - buf));
	if (!vend)
		return 0;
	*key = (const char *)buf + p;
	*val = (const char *)kend + 1;
	*pos = vend + 1 - buf;
	return 1;
}
