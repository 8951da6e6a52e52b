// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log stream of /dev/vpa_dtl
 * (uapi/linux/htmtrace.h) and the values of the dtl command line. Pure:
 * memory in, values out; no I/O, no messages.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtl.h"
#include "hvblock.h"
#include "util.h"

/*
 * The reason codes, index = code, as the Linux perf tool names them
 * (tools/perf/util/powerpc-vpadtl.c).
 */
static const char *const dispatch_names[] = {
	"external_interrupt", "firmware_internal_event", "H_PROD",
	"decrementer_interrupt", "system_reset", "firmware_internal_event",
	"conferred_cycles", "time_slice", "virtual_memory_page_fault",
	"expropriated_adjunct", "priv_doorbell",
};

static const char *const preempt_names[] = {
	"unused", "firmware_internal_event", "H_CEDE", "H_CONFER",
	"time_slice", "migration_hibernation_page_fault",
	"virtual_memory_page_fault", "H_CONFER_ADJUNCT", "hcall_adjunct",
	"HDEC_adjunct",
};

static const struct {
	const char *name;
	__u32 bit;
} event_names[] = {
	{ "cede", HTMTRACE_DTL_CEDE },
	{ "preempt", HTMTRACE_DTL_PREEMPT },
	{ "fault", HTMTRACE_DTL_FAULT },
};

/* Name of a dispatch reason, NULL for a code perf does not name. */
const char *dtl_dispatch_name(unsigned int code)
{
	return code < ARRAY_SIZE(dispatch_names) ? dispatch_names[code] : NULL;
}

/* Name of a preempt reason, NULL for a code perf does not name. */
const char *dtl_preempt_name(unsigned int code)
{
	return code < ARRAY_SIZE(preempt_names) ? preempt_names[code] : NULL;
}

const char *dtl_rec_name(__u16 type)
{
	switch (type) {
	case HTMTRACE_DTL_REC_CLOCK:
		return "CLOCK";
	case HTMTRACE_DTL_REC_ENTRY:
		return "ENTRY";
	case HTMTRACE_DTL_REC_LOST:
		return "LOST";
	case HTMTRACE_DTL_REC_CPU:
		return "CPU";
	}
	return NULL;
}

const char *dtl_lost_name(__u32 why)
{
	switch (why) {
	case HTMTRACE_DTL_LOST_OVERWRITTEN:
		return "overwritten";
	case HTMTRACE_DTL_LOST_DROPPED:
		return "dropped";
	}
	return NULL;
}

const char *dtl_cpu_event_name(__u32 event)
{
	switch (event) {
	case HTMTRACE_DTL_CPU_JOINED:
		return "joined";
	case HTMTRACE_DTL_CPU_OFFLINE:
		return "offline";
	case HTMTRACE_DTL_CPU_LOST:
		return "lost";
	case HTMTRACE_DTL_CPU_FAILED:
		return "failed";
	}
	return NULL;
}

const char *dtl_cpu_state_name(__u32 state)
{
	switch (state) {
	case HTMTRACE_DTL_CPU_WAITING:
		return "waiting";
	case HTMTRACE_DTL_CPU_CAPTURING:
		return "capturing";
	case HTMTRACE_DTL_CPU_ENDED:
		return "ended";
	}
	return NULL;
}

/* A decimal CPU number at *@s, advancing it. Returns 0, -EINVAL, -ERANGE. */
static int parse_cpu(const char **s, unsigned long *cpu)
{
	const char *p = *s;
	unsigned long v = 0;
	int range = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > DTL_CPU_MAX) {
			range = 1;
			v = DTL_CPU_MAX + 1;
		}
	}
	*s = p;
	*cpu = v;
	return range ? -ERANGE : 0;
}

/**
 * parse_cpu_list() - a -C list: CPU numbers and ranges, e.g. "0-3,8"
 * @s: the list
 * @maskp: out: malloc()ed mask in the layout of struct htmtrace_dtl_config
 *	(CPU n is bit n % 64 of word n / 64), as short as the highest CPU
 *	allows; the caller frees
 * @sizep: out: its size in bytes
 *
 * Return: 0; -EINVAL for a malformed list or a range that runs backwards;
 * -ERANGE for a CPU above DTL_CPU_MAX; -ENOMEM.
 */
