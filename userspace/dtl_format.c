// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: the formats. Each record as a line of text, a CSV
 * row, a JSON array (a row of the kind's named columns) or a JSON Lines
 * object; then the summary (per CPU, per reason, the wait distributions)
 * in the same format.
 */
#include <stdio.h>
#include <string.h>

#include "dtl.h"
#include "dtl_report.h"
#include "util.h"

/* A code's name, or the code as a number. */
const char *code_name(const char *name, unsigned int code, char *buf,
			     size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "%u", code);
	return buf;
}

/* JSON: a name as a string, or null. Names need no escaping. */
void json_name(const char *key, const char *name)
{
	if (name)
		printf("\"%s\": \"%s\"", key, name);
	else
		printf("\"%s\": null", key);
}

/* JSON: a name as an array's string element, or null. */
static void json_value(const char *name)
{
	if (name)
		printf("\"%s\"", name);
	else
		printf("null");
}

static void json_sep(struct report *r)
{
	if (r->fmt == FMT_JSON)
		printf("%s\n    ", r->first ? "" : ",");
	r->first = 0;
}

static void out_clock(struct report *r, size_t off,
		      const struct htmtrace_dtl_clock *c)
{
	char secs[32], mono[32], wall[48];

	format_seconds(secs, sizeof(secs),
		       fmt_time(r, (long long)c->boottime_ns));
	format_seconds(mono, sizeof(mono), (long long)c->monotonic_ns);
	format_utc(wall, sizeof(wall), (long long)c->realtime_ns);
	switch (r->fmt) {
	case FMT_TEXT:
		printf("CLOCK tb_freq=%llu timebase=%llu boottime=%s monotonic=%s realtime=%s\n",
		       (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase, secs, mono, wall);
		break;
	case FMT_CSV:
		printf("clock,%zu,,%s,%s,%llu,,,,,,,,,,,,,,,,,\n", off, secs, wall,
		       (unsigned long long)c->timebase);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"clock\", %zu, %u, %llu, %llu, %llu, %llu, %llu, %s, \"%s\"]",
		       off, c->version, (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase,
		       (unsigned long long)c->monotonic_ns,
		       (unsigned long long)c->boottime_ns,
		       (unsigned long long)c->realtime_ns, secs, wall);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"clock\", \"offset\": %zu, \"version\": %u, \"tb_freq\": %llu, \"timebase\": %llu, \"monotonic_ns\": %llu, \"boottime_ns\": %llu, \"realtime_ns\": %llu, \"seconds\": %s, \"realtime\": \"%s\"}",
		       off, c->version, (unsigned long long)c->tb_freq,
		       (unsigned long long)c->timebase,
		       (unsigned long long)c->monotonic_ns,
		       (unsigned long long)c->boottime_ns,
		       (unsigned long long)c->realtime_ns, secs, wall);
		break;
	}
}

