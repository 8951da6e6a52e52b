// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace dtl report: decode a capture of /dev/vpa_dtl (dtl record's
 * file, or a stream on standard input). A file is read and checked whole
 * (dtl_input.c), then its records go out in time order (dtl_merge.c); a
 * pipe's go out as they arrive (report_pipe()), unless the report needs
 * the whole capture (the picture, --time in percents): then it is copied
 * and read as a file. The records that the filters keep (dtl_filter.c)
 * are printed in the format asked for (dtl_format.c) or as a picture
 * (dtl_svg.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dtl.h"
#include "dtl_report.h"
#include "dtl_svg.h"
#include "opts.h"
#include "util.h"

static const struct option report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "cpus", required_argument, NULL, 'C' },	/* dtl record's name */
	{ "input", required_argument, NULL, 'i' },
	{ "min-wait", required_argument, NULL, OPT_MIN_WAIT },
	{ "preempt", required_argument, NULL, OPT_PREEMPT },
	{ "dispatch", required_argument, NULL, OPT_DISPATCH },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "worst", required_argument, NULL, OPT_WORST },
	{ "fields", required_argument, NULL, 'F' },
	{ "reltime", no_argument, NULL, OPT_RELTIME },
	{ "window", required_argument, NULL, OPT_WINDOW },
	HELP_OPTION,
	OPTIONS_END,
};

/* -o's temporary file until it is renamed, for the signal handler. */
static const char *volatile out_tmp;

/* A signal that ends the report removes the unfinished file first. */
static void remove_out_tmp(int sig)
{
	if (out_tmp)
		unlink(out_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * -o OUT: standard output becomes a new file beside OUT (out_open(), as
 * dtl record writes), renamed over OUT by out_end(): a report that fails
 * (a full disk, a file size limit, a signal) leaves what OUT held. A FIFO,
 * /dev/null or a terminal is written in place. Returns 0 or -1 after a
 * message.
 */
static int out_begin(struct out_file *of, const char *outname)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	unsigned int i;
	int fd, err;

	fd = out_open(of, outname);
	if (fd < 0) {
		pr_errno(-fd, "create %s", outname);
		return -1;
	}
	if (fflush(stdout) || dup2(fd, STDOUT_FILENO) < 0) {
		err = errno;
		close(fd);
		out_discard(of);
		pr_errno(err, "create %s", outname);
		return -1;
	}
	close(fd);
	if (of->staged) {
		out_tmp = of->tmp;
		for (i = 0; i < ARRAY_SIZE(sigs); i++)
			signal(sigs[i], remove_out_tmp);
	}
	return 0;
}

/*
 * The report is written: flushed, synced to its disk if it is a regular
 * file, closed, and renamed over OUT. Returns 0 or -1 after a message (the
 * new file removed).
 */
static int out_end(struct out_file *of, const char *outname)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		err = errno ? -errno : -EIO;
	if (!outname) {
		if (err)
			pr_errno(-err, "write standard output");
		return err ? -1 : 0;
	}
	/* Data may first fail to reach the disk at close (NFS, quotas). */
	if (!err)
		err = sync_close(STDOUT_FILENO);
	if (err) {
		pr_errno(-err, "write %s", outname);
		out_discard(of);
		return -1;
	}
	err = out_commit(of);
	out_tmp = NULL;
	if (err) {
		pr_errno(-err, "rename %s to %s", of->tmp, outname);
		out_discard(of);
		return -1;
	}
	return 0;
}

/* A pipe's read buffer: two of the longest records. */
#define PIPE_BUF_SIZE		(2 * 65536)

/* --window: at most an hour. */
#define WINDOW_MAX_MS		3600000

/* -o for a pipe's report: created when its output begins. */
static struct out_file *begin_of;
static const char *begin_outname;

static int pipe_on_begin(struct report *r)
{
	(void)r;
	return begin_outname ? out_begin(begin_of, begin_outname) : 0;
}

/*
 * Report the pipe @in as its records arrive. Returns the exit status
 * (after a message for a failure or damage).
 */
static int report_piped(struct report *r, struct dtl_input *in,
			struct out_file *of, const char *outname)
{
	struct dtl_reader rd = { .fd = in->fd, .cap = PIPE_BUF_SIZE };
	char why[160];
	int damaged;

