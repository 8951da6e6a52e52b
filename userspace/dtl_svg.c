// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report --format svg: a dispatch trace log capture as one
 * self-contained SVG picture (no script, no external resource).
 *
 * An entry says that the hypervisor dispatched the CPU at its timebase,
 * for its dispatch reason, after the CPU was not dispatched for
 * waiting_to_ready + ready_to_enqueue + enqueue_to_dispatch ticks, since
 * its preempt reason took it off. A lane per CPU shows both: the upper row
 * the time the CPU ran, from one dispatch to the next time it was taken
 * off, coloured by the dispatch reason; the lower row the time it was not
 * dispatched, coloured by the preempt reason. LOST and CPU records carry
 * no time: a loss is marked where the CPU's next entry starts (the lost
 * entries came before it), an offline (or lost, failed) CPU where its last
 * entry was, a joined CPU where its first entry after it starts.
 *
 * Up to DTL_SVG_EXACT_MAX entries on every CPU and DTL_SVG_EXACT_TOTAL in
 * all, each interval is drawn (one shorter than a pixel as wide as it is,
 * so that its colour fades with its share of the pixel). Above, each lane
 * is drawn per pixel column: the upper row a bar up from the lane's middle
 * as tall as the share of the column's time the CPU was dispatched, the
 * lower row one down from it, the share it was not, each in the colour of
 * the reason that weighs most in it by time (a weighted majority vote);
 * markers are merged per column. A busy CPU is thus a full upper row over
 * an empty lower one, an idle CPU the reverse. A tooltip (<title>) per
 * pixel column, or per run of columns when there are many CPUs
 * (DTL_SVG_TIPS in all), gives the shares of each reason in it and its
 * entries. Either way a lane has at most a bar a row and two markers per
 * column, which bounds the file (dtl_svg.h).
 *
 * Entries whose timebase or clock record is damaged (dtl_entry_time())
 * are left out and counted in the title.
 *
 * Below: per CPU, histograms of the dispatch wait (enqueue_to_dispatch)
 * and the ready-to-dispatch delay (ready_to_enqueue + enqueue_to_dispatch)
 * over a log scale of 10 ns to 10 s, and the count of each reason, the
 * same counts as the summary of 'dtl report'.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtl.h"
#include "dtl_svg.h"
#include "util.h"

#define PW		DTL_SVG_COLUMNS		/* timeline width */
#define PX0		110			/* timeline's left edge */
#define WIDTH		(PX0 + PW + 50)
#define ROW_H		12			/* one row of a lane */
#define LANE_H		(2 * ROW_H + 2)
#define LANE_STEP	(LANE_H + 10)
#define AXIS_H		42			/* an axis above lanes */
#define AXIS_EVERY	16			/* ... repeated, lanes */
#define HIST_BINS	36			/* 4 a decade, 10 ns .. 10 s */
#define HIST_BW		12
#define HIST_H		50
#define HIST_STEP	(HIST_H + 34)
#define BAR_MAX		500

#define ROW_DISPATCH	0
#define ROW_PREEMPT	1
#define NO_CODE		0xffff

/* A tooltip's reasons: codes 0 to NCLASS - 2 each, the others together. */
#define NCLASS		12

#define EV_OFFLINE	1
#define EV_JOINED	2
#define EV_OTHER	4

static const char *const dispatch_colour[] = {
	"#4e79a7", "#a0cbe8", "#59a14f", "#8cd17d", "#b6992d", "#f1ce63",
	"#499894", "#86bcb6", "#79706e", "#bab0ac", "#d37295",
};

static const char *const preempt_colour[] = {
	"#cccccc", "#ff9da7", "#e15759", "#f28e2b", "#9d3fb5", "#d4a6c8",
	"#2f2fff", "#fabfd2", "#b07aa1", "#9c755f",
};

#define UNKNOWN_DISPATCH	"#999999"
#define UNKNOWN_PREEMPT		"#666666"
#define LOST_COLOUR		"#000000"
#define OFFLINE_COLOUR		"#333333"
#define JOINED_COLOUR		"#2ca02c"
#define OTHER_EV_COLOUR		"#d62728"
#define OFFLINE_FILL		"#e6e6e6"

static const char *colour(int row, unsigned int code)
{
	if (row == ROW_DISPATCH)
		return code < ARRAY_SIZE(dispatch_colour) ?
			dispatch_colour[code] : UNKNOWN_DISPATCH;
	return code < ARRAY_SIZE(preempt_colour) ? preempt_colour[code] :
		UNKNOWN_PREEMPT;
}

struct span {
	float x0, x1;
	unsigned char row, code;
};

struct lane {
	__u32 cpu;
	__u64 entries, overwritten, dropped, lost_other;
	__u64 events[HTMTRACE_DTL_CPU_FAILED + 1];
	__u64 hist[2][HIST_BINS];
	/* Drawing state. */
	int prev_valid, offline;
	long long prev_t, offline_t;
	unsigned int prev_d;
	__u64 pending_lost;
	int pending_joined;
	/*
	 * Exact mode: the spans; aggregated, per column and row: the vote
	 * and the share of the column's time.
	 */
	struct span *spans;
	size_t nspans, capspans;
	__u16 *cand[2];
	float *weight[2], *share[2];
	/* Per tooltip cell: time per row and reason class, in columns. */
	float (*cell)[2][NCLASS];
	__u32 *cell_entries;
	/* Markers, per column. */
	__u64 *lost;
	unsigned char *ev;
	/* Offline shading, in columns [a, b). */
	float *shade;
	size_t nshade, capshade;
};

