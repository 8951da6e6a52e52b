// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report -F FIELDS: the entries only, each as the fields
 * asked for in their order (perf script -F's habit): values separated by
 * a space in text, a CSV row under a header of the fields' names. The
 * names are the CSV columns'. And --reltime: times from the first record
 * printed, as perf script --reltime.
 */
#include <stdio.h>
#include <string.h>

#include "dtl.h"
#include "dtl_report.h"
#include "util.h"

enum field {
	F_OFFSET, F_CPU, F_SECONDS, F_REALTIME, F_TIMEBASE, F_DISPATCH,
	F_PREEMPT, F_PROCESSOR, F_E2D, F_R2E, F_W2R, F_FAULT, F_SRR0, F_SRR1,
	F_NR
};

static const char *const field_names[F_NR] = {
	"offset", "cpu", "seconds", "realtime", "timebase", "dispatch",
	"preempt", "processor_id", "enqueue_to_dispatch_us",
	"ready_to_enqueue_us", "waiting_to_ready_us", "fault_addr", "srr0",
	"srr1",
};

/* -F: a comma-separated list of field names. Returns 0 or -1 (bad). */
int dtl_fields_parse(const char *s, unsigned char *fields, int *n)
{
	const char *p = s, *comma;
	size_t len;
	int i;

	*n = 0;
	do {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (i = 0; i < F_NR; i++)
			if (strlen(field_names[i]) == len &&
			    !strncmp(field_names[i], p, len))
				break;
		if (i == F_NR || *n == DTL_FIELDS_MAX)
			return -1;
		fields[(*n)++] = i;
		p = comma + 1;
	} while (comma);
	return 0;
}

/* The names, for the usage message. */
void dtl_fields_list(char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < F_NR && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 field_names[i]);
}

/* ns since boot of the record printed, from the first one with --reltime. */
long long fmt_time(struct report *r, long long ns)
{
	if (!r->reltime)
		return ns;
	if (!r->have_base) {
		r->time_base = ns;
		r->have_base = 1;
	}
	return ns - r->time_base;
}

/* CSV's header of the fields. */
void fmt_fields_header(const struct report *r)
{
	int i;

	if (r->fmt != FMT_CSV)
		return;
	for (i = 0; i < r->nfields; i++)
		printf("%s%s", i ? "," : "", field_names[r->fields[i]]);
	putchar('\n');
}

/* An entry's fields, on clock r->clock. */
void fmt_fields_entry(struct report *r, size_t off, __u32 cpu,
		      const struct dtl_entry *e)
{
	const struct htmtrace_dtl_clock *c = &r->clock;
	char v[48], num[8];
	int i;

	for (i = 0; i < r->nfields; i++) {
		switch (r->fields[i]) {
		case F_OFFSET:
			snprintf(v, sizeof(v), "%zu", off);
			break;
		case F_CPU:
			snprintf(v, sizeof(v), "%u", cpu);
			break;
		case F_SECONDS:
			format_seconds(v, sizeof(v), fmt_time(r,
				dtl_tb_to_ns(c, e->timebase, c->boottime_ns)));
			break;
		case F_REALTIME:
			format_utc(v, sizeof(v),
				   dtl_tb_to_ns(c, e->timebase, c->realtime_ns));
			break;
		case F_TIMEBASE:
			snprintf(v, sizeof(v), "%llu",
				 (unsigned long long)e->timebase);
			break;
		case F_DISPATCH:
			snprintf(v, sizeof(v), "%s",
				 code_name(dtl_dispatch_name(e->dispatch_reason),
					   e->dispatch_reason, num, sizeof(num)));
			break;
		case F_PREEMPT:
			snprintf(v, sizeof(v), "%s",
				 code_name(dtl_preempt_name(e->preempt_reason),
					   e->preempt_reason, num, sizeof(num)));
			break;
		case F_PROCESSOR:
			snprintf(v, sizeof(v), "%u", e->processor_id);
			break;
		case F_E2D:
		case F_R2E:
		case F_W2R:
			format_us(v, sizeof(v), dtl_ticks_to_ns(
				  r->fields[i] == F_E2D ? e->enqueue_to_dispatch :
				  r->fields[i] == F_R2E ? e->ready_to_enqueue :
				  e->waiting_to_ready, c->tb_freq));
			break;
		case F_FAULT:
		case F_SRR0:
		case F_SRR1:
			snprintf(v, sizeof(v), "0x%llx", (unsigned long long)
				 (r->fields[i] == F_FAULT ? e->fault_addr :
				  r->fields[i] == F_SRR0 ? e->srr0 : e->srr1));
			break;
		}
		printf("%s%s", i ? (r->fmt == FMT_CSV ? "," : " ") : "", v);
	}
	putchar('\n');
}