	rd.buf = malloc(rd.cap);
	if (!rd.buf) {
		pr_errno(ENOMEM, "report %s", r->file);
		return EXIT_FAIL;
	}
	begin_of = of;
	begin_outname = outname;
	r->on_begin = pipe_on_begin;
	damaged = report_pipe(r, &rd, why, sizeof(why));
	free(rd.buf);
	if (damaged < 0) {
		if (outname && r->begun)
			out_discard(of);
		return EXIT_FAIL;
	}
	if (out_end(of, outname))
		return EXIT_FAIL;
	/*
	 * Damaged: reported up to the damage, then said, status 1; as a
	 * file's if the pipe was read to its end (cut short).
	 */
	if (damaged && rd.eof) {
		pr_err("%s: %s: the report stops there (%zu of %zu bytes read)",
		       r->file, why, r->end, rd.base + rd.have);
		return EXIT_FAIL;
	}
	if (damaged) {
		pr_err("%s: %s: the report stops there (%zu bytes read; the rest of the pipe is not)",
		       r->file, why, r->end);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_dtl_report(int argc, char **argv)
{
	static struct report r;		/* 16 KiB of counters: not on the stack */
	struct cmd_opts co = { .operands = 1 };
	struct dtl_input in = { .fd = -1 };
	struct dtl_svg_filter filt;
	struct out_file of = { .staged = 0 };
	const char *outname = NULL, *input = NULL;
	int svg = 0;		/* the picture (dtl_svg.c), not a listing */
	int header_only = 0;
	__u64 worst = 0;
	char why[160], names[256];
	int opt, err, damaged, pct, i, ret = EXIT_FAIL;

	r.fmt = FMT_TEXT;
	r.window_ms = DTL_STREAM_WINDOW_MS;
	r.cpus_sum.elem_size = sizeof(struct cpu_sum);
	dtl_filter_init(&r.filt);
	while ((opt = next_option(argc, argv, ":o:C:i:F:h", report_options,
				  &co)) > 0) {
		switch (opt) {
		case 'o':
			if (!*optarg)
				return usage_err("bad output '': expected a file name or -");
			outname = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'i':	/* perf's -i FILE, for the operand */
			input = optarg;
			break;
		case OPT_HEADER:
			r.header = 1;
			break;
		case OPT_HEADER_ONLY:
			header_only = 1;
			break;
		case OPT_SUMMARY:
			r.summary_only = 1;
			break;
		case 'F':
			if (dtl_fields_parse(optarg, r.fields, &r.nfields)) {
				dtl_fields_list(names, sizeof(names));
				dtl_filter_free(&r.filt);
				return usage_err("bad fields '%s': expected some of %s, comma-separated",
						 optarg, names);
			}
			break;
		case OPT_RELTIME:
			r.reltime = 1;
			break;
		case OPT_WINDOW:
			if (parse_u64(optarg, &r.window_ms) || !r.window_ms ||
			    r.window_ms > WINDOW_MAX_MS) {
				dtl_filter_free(&r.filt);
				return usage_err("bad window '%s': expected 1 to %u milliseconds",
						 optarg, WINDOW_MAX_MS);
			}
			break;
		case OPT_WORST:
			if (parse_u64(optarg, &worst) || !worst ||
			    worst > REORDER_WINDOW) {
				dtl_filter_free(&r.filt);
				return usage_err("bad count '%s': expected 1 to %u entries",
						 optarg, REORDER_WINDOW);
			}
			r.worst = worst;
			break;
		case 'C':
		case OPT_TIME:
		case OPT_MIN_WAIT:
		case OPT_PREEMPT:
		case OPT_DISPATCH:
			err = dtl_filter_option(&r.filt, opt, optarg);
			if (err) {
				dtl_filter_free(&r.filt);
				return err;
			}
			break;
		case OPT_FORMAT:
			svg = 0;
			if (!strcmp(optarg, "text"))
				r.fmt = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				r.fmt = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				r.fmt = FMT_JSON;
			else if (!strcmp(optarg, "jsonl"))
				r.fmt = FMT_JSONL;
			else if (!strcmp(optarg, "svg"))
				svg = 1;
			else
				return usage_err("bad format '%s': expected text, csv, json, jsonl or svg",
						 optarg);
			break;
		}
	}
	if (opt) {
		dtl_filter_free(&r.filt);
		return co.status;
	}
	if ((r.header || header_only) && (svg || r.fmt != FMT_TEXT)) {
		dtl_filter_free(&r.filt);
		return usage_err("--header%s prints the text format's header; json and jsonl hold it in their document",
				 header_only ? "-only" : "");
	}
	if (r.filt.ntimes > 1 && svg) {
		dtl_filter_free(&r.filt);
		return usage_err("the picture takes one --time range");
	}
	if (r.filt.entry_filters && svg) {
		dtl_filter_free(&r.filt);
		return usage_err("--min-wait, --preempt and --dispatch select entries of a report, not of the picture");
	}
	if (r.worst && (svg || r.summary_only)) {
		dtl_filter_free(&r.filt);
		return usage_err("--worst lists entries: not with --summary or the picture");
	}
	if (r.nfields && (svg || r.summary_only || r.fmt == FMT_JSON ||
			  r.fmt == FMT_JSONL)) {
		dtl_filter_free(&r.filt);
		return usage_err("-F selects the columns of the text and csv formats' entries: not with --summary, json, jsonl or the picture");
	}
	if (r.summary_only && svg) {
		dtl_filter_free(&r.filt);
		return usage_err("--summary is a report of text, csv, json or jsonl, not a picture");
	}
	if (!input && optind < argc)
		input = argv[optind++];
	if (!input) {
		dtl_filter_free(&r.filt);
		return usage_err("missing FILE");
	}
	if (optind < argc) {
		dtl_filter_free(&r.filt);
		return usage_err("unexpected argument '%s'", argv[optind]);
	}
	/* A file size limit: a write (-o, a pipe's copy) fails with EFBIG. */
	signal(SIGXFSZ, SIG_IGN);
	r.file = strcmp(input, "-") ? input : "standard input";
	r.header_only = header_only;
	/* A pipe is reported as it comes, unless the whole capture is needed. */
	for (pct = 0, i = 0; i < r.filt.ntimes; i++)
		pct |= r.filt.times[i].pct;
	if (dtl_input_open(&in, input, r.file, !svg && !pct))
		goto out;
	/* /dev/stdout, /proc/self/fd/1: standard output, written in place. */
	if (outname && same_file(STDOUT_FILENO, outname))
		outname = NULL;
	/* As cp: the report never replaces what it reads. */
	if (outname && in.fd >= 0 && same_file(in.fd, outname)) {
		pr_err("%s is the input %s: give another output", outname,
		       r.file);
		goto out;
	}
	if (in.pipe) {
		ret = report_piped(&r, &in, &of, outname);
		goto out;
	}
	if (header_only) {
		/* The header alone, as perf report --header-only. */
		if (dtl_check_header(r.file, in.map, in.len, &r.start))
			goto out;
		damaged = 0;
	} else {
		damaged = dtl_check_stream(r.file, in.map, in.len, &r.start,
					   &r.end, why, sizeof(why));
		if (damaged < 0)
			goto out;
		if (damaged)
			r.damage = why;
	}
	/* --time's percents: of the capture's span. */
	dtl_filter_resolve(&r.filt, in.map, r.start, r.end);
	/* -C: CPUs the capture does not hold are said; none of them: no report. */
	if (!header_only) {
		err = dtl_filter_check_cpus(&r.filt, r.file, in.map, r.start,
					    r.end);
		if (err < 0)
			pr_errno(-err, "report %s", r.file);
		if (err)
			goto out;
	}
	/* Created once the stream is known good: no file for a bad one. */
	if (outname && out_begin(&of, outname))
		goto out;

	err = 0;
	if (header_only) {
		fmt_header_text(&r, in.map);
	} else if (svg) {
		/* The picture reads the device's stream, no header. */
		filt.cpus = r.filt.cpus;
		filt.cpu_words = r.filt.cpu_words;
		filt.t_start = r.filt.t_start;
		filt.t_end = r.filt.t_end;
		err = dtl_svg_write(stdout, r.file,
				    (const unsigned char *)in.map + r.start,
				    r.end - r.start, &filt);
	} else {
		err = report_stream(&r, in.map, r.end);
	}
	if (err) {
		pr_errno(-err, "report %s", r.file);
		if (outname)
			out_discard(&of);
		goto out;
	}
	if (out_end(&of, outname))
		goto out;
	ret = EXIT_OK;
	/* A damaged file: reported up to the damage, then said, status 1. */
	if (damaged) {
		pr_err("%s: %s: the report stops there (%zu of %zu bytes read)",
		       r.file, why, r.end, in.len);
		ret = EXIT_FAIL;
	}
out:
	report_free(&r);
	dtl_filter_free(&r.filt);
	dtl_input_close(&in);
	return ret;
}