int parse_cpu_list(const char *s, __u64 **maskp, __u32 *sizep)
{
	unsigned long lo, hi, max = 0, cpu;
	const char *p;
	size_t words = 0;
	__u64 *mask;
	int err, pass;

	/* Pass 0 checks and finds the highest CPU, pass 1 sets the bits. */
	mask = NULL;
	for (pass = 0; pass < 2; pass++) {
		p = s;
		for (;;) {
			err = parse_cpu(&p, &lo);
			if (err)
				goto fail;
			hi = lo;
			if (*p == '-') {
				p++;
				err = parse_cpu(&p, &hi);
				if (err)
					goto fail;
				err = -EINVAL;
				if (hi < lo)
					goto fail;
			}
			if (pass == 0) {
				if (hi > max)
					max = hi;
			} else {
				for (cpu = lo; cpu <= hi; cpu++)
					mask[cpu / 64] |= 1ULL << (cpu % 64);
			}
			if (!*p)
				break;
			err = -EINVAL;
			if (*p++ != ',')
				goto fail;
		}
		if (pass == 0) {
			words = max / 64 + 1;
			mask = calloc(words, sizeof(*mask));
			if (!mask)
				return -ENOMEM;
		}
	}
	*maskp = mask;
	*sizep = words * sizeof(*mask);
	return 0;

fail:
	free(mask);
	return err;
}

static int cpu_set(const __u64 *mask, size_t words, unsigned long cpu)
{
	return cpu / 64 < words && (mask[cpu / 64] >> (cpu % 64)) & 1;
}

/* A CPU mask as a list: "0-3,8"; "none" if empty. Returns 0 or -ENOSPC. */
int format_cpu_list(char *buf, size_t len, const __u64 *mask, size_t words)
{
	unsigned long cpu, end, nbits = words * 64;
	size_t used = 0;
	int n;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (cpu = 0; cpu < nbits; cpu++) {
		if (!cpu_set(mask, words, cpu))
			continue;
		for (end = cpu; end + 1 < nbits && cpu_set(mask, words, end + 1);
		     end++)
			;
		if (end == cpu)
			n = snprintf(buf + used, len - used, "%s%lu",
				     used ? "," : "", cpu);
		else
			n = snprintf(buf + used, len - used, "%s%lu-%lu",
				     used ? "," : "", cpu, end);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += n;
		cpu = end;
	}
	if (!used && snprintf(buf, len, "none") >= (int)len)
		return -ENOSPC;
	return 0;
}

/* A -e list: cede, preempt, fault or all, comma-separated. 0 or -EINVAL. */
int parse_dtl_events(const char *s, __u32 *mask)
{
	__u32 m = 0;
	unsigned int i;
	size_t n;

	for (;;) {
		n = strcspn(s, ",");
		if (n == 3 && !strncmp(s, "all", 3)) {
			m |= HTMTRACE_DTL_ALL;
		} else {
			for (i = 0; i < ARRAY_SIZE(event_names); i++)
				if (strlen(event_names[i].name) == n &&
				    !strncmp(s, event_names[i].name, n))
					break;
			if (i == ARRAY_SIZE(event_names))
				return -EINVAL;
			m |= event_names[i].bit;
		}
		if (!s[n])
			break;
		s += n + 1;
	}
	*mask = m;
	return 0;
}

