// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: reading a capture. A file is mapped and checked
 * whole before anything is printed. A pipe or a device is read as it
 * comes (struct dtl_reader, for report_pipe()), or, for the reports that
 * need the whole capture, first copied into an unnamed temporary file
 * and mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "dtl.h"
#include "dtl_report.h"
#include "util.h"

/* read() size of a pipe: many records, and always one whole. */
#define DTL_READ_SIZE		65536

/* Where a file that is not a capture is sent. */
#define NOT_A_CAPTURE	"htmtrace dtl report reads the files of htmtrace dtl record"

/*
 * The file header, and whether the file is a capture: 0 with @start, the
 * header's length (0: none), or -1 after a message.
 */
int dtl_check_header(const char *file, const unsigned char *buf, size_t len,
		     size_t *start)
{
	switch (dtl_header_check(buf, len, start)) {
	case DTL_FILE_OK:
		return 0;
	case DTL_FILE_PERF:
		pr_err("%s is a perf.data file, not a dispatch trace log capture: read it with perf report (%s)",
		       file, NOT_A_CAPTURE);
		break;
	case DTL_FILE_OTHER:
		pr_err("%s is not a dispatch trace log capture: it starts with neither htmtrace's file header nor a record of /dev/vpa_dtl (%s)",
		       file, NOT_A_CAPTURE);
		break;
	case DTL_FILE_SWAPPED:
		pr_err("%s: the stream was written with the other byte order",
		       file);
		break;
	case DTL_FILE_BAD:
		pr_err("%s: damaged file header at offset 0: its length or version is not one htmtrace %s writes",
		       file, TOOL_VERSION);
		break;
	}
	return -1;
}

/*
 * Why the record at @off of a stream of @len bytes could not be read, for
 * messages.
 */
void dtl_damage_why(char *buf, size_t blen, size_t len, size_t off,
		    enum dtl_rec_status rs, const struct htmtrace_dtl_rec *hdr)
{
	const char *name = dtl_rec_name(hdr->type);
	char tname[16];

	if (!name) {
		snprintf(tname, sizeof(tname), "type %u", hdr->type);
		name = tname;
	}
	switch (rs) {
	case DTL_REC_TRUNC_HDR:
		snprintf(buf, blen, "truncated record at offset %zu: %zu bytes left, a header is %zu",
			 off, len - off, sizeof(*hdr));
		break;
	case DTL_REC_TRUNC:
		snprintf(buf, blen, "truncated %s record at offset %zu: length %u, %zu bytes left",
			 name, off, hdr->len, len - off);
		break;
	case DTL_REC_SHORT:
		snprintf(buf, blen, "bad %s record at offset %zu: length %u is less than 8",
			 name, off, hdr->len);
		break;
	case DTL_REC_ALIGN:
		snprintf(buf, blen, "bad %s record at offset %zu: length %u is not a multiple of 8",
			 name, off, hdr->len);
		break;
	case DTL_REC_SMALL:
		snprintf(buf, blen, "bad %s record at offset %zu: length %u, expected at least %zu",
			 name, off, hdr->len, dtl_rec_min_len(hdr->type));
		break;
	case DTL_REC_SWAPPED:
		snprintf(buf, blen, "the stream was written with the other byte order");
		break;
	default:
		snprintf(buf, blen, "bad record at offset %zu", off);
		break;
	}
}

/**
 * dtl_check_rec() - what in one record refuses a capture
 * @have_clock: in/out: a CLOCK record has come before
 * @hdr: the record's header (read whole)
 * @rec: the record
 * @off: its offset, for @why
 * @why: out: why it refuses the capture
 * @why_len: the size of @why
 *
 * A CLOCK record with a timebase frequency of 0, or an ENTRY record before
 * any CLOCK record (its time cannot be converted). dtl_check_stream()'s
 * rule for a file, report_pipe()'s for a pipe.
 *
 * Return: 0 if the record is good, 1 with @why if not.
 */
int dtl_check_rec(int *have_clock, const struct htmtrace_dtl_rec *hdr,
		  const unsigned char *rec, size_t off, char *why,
		  size_t why_len)
{
	struct htmtrace_dtl_clock clock;

	if (hdr->type == HTMTRACE_DTL_REC_CLOCK) {
		memcpy(&clock, rec, sizeof(clock));
		if (!clock.tb_freq) {
			snprintf(why, why_len, "CLOCK record at offset %zu: timebase frequency 0",
				 off);
			return 1;
		}
		*have_clock = 1;
	} else if (hdr->type == HTMTRACE_DTL_REC_ENTRY && !*have_clock) {
		snprintf(why, why_len, "ENTRY record at offset %zu comes before any CLOCK record: its time cannot be converted",
			 off);
		return 1;
	}
	return 0;
}

