// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the commands that work on files only (verify, simgen), usable
 * on any host.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htmtrace.h"
#include "../module/hvsim/hvsim_record.h"

/* Records simgen writes per write(). */
#define SIMGEN_BATCH	512

/* Smallest and largest simgen buffer: one record to 4 GiB. */
#define SIMGEN_LOG2_MIN	7
#define SIMGEN_LOG2_MAX	32

/* What a slot holds, for messages: "seq 5 of core node 0 chip 0 core 0". */
static void describe_slot(char *buf, size_t len, const unsigned char *rec,
			  const struct target_arg *filter)
{
	struct htmtrace_target t;
	__u64 target, seq;
	char text[96];

	if (hvsim_record_is_zero(rec)) {
		snprintf(buf, len, "zeros");
		return;
	}
	if (hvsim_record_get(rec, 0) != HVSIM_RECORD_MAGIC) {
		snprintf(buf, len, "no simulator record (bad magic)");
		return;
	}
	target = hvsim_record_get(rec, 1);
	seq = hvsim_record_get(rec, 2);
	target_from_word(&t, target);
	format_target(text, sizeof(text), &t);
	if (!hvsim_record_equal(rec, target, seq))
		snprintf(buf, len, "a damaged record (claims seq %llu of %s)",
			 (unsigned long long)seq, text);
	else if (!target_matches(target, filter))
		snprintf(buf, len, "seq %llu of %s, not the requested target",
			 (unsigned long long)seq, text);
	else
		snprintf(buf, len, "seq %llu of %s", (unsigned long long)seq,
			 text);
}

static void print_verify(const char *file, const struct verify_result *res,
			 __u64 buffer_size)
{
	struct htmtrace_target t;
	char text[96];

	printf("file:          %s\n", file);
	printf("records:       %llu of %d bytes\n",
	       (unsigned long long)res->nrecords, HVSIM_RECORD_SIZE);
	if (buffer_size && res->tail)
		printf("buffer:        %llu records; the file ends %zu bytes into the next\n",
		       (unsigned long long)res->nslots, res->tail);
	else if (buffer_size)
		printf("buffer:        %llu records\n",
		       (unsigned long long)res->nslots);
	if (res->have_target && res->written) {
		target_from_word(&t, res->target);
		format_target(text, sizeof(text), &t);
		printf("target:        %s\n", text);
	} else {
		printf("target:        none (no records)\n");
	}
	printf("written:       %llu\n", (unsigned long long)res->written);
	printf("wrapped:       %s\n", res->wrapped ? "yes" : "no");
	printf("records valid: %llu\n", (unsigned long long)res->valid);
	printf("zero-filled:   %llu\n", (unsigned long long)res->zero);
	printf("mismatched:    %llu\n", (unsigned long long)res->bad);
}