/* An event mask as "cede,preempt,fault". Returns 0 or -ENOSPC. */
int format_dtl_events(char *buf, size_t len, __u32 mask)
{
	size_t used = 0;
	unsigned int i;
	int n;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(event_names); i++) {
		if (!(mask & event_names[i].bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     event_names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += n;
	}
	mask &= ~HTMTRACE_DTL_ALL;
	if (mask) {
		n = snprintf(buf + used, len - used, "%s0x%x", used ? "," : "",
			     mask);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
	}
	return 0;
}

/* The smallest length a record of @type may have. */
size_t dtl_rec_min_len(__u16 type)
{
	switch (type) {
	case HTMTRACE_DTL_REC_CLOCK:
		return sizeof(struct htmtrace_dtl_clock);
	case HTMTRACE_DTL_REC_ENTRY:
		return sizeof(struct htmtrace_dtl_entry_rec);
	case HTMTRACE_DTL_REC_LOST:
		return sizeof(struct htmtrace_dtl_lost);
	case HTMTRACE_DTL_REC_CPU:
		return sizeof(struct htmtrace_dtl_cpu);
	}
	return sizeof(struct htmtrace_dtl_rec);
}

/**
 * dtl_rec_check() - the record at an offset of a stream
 * @buf: the stream
 * @len: its length
 * @off: offset of the record
 * @hdr: out: its header, if at least a header is left
 *
 * A record of a type this tool does not know only needs a valid length; a
 * known one must hold its whole struct (it may be longer: later versions
 * may append fields).
 *
 * Return: DTL_REC_OK, DTL_REC_END at the end, or what is wrong.
 */
enum dtl_rec_status dtl_rec_check(const unsigned char *buf, size_t len,
				  size_t off, struct htmtrace_dtl_rec *hdr)
{
	return dtl_rec_check_at(buf, len, off, !off, hdr);
}

/*
 * dtl_rec_check() of a piece of a stream (a pipe's read buffer): @first
 * says whether @off is where the stream starts.
 */
enum dtl_rec_status dtl_rec_check_at(const unsigned char *buf, size_t len,
				     size_t off, int first,
				     struct htmtrace_dtl_rec *hdr)
{
	if (off == len)
		return DTL_REC_END;
	if (len - off < sizeof(*hdr))
		return DTL_REC_TRUNC_HDR;
	memcpy(hdr, buf + off, sizeof(*hdr));
	/* The first record is a CLOCK: seen byte-swapped, so is the stream. */
	if (first && hdr->type == __builtin_bswap16(HTMTRACE_DTL_REC_CLOCK))
		return DTL_REC_SWAPPED;
	if (hdr->len < sizeof(*hdr))
		return DTL_REC_SHORT;
	if (hdr->len % 8)
		return DTL_REC_ALIGN;
	if (hdr->len > len - off)
		return DTL_REC_TRUNC;
	if (hdr->len < dtl_rec_min_len(hdr->type))
		return DTL_REC_SMALL;
	return DTL_REC_OK;
}

static __u16 get_be16(const unsigned char *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 get_be32(const unsigned char *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

/* Decode the 48-byte big-endian hypervisor entry at @p. */
void dtl_entry_decode(const unsigned char *p, struct dtl_entry *e)
{
	e->dispatch_reason = p[0];
	e->preempt_reason = p[1];
	e->processor_id = get_be16(p + 2);
	e->enqueue_to_dispatch = get_be32(p + 4);
	e->ready_to_enqueue = get_be32(p + 8);
	e->waiting_to_ready = get_be32(p + 12);
	e->timebase = get_be64(p + 16);
	e->fault_addr = get_be64(p + 24);
	e->srr0 = get_be64(p + 32);
	e->srr1 = get_be64(p + 40);
}

/* a / b rounded towards minus infinity (b > 0). */
static __int128 floor_div(__int128 a, __int128 b)
{
	__int128 q = a / b;

	return (a % b < 0) ? q - 1 : q;
}

/**
 * dtl_tb_to_ns() - a timebase value on one of the clock record's clocks
 * @c: the clock record; @c->tb_freq must not be 0
 * @tb: the timebase value
 * @clock_ns: the clock at @c->timebase (@c->boottime_ns, ...)
 *
 * Return: the clock at @tb, in ns: @clock_ns + (@tb - @c->timebase) *
 * 10^9 / @c->tb_freq, rounded down; @tb may be before @c->timebase.
 */
long long dtl_tb_to_ns(const struct htmtrace_dtl_clock *c, __u64 tb,
		       __u64 clock_ns)
{
	__int128 delta = (__s64)(tb - c->timebase);

	return (long long)((__int128)clock_ns +
			   floor_div(delta * 1000000000, c->tb_freq));
}

/* Timebase ticks in ns, rounded down; @tb_freq must not be 0. */
__u64 dtl_ticks_to_ns(__u64 ticks, __u64 tb_freq)
{
	return (__u64)((unsigned __int128)ticks * 1000000000 / tb_freq);
}

/**
 * dtl_entry_time() - an entry's times, if its timebase and clock are sane
 * @c: the clock record in force; @c->tb_freq must not be 0
 * @e: the entry
 * @t: out, if not NULL: its dispatch and the time it was taken off (the
 *	dispatch less its three waits), in ns since boot
 *
 * A damaged timebase (or clock record) puts an entry centuries away: its
 * date prints as 1691, and differences of such times overflow. Refused:
 * a clock whose boottime or realtime is at or above DTL_CLOCK_MAX (2^62
 * ns, the year 2116), and an entry whose dispatch, or the time it was
 * taken off, lies more than DTL_SPAN_MAX (2^55 ns, about 417 days) from
 * the clock's sample. Within them, any two times on either clock differ
 * by less than 2^63 ns.
 *
 * Return: 0, or -ERANGE for an entry to be ignored.
 */
int dtl_entry_time(const struct htmtrace_dtl_clock *c,
		   const struct dtl_entry *e, struct dtl_time *t)
{
	__int128 at, wait;

	if (c->boottime_ns >= DTL_CLOCK_MAX || c->realtime_ns >= DTL_CLOCK_MAX)
		return -ERANGE;
	at = floor_div((__int128)(__s64)(e->timebase - c->timebase) *
		       1000000000, c->tb_freq);
	wait = (__int128)dtl_ticks_to_ns((__u64)e->enqueue_to_dispatch +
					 e->ready_to_enqueue +
					 e->waiting_to_ready, c->tb_freq);
	if (at > DTL_SPAN_MAX || at - wait < -DTL_SPAN_MAX)
		return -ERANGE;
	if (t) {
		t->boot = (long long)(c->boottime_ns + at);
		t->start = (long long)(c->boottime_ns + at - wait);
	}
	return 0;
}

static int fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len ? 0 : -ENOSPC;
}

/* ns as seconds: "12.345678901", "-0.000000002". Returns 0 or -ENOSPC. */
int format_seconds(char *buf, size_t len, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns :
				 (unsigned long long)ns;

	return fits(snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "",
			     a / 1000000000, a % 1000000000), len);
}

/* ns since the epoch as "2024-05-01T12:34:56.789012Z" (µs, rounded down). */
int format_utc(char *buf, size_t len, long long ns)
{
	long long secs = (long long)floor_div(ns, 1000000000);
	/* In 128 bits: secs * 10^9 is below LLONG_MIN for ns near it. */
	long usecs = (long)(((__int128)ns - (__int128)secs * 1000000000) /
			    1000);
	time_t t = (time_t)secs;
	struct tm tm;
	size_t n;

	if (len)
		buf[0] = 0;
	if (!gmtime_r(&t, &tm))
		return -EOVERFLOW;
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!n)
		return -ENOSPC;
	return fits(snprintf(buf + n, len - n, ".%06ldZ", usecs), len - n);
}