/**
 * dtl_check_stream() - check a capture before it is reported
 * @file: its name, for messages
 * @buf: the file
 * @len: its length
 * @start: out: where the device's stream starts (after the file header)
 * @end: out: where the readable records end
 * @why: out: why they end there, if before @len
 * @why_len: the size of @why
 *
 * A file that is not a capture, an empty one, a damaged file header or
 * first record, a CLOCK with a timebase frequency of 0 or an ENTRY before
 * any CLOCK are refused. A record that cannot be read after the first (a
 * file cut short, a damaged length) ends what is readable: @end is its
 * offset.
 *
 * Return: 0 for a whole capture, 1 for one readable up to @end (@why says
 * why, no message yet), -1 after a message for a refused file.
 */
int dtl_check_stream(const char *file, const unsigned char *buf, size_t len,
		     size_t *start, size_t *end, char *why, size_t why_len)
{
	struct htmtrace_dtl_rec hdr;
	enum dtl_rec_status rs;
	int have_clock = 0;
	size_t off;

	*start = *end = 0;
	if (!len) {
		pr_err(DTL_MSG_EMPTY, file);
		return -1;
	}
	if (dtl_check_header(file, buf, len, start))
		return -1;
	if (*start == len) {
		pr_err(DTL_MSG_NO_RECORDS, file);
		return -1;
	}
	for (off = *start;
	     (rs = dtl_rec_check(buf, len, off, &hdr)) == DTL_REC_OK;
	     off += hdr.len) {
		if (dtl_check_rec(&have_clock, &hdr, buf + off, off, why,
				  why_len)) {
			pr_err("%s: %s", file, why);
			return -1;
		}
	}
	*end = off;
	if (rs == DTL_REC_END)
		return 0;
	dtl_damage_why(why, why_len, len, off, rs, &hdr);
	if (off > *start)
		return 1;
	/* Nothing readable: no report. */
	pr_err("%s: %s", file, why);
	return -1;
}

/*
 * Copy @in into the temporary file @out. Returns 0 or -errno; *@writing
 * says whether the write (not the read) failed.
 */
static int spool(int in, int out, int *writing)
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
		*writing = 1;
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
		*writing = 0;
	}
	*writing = 1;
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

/*
 * Read more of a pipe: what is left of @rd->buf from @rd->pos moves to its
 * start, and one read() adds what the pipe holds (waiting for it), or
 * sets @rd->eof. Returns 0 or -errno.
 */
int dtl_reader_fill(struct dtl_reader *rd)
{
	ssize_t n;

	if (rd->pos) {
		memmove(rd->buf, rd->buf + rd->pos, rd->have - rd->pos);
		rd->base += rd->pos;
		rd->have -= rd->pos;
		rd->pos = 0;
	}
	for (;;) {
		n = read(rd->fd, rd->buf + rd->have, rd->cap - rd->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			rd->eof = 1;
		rd->have += n;
		return 0;
	}
}

/*
 * Open @file (- for standard input, @name in messages) as one piece of
 * memory; with @stream, a pipe or a device is left to be read as it comes
 * (@in->pipe set, nothing mapped). Returns 0 or -1 after a message that
 * names what failed: the input, or the temporary copy of a pipe (in
 * $TMPDIR, or /tmp).
 */
int dtl_input_open(struct dtl_input *in, const char *file, const char *name,
		   int stream)
{
	const char *tmpdir = getenv("TMPDIR");
	int fd, tmp, err, writing = 0;
	struct stat st;

	in->map = NULL;
	in->len = 0;
	in->pipe = 0;
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if (!strcmp(file, "-"))
		fd = dup(STDIN_FILENO);
	else
		fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto read_err;
	in->fd = fd;
	if (fstat(fd, &st))
		goto read_err;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto read_err;
	}
	if (!S_ISREG(st.st_mode) && stream) {
		in->pipe = 1;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		tmp = spool_file(tmpdir);
		if (tmp < 0) {
			pr_errno(-tmp, "%s is a pipe or a device, copied into a temporary file in %s (TMPDIR) to be read; creating it failed",
				 name, tmpdir);
			return -1;
		}
		err = spool(fd, tmp, &writing);
		close(fd);
		in->fd = tmp;
		if (err && writing) {
			pr_errno(-err, "copy %s into a temporary file in %s (TMPDIR)",
				 name, tmpdir);
			return -1;
		}
		errno = -err;
		if (err || fstat(tmp, &st))
			goto read_err;
	}
	if ((__u64)st.st_size >= SIZE_MAX) {
		errno = EFBIG;
		goto read_err;
	}
	in->len = st.st_size;
	if (!in->len)
		return 0;
	in->map = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (in->map == MAP_FAILED) {
		in->map = NULL;
		goto read_err;
	}
	/* Read front to back: pages behind may go. */
	madvise(in->map, in->len, MADV_SEQUENTIAL);
	return 0;

read_err:
	pr_errno(errno, "read %s", name);
	return -1;
}

void dtl_input_close(struct dtl_input *in)
{
	if (in->map)
		munmap(in->map, in->len);
	if (in->fd >= 0)
		close(in->fd);
}

