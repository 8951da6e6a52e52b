// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: error reporting and I/O helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "util.h"

/* The program, the running command and its help, for messages. */
const char *prog_name = "htmtrace";
const char *cmd_name;
const char *cmd_help;

static __printf(2, 0) void vreport(int err, const char *fmt, va_list ap)
{
	fputs(prog_name, stderr);
	if (cmd_name)
		fprintf(stderr, " %s", cmd_name);
	fputs(": ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* "htmtrace CMD: message" on stderr. */
void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
}

/* "htmtrace CMD: message: strerror(err)" on stderr; err is a positive errno. */
void pr_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(err, fmt, ap);
	va_end(ap);
}

/* Report a usage error and point at the help; returns EXIT_USAGE. */
int usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	if (cmd_name)
		fprintf(stderr, "Try '%s help %s' for more information.\n",
			prog_name, cmd_name);
	else
		fprintf(stderr, "Try '%s --help' for more information.\n",
			prog_name);
	return EXIT_USAGE;
}

/* @one for a count of 1, else @many: "1 block", "2 blocks". */
const char *plural(unsigned long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Write all of @buf, across short writes and signals. Returns 0 or -errno. */
int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * read_file() - read a whole regular file into memory
 * @path: the file
 * @bufp: out: malloc()ed contents (NULL for an empty file); the caller frees
 * @lenp: out: bytes read
 *
 * Return: 0 or -errno (-EFBIG if it does not fit in memory).
 */
int read_file(const char *path, unsigned char **bufp, size_t *lenp)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto out_close;
	}
	/* Room for the whole file and the read() that sees EOF. */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((__u64)st.st_size >= SIZE_MAX) {
			err = -EFBIG;
			goto out_close;
		}
		cap = st.st_size + 1;
		buf = malloc(cap);
		if (!buf) {
			err = -ENOMEM;
			goto out_close;
		}
	}
	/* The size may change under us: read to EOF whatever it said. */
	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			unsigned char *nbuf;

			if (ncap < cap) {
				err = -EFBIG;
				goto out_free;
			}
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				err = -ENOMEM;
				goto out_free;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out_free;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (!len) {
		free(buf);
		buf = NULL;
	}
	*bufp = buf;
	*lenp = len;
	return 0;

out_free:
	free(buf);
out_close:
	close(fd);
	return err;
}

/* Create (or truncate) an output file. Returns the fd or -errno. */
int create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	return fd < 0 ? -errno : fd;
}

/**
 * out_open() - open an output file without touching what is there
 * @of: out: the file's state, for out_commit() or out_discard()
 * @path: the file
 *
 * A regular file (or a name that does not exist yet) is created as
 * "DIR/.htmtrace.XXXXXX" beside @path, with the mode create_file() gives;
 * @path itself is untouched until out_commit(). Anything else that exists
 * at @path is opened for writing as it is.
 *
 * Return: the fd, or -errno.
 */
int out_open(struct out_file *of, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	struct stat st;
	mode_t mask;
	int fd;

	of->path = path;
	of->staged = 0;
	of->committed = 0;
	of->tmp[0] = '\0';
	of->existed = !stat(path, &st);
	if (of->existed && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if ((size_t)snprintf(of->tmp, sizeof(of->tmp), "%.*s.htmtrace.XXXXXX",
			     dirlen, path) >= sizeof(of->tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {
		int err = -errno;

		close(fd);
		unlink(of->tmp);
		return err;
	}
	of->staged = 1;
	return fd;
}

/* Rename the new file over the old one. Returns 0 or -errno (it stays). */
int out_commit(struct out_file *of)
{
	if (!of->staged)
		return 0;
	if (rename(of->tmp, of->path))
		return -errno;
	of->staged = 0;
	of->committed = 1;
	return 0;
}

/*
 * Remove the new file: before out_commit(), what was at the path stays as
 * it was; after, the new file is removed from the path.
 */
void out_discard(struct out_file *of)
{
	if (of->staged)
		unlink(of->tmp);
	else if (of->committed)
		unlink(of->path);
	of->staged = 0;
	of->committed = 0;
}

/* 1 if @path names the file open as @fd (the same inode), else 0. */
int same_file(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Offset, sixteen bytes in hex, and the bytes as text. */
void hexdump(FILE *f, const unsigned char *buf, size_t len)
{
	size_t off, i;

	for (off = 0; off < len; off += 16) {
		fprintf(f, "%08zx ", off);
		for (i = off; i < off + 16; i++) {
			if (i < len)
				fprintf(f, " %02x", buf[i]);
			else
				fputs("   ", f);
			if (i - off == 7)
				fputc(' ', f);
		}
		fputs("  |", f);
		for (i = off; i < off + 16 && i < len; i++)
			fputc(buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '.', f);
		fputs("|\n", f);
	}
}

/* @s as a JSON string: quoted, with '"', '\\' and control bytes escaped. */
void json_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* @buf as a JSON string of hex digits. */
void json_hex(FILE *f, const unsigned char *buf, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++)
		fprintf(f, "%02x", buf[i]);
	fputc('"', f);
}

/* A target as a JSON object; a type without a name is null, its code kept. */
void json_target(FILE *f, const struct htmtrace_target *t)
{
	const char *name = type_name(t->type);

	fputs("{\"type\": ", f);
	if (name)
		json_string(f, name);
	else
		fputs("null", f);
	fprintf(f, ", \"type_code\": %u, \"node\": %u, \"chip\": %u, \"core\": %u}",
		t->type, t->node, t->chip, t->core);
}

/*
 * @s as one shell word, for a command the user is told to run: as it is if
 * it holds only characters no shell treats specially, else in single
 * quotes (a quote inside as '\''). Returns 0, or -ENAMETOOLONG.
 */
int shell_word(char *buf, size_t len, const char *s)
{
	static const char safe[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%";
	size_t i = 0;

	if (*s && strspn(s, safe) == strlen(s)) {
		if ((size_t)snprintf(buf, len, "%s", s) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	if (len < 3)
		return -ENAMETOOLONG;
	buf[i++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			if (i + 4 >= len)
				return -ENAMETOOLONG;
			memcpy(buf + i, "'\\''", 4);
			i += 4;
			continue;
		}
		if (i + 1 >= len)
			return -ENAMETOOLONG;
		buf[i++] = *s;
	}
	if (i + 2 > len)
		return -ENAMETOOLONG;
	buf[i++] = '\'';
	buf[i] = '\0';
	return 0;
}

/*
 * The -d argument that names channel @dev in a command the user is told to
 * run: N for /dev/htmN, else the path as a shell word.
 */
int device_word(char *buf, size_t len, const char *dev)
{
	const char *n = dev + strlen(DEVICE_PREFIX);

	if (!strncmp(dev, DEVICE_PREFIX, strlen(DEVICE_PREFIX)) && *n &&
	    strspn(n, "0123456789") == strlen(n) && (n[0] != '0' || !n[1])) {
		if ((size_t)snprintf(buf, len, "%s", n) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	return shell_word(buf, len, dev);
}

/*
 * Flush a finished output file to its disk (a regular file only: the copy
 * the hypervisor holds may be released once this succeeds), then close it.
 * Returns 0 or -errno; the fd is closed either way.
 */
int sync_close(int fd)
{
	struct stat st;
	int err = 0;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}