static const struct option verify_options[] = {
	TARGET_OPTIONS,
	{ "min-records", required_argument, NULL, OPT_MIN_RECORDS },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_verify(int argc, char **argv)
{
	struct verify_result res;
	struct cmd_opts co = { .operands = 1 };
	const struct target_arg *filter;
	unsigned char *buf;
	const char *file;
	char found[160], want[160];
	__u64 min_records = 0, buffer_size = 0;
	size_t len;
	int opt, err;

	while ((opt = next_option(argc, argv, ":t:n:p:c:h", verify_options,
				  &co)) > 0) {
		switch (opt) {
		case OPT_MIN_RECORDS:
			if (parse_u64(optarg, &min_records))
				return usage_err("bad record count '%s'",
						 optarg);
			break;
		case OPT_BUFFER_SIZE:
			if (parse_size(optarg, &buffer_size) || !buffer_size ||
			    buffer_size % HVSIM_RECORD_SIZE)
				return usage_err("bad buffer size '%s': expected a multiple of %d bytes",
						 optarg, HVSIM_RECORD_SIZE);
			break;
		}
	}
	if (opt)
		return co.status;
	err = read_file_operand(argc, argv, &file, &buf, &len);
	if (err)
		return err;
	filter = co.ta.given ? &co.ta : NULL;
	verify_dump(buf, len, filter, buffer_size, &res);

	switch (res.status) {
	case VERIFY_EMPTY:
		pr_err("%s: empty dump", file);
		break;
	case VERIFY_TOO_BIG:
		pr_err("%s: %zu bytes, more than the buffer of %llu",
		       file, len, (unsigned long long)buffer_size);
		break;
	case VERIFY_PARTIAL:
		pr_err("%s: size %zu is not a multiple of %d: partial record at offset %llu",
		       file, len, HVSIM_RECORD_SIZE,
		       (unsigned long long)res.bad_offset);
		break;
	case VERIFY_MISMATCH:
		print_verify(file, &res, buffer_size);
		describe_slot(found, sizeof(found), buf + res.bad_offset,
			      filter);
		if (res.bad_expect_zero) {
			snprintf(want, sizeof(want), "zeros");
		} else {
			struct htmtrace_target t;
			char text[96];

			target_from_word(&t, res.target);
			format_target(text, sizeof(text), &t);
			snprintf(want, sizeof(want), "seq %llu of %s",
				 (unsigned long long)res.bad_expect_seq, text);
		}
		pr_err("%s: mismatch at offset %llu (slot %llu, first wrong byte at offset %llu): expected %s, found %s",
		       file, (unsigned long long)res.bad_offset,
		       (unsigned long long)(res.bad_offset / HVSIM_RECORD_SIZE),
		       (unsigned long long)res.bad_byte, want, found);
		break;
	case VERIFY_OK:
		print_verify(file, &res, buffer_size);
		if (res.valid < min_records) {
			pr_err("%s: %llu valid records, fewer than %llu",
			       file, (unsigned long long)res.valid,
			       (unsigned long long)min_records);
			res.status = VERIFY_MISMATCH;
		}
		break;
	}
	free(buf);
	return res.status == VERIFY_OK ? EXIT_OK : EXIT_FAIL;
}

static const struct option simgen_options[] = {
	TARGET_OPTIONS,
	{ "log2", required_argument, NULL, 's' },
	{ "written", required_argument, NULL, 'w' },
	{ "output", required_argument, NULL, 'o' },
	HELP_OPTION,
	OPTIONS_END,
};

/* Write the dump of (target, 2^log2 bytes, written records) to @fd. */
static int simgen_write(int fd, __u64 target, unsigned int log2,
			__u64 written)
{
	__u64 nslots = (1ULL << log2) / HVSIM_RECORD_SIZE;
	unsigned char *buf;
	__u64 slot = 0;
	int err = 0;

	buf = malloc(SIMGEN_BATCH * HVSIM_RECORD_SIZE);
	if (!buf)
		return -ENOMEM;
	while (slot < nslots && !err) {
		size_t n = 0;

		for (; n < SIMGEN_BATCH && slot < nslots; n++, slot++)
			sim_slot_fill(buf + n * HVSIM_RECORD_SIZE, target, slot,
				      nslots, written);
		err = write_all(fd, buf, n * HVSIM_RECORD_SIZE);
	}
	free(buf);
	return err;
}

int cmd_simgen(int argc, char **argv)
{
	struct cmd_opts co = { 0 };
	const char *output = NULL;
	__u64 log2 = 0, written = 0;
	int have_log2 = 0, have_written = 0;
	int fd, opt, err;

	while ((opt = next_option(argc, argv, ":t:n:p:c:s:w:o:h",
				  simgen_options, &co)) > 0) {
		switch (opt) {
		case 's':
			if (parse_u64(optarg, &log2) ||
			    log2 < SIMGEN_LOG2_MIN || log2 > SIMGEN_LOG2_MAX)
				return usage_err("bad buffer size '%s': expected a power of two %d..%d",
						 optarg, SIMGEN_LOG2_MIN,
						 SIMGEN_LOG2_MAX);
			have_log2 = 1;
			break;
		case 'w':
			if (parse_u64(optarg, &written) ||
			    written == (__u64)-1)
				return usage_err("bad record count '%s'",
						 optarg);
			have_written = 1;
			break;
		case 'o':
			output = optarg;
			break;
		}
	}
	if (opt)
		return co.status;
	if (target_require(&co.ta, TARGET_TYPE | TARGET_NODE))
		return EXIT_USAGE;
	if (!have_log2)
		return usage_err("missing buffer size: --log2 L is required");
	if (!have_written)
		return usage_err("missing record count: --written W is required");
	if (!output)
		return usage_err("missing output: -o FILE is required");

	if (!strcmp(output, "-")) {
		if (isatty(STDOUT_FILENO))
			return usage_err("refusing to write binary data to a terminal");
		fd = STDOUT_FILENO;
	} else {
		fd = create_file(output);
		if (fd < 0) {
			pr_errno(-fd, "create %s", output);
			return EXIT_FAIL;
		}
	}
	err = simgen_write(fd, target_word(&co.ta.t), log2, written);
	if (fd != STDOUT_FILENO && close(fd) && !err)
		err = -errno;
	if (err) {
		pr_errno(-err, "write %s", output);
		if (fd != STDOUT_FILENO)
			unlink(output);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
