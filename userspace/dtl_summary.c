// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report --summary: per CPU, no records. Its dispatches (one
 * an entry) and the time they span, the share of that time it was not
 * dispatched (the entries' three waits), the dispatch rate, the dispatch
 * wait's percentiles, the losses, and its dispatches by dispatch reason
 * and by preempt reason (H_CEDE, H_CONFER, time_slice, ...: why it was
 * taken off before), each with its rate; in text, CSV, JSON or JSON Lines.
 *
 * A CPU's time is that of its entries kept: from its first entry's
 * timebase less that entry's waits (when it was taken off) to its last
 * entry's timebase, converted with the last CLOCK record.
 */
#include <stdio.h>

#include "dtl.h"
#include "dtl_report.h"
#include "util.h"

struct cpu_times {
	__u64 ticks;		/* the span of its entries */
	double secs;
	int known;		/* a span and a timebase frequency */
};

static struct cpu_times cpu_times(const struct report *r,
				  const struct cpu_sum *s)
{
	struct cpu_times t = { 0 };
	__u64 start;

	if (!s->entries || !r->clock.tb_freq)
		return t;
	start = s->first_tb > s->first_wait ? s->first_tb - s->first_wait : 0;
	t.ticks = s->end_tb > start ? s->end_tb - start : 0;
	t.secs = (double)t.ticks / r->clock.tb_freq;
	t.known = t.ticks > 0;
	return t;
}

/* The share of @t not dispatched, 0..1 (more waits than span: 1). */
static double not_dispatched(const struct cpu_sum *s,
			     const struct cpu_times *t)
{
	if (!t->known)
		return 0;
	return s->not_dispatched >= t->ticks ? 1 :
	       (double)s->not_dispatched / t->ticks;
}

/* @n a second over @t, "-" where the span is unknown. */
static const char *rate(char *buf, size_t len, __u64 n,
			const struct cpu_times *t, const char *none)
{
	if (!t->known)
		snprintf(buf, len, "%s", none);
	else
		snprintf(buf, len, "%.3f", n / t->secs);
	return buf;
}

/* The four percentiles of a CPU's wait, in µs. */
static void pcts(const struct report *r, const struct wait_hist *h,
		 char v[4][32])
{
	wait_us(v[0], sizeof(v[0]), r, wait_hist_pct(h, 50));
	wait_us(v[1], sizeof(v[1]), r, wait_hist_pct(h, 90));
	wait_us(v[2], sizeof(v[2]), r, wait_hist_pct(h, 99));
	wait_us(v[3], sizeof(v[3]), r, h->max);
}

/* A CPU's dispatches by reason: a text line or a CSV row each. */
static void reason_rows(int csv, const struct cpu_sum *s,
			const struct cpu_times *t, const char *kind,
			const __u64 *counts, const char *(*name)(unsigned int))
{
	char num[8], per[32];
	const char *nm;
	unsigned int code;

	for (code = 0; code < 256; code++) {
		if (!counts[code])
			continue;
		nm = code_name(name(code), code, num, sizeof(num));
		rate(per, sizeof(per), counts[code], t, csv ? "" : "-");
		if (csv)
			printf("%s,%u,%u,%s,%llu,,%s,,,,,,,\n", kind, s->cpu,
			       code, nm, (unsigned long long)counts[code], per);
		else
			printf("%-6u %-9s %4u %-32s %12llu %12s\n", s->cpu,
			       kind, code, nm,
			       (unsigned long long)counts[code], per);
	}
}

static void text_cpu_summary(const struct report *r)
{
	char v[4][32], per[32], secs[32], share[16];
	struct cpu_times t;
	size_t c;

	printf("%-6s %10s %12s %12s %9s %11s %11s %11s %11s %11s %11s\n",
	       "cpu", "dispatches", "seconds", "per_s", "not_disp", "wait_p50",
	       "wait_p90", "wait_p99", "wait_max", "overwritten", "dropped");
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		t = cpu_times(r, s);
		pcts(r, &s->wait, v);
		snprintf(secs, sizeof(secs), "%.6f", t.secs);
		snprintf(share, sizeof(share), "%.2f%%",
			 100 * not_dispatched(s, &t));
		printf("%-6u %10llu %12s %12s %9s %11s %11s %11s %11s %11llu %11llu\n",
		       s->cpu, (unsigned long long)s->entries,
		       t.known ? secs : "-",
		       rate(per, sizeof(per), s->entries, &t, "-"),
		       t.known ? share : "-", v[0], v[1], v[2], v[3],
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped);
	}
	printf("\n%-6s %-9s %4s %-32s %12s %12s\n", "cpu", "by", "code",
	       "reason", "dispatches", "per_s");
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		t = cpu_times(r, s);
		reason_rows(0, s, &t, "preempt", s->preempt, dtl_preempt_name);
		reason_rows(0, s, &t, "dispatch", s->dispatch,
			    dtl_dispatch_name);
	}
	printf("waits (enqueue_to_dispatch) in us; not_disp: the share of the CPU's time not dispatched\n");
	if (r->damage)
		printf("damaged: %s: the report stops there\n", r->damage);
}

