// SPDX-License-Identifier: GPL-2.0
/*
 * fakecommon.c: what fakehtm.so and fakedtl.so share (fakecommon.h): the
 * open(), close(), ioctl(), read() and lseek() they interpose, which hand
 * the fake fd to the fake's own fake_ioctl(), fake_read() and fake_lseek().
 * Test fixture only, linked into each fake.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include "fakecommon.h"

int fake_fd = -1;

unsigned long env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

/* Append a line to the log named by fake_log_var, if any. */
void log_op(const char *fmt, ...)
{
	const char *path = getenv(fake_log_var);
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/*
 * Should @op fail? fake_fail_var holds op:errno[...]. Returns the errno, or
 * 0; with @end (if not 0), where the errno ends.
 */
int injected_err(const char *op, char **end)
{
	const char *v = getenv(fake_fail_var);
	size_t len = strlen(op);

	if (!v || strncmp(v, op, len) || v[len] != ':')
		return 0;
	return (int)strtol(v + len + 1, end, 0);
}

int fail(const char *what, int err)
{
	log_op("%s FAIL %d", what, err);
	errno = err;
	return -1;
}

/*
 * FAKE_SYSFS_MODULE=DIR: /sys/module/htmtrace is DIR (an empty value: no
 * module loaded, whatever the host has); FAKE_LPARCFG likewise for
 * /proc/powerpc/lparcfg.
 */
static const char *sysfs_path(const char *path, char *buf, size_t len)
{
	static const char mod[] = "/sys/module/htmtrace";
	const char *dir = getenv("FAKE_SYSFS_MODULE");
	const char *lparcfg = getenv("FAKE_LPARCFG");

	/* FAKE_LPARCFG=FILE: /proc/powerpc/lparcfg is FILE ("": none). */
	if (lparcfg && !strcmp(path, "/proc/powerpc/lparcfg"))
		return *lparcfg ? lparcfg : "/nonexistent-lparcfg";
	if (!dir || strncmp(path, mod, sizeof(mod) - 1) ||
	    (path[sizeof(mod) - 1] && path[sizeof(mod) - 1] != '/'))
		return path;
	if (!*dir)
		dir = "/nonexistent-htmtrace-module";
	snprintf(buf, len, "%s%s", dir, path + sizeof(mod) - 1);
	return buf;
}

int open(const char *path, int flags, ...)
{
	char buf[4096];
	static int (*real_open)(const char *, int, ...);
	const char *dev = getenv(fake_dev_var);
	mode_t mode = 0;
	va_list ap;

	if (!real_open)
		real_open = dlsym(RTLD_NEXT, "open");
	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (dev && !strcmp(path, dev)) {
		fake_fd = real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
		fake_opened(flags);
		return fake_fd;
	}
	return real_open(sysfs_path(path, buf, sizeof(buf)), flags, mode);
}

/* access(): /sys/module/htmtrace may be a folder of the test's. */
int access(const char *path, int mode)
{
	static int (*real_access)(const char *, int);
	char buf[4096];

	if (!real_access)
		real_access = dlsym(RTLD_NEXT, "access");
	return real_access(sysfs_path(path, buf, sizeof(buf)), mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open(path, flags, mode);
}

int close(int fd)
{
	static int (*real_close)(int);

	if (!real_close)
		real_close = dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd == fake_fd) {
		fake_fd = -1;
		fake_closed();
	}
	return real_close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	void *arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	if (fd < 0 || fd != fake_fd)
		return real_ioctl(fd, req, arg);
	return fake_ioctl(req, arg);
}

ssize_t read(int fd, void *buf, size_t count)
{
	static ssize_t (*real_read)(int, void *, size_t);

	if (!real_read)
		real_read = dlsym(RTLD_NEXT, "read");
	if (fd < 0 || fd != fake_fd)
		return real_read(fd, buf, count);
	return fake_read(buf, count);
}

off_t lseek(int fd, off_t off, int whence)
{
	static off_t (*real_lseek)(int, off_t, int);

	if (!real_lseek)
		real_lseek = dlsym(RTLD_NEXT, "lseek");
	if (fd < 0 || fd != fake_fd)
		return real_lseek(fd, off, whence);
	return fake_lseek(off, whence);
}

off_t lseek64(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}