static void out_entry(struct report *r, size_t off, __u32 cpu,
		      const struct dtl_entry *e)
{
	const struct htmtrace_dtl_clock *c = &r->clock;
	const char *dname = dtl_dispatch_name(e->dispatch_reason);
	const char *pname = dtl_preempt_name(e->preempt_reason);
	char secs[32], wall[48], e2d[32], r2e[32], w2r[32];
	char dnum[8], pnum[8];

	format_seconds(secs, sizeof(secs),
		       fmt_time(r, dtl_tb_to_ns(c, e->timebase,
						c->boottime_ns)));
	format_utc(wall, sizeof(wall),
		   dtl_tb_to_ns(c, e->timebase, c->realtime_ns));
	format_us(e2d, sizeof(e2d),
		  dtl_ticks_to_ns(e->enqueue_to_dispatch, c->tb_freq));
	format_us(r2e, sizeof(r2e),
		  dtl_ticks_to_ns(e->ready_to_enqueue, c->tb_freq));
	format_us(w2r, sizeof(w2r),
		  dtl_ticks_to_ns(e->waiting_to_ready, c->tb_freq));
	switch (r->fmt) {
	case FMT_TEXT:
		printf("%s %s cpu=%u dispatch=%s preempt=%s processor=%u enqueue_to_dispatch=%sus ready_to_enqueue=%sus waiting_to_ready=%sus fault=0x%llx srr0=0x%llx\n",
		       secs, wall, cpu,
		       code_name(dname, e->dispatch_reason, dnum, sizeof(dnum)),
		       code_name(pname, e->preempt_reason, pnum, sizeof(pnum)),
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0);
		break;
	case FMT_CSV:
		printf("entry,%zu,%u,%s,%s,%llu,%s,%s,%u,%s,%s,%s,0x%llx,0x%llx,0x%llx,,,,,,,,\n",
		       off, cpu, secs, wall, (unsigned long long)e->timebase,
		       code_name(dname, e->dispatch_reason, dnum, sizeof(dnum)),
		       code_name(pname, e->preempt_reason, pnum, sizeof(pnum)),
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"entry\", %zu, %u, %s, %llu, %u, %u, %u, %s, %s, %s, \"0x%llx\", \"0x%llx\", \"0x%llx\"]",
		       off, cpu, secs, (unsigned long long)e->timebase,
		       e->dispatch_reason, e->preempt_reason, e->processor_id,
		       e2d, r2e, w2r, (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"entry\", \"offset\": %zu, \"cpu\": %u, \"seconds\": %s, \"realtime\": \"%s\", \"timebase\": %llu, \"dispatch_reason\": %u, ",
		       off, cpu, secs, wall, (unsigned long long)e->timebase,
		       e->dispatch_reason);
		json_name("dispatch", dname);
		printf(", \"preempt_reason\": %u, ", e->preempt_reason);
		json_name("preempt", pname);
		printf(", \"processor_id\": %u, \"enqueue_to_dispatch_us\": %s, \"ready_to_enqueue_us\": %s, \"waiting_to_ready_us\": %s, \"fault_addr\": \"0x%llx\", \"srr0\": \"0x%llx\", \"srr1\": \"0x%llx\"}",
		       e->processor_id, e2d, r2e, w2r,
		       (unsigned long long)e->fault_addr,
		       (unsigned long long)e->srr0,
		       (unsigned long long)e->srr1);
		break;
	}
}

static void out_lost(struct report *r, size_t off,
		     const struct htmtrace_dtl_lost *l)
{
	const char *why = dtl_lost_name(l->why);
	char num[16];

	switch (r->fmt) {
	case FMT_TEXT:
		printf("LOST cpu=%u count=%llu why=%s\n", l->hdr.cpu,
		       (unsigned long long)l->count,
		       code_name(why, l->why, num, sizeof(num)));
		break;
	case FMT_CSV:
		printf("lost,%zu,%u,,,,,,,,,,,,,%llu,%s,,,,,,\n", off, l->hdr.cpu,
		       (unsigned long long)l->count,
		       code_name(why, l->why, num, sizeof(num)));
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"lost\", %zu, %u, %llu, %u, ", off, l->hdr.cpu,
		       (unsigned long long)l->count, l->why);
		json_value(why);
		putchar(']');
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"lost\", \"offset\": %zu, \"cpu\": %u, \"count\": %llu, \"why_code\": %u, ",
		       off, l->hdr.cpu, (unsigned long long)l->count, l->why);
		json_name("why", why);
		putchar('}');
		break;
	}
}

static void out_cpu(struct report *r, size_t off,
		    const struct htmtrace_dtl_cpu *c)
{
	const char *ev = dtl_cpu_event_name(c->event);
	char num[16];

	switch (r->fmt) {
	case FMT_TEXT:
		printf("CPU cpu=%u event=%s", c->hdr.cpu,
		       code_name(ev, c->event, num, sizeof(num)));
		if (c->error)
			printf(" error=%d", c->error);
		putchar('\n');
		break;
	case FMT_CSV:
		printf("cpu,%zu,%u,,,,,,,,,,,,,,,%s,%d,,,,\n", off, c->hdr.cpu,
		       code_name(ev, c->event, num, sizeof(num)), c->error);
		break;
	case FMT_JSON:
		json_sep(r);
		printf("[\"cpu\", %zu, %u, %u, ", off, c->hdr.cpu, c->event);
		json_value(ev);
		printf(", %d]", c->error);
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"cpu\", \"offset\": %zu, \"cpu\": %u, \"event_code\": %u, ",
		       off, c->hdr.cpu, c->event);
		json_name("event", ev);
		printf(", \"error\": %d}", c->error);
		break;
	}
}