static void csv_cpu_summary(const struct report *r)
{
	char v[4][32], per[32], secs[32], share[16];
	struct cpu_times t;
	size_t c;

	printf("kind,cpu,code,reason,dispatches,seconds,per_s,not_dispatched,wait_p50_us,wait_p90_us,wait_p99_us,wait_max_us,overwritten,dropped\n");
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		t = cpu_times(r, s);
		pcts(r, &s->wait, v);
		snprintf(secs, sizeof(secs), "%.9f", t.secs);
		snprintf(share, sizeof(share), "%.6f", not_dispatched(s, &t));
		printf("cpu,%u,,,%llu,%s,%s,%s,%s,%s,%s,%s,%llu,%llu\n", s->cpu,
		       (unsigned long long)s->entries, t.known ? secs : "",
		       rate(per, sizeof(per), s->entries, &t, ""),
		       t.known ? share : "", v[0], v[1], v[2], v[3],
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped);
		reason_rows(1, s, &t, "preempt", s->preempt, dtl_preempt_name);
		reason_rows(1, s, &t, "dispatch", s->dispatch,
			    dtl_dispatch_name);
	}
}

static void json_reasons(const struct cpu_times *t, const char *kind,
			 const __u64 *counts,
			 const char *(*name)(unsigned int))
{
	unsigned int code;
	char per[32];
	int first = 1;

	printf(", \"%s\": [", kind);
	for (code = 0; code < 256; code++) {
		if (!counts[code])
			continue;
		printf("%s{\"code\": %u, ", first ? "" : ", ", code);
		json_name("name", name(code));
		printf(", \"dispatches\": %llu, \"per_s\": %s}",
		       (unsigned long long)counts[code],
		       rate(per, sizeof(per), counts[code], t, "null"));
		first = 0;
	}
	putchar(']');
}

/* One CPU's object. */
static void json_cpu(const struct report *r, const struct cpu_sum *s)
{
	struct cpu_times t = cpu_times(r, s);
	char per[32];

	printf("{\"cpu\": %u, \"dispatches\": %llu, ", s->cpu,
	       (unsigned long long)s->entries);
	if (t.known)
		printf("\"seconds\": %.9f, \"per_s\": %s, \"not_dispatched\": %.6f",
		       t.secs, rate(per, sizeof(per), s->entries, &t, "null"),
		       not_dispatched(s, &t));
	else
		printf("\"seconds\": null, \"per_s\": null, \"not_dispatched\": null");
	printf(", \"overwritten\": %llu, \"dropped\": %llu, \"wait\": {",
	       (unsigned long long)s->overwritten,
	       (unsigned long long)s->dropped);
	wait_cols(r, &s->wait, WAIT_JSON);
	putchar('}');
	json_reasons(&t, "preempt", s->preempt, dtl_preempt_name);
	json_reasons(&t, "dispatch", s->dispatch, dtl_dispatch_name);
	putchar('}');
}

/* The --summary report, in the report's format. */
void fmt_cpu_summary(struct report *r)
{
	size_t c;

	switch (r->fmt) {
	case FMT_TEXT:
		text_cpu_summary(r);
		break;
	case FMT_CSV:
		csv_cpu_summary(r);
		break;
	case FMT_JSON:
		printf("{\"cpus\": [");
		for (c = 0; c < r->cpus_sum.n; c++) {
			printf("%s\n  ", c ? "," : "");
			json_cpu(r, (struct cpu_sum *)r->cpus_sum.elems + c);
		}
		printf("%s]", r->cpus_sum.n ? "\n" : "");
		json_damage(r);
		printf("}\n");
		break;
	case FMT_JSONL:
		for (c = 0; c < r->cpus_sum.n; c++) {
			printf("{\"kind\": \"cpu_summary\", \"summary\": ");
			json_cpu(r, (struct cpu_sum *)r->cpus_sum.elems + c);
			printf("}\n");
		}
		break;
	}
}