struct plot {
	struct lane *lanes;
	size_t nlanes;
	long long t0, t1, real_off;	/* boottime ns; realtime - boottime */
	int aggregated, have_time, have_off;
	int cellw, ncells;		/* columns a tooltip, tooltips a lane */
	__u64 entries, dispatch[256], preempt[256], bad_time;
	__u64 overwritten, dropped, lost_other;
	struct htmtrace_dtl_clock clock;
	const struct dtl_svg_filter *filt;
};

/*
 * --cpu and --time: a CLOCK record always counts; any other record only
 * on a CPU of the list; an entry only at a time in the range. Returns 1
 * to keep, 0 not to, -1 for an entry of the list whose time is not sane
 * (dtl_entry_time()).
 */
static int keep(const struct plot *p, const struct htmtrace_dtl_rec *hdr,
		const unsigned char *rec, const struct htmtrace_dtl_clock *c)
{
	const struct dtl_svg_filter *filt = p->filt;
	struct htmtrace_dtl_entry_rec er;
	struct dtl_entry e;
	struct dtl_time t;

	if (hdr->type == HTMTRACE_DTL_REC_CLOCK)
		return 1;
	if (filt && !cpu_listed(filt->cpus, filt->cpu_words, hdr->cpu))
		return 0;
	if (hdr->type != HTMTRACE_DTL_REC_ENTRY)
		return 1;
	/* check_stream() refuses an entry before a clock or at 0 Hz. */
	if (!c->tb_freq)
		return 0;
	memcpy(&er, rec, sizeof(er));
	dtl_entry_decode(er.entry, &e);
	if (dtl_entry_time(c, &e, &t))
		return -1;
	return !filt || (t.boot >= filt->t_start && t.boot <= filt->t_end);
}

