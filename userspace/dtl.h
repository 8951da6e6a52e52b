/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the dispatch trace log decoder and the dtl command line
 * values (dtl.c). Pure: no I/O.
 */
#ifndef _HTMTRACE_DTL_H
#define _HTMTRACE_DTL_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

/* dtl.c: dispatch trace log streams and the dtl command line. */

/* Highest CPU a -C list may name (a mask of 1 KiB). */
#define DTL_CPU_MAX		8191

/* One hypervisor entry, decoded (struct htmtrace_dtl_entry_rec). */
struct dtl_entry {
	__u8 dispatch_reason;
	__u8 preempt_reason;
	__u16 processor_id;
	__u32 enqueue_to_dispatch;	/* timebase ticks */
	__u32 ready_to_enqueue;
	__u32 waiting_to_ready;
	__u64 timebase;
	__u64 fault_addr;
	__u64 srr0;
	__u64 srr1;
};

/* What dtl_rec_check() finds at an offset of a stream. */
enum dtl_rec_status {
	DTL_REC_OK,
	DTL_REC_END,		/* no bytes left */
	DTL_REC_TRUNC_HDR,	/* fewer bytes left than a header */
	DTL_REC_TRUNC,		/* fewer bytes left than the record's length */
	DTL_REC_SHORT,		/* length below a header */
	DTL_REC_ALIGN,		/* length not a multiple of 8 */
	DTL_REC_SMALL,		/* a known type shorter than its struct */
	DTL_REC_SWAPPED,	/* a stream of the other byte order */
};

int parse_cpu_list(const char *s, __u64 **maskp, __u32 *sizep);
int format_cpu_list(char *buf, size_t len, const __u64 *mask, size_t words);
int parse_dtl_events(const char *s, __u32 *mask);
int format_dtl_events(char *buf, size_t len, __u32 mask);
const char *dtl_dispatch_name(unsigned int code);
const char *dtl_preempt_name(unsigned int code);
const char *dtl_rec_name(__u16 type);
const char *dtl_lost_name(__u32 why);
const char *dtl_cpu_event_name(__u32 event);
const char *dtl_cpu_state_name(__u32 state);
size_t dtl_rec_min_len(__u16 type);
enum dtl_rec_status dtl_rec_check(const unsigned char *buf, size_t len,
				  size_t off, struct htmtrace_dtl_rec *hdr);
enum dtl_rec_status dtl_rec_check_at(const unsigned char *buf, size_t len,
				     size_t off, int first,
				     struct htmtrace_dtl_rec *hdr);
void dtl_entry_decode(const unsigned char *p, struct dtl_entry *e);
long long dtl_tb_to_ns(const struct htmtrace_dtl_clock *c, __u64 tb,
		       __u64 clock_ns);
__u64 dtl_ticks_to_ns(__u64 ticks, __u64 tb_freq);
/* dtl_entry_time(): the limits of a sane clock record and entry, in ns. */
#define DTL_CLOCK_MAX		(1ULL << 62)
#define DTL_SPAN_MAX		((__int128)1 << 55)
struct dtl_time {
	long long boot;		/* the dispatch, ns since boot */
	long long start;	/* taken off: boot less the three waits */
};

int dtl_entry_time(const struct htmtrace_dtl_clock *c,
		   const struct dtl_entry *e, struct dtl_time *t);
int format_seconds(char *buf, size_t len, long long ns);
int format_utc(char *buf, size_t len, long long ns);
int format_us(char *buf, size_t len, __u64 ns);

/*
 * A per-CPU table sorted by CPU: elements of elem_size bytes, each with its
 * __u32 CPU number first. The element of cpu, added zeroed if new (the
 * table grows by doubling from 16); NULL if out of memory.
 */
struct cpu_table {
	void *elems;
	size_t n, cap, elem_size;
};
void *cpu_table_get(struct cpu_table *t, __u32 cpu);

/*
 * A distribution of waits in timebase ticks, for percentiles: exact below
 * WAIT_EXACT ticks, above in buckets of 1/256 of their power of two (a
 * value is known to 0.4%, rounded down); the largest exactly.
 */
#define WAIT_EXACT		512
#define WAIT_BINS		(WAIT_EXACT + 23 * 256)
struct wait_hist {
	__u64 n, max;
	__u64 *bins;		/* WAIT_BINS counts, allocated by the first add */
};
int wait_hist_add(struct wait_hist *h, __u32 ticks);
__u64 wait_hist_pct(const struct wait_hist *h, unsigned int pct);

/* --time START,END: seconds since boot, either side may be left out. */
int parse_time_range(const char *s, long long *start, long long *end);
int cpu_listed(const __u64 *mask, size_t words, __u32 cpu);

/*
 * dtl_header.c: the file header dtl record writes before the stream (its
 * layout: dtl_header.c, htmtrace(1) FILES).
 */
#define DTL_FILE_VERSION	1

struct dtl_header_info {
	const char *cpus;	/* the -C list, or NULL: all */
	const char *events;	/* "cede,preempt" */
	__u32 ring_kb;		/* 0: the driver's default */
	int argc;		/* the command's words after "htmtrace dtl" */
	char **argv;
};

enum dtl_file_status {
	DTL_FILE_OK,
	DTL_FILE_BAD,		/* a damaged header */
	DTL_FILE_SWAPPED,	/* a header of the other byte order */
	DTL_FILE_PERF,		/* a perf.data file */
	DTL_FILE_OTHER,		/* no capture */
};

int dtl_header_make(unsigned char **bufp, size_t *lenp,
		    const struct dtl_header_info *info);
enum dtl_file_status dtl_header_check(const unsigned char *buf, size_t len,
				      size_t *start);
int dtl_header_field(const unsigned char *buf, size_t len, size_t *pos,
		     const char **key, const char **val);

#endif /* _HTMTRACE_DTL_H */
