// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: which records are reported. --cpu keeps the records
 * of the CPUs listed, --time those whose time since boot is in the range.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dtl.h"
#include "dtl_report.h"
#include "opts.h"
#include "util.h"

/* Every record. */
void dtl_filter_init(struct dtl_filter *f)
{
	f->cpus = NULL;
	f->cpu_words = 0;
	f->t_start = LLONG_MIN;
	f->t_end = LLONG_MAX;
	f->ntimes = 0;
	f->entry_filters = 0;
	f->min_wait_ns = 0;
	memset(f->preempt, 1, sizeof(f->preempt));
	memset(f->dispatch, 1, sizeof(f->dispatch));
}

/* A wait: 1ms, 500us, 250ns, 0.5s or seconds alone. Returns 0 or -EINVAL. */
static int parse_wait(const char *s, __u64 *ns)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char num[32];
	size_t n = strlen(s), ul, i;
	double v, mul = 1e9;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		ul = strlen(units[i].unit);
		if (n > ul && !strcmp(s + n - ul, units[i].unit)) {
			mul = units[i].mul;
			n -= ul;
			break;
		}
	}
	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_seconds(num, &v) || v * mul > 1e18)
		return -EINVAL;
	*ns = (__u64)(v * mul + 0.5);
	return 0;
}

/*
 * A list of reasons, by perf's name or code (e.g. H_CEDE,time_slice or
 * 2,4), into @keep. Returns 0 or -EINVAL.
 */
static int parse_reasons(const char *s, unsigned char *keep,
			 const char *(*name)(unsigned int))
{
	char buf[256], *tok, *save = NULL;
	unsigned int code;
	__u64 v;

	if (!*s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	memset(keep, 0, 256);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!parse_u64(tok, &v)) {
			if (v > 255)
				return -EINVAL;
			keep[v] = 1;
			continue;
		}
		for (code = 0; code < 256; code++)
			if (name(code) && !strcasecmp(name(code), tok))
				break;
		if (code == 256)
			return -EINVAL;
		keep[code] = 1;
	}
	return 0;
}

/* A percent 0..100 at *@p, then '%'. Returns 0 or -EINVAL. */
static int parse_pct(const char **p, double *v)
{
	char *end;

	if (!(**p >= '0' && **p <= '9'))
		return -EINVAL;
	*v = strtod(*p, &end);
	if (*end != '%' || !(*v >= 0 && *v <= 100))
		return -EINVAL;
	*p = end + 1;
	return 0;
}

/*
 * --time: START,END in seconds since boot, or percents of the capture's
 * span (perf's habit): A%-B%, several comma-separated. Each --time adds
 * its ranges; a record in any of them is kept. Returns 0 or -EINVAL.
 */