/* "joined=1,offline=1", or "-". */
static void format_cpu_events(char *buf, size_t len, const struct cpu_sum *s)
{
	size_t used = 0;
	unsigned int ev;
	int n;

	buf[0] = '\0';
	for (ev = 1; ev <= NR_CPU_EVENTS; ev++) {
		unsigned int i = ev % NR_CPU_EVENTS;	/* others last */

		if (!s->events[i])
			continue;
		n = snprintf(buf + used, len - used, "%s%s=%llu",
			     used ? "," : "",
			     i ? dtl_cpu_event_name(i) : "other",
			     (unsigned long long)s->events[i]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	if (!used)
		snprintf(buf, len, "-");
}

static void text_reasons(const char *kind, const __u64 *counts,
			 const char *(*name)(unsigned int))
{
	unsigned int code;

	for (code = 0; code < 256; code++)
		if (counts[code])
			printf("%-9s %3u %-32s %12llu\n", kind, code,
			       name(code) ? name(code) : "unknown",
			       (unsigned long long)counts[code]);
}

static void json_reasons(const char *kind, const __u64 *counts,
			 const char *(*name)(unsigned int), const char *nl)
{
	const char *nl2 = *nl ? "\n      " : "";
	unsigned int code;
	int first = 1;

	printf("\"%s\": [", kind);
	for (code = 0; code < 256; code++) {
		if (!counts[code])
			continue;
		printf("%s%s{\"code\": %u, ", first ? "" : ",", nl2, code);
		json_name("name", name(code));
		printf(", \"count\": %llu}", (unsigned long long)counts[code]);
		first = 0;
	}
	printf("%s]", first ? "" : nl);
}

/* A wait in µs with three decimals. */
const char *wait_us(char *buf, size_t len, const struct report *r,
		    __u64 ticks)
{
	format_us(buf, len, r->clock.tb_freq ?
		  dtl_ticks_to_ns(ticks, r->clock.tb_freq) : 0);
	return buf;
}

/* "COUNT P50 P90 P99 MAX" of a distribution, in µs. */
void wait_cols(const struct report *r, const struct wait_hist *h,
	       enum wait_style style)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	char v[4][32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		wait_us(v[i], sizeof(v[i]), r, wait_hist_pct(h, pcts[i]));
	wait_us(v[3], sizeof(v[3]), r, h->max);
	if (style == WAIT_TEXT)
		printf(" %10llu %10s %10s %10s %10s\n",
		       (unsigned long long)h->n, v[0], v[1], v[2], v[3]);
	else if (style == WAIT_CSV)
		printf("%llu,,,,%s,%s,%s,%s\n", (unsigned long long)h->n, v[0],
		       v[1], v[2], v[3]);
	else
		printf("\"count\": %llu, \"p50_us\": %s, \"p90_us\": %s, \"p99_us\": %s, \"max_us\": %s",
		       (unsigned long long)h->n, v[0], v[1], v[2], v[3]);
}

static void json_wait(const struct report *r, const struct wait_hist *h)
{
	wait_cols(r, h, WAIT_JSON);
}

static void text_waits(const struct report *r, const char *kind,
		       const struct wait_hist *hs,
		       const char *(*name)(unsigned int))
{
	unsigned int code;
	char num[48];

	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		snprintf(num, sizeof(num), "%s %u %s", kind, code,
			 name(code) ? name(code) : "unknown");
		printf("%-42s", num);
		wait_cols(r, &hs[code], WAIT_TEXT);
	}
}

static void csv_waits(const struct report *r, const char *kind,
		      const struct wait_hist *hs,
		      const char *(*name)(unsigned int))
{
	unsigned int code;
	char num[8];

	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		printf("wait_%s,,,,,,%s,%s,,,,,,,,", kind,
		       kind[0] == 'd' ? code_name(name(code), code, num, sizeof(num)) : "",
		       kind[0] == 'p' ? code_name(name(code), code, num, sizeof(num)) : "");
		wait_cols(r, &hs[code], WAIT_CSV);
	}
}

static void json_waits(const struct report *r, const char *kind,
		       const struct wait_hist *hs,
		       const char *(*name)(unsigned int), const char *nl)
{
	unsigned int code;
	int first = 1;

	printf("\"%s\": [", kind);
	for (code = 0; code < 256; code++) {
		if (!hs[code].n)
			continue;
		printf("%s%s{\"code\": %u, ", first ? "" : ",", nl, code);
		json_name("name", name(code));
		printf(", ");
		json_wait(r, &hs[code]);
		putchar('}');
		first = 0;
	}
	printf("%s]", first ? "" : nl);
}

