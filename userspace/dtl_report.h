/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace dtl report: what its files share. dtl_report.c is the command
 * (its options, from the input to the output); dtl_input.c reads a capture
 * and checks it whole; dtl_merge.c puts its records in time order and sums
 * them (a pipe's as they arrive: report_pipe()); dtl_filter.c decides
 * which records are kept (--cpu, --time); dtl_format.c prints them and
 * the summary in each format.
 */
#ifndef _HTMTRACE_DTL_REPORT_H
#define _HTMTRACE_DTL_REPORT_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

/* Included after dtl.h (struct cpu_table, struct wait_hist). */

enum dtl_format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_JSONL };

/* -F: at most this many fields (a field may come twice). */
#define DTL_FIELDS_MAX		32

#define NR_CPU_EVENTS	(HTMTRACE_DTL_CPU_FAILED + 1)	/* [0]: others */

struct cpu_sum {
	__u32 cpu;
	__u64 entries, overwritten, dropped, lost_other;
	__u64 events[NR_CPU_EVENTS];
	__u64 last_tb;		/* timebase of its last entry, if has_last */
	int has_last;
	/*
	 * The time it has reached (stream_front()): its last entry's, but
	 * one more than the window ahead of every time before it only once
	 * its next entry is no earlier (ahead_tb waits for that).
	 */
	__u64 front_tb, ahead_tb;
	int has_front, has_ahead;
	size_t nheld;		/* its records in report.held */
	struct wait_hist wait;	/* enqueue_to_dispatch */
	/* --summary (dtl_summary.c): the entries kept, by reason and time */
	__u64 dispatch[256], preempt[256];
	__u64 first_tb, first_wait;	/* the first entry, its three waits */
	__u64 end_tb;			/* the latest entry */
	__u64 not_dispatched;		/* ticks: the entries' three waits */
};

/*
 * The reorder window: records wait in a heap ordered by time (timebase),
 * then by offset, and leave it as it overflows. A record more than
 * REORDER_WINDOW records late in the file is printed when reached: then
 * out of order, and counted.
 */
#define REORDER_WINDOW		(1 << 20)

/*
 * A pipe's records (report_pipe()) wait as copies, in slots, and leave
 * the window by time: once every CPU still delivering has shown a later
 * timebase, or once they are more than the window (--window MS, by
 * default DTL_STREAM_WINDOW_MS) behind the newest timebase seen (a CPU
 * that has shown nothing for that long is no longer delivering). A CPU's
 * timebase counts as shown as stream_front() says (a single entry far
 * ahead, damaged, does not count). At most REORDER_WINDOW records wait:
 * then the earliest leaves as a file's does.
 */
#define DTL_STREAM_WINDOW_MS	1000

struct pending {
	__u64 key;		/* timebase */
	size_t off;		/* of the record; ties in file order */
	union {
		size_t clock_off; /* a file's: the CLOCK record in force */
		size_t slot;	/* a pipe's: its copy in report.slots */
	};
};

/* A pipe's record, copied, with the CLOCK in force (report.clocks). */
struct dtl_slot {
	unsigned char rec[HTMTRACE_DTL_REC_MAX];
	size_t clock;
};

/*
 * dtl_filter.c: --cpu and --time, what is reported (cpus NULL: every CPU);
 * the entries' filters: --min-wait, --preempt and --dispatch.
 */
#define DTL_TIMES_MAX		16

struct dtl_time_range {
	long long start, end;		/* ns since boot, once resolved */
	double pstart, pend;		/* percent of the capture, if pct */
	int pct;
};

struct dtl_filter {
	__u64 *cpus;
	size_t cpu_words;
	long long t_start, t_end;	/* the one range, for the picture */
	struct dtl_time_range times[DTL_TIMES_MAX];	/* any of them */
	int ntimes;
	int entry_filters;		/* any of the three below */
	__u64 min_wait_ns;		/* enqueue_to_dispatch at least */
	unsigned char preempt[256], dispatch[256];	/* 1: kept */
};

struct report {
	enum dtl_format fmt;
	const char *file;
	struct cpu_table cpus_sum;		/* of struct cpu_sum */
	struct htmtrace_dtl_clock clock;	/* the one in force */
	int have_clock;
	__u64 dispatch[256], preempt[256];
	__u64 entries, overwritten, dropped, lost_other, unknown;
	int first;				/* JSON: no comma yet */
	struct wait_hist dwait[256], pwait[256];	/* by reason */
	struct dtl_filter filt;
	/* The file: its header (start bytes), the records, the damage. */
	size_t start, end;
	const char *damage;		/* why the records end at end, or NULL */
	int header;			/* --header: print the file header */
	int summary_only;		/* --summary: no records */
	size_t worst;			/* --worst N: N entries, longest wait first */
	unsigned char fields[DTL_FIELDS_MAX];	/* -F: the entries' fields */
	int nfields;			/* 0: no -F */
	int reltime, have_base;		/* --reltime: times from time_base */
	long long time_base;
	/* Instead of printing: each record in time order (dtl top --input). */
	void (*sink)(struct report *r, const struct pending *p);
	void *sink_data;
	/* A pipe: called before anything is printed (-o's file); 0 or -1. */
	int (*on_begin)(struct report *r);
	int header_only;			/* --header-only */
	__u64 window_ms;			/* --window */
	/* A pipe's records: copies in slots, the CLOCK records seen. */
	struct dtl_slot *slots;
	size_t nslots, slot_cap, *free_slots, nfree;
	struct htmtrace_dtl_clock *clocks;
	size_t nclocks;
	__u64 newest;		/* timebase: the newest CPU front_tb */
	__u64 window_tb, window_freq;	/* --window in ticks at window_freq */
	__u64 first_tb;		/* the first CLOCK record's timebase */
	int have_first;
	__u64 settled;		/* before it, no record to come (settle()) */
	/*
	 * LOST and CPU records of a CPU with no entry yet, held out of the
	 * window until that CPU's first entry (report_take(), held_out()).
	 */
	struct held_rec {
		struct pending p;
		__u32 cpu;
	} *held;
	size_t nheld, held_cap;
	int piped;				/* report_pipe()'s */
	int begun;				/* a pipe's output has begun */
	/* The reorder window. */
	const unsigned char *buf;
	struct pending *heap;
	size_t nheap, heap_cap;
	__u64 last_key, out_of_order;
	__u64 out_of_order_full;	/* of them, after the window was full */
	int last_full;			/* last_key left a full window */
	__u64 bad_time;		/* entries dtl_entry_time() refuses */
	int emitted;
};