static struct lane *find_lane(struct plot *p, __u32 cpu)
{
	size_t lo = 0, hi = p->nlanes, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (p->lanes[mid].cpu == cpu)
			return &p->lanes[mid];
		if (p->lanes[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Pass 1: add a CPU's lane, in CPU order. NULL if out of memory. */
static struct lane *add_lane(struct plot *p, size_t *cap, __u32 cpu)
{
	size_t lo = 0, hi = p->nlanes, mid;
	struct lane *n;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (p->lanes[mid].cpu == cpu)
			return &p->lanes[mid];
		if (p->lanes[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (p->nlanes == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;

		n = realloc(p->lanes, ncap * sizeof(*n));
		if (!n)
			return NULL;
		p->lanes = n;
		*cap = ncap;
	}
	memmove(&p->lanes[lo + 1], &p->lanes[lo],
		(p->nlanes - lo) * sizeof(*p->lanes));
	p->nlanes++;
	memset(&p->lanes[lo], 0, sizeof(*p->lanes));
	p->lanes[lo].cpu = cpu;
	return &p->lanes[lo];
}

static double xpos(const struct plot *p, long long t)
{
	double x = (double)(t - p->t0) * PW / (double)(p->t1 - p->t0);

	return x < 0 ? 0 : x > PW ? PW : x;
}

static int col(const struct plot *p, long long t)
{
	int c = (int)xpos(p, t);

	return c >= PW ? PW - 1 : c;
}

static int hist_bin(__u64 ns)
{
	/* Bin b holds [10^(1 + b/4), 10^(1 + (b+1)/4)) ns. */
	double edge = 10 * 1.7782794100389228;
	int b;

	for (b = 0; b < HIST_BINS - 1 && (double)ns >= edge; b++)
		edge *= 1.7782794100389228;
	return b;
}

/* Weighted majority vote of a column. */
static void vote(struct lane *l, int row, int c, unsigned int code, float w)
{
	if (l->cand[row][c] == code) {
		l->weight[row][c] += w;
	} else if (l->cand[row][c] == NO_CODE || l->weight[row][c] <= w) {
		l->weight[row][c] = w - l->weight[row][c];
		l->cand[row][c] = code;
		if (l->weight[row][c] <= 0)
			l->weight[row][c] = 1e-6f;
	} else {
		l->weight[row][c] -= w;
	}
}

/* The CPU was in @row for @code from @a to @b. */
static int span(struct plot *p, struct lane *l, int row, long long a,
		long long b, unsigned int code)
{
	double x0 = xpos(p, a), x1 = xpos(p, b);
	int c0, c1, c;

	if (b < a)
		return 0;
	c0 = col(p, a);
	c1 = col(p, b);
	for (c = c0; c <= c1; c++) {
		double lo = x0 > c ? x0 : c, hi = x1 < c + 1 ? x1 : c + 1;

		if (hi <= lo)
			continue;
		l->cell[c / p->cellw][row][code < NCLASS - 1 ? code :
					   NCLASS - 1] += (float)(hi - lo);
		if (!p->aggregated)
			continue;
		l->share[row][c] += (float)(hi - lo);
		vote(l, row, c, code, (float)(hi - lo));
	}
	if (!p->aggregated) {
		if (l->nspans == l->capspans) {
			size_t ncap = l->capspans ? l->capspans * 2 : 64;
			struct span *n = realloc(l->spans, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			l->spans = n;
			l->capspans = ncap;
		}
		l->spans[l->nspans++] = (struct span){ (float)x0, (float)x1,
						       row, code };
	}
	return 0;
}

static int shade(struct lane *l, double a, double b)
{
	if (l->nshade && a <= l->shade[2 * l->nshade - 1] + 1) {
		if (b > l->shade[2 * l->nshade - 1])
			l->shade[2 * l->nshade - 1] = (float)b;
		return 0;
	}
	if (l->nshade == l->capshade) {
		size_t ncap = l->capshade ? l->capshade * 2 : 8;
		float *n = realloc(l->shade, 2 * ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->shade = n;
		l->capshade = ncap;
	}
	l->shade[2 * l->nshade] = (float)a;
	l->shade[2 * l->nshade + 1] = (float)b;
	l->nshade++;
	return 0;
}

/* Pass 1: the lanes, the time span, the counts; the drawing mode. */
static int survey(struct plot *p, const unsigned char *buf, size_t len)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;
	struct lane *l;
	size_t off, cap = 0, i;
	struct dtl_time t;
	int k, per_lane;

	for (off = 0; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		k = keep(p, &hdr, buf + off, &p->clock);
		if (k < 0)
			p->bad_time++;
		if (k <= 0)
			continue;
		switch (hdr.type) {
		case HTMTRACE_DTL_REC_CLOCK:
			memcpy(&p->clock, buf + off, sizeof(p->clock));
			break;
		case HTMTRACE_DTL_REC_ENTRY:
			memcpy(&er, buf + off, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			dtl_entry_time(&p->clock, &e, &t);
			/* The first sane clock's: both below DTL_CLOCK_MAX. */
			if (!p->have_off)
				p->real_off = (long long)(p->clock.realtime_ns -
							  p->clock.boottime_ns);
			p->have_off = 1;
			l = add_lane(p, &cap, hdr.cpu);
			if (!l)
				return -ENOMEM;
			l->entries++;
			p->entries++;
			p->dispatch[e.dispatch_reason]++;
			p->preempt[e.preempt_reason]++;
			if (!p->have_time || t.start < p->t0)
				p->t0 = t.start;
			if (!p->have_time || t.boot > p->t1)
				p->t1 = t.boot;
			p->have_time = 1;
			l->hist[0][hist_bin(dtl_ticks_to_ns(
				e.enqueue_to_dispatch, p->clock.tb_freq))]++;
			l->hist[1][hist_bin(dtl_ticks_to_ns(
				(__u64)e.enqueue_to_dispatch +
				e.ready_to_enqueue, p->clock.tb_freq))]++;
			break;
		case HTMTRACE_DTL_REC_LOST:
			memcpy(&lost, buf + off, sizeof(lost));
			l = add_lane(p, &cap, hdr.cpu);
			if (!l)
				return -ENOMEM;
			if (lost.why == HTMTRACE_DTL_LOST_OVERWRITTEN) {
				l->overwritten += lost.count;
				p->overwritten += lost.count;
			} else if (lost.why == HTMTRACE_DTL_LOST_DROPPED) {
				l->dropped += lost.count;
				p->dropped += lost.count;
			} else {
				l->lost_other += lost.count;
				p->lost_other += lost.count;
			}
			break;
		case HTMTRACE_DTL_REC_CPU:
			memcpy(&cpu, buf + off, sizeof(cpu));
			l = add_lane(p, &cap, hdr.cpu);
			if (!l)
				return -ENOMEM;
			l->events[cpu.event <= HTMTRACE_DTL_CPU_FAILED ?
				  cpu.event : 0]++;
			break;
		}
	}
	if (!p->have_time)
		p->t0 = p->t1 = 0;
	if (p->t1 - p->t0 < 1000)
		p->t1 = p->t0 + 1000;
	for (i = 0; i < p->nlanes; i++)
		if (p->lanes[i].entries > DTL_SVG_EXACT_MAX)
			p->aggregated = 1;
	if (p->entries > DTL_SVG_EXACT_TOTAL)
		p->aggregated = 1;
	/* A tooltip a column, or a run of columns: DTL_SVG_TIPS in all. */
	per_lane = p->nlanes ? DTL_SVG_TIPS / (int)p->nlanes : PW;
	if (per_lane < 1)
		per_lane = 1;
	if (per_lane > PW)
		per_lane = PW;
	p->cellw = (PW + per_lane - 1) / per_lane;
	p->ncells = (PW + p->cellw - 1) / p->cellw;
	for (i = 0; i < p->nlanes; i++) {
		l = &p->lanes[i];
		l->lost = calloc(PW, sizeof(*l->lost));
		l->ev = calloc(PW, 1);
		l->cell = calloc(p->ncells, sizeof(*l->cell));
		l->cell_entries = calloc(p->ncells, sizeof(*l->cell_entries));
		if (!l->lost || !l->ev || !l->cell || !l->cell_entries)
			return -ENOMEM;
		if (p->aggregated) {
			int r, c;

			for (r = 0; r < 2; r++) {
				l->cand[r] = malloc(PW * sizeof(**l->cand));
				l->weight[r] = calloc(PW, sizeof(**l->weight));
				l->share[r] = calloc(PW, sizeof(**l->share));
				if (!l->cand[r] || !l->weight[r] ||
				    !l->share[r])
					return -ENOMEM;
				for (c = 0; c < PW; c++)
					l->cand[r][c] = NO_CODE;
			}
		}
	}
	return 0;
}

/* Pass 2: the spans and markers of every lane. */
static int draw(struct plot *p, const unsigned char *buf, size_t len)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_clock clock = p->clock;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;
	struct dtl_time tm;
	struct lane *l;
	long long t, start, at;
	size_t off, i;
	int err;

	/* The first clock is the one in force until the next. */
	for (off = 0; dtl_rec_check(buf, len, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (keep(p, &hdr, buf + off, &clock) <= 0)
			continue;
		l = find_lane(p, hdr.cpu);
		switch (hdr.type) {
		case HTMTRACE_DTL_REC_CLOCK:
			memcpy(&clock, buf + off, sizeof(clock));
			break;
		case HTMTRACE_DTL_REC_ENTRY:
			memcpy(&er, buf + off, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			dtl_entry_time(&clock, &e, &tm);
			t = tm.boot;
			start = tm.start;
			l->cell_entries[col(p, t) / p->cellw]++;
			if (l->prev_valid) {
				err = span(p, l, ROW_DISPATCH, l->prev_t,
					   start > l->prev_t ? start : l->prev_t,
					   l->prev_d);
				if (err)
					return err;
			}
			if (l->offline) {
				err = shade(l, xpos(p, l->offline_t),
					    xpos(p, start));
				if (err)
					return err;
				l->offline = 0;
			}
			err = span(p, l, ROW_PREEMPT, start, t,
				   e.preempt_reason);
			if (err)
				return err;
			if (l->pending_lost)
				l->lost[col(p, start)] += l->pending_lost;
			if (l->pending_joined)
				l->ev[col(p, start)] |= EV_JOINED;
			l->pending_lost = 0;
			l->pending_joined = 0;
			l->prev_valid = 1;
			l->prev_t = t;
			l->prev_d = e.dispatch_reason;
			break;
		case HTMTRACE_DTL_REC_LOST:
			memcpy(&lost, buf + off, sizeof(lost));
			l->pending_lost += lost.count ? lost.count : 1;
			break;
		case HTMTRACE_DTL_REC_CPU:
			memcpy(&cpu, buf + off, sizeof(cpu));
			if (cpu.event == HTMTRACE_DTL_CPU_JOINED) {
				l->pending_joined = 1;
				break;
			}
			at = l->prev_valid ? l->prev_t : p->t0;
			l->ev[col(p, at)] |= cpu.event ==
				HTMTRACE_DTL_CPU_OFFLINE ? EV_OFFLINE :
				EV_OTHER;
			if (cpu.event == HTMTRACE_DTL_CPU_OFFLINE &&
			    !l->offline) {
				l->offline = 1;
				l->offline_t = at;
			}
			l->prev_valid = 0;
			break;
		}
	}
	for (i = 0; i < p->nlanes; i++) {
		l = &p->lanes[i];
		if (l->prev_valid) {
			err = span(p, l, ROW_DISPATCH, l->prev_t, p->t1,
				   l->prev_d);
			if (err)
				return err;
		}
		if (l->offline) {
			err = shade(l, xpos(p, l->offline_t), PW);
			if (err)
				return err;
		}
		at = l->prev_valid ? l->prev_t : p->t1;
		if (l->pending_lost)
			l->lost[col(p, at)] += l->pending_lost;
		if (l->pending_joined)
			l->ev[col(p, at)] |= EV_JOINED;
	}
	return 0;
}

/* Text content: names and file names may hold <, & or quotes. */
/*
 * The length of the valid UTF-8 sequence at @s (shortest form, no
 * surrogates, at most U+10FFFF), or 0 if there is none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0], n, i, min;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void xml_text(FILE *f, const char *s)
{
	size_t n;

	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			n = utf8_len((const unsigned char *)s);
			if ((unsigned char)*s < 0x20) {
				fputc('?', f);
			} else if (!n) {
				/* Not UTF-8: the replacement character. */
				fputs("\xef\xbf\xbd", f);
			} else {
				fwrite(s, 1, n, f);
				s += n - 1;
			}
		}
	}
}

static const char *reason_name(int row, unsigned int code, char *buf,
			       size_t len)
{
	const char *n = row == ROW_DISPATCH ? dtl_dispatch_name(code) :
		dtl_preempt_name(code);

	if (n)
		return n;
	snprintf(buf, len, "%u", code);
	return buf;
}

/*
 * The realtime of @t, on the first clock: each below DTL_CLOCK_MAX, but
 * a @t of a later clock with its own boottime may add up to more than a
 * long long holds, so saturated.
 */
static long long wall(const struct plot *p, long long t)
{
	__int128 w = (__int128)t + p->real_off;

	return w > LLONG_MAX ? LLONG_MAX : w < LLONG_MIN ? LLONG_MIN :
		(long long)w;
}

/* Seconds since boot with the digits the step needs, and UTC. */
static void time_label(FILE *f, const struct plot *p, long long t, double x,
		       int y, long long step)
{
	char utc[48];
	int decimals = step >= 1000000000 ? 0 : step >= 100000000 ? 1 :
		step >= 10000000 ? 2 : step >= 1000000 ? 3 :
		step >= 100000 ? 4 : step >= 10000 ? 5 : 6;

	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.*f s</text>\n",
		x, y, decimals, t / 1e9);
	format_utc(utc, sizeof(utc), wall(p, t));
	/* "HH:MM:SS.ffffff" of "YYYY-MM-DDTHH:MM:SS.ffffffZ". */
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"utc\">%.*s</text>\n",
		x, y + 12, decimals ? 9 + decimals : 8, utc + 11);
}

/*
 * A time axis whose line is at @y: below lanes (@above 0) with its labels
 * under the line, above them with its labels over it.
 */
static void axis(FILE *f, const struct plot *p, int y, int above)
{
	static const long long steps[] = { 1, 2, 5 };
	long long span = p->t1 - p->t0, step = 0, mag, t;
	char utc[48];
	unsigned int i;

	for (mag = 1000; !step && mag <= 100000000000000LL; mag *= 10)
		for (i = 0; i < ARRAY_SIZE(steps); i++)
			if (span / (steps[i] * mag) <= 8) {
				step = steps[i] * mag;
				break;
			}
	if (!step)
		step = span / 8 + 1;
	fprintf(f, "<g class=\"axis\" data-y=\"%d\" data-t0-ns=\"%lld\" data-t1-ns=\"%lld\">\n",
		y, p->t0, p->t1);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
		PX0, y, PX0 + PW, y);
	for (t = (p->t0 / step + (p->t0 > 0)) * step; t <= p->t1; t += step) {
		double x = PX0 + xpos(p, t);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>\n",
			x, y, x, above ? y - 5 : y + 5);
		time_label(f, p, t, x, above ? y - 20 : y + 17, step);
	}
	format_utc(utc, sizeof(utc), wall(p, p->t0));
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">s since boot</text>\n",
		PX0 - 6, above ? y - 20 : y + 17);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">UTC %.10s</text>\n",
		PX0 - 6, above ? y - 8 : y + 29, utc);
	fputs("</g>\n", f);
}

