/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the macros every file may use. Includes nothing of the tool's,
 * so that parse.c (pure) and util.c (I/O, on top of parse.c) each stand on
 * it without including each other.
 */
#ifndef _HTMTRACE_COMPILER_H
#define _HTMTRACE_COMPILER_H

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))

#endif /* _HTMTRACE_COMPILER_H */