static void text_summary(struct report *r)
{
	char events[160];
	size_t c;

	printf("\nsummary\n");
	printf("%-6s %12s %12s %12s  %s\n", "cpu", "entries", "overwritten",
	       "dropped", "events");
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		format_cpu_events(events, sizeof(events), s);
		printf("%-6u %12llu %12llu %12llu  %s\n", s->cpu,
		       (unsigned long long)s->entries,
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped, events);
	}
	text_reasons("dispatch", r->dispatch, dtl_dispatch_name);
	text_reasons("preempt", r->preempt, dtl_preempt_name);
	if (r->entries) {
		printf("\ndispatch wait (enqueue_to_dispatch), us\n");
		printf("%-42s %10s %10s %10s %10s %10s\n", "", "entries", "p50",
		       "p90", "p99", "max");
		for (c = 0; c < r->cpus_sum.n; c++) {
			const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;
			char name[24];

			if (!s->wait.n)
				continue;
			snprintf(name, sizeof(name), "cpu %u", s->cpu);
			printf("%-42s", name);
			wait_cols(r, &s->wait, WAIT_TEXT);
		}
		text_waits(r, "dispatch", r->dwait, dtl_dispatch_name);
		text_waits(r, "preempt", r->pwait, dtl_preempt_name);
	}
	printf("entries: %llu, lost: %llu (overwritten %llu, dropped %llu",
	       (unsigned long long)r->entries,
	       (unsigned long long)(r->overwritten + r->dropped + r->lost_other),
	       (unsigned long long)r->overwritten,
	       (unsigned long long)r->dropped);
	if (r->lost_other)
		printf(", other %llu", (unsigned long long)r->lost_other);
	printf("), unknown records skipped: %llu",
	       (unsigned long long)r->unknown);
	if (r->out_of_order)
		printf(", out of time order: %llu",
		       (unsigned long long)r->out_of_order);
	if (r->bad_time)
		printf(", ignored for a time out of range: %llu",
		       (unsigned long long)r->bad_time);
	putchar('\n');
	if (r->damage)
		printf("damaged: %s: the report stops there\n", r->damage);
}

static void csv_summary(struct report *r)
{
	size_t c;

	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;

		if (!s->wait.n)
			continue;
		printf("wait_cpu,,%u,,,,,,,,,,,,,", s->cpu);
		wait_cols(r, &s->wait, WAIT_CSV);
	}
	csv_waits(r, "dispatch", r->dwait, dtl_dispatch_name);
	csv_waits(r, "preempt", r->pwait, dtl_preempt_name);
}

/* JSON: a damaged file's ", "damage": {"offset": N, "why": WHY}". */
void json_damage(const struct report *r)
{
	if (!r->damage)
		return;
	printf(", \"damage\": {\"offset\": %zu, \"why\": ", r->end);
	json_string(stdout, r->damage);
	putchar('}');
}