/* A bar's height in tenths of a pixel: the share of its column's time. */
static int bar_h(const struct lane *l, int r, int c)
{
	double h = l->share[r][c] * ROW_H * 10 + 0.5;

	return l->cand[r][c] == NO_CODE || h < 1 ? 0 :
		h > ROW_H * 10 ? ROW_H * 10 : (int)h;
}

/* @h tenths of a pixel, negative if @neg: "-12", "9.6". */
static void tenths(FILE *f, int neg, int h)
{
	fprintf(f, "%s%d", neg ? "-" : "", h / 10);
	if (h % 10)
		fprintf(f, ".%d", h % 10);
}

/*
 * One path of row @r's bars in @code's colour from @base: the runs of at
 * least two equal columns (@wide) as filled rectangles, or the single
 * columns as strokes a pixel wide (fewer bytes).
 */
static void agg_path(FILE *f, const struct lane *l, int r, int base,
		     unsigned int code, int wide)
{
	int up = r == ROW_DISPATCH, c, run, h, last = -1, last_h = 0;

	for (c = 0; c < PW; c += run) {
		h = bar_h(l, r, c);
		for (run = 1; c + run < PW &&
		     l->cand[r][c + run] == l->cand[r][c] &&
		     bar_h(l, r, c + run) == h; run++)
			;
		if (l->cand[r][c] != code || !h || wide != (run > 1))
			continue;
		if (last < 0) {
			fprintf(f, "<path %s=\"%s\" d=\"M%d%s %d",
				wide ? "fill" : "fill=\"none\" stroke",
				colour(r, code), PX0 + c, wide ? "" : ".5",
				base);
		} else if (wide) {
			/* After z the point is back at the last start. */
			fprintf(f, "m%d 0", c - last);
		} else {
			/* Back from the last stroke's end to the base. */
			fprintf(f, "m%d ", c - last);
			tenths(f, !up, last_h);
		}
		if (wide)
			fprintf(f, "h%d", run);
		fputc('v', f);
		tenths(f, up, h);
		if (wide)
			fprintf(f, "h-%dz", run);
		last = c;
		last_h = h;
	}
	if (last >= 0)
		fputs("\"/>\n", f);
}