/*
 * dtl_input.c: the input of a report. A regular file is mapped. Anything
 * else (a pipe, standard input, a device) is left open for a struct
 * dtl_reader when the report can stream (dtl_input_open()'s @stream), or
 * copied into an unnamed temporary file as it is read, up to the first
 * header that cannot be one (so that /dev/zero ends at once), and that is
 * mapped. Memory stays bounded: the pages are the file's.
 */
struct dtl_input {
	int fd;
	void *map;
	size_t len;
	int pipe;		/* not mapped: read it with struct dtl_reader */
};

/*
 * A pipe read as it comes (report_pipe()): records are checked in @buf,
 * whose first byte is at offset @base of the input.
 */
struct dtl_reader {
	int fd;
	unsigned char *buf;
	size_t cap, have, pos, base;
	int eof;
};

int dtl_input_open(struct dtl_input *in, const char *file, const char *name,
		   int stream);
int dtl_reader_fill(struct dtl_reader *rd);
void dtl_damage_why(char *buf, size_t blen, size_t len, size_t off,
		    enum dtl_rec_status rs, const struct htmtrace_dtl_rec *hdr);
void dtl_input_close(struct dtl_input *in);
int dtl_check_header(const char *file, const unsigned char *buf, size_t len,
		     size_t *start);
int dtl_check_stream(const char *file, const unsigned char *buf, size_t len,
		     size_t *start, size_t *end, char *why, size_t why_len);
int dtl_check_rec(int *have_clock, const struct htmtrace_dtl_rec *hdr,
		  const unsigned char *rec, size_t off, char *why,
		  size_t why_len);
/* A capture refused: no records (pr_err() formats of the file's name). */
#define DTL_MSG_EMPTY		"%s: empty file: no records"
#define DTL_MSG_NO_RECORDS	"%s: no records after the file header"

/* dtl_filter.c */
void dtl_filter_init(struct dtl_filter *f);
int dtl_filter_option(struct dtl_filter *f, int opt, const char *arg);
void dtl_filter_free(struct dtl_filter *f);
int dtl_filter_cpu(const struct dtl_filter *f, __u32 cpu);
int dtl_filter_time(const struct dtl_filter *f,
		    const struct htmtrace_dtl_clock *c, __u64 tb);
int dtl_filter_entry(const struct dtl_filter *f,
		     const struct htmtrace_dtl_clock *c,
		     const struct dtl_entry *e);
void dtl_filter_resolve(struct dtl_filter *f, const unsigned char *buf,
			size_t start, size_t end);
int dtl_filter_check_cpus(const struct dtl_filter *f, const char *file,
			  const unsigned char *buf, size_t start, size_t end);

/* The CPUs a capture holds records of, for -C. */
struct dtl_cpus_held {
	__u64 *mask;
	size_t words;
	int found;		/* of a CPU -C lists */
};

int dtl_held_add(const struct dtl_filter *f, struct dtl_cpus_held *h,
		 const struct htmtrace_dtl_rec *hdr);
int dtl_held_say(const struct dtl_filter *f, const char *file,
		 struct dtl_cpus_held *h);

/* dtl_merge.c */
int report_stream(struct report *r, const unsigned char *buf, size_t len);
int report_pipe(struct report *r, struct dtl_reader *rd, char *why,
		size_t why_len);
void report_free(struct report *r);

/* dtl_format.c */
enum wait_style { WAIT_TEXT, WAIT_CSV, WAIT_JSON };

const char *code_name(const char *name, unsigned int code, char *buf,
		      size_t len);
void json_name(const char *key, const char *name);
const char *wait_us(char *buf, size_t len, const struct report *r,
		    __u64 ticks);
void wait_cols(const struct report *r, const struct wait_hist *h,
	       enum wait_style style);
void json_damage(const struct report *r);
void fmt_begin(struct report *r, const unsigned char *header,
	       const struct htmtrace_dtl_clock *clock);
void fmt_header_text(const struct report *r, const unsigned char *buf);
void fmt_record(struct report *r, size_t off, const unsigned char *rec,
		const void *clock);
void fmt_summary(struct report *r);

/* dtl_fields.c */
int dtl_fields_parse(const char *s, unsigned char *fields, int *n);
void dtl_fields_list(char *buf, size_t len);
long long fmt_time(struct report *r, long long ns);
void fmt_fields_header(const struct report *r);
void fmt_fields_entry(struct report *r, size_t off, __u32 cpu,
		      const struct dtl_entry *e);

/* dtl_summary.c */
void fmt_cpu_summary(struct report *r);

#endif /* _HTMTRACE_DTL_REPORT_H */
