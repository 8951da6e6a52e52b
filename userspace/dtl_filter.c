// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: which records are reported. --cpu keeps the records
 * of the CPUs listed, --time those whose time since boot is in the range.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
		if (parse_time_range(arg, &f->t_start, &f->t_end))
			return usage_err("bad time range '%s': expected START,END in seconds since boot, e.g. 1000.5,1002 (either may be left out)",
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

/* In --time's range: the time of @tb since boot, on @c. */
int dtl_filter_time(const struct dtl_filter *f,
		    const struct htmtrace_dtl_clock *c, __u64 tb)
{
	long long t = dtl_tb_to_ns(c, tb, c->boottime_ns);

	return t >= f->t_start && t <= f->t_end;
}

/*
 * -C CPUS against the capture: a CPU listed that has no record in it is
 * said (a typo, or a CPU that was not captured), with the CPUs it holds.
 * Returns 0 if some listed CPU has records (or no -C was given), 1 if none
 * has (after a message: the report would be empty), or -ENOMEM.
 */
int dtl_filter_check_cpus(const struct dtl_filter *f, const char *file,
			  const unsigned char *buf, size_t start, size_t end)
{
	struct htmtrace_dtl_rec hdr;
	__u64 *held = NULL, *missing = NULL, *n;
	size_t words = f->cpu_words, off, i;
	char list[256], have[256];
	int found = 0;

	if (!f->cpus)
		return 0;
	held = calloc(words, sizeof(*held));
	if (!held)
		return -ENOMEM;
	for (off = start; dtl_rec_check(buf, end, off, &hdr) == DTL_REC_OK;
	     off += hdr.len) {
		if (hdr.type == HTMTRACE_DTL_REC_CLOCK || hdr.cpu > DTL_CPU_MAX)
			continue;
		if (hdr.cpu / 64 >= words) {
			n = realloc(held, (hdr.cpu / 64 + 1) * sizeof(*held));
			if (!n) {
				free(held);
				return -ENOMEM;
			}
			memset(n + words, 0,
			       (hdr.cpu / 64 + 1 - words) * sizeof(*held));
			held = n;
			words = hdr.cpu / 64 + 1;
		}
		held[hdr.cpu / 64] |= 1ULL << (hdr.cpu % 64);
	}
	missing = calloc(f->cpu_words, sizeof(*missing));
	if (!missing) {
		free(held);
		return -ENOMEM;
	}
	for (i = 0; i < f->cpu_words; i++) {
		missing[i] = f->cpus[i] & ~held[i];
		found |= !!(f->cpus[i] & held[i]);
	}
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