/*
 * Aggregated: row @r of a lane at @y as bars from the lane's middle, up
 * for the time dispatched, down for the time not, as tall as the share of
 * the column's time, in the colour of the reason that weighs most; two
 * paths per colour (agg_path()).
 */
static void agg_row(FILE *f, const struct lane *l, int r, int y)
{
	int base = r == ROW_DISPATCH ? y + ROW_H : y + ROW_H + 2;
	unsigned char done[256] = { 0 };
	unsigned int code;
	int c;

	for (c = 0; c < PW; c++) {
		code = l->cand[r][c];
		if (code == NO_CODE || done[code])
			continue;
		done[code] = 1;
		agg_path(f, l, r, base, code, 1);
		agg_path(f, l, r, base, code, 0);
	}
}

static void lane_rows(FILE *f, const struct plot *p, const struct lane *l,
		      int y)
{
	size_t i;
	int r;

	for (i = 0; i < l->nshade; i++)
		fprintf(f, "<rect class=\"offline\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"" OFFLINE_FILL "\"/>\n",
			PX0 + l->shade[2 * i], y,
			l->shade[2 * i + 1] - l->shade[2 * i], LANE_H);
	if (!p->aggregated) {
		for (i = 0; i < l->nspans; i++) {
			const struct span *s = &l->spans[i];

			/*
			 * As wide as it is: under a pixel, its colour fades
			 * with its share of the pixel.
			 */
			if (s->x1 > s->x0)
				fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.3f\" height=\"%d\" fill=\"%s\"/>\n",
					PX0 + s->x0, y + s->row * (ROW_H + 2),
					s->x1 - s->x0, ROW_H,
					colour(s->row, s->code));
		}
		return;
	}
	for (r = 0; r < 2; r++)
		agg_row(f, l, r, y);
}