static int parse_times(struct dtl_filter *f, const char *arg)
{
	struct dtl_time_range *t;
	const char *p = arg;

	if (!strchr(arg, '%')) {
		if (f->ntimes == DTL_TIMES_MAX)
			return -EINVAL;
		t = &f->times[f->ntimes];
		if (parse_time_range(arg, &t->start, &t->end))
			return -EINVAL;
		t->pct = 0;
		f->ntimes++;
		return 0;
	}
	for (;;) {
		if (f->ntimes == DTL_TIMES_MAX)
			return -EINVAL;
		t = &f->times[f->ntimes];
		if (parse_pct(&p, &t->pstart) || *p++ != '-' ||
		    parse_pct(&p, &t->pend) || t->pend < t->pstart)
			return -EINVAL;
		t->pct = 1;
		f->ntimes++;
		if (!*p)
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

/*
 * Percent ranges of --time: of the span of the capture's entries (the
 * first to the last, since boot, each on the CLOCK in force). The first
 * range is also the picture's.
 */
void dtl_filter_resolve(struct dtl_filter *f, const unsigned char *buf,
			size_t start, size_t end)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_clock clock;
	struct htmtrace_dtl_rec hdr;
	long long lo = LLONG_MAX, hi = LLONG_MIN, t;
	struct dtl_entry e;
	size_t off;
	int i, pct = 0;

	for (i = 0; i < f->ntimes; i++)
		pct |= f->times[i].pct;
	memset(&clock, 0, sizeof(clock));
	for (off = start; pct && dtl_rec_check(buf, end, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK)
			memcpy(&clock, buf + off, sizeof(clock));
		if (hdr.type != HTMTRACE_DTL_REC_ENTRY || !clock.tb_freq)
			continue;
		memcpy(&er, buf + off, sizeof(er));
		dtl_entry_decode(er.entry, &e);
		t = dtl_tb_to_ns(&clock, e.timebase, clock.boottime_ns);
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	for (i = 0; i < f->ntimes; i++) {
		struct dtl_time_range *r = &f->times[i];

		if (!r->pct)
			continue;
		if (lo > hi) {		/* no entries: nothing is in range */
			r->start = LLONG_MAX;
			r->end = LLONG_MIN;
			continue;
		}
		r->start = lo + (long long)((double)(hi - lo) * r->pstart / 100);
		r->end = lo + (long long)((double)(hi - lo) * r->pend / 100 + 0.5);
	}
	if (f->ntimes) {
		f->t_start = f->times[0].start;
		f->t_end = f->times[0].end;
	}
}

/*
 * A filter option of the command line (-C/--cpu, --time). Returns 0, or
 * the exit status after a message.
 */
int dtl_filter_option(struct dtl_filter *f, int opt, const char *arg)
{
	__u32 cpus_size = 0;
	int err;

	switch (opt) {
	case 'C':
		free(f->cpus);
		f->cpus = NULL;
		err = parse_cpu_list(arg, &f->cpus, &cpus_size);
		if (err == -ENOMEM) {
			pr_errno(ENOMEM, "CPU list");
			return EXIT_FAIL;
		}
		if (err)
			return usage_err("bad CPU list '%s': expected CPU numbers and ranges 0..%u, e.g. 0-3,8",
					 arg, DTL_CPU_MAX);
		f->cpu_words = cpus_size / sizeof(*f->cpus);
		return 0;
	case OPT_TIME:
		if (parse_times(f, arg))
			return usage_err("bad time range '%s': expected START,END in seconds since boot, e.g. 1000.5,1002 (either may be left out), or percents of the capture, e.g. 0%%-10%%,50%%-60%% (at most %d ranges)",
					 arg, DTL_TIMES_MAX);
		return 0;
	case OPT_MIN_WAIT:
		f->entry_filters = 1;
		if (parse_wait(arg, &f->min_wait_ns))
			return usage_err("bad wait '%s': expected a time, e.g. 1ms, 500us or 0.002 (seconds)",
					 arg);
		return 0;
	case OPT_PREEMPT:
		f->entry_filters = 1;
		if (parse_reasons(arg, f->preempt, dtl_preempt_name))
			return usage_err("bad preempt reasons '%s': expected perf's names or codes 0..255, comma-separated, e.g. H_CEDE,time_slice",
					 arg);
		return 0;
	case OPT_DISPATCH:
		f->entry_filters = 1;
		if (parse_reasons(arg, f->dispatch, dtl_dispatch_name))
			return usage_err("bad dispatch reasons '%s': expected perf's names or codes 0..255, comma-separated, e.g. external_interrupt,3",
					 arg);
		return 0;
	}
	return EXIT_USAGE;
}

void dtl_filter_free(struct dtl_filter *f)
{
	free(f->cpus);
	f->cpus = NULL;
}

/* A record of @cpu is kept. */
int dtl_filter_cpu(const struct dtl_filter *f, __u32 cpu)
{
	return cpu_listed(f->cpus, f->cpu_words, cpu);
}

/* An entry --min-wait, --preempt and --dispatch keep, on clock @c. */
int dtl_filter_entry(const struct dtl_filter *f,
		     const struct htmtrace_dtl_clock *c,
		     const struct dtl_entry *e)
{
	if (!f->entry_filters)
		return 1;
	return f->preempt[e->preempt_reason] &&
	       f->dispatch[e->dispatch_reason] &&
	       (!f->min_wait_ns || (c->tb_freq &&
		dtl_ticks_to_ns(e->enqueue_to_dispatch, c->tb_freq) >=
		f->min_wait_ns));
}

/* In --time's range: the time of @tb since boot, on @c. */
int dtl_filter_time(const struct dtl_filter *f,
		    const struct htmtrace_dtl_clock *c, __u64 tb)
{
	long long t = dtl_tb_to_ns(c, tb, c->boottime_ns);
	int i;

	if (!f->ntimes)
		return 1;
	for (i = 0; i < f->ntimes; i++)
		if (t >= f->times[i].start && t <= f->times[i].end)
			return 1;
	return 0;
}

/*
 * -C: the CPU of the record @hdr is one the capture holds (a record other
 * than a CLOCK). Returns 0 or -ENOMEM.
 */
int dtl_held_add(const struct dtl_filter *f, struct dtl_cpus_held *h,
		 const struct htmtrace_dtl_rec *hdr)
{
	size_t words = hdr->cpu / 64 + 1;
	__u64 *n;

	if (!f->cpus || hdr->type == HTMTRACE_DTL_REC_CLOCK ||
	    hdr->cpu > DTL_CPU_MAX)
		return 0;
	if (words > h->words) {
		n = realloc(h->mask, words * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + h->words, 0, (words - h->words) * sizeof(*n));
		h->mask = n;
		h->words = words;
	}
	h->mask[hdr->cpu / 64] |= 1ULL << (hdr->cpu % 64);
	h->found |= dtl_filter_cpu(f, hdr->cpu);
	return 0;
}

/*
 * -C CPUS against the CPUs @h the capture holds: a CPU listed that has no
 * record in it is said (a typo, or a CPU that was not captured), with the
 * CPUs it holds; @h is freed. Returns 0 if some listed CPU has records (or
 * no -C was given), 1 if none has (after a message: the report would be
 * empty), or -ENOMEM.
 */
int dtl_held_say(const struct dtl_filter *f, const char *file,
		 struct dtl_cpus_held *h)
{
	size_t words = f->cpu_words > h->words ? f->cpu_words : h->words, i;
	char list[256], have[256];
	__u64 *held, *missing;
	int found = h->found;

	if (!f->cpus)
		return 0;
	held = calloc(words, sizeof(*held));
	missing = calloc(f->cpu_words, sizeof(*missing));
	if (!held || !missing) {
		free(held);
		free(missing);
		free(h->mask);
		h->mask = NULL;
		return -ENOMEM;
	}
	if (h->words)
		memcpy(held, h->mask, h->words * sizeof(*held));
	free(h->mask);
	h->mask = NULL;
	for (i = 0; i < f->cpu_words; i++)
		missing[i] = f->cpus[i] & ~held[i];
	if (format_cpu_list(list, sizeof(list), missing, f->cpu_words))
		snprintf(list, sizeof(list), "...");
	if (format_cpu_list(have, sizeof(have), held, words))
		snprintf(have, sizeof(have), "...");
	if (strcmp(list, "none"))
		pr_err("%s holds no records of CPU%s %s (it holds records of %s%s%s)%s",
		       file, strpbrk(list, ",-") ? "s" : "", list,
		       strcmp(have, "none") ? "CPU" : "no CPU",
		       strpbrk(have, ",-") ? "s " : strcmp(have, "none") ? " " : "",
		       strcmp(have, "none") ? have : "",
		       found ? "" : ": nothing to report");
	free(missing);
	free(held);
	return !found;
}

/*
 * -C CPUS against the capture (dtl_held_say()). Returns 0, 1 (none of
 * them) or -ENOMEM.
 */
int dtl_filter_check_cpus(const struct dtl_filter *f, const char *file,
			  const unsigned char *buf, size_t start, size_t end)
{
	struct dtl_cpus_held h = { .mask = NULL };
	struct htmtrace_dtl_rec hdr;
	size_t off;

	if (!f->cpus)
		return 0;
	for (off = start; dtl_rec_check(buf, end, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (dtl_held_add(f, &h, &hdr)) {
			free(h.mask);
			return -ENOMEM;
		}
	}
	return dtl_held_say(f, file, &h);
}