/* The JSON summary object; @nl: "\n    " in the document, "" in lines. */
static void json_summary(struct report *r, const char *nl)
{
	const char *nl2 = *nl ? "\n      " : "";
	unsigned int i;
	size_t c;

	printf("{%s\"cpus\": [", nl);
	for (c = 0; c < r->cpus_sum.n; c++) {
		const struct cpu_sum *s = (struct cpu_sum *)r->cpus_sum.elems + c;
		int first = 1;

		printf("%s%s{\"cpu\": %u, \"entries\": %llu, \"overwritten\": %llu, \"dropped\": %llu, \"events\": {",
		       c ? "," : "", nl2, s->cpu,
		       (unsigned long long)s->entries,
		       (unsigned long long)s->overwritten,
		       (unsigned long long)s->dropped);
		for (i = 1; i <= NR_CPU_EVENTS; i++) {
			unsigned int ev = i % NR_CPU_EVENTS;

			if (!s->events[ev])
				continue;
			printf("%s\"%s\": %llu", first ? "" : ", ",
			       ev ? dtl_cpu_event_name(ev) : "other",
			       (unsigned long long)s->events[ev]);
			first = 0;
		}
		printf("}, \"wait\": {");
		json_wait(r, &s->wait);
		printf("}}");
	}
	printf("%s],%s", r->cpus_sum.n ? nl : "", nl);
	json_reasons("dispatch", r->dispatch, dtl_dispatch_name, nl);
	printf(",%s", nl);
	json_reasons("preempt", r->preempt, dtl_preempt_name, nl);
	printf(",%s\"wait\": {\"of\": \"enqueue_to_dispatch\", \"method\": \"nearest rank; exact below 512 ticks, else rounded down to 1/256 of the power of two\", ",
	       nl);
	json_waits(r, "dispatch", r->dwait, dtl_dispatch_name,
		   *nl ? "\n        " : "");
	printf(", ");
	json_waits(r, "preempt", r->pwait, dtl_preempt_name,
		   *nl ? "\n        " : "");
	printf("},%s\"entries\": %llu, \"lost\": %llu, \"overwritten\": %llu, \"dropped\": %llu, \"lost_other\": %llu, \"unknown_records\": %llu, \"out_of_order\": %llu",
	       nl, (unsigned long long)r->entries,
	       (unsigned long long)(r->overwritten + r->dropped +
				    r->lost_other),
	       (unsigned long long)r->overwritten,
	       (unsigned long long)r->dropped,
	       (unsigned long long)r->lost_other,
	       (unsigned long long)r->unknown,
	       (unsigned long long)r->out_of_order);
	json_damage(r);
	printf("%s}", *nl ? "\n  " : "");
}

void fmt_summary(struct report *r)
{
	if (r->nfields)
		return;		/* -F: the entries only, as perf script */
	if (r->summary_only) {
		fmt_cpu_summary(r);
		return;
	}
	switch (r->fmt) {
	case FMT_TEXT:
		text_summary(r);
		break;
	case FMT_CSV:
		csv_summary(r);
		break;
	case FMT_JSON:
		printf("%s],\n  \"summary\": ", r->first ? "" : "\n  ");
		json_summary(r, "\n    ");
		printf("\n}\n");
		break;
	case FMT_JSONL:
		printf("{\"kind\": \"summary\", \"summary\": ");
		json_summary(r, "");
		printf("}\n");
		break;
	}
}

/* Print the record @rec at @off of the input, with @clock in force. */
void fmt_record(struct report *r, size_t off, const unsigned char *rec,
		const void *clock)
{
	struct htmtrace_dtl_entry_rec er;
	struct htmtrace_dtl_lost lost;
	struct htmtrace_dtl_cpu cpu;
	struct htmtrace_dtl_rec hdr;
	struct dtl_entry e;

	memcpy(&r->clock, clock, sizeof(r->clock));
	memcpy(&hdr, rec, sizeof(hdr));
	if (r->nfields) {
		if (hdr.type == HTMTRACE_DTL_REC_ENTRY) {
			memcpy(&er, rec, sizeof(er));
			dtl_entry_decode(er.entry, &e);
			fmt_fields_entry(r, off, hdr.cpu, &e);
		}
		return;
	}
	switch (hdr.type) {
	case HTMTRACE_DTL_REC_CLOCK:
		out_clock(r, off, &r->clock);
		break;
	case HTMTRACE_DTL_REC_ENTRY:
		memcpy(&er, rec, sizeof(er));
		dtl_entry_decode(er.entry, &e);
		out_entry(r, off, hdr.cpu, &e);
		break;
	case HTMTRACE_DTL_REC_LOST:
		memcpy(&lost, rec, sizeof(lost));
		out_lost(r, off, &lost);
		break;
	case HTMTRACE_DTL_REC_CPU:
		memcpy(&cpu, rec, sizeof(cpu));
		out_cpu(r, off, &cpu);
		break;
	}
	if (r->fmt == FMT_JSONL)
		putchar('\n');
}

/* A header's key as perf report --header's labels: "os_release", "os release". */
static void header_label(char *buf, size_t len, const char *key)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		buf[i] = key[i] == '_' ? ' ' : key[i];
	buf[i] = '\0';
}

/*
 * The file header as perf report --header prints its own: "# KEY : VALUE"
 * lines between "# ========" lines, control characters of a value as '?'.
 */
