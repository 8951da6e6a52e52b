/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: what differs between the kernels the driver builds against.
 *
 * Told apart by what the kernel's headers define, so that a kernel that
 * lacks something fails to build, never to load. Built against 6.12 (the
 * test kernels) and Debian's 6.1, 6.12 and 7.2 headers (make check,
 * tests/stock.sh).
 */
#ifndef _HTMTRACE_COMPAT_H
#define _HTMTRACE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mmzone.h>
#include <linux/perf_event.h>

/*
 * The largest allocation order is MAX_PAGE_ORDER since 6.8. Before, it was
 * MAX_ORDER - 1 (MAX_ORDER itself from 6.4): one order less than 6.4-6.7
 * allow, which is only a smaller bounce buffer there.
 */
#ifndef MAX_PAGE_ORDER
#define MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/* Larger AUX allocations, where the perf core can be asked for them (6.2). */
#ifdef PERF_PMU_CAP_AUX_PREFER_LARGE
#define HTM_PMU_CAP_AUX_PREFER_LARGE	PERF_PMU_CAP_AUX_PREFER_LARGE
#else
#define HTM_PMU_CAP_AUX_PREFER_LARGE	0
#endif

/*
 * hrtimer_setup() takes the callback with the clock and the mode since 6.13;
 * hrtimer_init() is gone since 6.15. Kbuild defines
 * HTMTRACE_HAVE_HRTIMER_SETUP where <linux/hrtimer.h> declares it.
 */
#ifndef HTMTRACE_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#endif /* _HTMTRACE_COMPAT_H */
