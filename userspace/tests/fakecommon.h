/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the LD_PRELOAD fakes of the host tests (fakehtm.so, fakedtl.so)
 * share, in fakecommon.c: the environment, the operation log, injected
 * failures, and the open()/close() that hand out the fake fd.
 */
#ifndef _FAKECOMMON_H
#define _FAKECOMMON_H

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

/* Ours only: not for the tool the fake is preloaded into. */
#pragma GCC visibility push(hidden)

/*
 * Each fake defines these: the names of its environment variables (the
 * device whose open() gives the fake fd, the log, the failure to inject),
 * what it does once the fake fd is opened (@flags of the open()) and
 * closed, and its ioctl(), read() and lseek() of the fake fd (the others
 * go to the real ones).
 */
extern const char fake_dev_var[], fake_log_var[], fake_fail_var[];
void fake_opened(int flags);
void fake_closed(void);
int fake_ioctl(unsigned long req, void *arg);
ssize_t fake_read(void *buf, size_t count);
off_t fake_lseek(off_t off, int whence);

/* The fd of the fake device, or -1. */
extern int fake_fd;

unsigned long env_num(const char *name, unsigned long def);
__attribute__((format(printf, 1, 2))) void log_op(const char *fmt, ...);
int injected_err(const char *op, char **end);
int fail(const char *what, int err);

#pragma GCC visibility pop

#endif /* _FAKECOMMON_H */
