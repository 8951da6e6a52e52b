// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the progress line of a long dump (record, dump).
 *
 * HTM buffers are GiBs: on a terminal, standard error gets one line,
 * rewritten in place at most PROGRESS_HZ times a second, with the bytes
 * read of the known size, the rate and the time left. Nothing is printed
 * for a dump that ends before the first update is due, nor ever when
 * standard error is not a terminal (unless --progress).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

/* Updates per second, at most. */
#define PROGRESS_HZ	4

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "256.0 MiB": binary units, as HTM buffer sizes are powers of two. */
static void format_bytes(char *buf, size_t len, __u64 bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	unsigned int i;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units) - 1 && v >= 1024 * 1024; i++)
		v /= 1024;
	snprintf(buf, len, "%.1f %s", v / 1024, units[i]);
}

/* "1:05" or "2:03:04". */
static void format_duration(char *buf, size_t len, double secs)
{
	unsigned long s = secs < 0 ? 0 : (unsigned long)(secs + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, len, "%lu:%02lu", s / 60, s % 60);
}

/**
 * progress_init() - decide whether to show progress, and start the clock
 * @p: the progress line
 * @mode: PROGRESS_AUTO (on if standard error is a terminal), PROGRESS_ON
 *	or PROGRESS_OFF
 *
 * The known size is set afterwards in @p->total (0 if unknown), so that a
 * command asks for it only when the line is on.
 */
void progress_init(struct progress *p, int mode)
{
	memset(p, 0, sizeof(*p));
	if (mode == PROGRESS_AUTO)
		p->on = isatty(STDERR_FILENO);
	else
		p->on = mode == PROGRESS_ON;
	p->start = now();
	p->last = p->start;
}

static void show(struct progress *p, double t, int final)
{
	char done[32], total[32], left[32], line[160];
	double secs = t - p->start;
	double rate = secs > 0 ? p->done / secs : 0;
	size_t len;

	format_bytes(done, sizeof(done), p->done);
	if (p->total) {
		format_bytes(total, sizeof(total), p->total);
		len = snprintf(line, sizeof(line), "%s of %s (%u%%), %.1f MB/s",
			       done, total,
			       (unsigned int)(p->done >= p->total ? 100 :
					      p->done * 100 / p->total),
			       rate / 1e6);
	} else {
		len = snprintf(line, sizeof(line), "%s, %.1f MB/s", done,
			       rate / 1e6);
	}
	if (final) {
		format_duration(left, sizeof(left), secs);
		snprintf(line + len, sizeof(line) - len, ", done in %s", left);
	} else if (p->total && rate > 0 && p->done < p->total) {
		format_duration(left, sizeof(left),
				(p->total - p->done) / rate);
		snprintf(line + len, sizeof(line) - len, ", %s left", left);
	}
	len = strlen(line);
	/* Blank out what a longer previous line leaves behind. */
	fprintf(stderr, "\r%s%*s", line,
		p->width > len ? (int)(p->width - len) : 0, "");
	p->width = len;
	if (final)
		fputc('\n', stderr);
	fflush(stderr);
}

/* @done bytes copied so far: redraw the line if an update is due. */
void progress_update(struct progress *p, __u64 done)
{
	double t;

	p->done = p->base + done;
	if (!p->on)
		return;
	t = now();
	if (t - p->last < 1.0 / PROGRESS_HZ)
		return;
	p->last = t;
	show(p, t, 0);
}

/*
 * The copy ended: if the line was shown, show it complete (@ok) and end
 * it; after an error only end it, so that the message starts a line.
 */
void progress_end(struct progress *p, int ok)
{
	if (!p->width || (ok && p->more))
		return;
	if (ok) {
		show(p, now(), 1);
	} else {
		fputc('\n', stderr);
		fflush(stderr);
	}
	p->width = 0;
}
