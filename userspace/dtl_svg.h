/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the dispatch trace log as a picture (dtl_svg.c) and the live
 * view of /dev/vpa_dtl (dtl_top.c).
 */
#ifndef _HTMTRACE_DTL_SVG_H
#define _HTMTRACE_DTL_SVG_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * The timeline's width in pixel columns. Above DTL_SVG_EXACT_MAX entries
 * on any one CPU, or DTL_SVG_EXACT_TOTAL in all (the rectangles of so many
 * intervals would weigh more than the columns), every lane is drawn per
 * column: at most a bar a column
 * and row, a marker a run of columns, an offline shade per two columns;
 * up to it, at most two rectangles an entry. Tooltips: DTL_SVG_TIPS at
 * most, a column each, or a run of columns each when there are more than
 * DTL_SVG_TIPS / DTL_SVG_COLUMNS CPUs. Either way the file is at most
 * DTL_SVG_BOUND_FIXED bytes (title, legend, counts of all 512 reason
 * codes, the tooltips at under 640 bytes each) + DTL_SVG_BOUND_PER_CPU
 * bytes a CPU (lane, axes and histograms), whatever the capture's length.
 */
#define DTL_SVG_COLUMNS		1200
#define DTL_SVG_EXACT_MAX	(DTL_SVG_COLUMNS / 2)
#define DTL_SVG_EXACT_TOTAL	(16 * DTL_SVG_EXACT_MAX)
#define DTL_SVG_TIPS		4800
#define DTL_SVG_BOUND_FIXED	(256 * 1024 + DTL_SVG_TIPS * 640)
#define DTL_SVG_BOUND_PER_CPU	(512 * 1024)

/* What the picture keeps: --cpu (cpus NULL: all) and --time, in ns. */
struct dtl_svg_filter {
	const __u64 *cpus;
	size_t cpu_words;
	long long t_start, t_end;
};

/*
 * Write the picture of a checked stream (see dtl_check_stream() in
 * dtl_input.c) to @f. @name is the capture's name, shown in the title.
 * Returns 0 or a negative errno (-ENOMEM).
 */
int dtl_svg_write(FILE *f, const char *name, const unsigned char *buf,
		  size_t len, const struct dtl_svg_filter *filt);

/* htmtrace dtl top. */
int cmd_dtl_top(int argc, char **argv);

#endif /* _HTMTRACE_DTL_SVG_H */