/* Markers, a run of columns with the same marker as one element. */
static void lane_markers(FILE *f, const struct lane *l, int y)
{
	int c, run;

	for (c = 0; c < PW; c += run) {
		unsigned char ev = l->ev[c];
		const char *k, *clr;

		for (run = 1; c + run < PW && l->ev[c + run] == ev; run++)
			;
		if (!ev)
			continue;
		k = ev & EV_OFFLINE ? "offline" : ev & EV_OTHER ? "cpu" :
			"joined";
		clr = ev & EV_OFFLINE ? OFFLINE_COLOUR :
			ev & EV_OTHER ? OTHER_EV_COLOUR : JOINED_COLOUR;
		fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>cpu %u %s%s%s</title></rect>\n",
			k, PX0 + c, y - 3, run + 1, LANE_H + 6, clr, l->cpu,
			ev & EV_OFFLINE ? "offline " : "",
			ev & EV_OTHER ? "lost or failed " : "",
			ev & EV_JOINED ? "joined" : "");
	}
	for (c = 0; c < PW; c += run) {
		__u64 n = l->lost[c];

		for (run = 1; c + run < PW && !l->lost[c + run] == !n; run++)
			n += l->lost[c + run];
		if (!n)
			continue;
		fprintf(f, "<path class=\"lost\" d=\"M%d %dl-4 -7h%dz\" fill=\"" LOST_COLOUR "\"><title>cpu %u: %llu lost</title></path>\n",
			PX0 + c, y - 1, run + 8, l->cpu,
			(unsigned long long)n);
	}
}

/* A row's reasons in a tooltip: the largest shares first, up to four. */
static void tip_reasons(FILE *f, const float *t, int row, double width)
{
	int order[NCLASS], i, j, n = 0;
	double rest = 0, sum = 0;
	char num[8];

	for (i = 0; i < NCLASS; i++) {
		sum += t[i];
		if (t[i] <= 0)
			continue;
		for (j = n++; j > 0 && t[order[j - 1]] < t[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	fprintf(f, "%s %.1f%%", row == ROW_DISPATCH ? "dispatched" :
		"not dispatched", 100 * sum / width);
	for (i = 0; i < n; i++) {
		if (i >= 4) {
			rest += t[order[i]];
			continue;
		}
		fprintf(f, "%s%s %.1f%%", i ? ", " : " (",
			order[i] == NCLASS - 1 ? "other codes" :
			reason_name(row, order[i], num, sizeof(num)),
			100 * t[order[i]] / width);
	}
	if (rest > 0)
		fprintf(f, ", other codes %.1f%%", 100 * rest / width);
	if (n)
		fputc(')', f);
}

/*
 * The tooltips of a lane at @y: a transparent rectangle per cell of
 * p->cellw columns, over what is drawn, with the shares of the cell's time
 * dispatched and not, by reason, and its entries.
 */
static void lane_tips(FILE *f, const struct plot *p, const struct lane *l,
		      int y)
{
	long long span = p->t1 - p->t0;
	int i, x, w;

	fprintf(f, "<g class=\"tips\" transform=\"translate(0 %d)\">\n", y);
	for (i = 0; i < p->ncells; i++) {
		x = i * p->cellw;
		w = x + p->cellw > PW ? PW - x : p->cellw;
		fprintf(f, "<rect x=\"%d\" width=\"%d\" height=\"%d\"><title>cpu %u, %.6f to %.6f s: %u entries; ",
			PX0 + x, w, LANE_H, l->cpu,
			(p->t0 + (double)span * x / PW) / 1e9,
			(p->t0 + (double)span * (x + w) / PW) / 1e9,
			l->cell_entries[i]);
		tip_reasons(f, l->cell[i][ROW_DISPATCH], ROW_DISPATCH, w);
		fputs("; ", f);
		tip_reasons(f, l->cell[i][ROW_PREEMPT], ROW_PREEMPT, w);
		fputs("</title></rect>\n", f);
	}
	fputs("</g>\n", f);
}

static void swatch(FILE *f, int x, int y, const char *clr, const char *text,
		   const char *cls)
{
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
		x, y - 9, clr);
	fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%d\">", cls, x + 14, y);
	xml_text(f, text);
	fputs("</text>\n", f);
}

/* The legend of a row's reasons; returns the y below it. */
static int legend_row(FILE *f, const struct plot *p, int row, int y)
{
	const __u64 *counts = row == ROW_DISPATCH ? p->dispatch : p->preempt;
	unsigned int code, n = 0;
	char num[8];

	fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n",
		y, row == ROW_DISPATCH ? "dispatched, by dispatch reason:" :
		"not dispatched, by preempt reason:");
	for (code = 0; code < 256; code++) {
		if (!counts[code])
			continue;
		if (n && n % 5 == 0)
			y += 16;
		swatch(f, 250 + (n % 5) * 215, y, colour(row, code),
		       reason_name(row, code, num, sizeof(num)),
		       row == ROW_DISPATCH ? "legend dispatch" :
		       "legend preempt");
		n++;
	}
	return y + 20;
}