void fmt_header_text(const struct report *r, const unsigned char *buf)
{
	const char *key, *val;
	char label[64];
	size_t pos = 0;

	printf("# ========\n");
	if (!r->start)
		printf("# no file header: a capture written without one (by an older htmtrace, or read from the device)\n");
	while (dtl_header_field(buf, r->start, &pos, &key, &val)) {
		header_label(label, sizeof(label), key);
		printf("# %-16s : ", label);
		for (; *val; val++)
			putchar((unsigned char)*val < 0x20 || *val == 0x7f ?
				'?' : *val);
		putchar('\n');
	}
	if (r->start)
		printf("# %-16s : %zu\n", "data offset", r->start);
	printf("# ========\n#\n");
}

/* JSON: "data_offset": N, "fields": {KEY: VALUE, ...} of the file header. */
static void json_header(const struct report *r, const unsigned char *buf)
{
	const char *key, *val;
	size_t pos = 0;
	int first = 1;

	printf("\"data_offset\": %zu, \"fields\": {", r->start);
	while (dtl_header_field(buf, r->start, &pos, &key, &val)) {
		if (!first)
			printf(", ");
		json_string(stdout, key);
		printf(": ");
		json_string(stdout, val);
		first = 0;
	}
	putchar('}');
}

/*
 * What comes before the records: the file header (text with --header,
 * JSON and JSON Lines where the file has one: @buf, r->start bytes), CSV's
 * header line, JSON's clock (@clock: the first CLOCK record, NULL if there
 * is none), columns and the opening of the records.
 */
void fmt_begin(struct report *r, const unsigned char *buf,
	       const struct htmtrace_dtl_clock *clock)
{
	if (r->header && r->fmt == FMT_TEXT)
		fmt_header_text(r, buf);
	if (r->summary_only)
		return;
	if (r->nfields) {
		fmt_fields_header(r);
		return;
	}
	if (r->fmt == FMT_JSONL && r->start) {
		printf("{\"kind\": \"header\", \"offset\": 0, ");
		json_header(r, buf);
		printf("}\n");
	}
	if (r->fmt == FMT_CSV)
		printf("kind,offset,cpu,seconds,realtime,timebase,dispatch,preempt,processor_id,enqueue_to_dispatch_us,ready_to_enqueue_us,waiting_to_ready_us,fault_addr,srr0,srr1,count,why,event,error,wait_p50_us,wait_p90_us,wait_p99_us,wait_max_us\n");
	if (r->fmt == FMT_JSON) {
		/* "clock": the first CLOCK record, the one of the session. */
		printf("{\n");
		/* "header": the file's, where it has one. */
		if (r->start) {
			printf("  \"header\": {");
			json_header(r, buf);
			printf("},\n");
		}
		printf("  \"clock\": ");
		if (clock) {
			printf("{\"version\": %u, \"tb_freq\": %llu, \"timebase\": %llu, \"monotonic_ns\": %llu, \"boottime_ns\": %llu, \"realtime_ns\": %llu}",
			       clock->version,
			       (unsigned long long)clock->tb_freq,
			       (unsigned long long)clock->timebase,
			       (unsigned long long)clock->monotonic_ns,
			       (unsigned long long)clock->boottime_ns,
			       (unsigned long long)clock->realtime_ns);
		} else {
			printf("null");
		}
		/*
		 * The records as arrays, each kind's columns named once: a
		 * JSON tool holds a fifth of what the objects of jsonl cost.
		 * The reasons' names are in the summary's "dispatch" and
		 * "preempt"; an entry's realtime follows from its seconds
		 * and the clock.
		 */
		printf(",\n  \"columns\": {\n    %s,\n    %s,\n    %s,\n    %s\n  }",
		       "\"clock\": [\"kind\", \"offset\", \"version\", \"tb_freq\", \"timebase\", \"monotonic_ns\", \"boottime_ns\", \"realtime_ns\", \"seconds\", \"realtime\"]",
		       "\"entry\": [\"kind\", \"offset\", \"cpu\", \"seconds\", \"timebase\", \"dispatch_reason\", \"preempt_reason\", \"processor_id\", \"enqueue_to_dispatch_us\", \"ready_to_enqueue_us\", \"waiting_to_ready_us\", \"fault_addr\", \"srr0\", \"srr1\"]",
		       "\"lost\": [\"kind\", \"offset\", \"cpu\", \"count\", \"why_code\", \"why\"]",
		       "\"cpu\": [\"kind\", \"offset\", \"cpu\", \"event_code\", \"event\", \"error\"]");
		printf(",\n  \"records\": [");
		r->first = 1;
	}
}
