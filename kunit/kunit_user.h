/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit: what the htmtrace test files share: user memory for the read()
 * paths under test.
 */
#ifndef HTMTRACE_KUNIT_USER_H
#define HTMTRACE_KUNIT_USER_H

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>

/* @len bytes of user memory, unmapped when the test ends. */
static inline char __user *user_buf(struct kunit *test, size_t len)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, len,
					   PROT_READ | PROT_WRITE,
					   MAP_ANONYMOUS | MAP_PRIVATE, 0);

	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	return (char __user *)addr;
}

#endif /* HTMTRACE_KUNIT_USER_H */