static void histogram(FILE *f, const struct lane *l, int which, int x, int y)
{
	__u64 max = 0;
	int b;
	static const char *const decade[] = {
		"10ns", "100ns", "1us", "10us", "100us", "1ms", "10ms",
		"100ms", "1s", "10s",
	};

	for (b = 0; b < HIST_BINS; b++)
		if (l->hist[which][b] > max)
			max = l->hist[which][b];
	fprintf(f, "<g class=\"hist\" data-cpu=\"%u\" data-kind=\"%s\">\n",
		l->cpu, which ? "ready_to_dispatch" : "dispatch_wait");
	fprintf(f, "<text x=\"%d\" y=\"%d\">cpu %u %s (tallest bin: %llu entries)</text>\n",
		x, y - HIST_H - 4, l->cpu,
		which ? "ready to dispatch" : "dispatch wait",
		(unsigned long long)max);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
		x, y, x + HIST_BINS * HIST_BW, y);
	for (b = 0; b < HIST_BINS; b++) {
		int h;

		if (!l->hist[which][b])
			continue;
		h = (int)((l->hist[which][b] * HIST_H + max - 1) / max);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			x + b * HIST_BW, y - h, HIST_BW - 1, h,
			which ? "#f28e2b" : "#4e79a7");
	}
	for (b = 0; b <= HIST_BINS; b += 4)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"small\">%s</text>\n",
			x + b * HIST_BW, y + 11, decade[b / 4]);
	fputs("</g>\n", f);
}

/* The per-reason counts, as bars; returns the y below them. */
static int counts(FILE *f, const struct plot *p, int row, int y)
{
	const __u64 *cnt = row == ROW_DISPATCH ? p->dispatch : p->preempt;
	const char *kind = row == ROW_DISPATCH ? "dispatch" : "preempt";
	unsigned int code;
	__u64 max = 1;
	char num[8];

	for (code = 0; code < 256; code++)
		if (cnt[code] > max)
			max = cnt[code];
	fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s reasons</text>\n",
		y, kind);
	y += 16;
	for (code = 0; code < 256; code++) {
		if (!cnt[code])
			continue;
		fprintf(f, "<text x=\"250\" y=\"%d\" text-anchor=\"end\">", y);
		xml_text(f, reason_name(row, code, num, sizeof(num)));
		fprintf(f, "</text><rect x=\"256\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"%s\"/>",
			y - 9, 1.0 + (double)cnt[code] * BAR_MAX / max,
			colour(row, code));
		fprintf(f, "<text class=\"count\" data-kind=\"%s\" data-code=\"%u\" data-count=\"%llu\" x=\"%.1f\" y=\"%d\">%llu</text>\n",
			kind, code, (unsigned long long)cnt[code],
			262.0 + (double)cnt[code] * BAR_MAX / max, y,
			(unsigned long long)cnt[code]);
		y += 14;
	}
	return y + 8;
}

/* The y of lane @k: an axis above every AXIS_EVERY lanes. */
static int lane_y(int lanes_y, size_t k)
{
	return lanes_y + AXIS_H * (1 + (int)(k / AXIS_EVERY)) +
		(int)k * LANE_STEP;
}

/* Entries left out for their time, said in the title's second line. */
static void ignored(FILE *f, const struct plot *p)
{
	if (p->bad_time)
		fprintf(f, "; %llu entries ignored: time out of range (damaged timebase or clock record)",
			(unsigned long long)p->bad_time);
}