/* ns as µs with three decimals: "1.500", rounded down. 0 or -ENOSPC. */
int format_us(char *buf, size_t len, __u64 ns)
{
	return fits(snprintf(buf, len, "%llu.%03llu",
			     (unsigned long long)ns / 1000,
			     (unsigned long long)ns % 1000), len);
}

void *cpu_table_get(struct cpu_table *t, __u32 cpu)
{
	size_t lo = 0, hi = t->n, mid, sz = t->elem_size;
	unsigned char *e = t->elems;
	__u32 c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		memcpy(&c, e + mid * sz, sizeof(c));
		if (c == cpu)
			return e + mid * sz;
		if (c < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;

		e = realloc(t->elems, ncap * sz);
		if (!e)
			return NULL;
		t->elems = e;
		t->cap = ncap;
	}
	memmove(e + (lo + 1) * sz, e + lo * sz, (t->n - lo) * sz);
	t->n++;
	memset(e + lo * sz, 0, sz);
	memcpy(e + lo * sz, &cpu, sizeof(cpu));
	return e + lo * sz;
}

static unsigned int wait_bin(__u32 v)
{
	unsigned int e;

	if (v < WAIT_EXACT)
		return v;
	e = 31 - __builtin_clz(v);	/* 9..31 */
	return WAIT_EXACT + (e - 9) * 256 + ((v >> (e - 8)) & 255);
}