static void output(FILE *f, const struct plot *p, const char *name)
{
	char from[48], to[48];
	int y, lanes_y, lanes_end, height, hist_y, i;
	size_t k;
	unsigned int nd = 0, np = 0, code;

	for (code = 0; code < 256; code++) {
		nd += !!p->dispatch[code];
		np += !!p->preempt[code];
	}
	lanes_y = 60 + 16 * (2 + (nd + 4) / 5 + (np + 4) / 5);
	lanes_end = p->nlanes ? lane_y(lanes_y, p->nlanes - 1) + LANE_STEP :
		lanes_y;
	hist_y = lanes_end + 60;
	height = hist_y + (int)p->nlanes * HIST_STEP + 40 +
		14 * (int)(nd + np) + 60;
	if (!p->entries)
		height = 70;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" data-mode=\"%s\" data-columns=\"%d\" data-x0=\"%d\" data-entries=\"%llu\">\n",
		WIDTH, height, WIDTH, height,
		p->aggregated ? "aggregated" : "exact", PW, PX0,
		(unsigned long long)p->entries);
	fputs("<style>.small{font-size:9px}.utc{fill:#555}.tips rect{fill:#fff;fill-opacity:0}</style>\n",
	      f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", WIDTH,
		height);
	format_utc(from, sizeof(from), wall(p, p->t0));
	format_utc(to, sizeof(to), wall(p, p->t1));
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">htmtrace dtl: ", f);
	xml_text(f, name);
	if (!p->entries) {
		/* No time to draw: no axis, no lanes. */
		fputs("</text>\n<text class=\"mode\" x=\"10\" y=\"40\">no entries", f);
		ignored(f, p);
		fputs("</text>\n</svg>\n", f);
		return;
	}
	fprintf(f, "</text>\n<text x=\"10\" y=\"38\">%llu entries on %zu CPUs, %s to %s; lost %llu (overwritten %llu, dropped %llu, other %llu)",
		(unsigned long long)p->entries, p->nlanes, from, to,
		(unsigned long long)(p->overwritten + p->dropped +
				     p->lost_other),
		(unsigned long long)p->overwritten,
		(unsigned long long)p->dropped,
		(unsigned long long)p->lost_other);
	ignored(f, p);
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"mode\" x=\"10\" y=\"54\">%s; tooltips per %s</text>\n",
		p->aggregated ?
		"more than 600 entries on a CPU or 9600 in all: per pixel column, bars as tall as the share of its time dispatched (up) and not (down), coloured by the reason that weighs most" :
		"every interval drawn (up to 600 entries per CPU and 9600 in all; above, aggregated per pixel column)",
		p->cellw == 1 ? "pixel column" : "run of pixel columns");
	y = 76;
	y = legend_row(f, p, ROW_DISPATCH, y);
	y = legend_row(f, p, ROW_PREEMPT, y);
	fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">markers:</text>\n",
		y);
	fprintf(f, "<path d=\"M255 %dl-4 -7h9z\" fill=\"" LOST_COLOUR "\"/><text class=\"legend marker\" x=\"264\" y=\"%d\">LOST entries</text>\n",
		y, y);
	swatch(f, 465, y, OFFLINE_COLOUR, "CPU offline", "legend marker");
	swatch(f, 680, y, OFFLINE_FILL, "offline time", "legend marker");
	swatch(f, 895, y, JOINED_COLOUR, "CPU joined (online)",
	       "legend marker");
	swatch(f, 1110, y, OTHER_EV_COLOUR, "CPU lost or failed",
	       "legend marker");

	for (k = 0; k < p->nlanes; k++) {
		const struct lane *l = &p->lanes[k];

		y = lane_y(lanes_y, k);
		if (k % AXIS_EVERY == 0)
			axis(f, p, y - 10, 1);
		fprintf(f, "<g class=\"lane\" data-cpu=\"%u\" data-y=\"%d\" data-entries=\"%llu\">\n",
			l->cpu, y, (unsigned long long)l->entries);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">cpu %u</text>\n",
			PX0 - 6, y + LANE_H / 2 + 4, l->cpu);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>\n",
			PX0, y, PW, LANE_H);
		lane_rows(f, p, l, y);
		lane_tips(f, p, l, y);
		lane_markers(f, l, y);
		fputs("</g>\n", f);
	}
	axis(f, p, lanes_end, 0);

	for (k = 0; k < p->nlanes; k++) {
		y = hist_y + (int)k * HIST_STEP + HIST_H;
		for (i = 0; i < 2; i++)
			histogram(f, &p->lanes[k], i,
				  PX0 + i * (HIST_BINS * HIST_BW + 60), y);
	}
	y = hist_y + (int)p->nlanes * HIST_STEP + 20;
	y = counts(f, p, ROW_DISPATCH, y);
	counts(f, p, ROW_PREEMPT, y);
	fputs("</svg>\n", f);
}

int dtl_svg_write(FILE *f, const char *name, const unsigned char *buf,
		  size_t len, const struct dtl_svg_filter *filt)
{
	struct plot *p = calloc(1, sizeof(*p));
	size_t i;
	int err, r;

	if (!p)
		return -ENOMEM;
	p->filt = filt;
	err = survey(p, buf, len);
	if (!err)
		err = draw(p, buf, len);
	if (!err)
		output(f, p, name);
	for (i = 0; i < p->nlanes; i++) {
		struct lane *l = &p->lanes[i];

		free(l->spans);
		free(l->shade);
		free(l->lost);
		free(l->ev);
		free(l->cell);
		free(l->cell_entries);
		for (r = 0; r < 2; r++) {
			free(l->cand[r]);
			free(l->weight[r]);
			free(l->share[r]);
		}
	}
	free(p->lanes);
	free(p);
	return err;
}