/* The smallest value of bin @b. */
static __u64 wait_bin_low(unsigned int b)
{
	unsigned int e;

	if (b < WAIT_EXACT)
		return b;
	b -= WAIT_EXACT;
	e = b / 256 + 9;
	return ((__u64)1 << e) | ((__u64)(b % 256) << (e - 8));
}

/* Add a wait. Returns 0 or -ENOMEM. */
int wait_hist_add(struct wait_hist *h, __u32 ticks)
{
	if (!h->bins) {
		h->bins = calloc(WAIT_BINS, sizeof(*h->bins));
		if (!h->bins)
			return -ENOMEM;
	}
	h->bins[wait_bin(ticks)]++;
	h->n++;
	if (ticks > h->max)
		h->max = ticks;
	return 0;
}

/*
 * The @pct-th percentile (nearest rank: the smallest value at least
 * @pct % of the waits do not exceed), as its bin's smallest value, or
 * the largest wait if that is smaller; 0 for no waits.
 */
__u64 wait_hist_pct(const struct wait_hist *h, unsigned int pct)
{
	__u64 rank, seen = 0, v;
	unsigned int b;

	if (!h->n)
		return 0;
	rank = (h->n * pct + 99) / 100;
	if (!rank)
		rank = 1;
	for (b = 0; b < WAIT_BINS; b++) {
		seen += h->bins[b];
		if (seen >= rank)
			break;
	}
	v = wait_bin_low(b < WAIT_BINS ? b : WAIT_BINS - 1);
	return v < h->max ? v : h->max;
}

/* Seconds with up to nine decimals, as ns, at *@s, advancing it. */
static int parse_secs(const char **s, long long *ns)
{
	const char *p = *s;
	long long v = 0, frac = 0;
	int digits = 0, fd = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (v > (LLONG_MAX / 1000000000 - 9) / 10)
			return -ERANGE;
		v = v * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, fd++) {
			if (fd < 9)
				frac = frac * 10 + (*p - '0');
		}
		if (!fd && !digits)
			return -EINVAL;
	} else if (!digits) {
		return -EINVAL;
	}
	for (; fd < 9; fd++)
		frac *= 10;
	*ns = v * 1000000000 + frac;
	*s = p;
	return 0;
}

/**
 * parse_time_range() - perf's --time START,END
 * @s: "START,END" in seconds since boot, e.g. "1000.5,1002"; START or END
 *	may be left out ("1000.5," or ",1002")
 * @start: out: START in ns, or LLONG_MIN
 * @end: out: END in ns, or LLONG_MAX
 *
 * Return: 0, or -EINVAL for a malformed range or one that ends before it
 * starts, -ERANGE for a time too large.
 */
int parse_time_range(const char *s, long long *start, long long *end)
{
	const char *p = s;
	int err;

	*start = LLONG_MIN;
	*end = LLONG_MAX;
	if (*p != ',') {
		err = parse_secs(&p, start);
		if (err)
			return err;
	}
	if (*p++ != ',')
		return -EINVAL;
	if (*p) {
		err = parse_secs(&p, end);
		if (err)
			return err;
	}
	if (*p || (*start == LLONG_MIN && *end == LLONG_MAX))
		return -EINVAL;
	return *end < *start ? -EINVAL : 0;
}

/* 1 if @cpu is in the mask (NULL: every CPU). */
int cpu_listed(const __u64 *mask, size_t words, __u32 cpu)
{
	return !mask || cpu_set(mask, words, cpu);
}
