// SPDX-License-Identifier: GPL-2.0
/*
 * htmcheck: the test helper that knows the simulator's trace records
 * (module/hvsim/hvsim_record.h), so that the htmtrace tool does not:
 *
 *   htmcheck verify [-t TYPE] [-n NODE] [-p CHIP] [-c CORE]
 *                   [--min-records N] [--buffer-size SIZE] FILE
 *   htmcheck simgen -t TYPE -n NODE [-p CHIP] [-c CORE] --log2 L
 *                   --written W -o FILE
 *
 * Built by tests/build.sh for the guest (guest-bin/htmcheck) and by
 * "make -C userspace htmcheck" for the host (the host suites), from this
 * file and the tool's option parsing and I/O helpers (opts.o, parse.o,
 * util.o). Never installed.
 *
 * verify: the simulator's records are a pure function of (target, seq) and
 * record seq lives in slot seq % nslots. A dump of nslots records after
 * "written" records is therefore fully determined by (target, nslots,
 * written). nslots is the dump size, or the buffer size the caller gives
 * for a dump that ends early; target and written are inferred from the
 * intact records, those equal to the record they claim to be, so that one
 * damaged record cannot change what the others are expected to hold.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "parse.h"
#include "util.h"
#include "hvsim_record.h"

/* Options with no short form, after those opts.h spells. */
enum {
	OPT_MIN_RECORDS = OPT_WAIT + 1,
	OPT_BUFFER_SIZE,
};

/* verify.c: simulated trace records. */
enum verify_status {
	VERIFY_OK,
	VERIFY_EMPTY,		/* the dump has no bytes */
	VERIFY_PARTIAL,		/* the size is not a multiple of a record */
	VERIFY_MISMATCH,	/* a slot does not hold what it should */
	VERIFY_TOO_BIG,		/* larger than the buffer, or a bad buffer size */
};

struct verify_result {
	enum verify_status status;
	__u64 nslots;		/* slots of the buffer */
	__u64 nrecords;		/* whole records the dump holds */
	size_t tail;		/* bytes of a last record cut short */
	__u64 written;		/* records written since START, inferred */
	__u64 valid;		/* slots holding their record */
	__u64 zero;		/* slots never written and zero */
	__u64 bad;		/* slots holding something else */
	__u64 target;		/* target word of the records */
	int have_target;
	int wrapped;
	/* The first slot that is wrong (status VERIFY_MISMATCH). */
	__u64 bad_offset;	/* byte offset of the slot */
	__u64 bad_byte;		/* byte offset of its first wrong byte */
	int bad_expect_zero;	/* the slot should be zero */
	__u64 bad_expect_seq;	/* else the record it should hold */
};

static void sim_slot_fill(unsigned char *rec, __u64 target, __u64 slot,
		   __u64 nslots, __u64 written);
static void verify_dump(const unsigned char *buf, size_t size,
		 const struct target_arg *filter, __u64 buffer_size,
		 struct verify_result *res);


/* The target word of simulated records (see hvsim_record.h). */
static __u64 target_word(const struct htmtrace_target *t)
{
	return hvsim_target_word(t->type, t->node, t->chip, t->core);
}

static void target_from_word(struct htmtrace_target *t, __u64 word)
{
	t->type = word & 0xff;
	t->core = (word >> 16) & 0xffff;
	t->chip = (word >> 32) & 0xffff;
	t->node = (word >> 48) & 0xffff;
}

/* Does a target word agree with every field the filter gives? */
static int target_matches(__u64 word, const struct target_arg *filter)
{
	struct htmtrace_target t;

	if (!filter)
		return 1;
	target_from_word(&t, word);
	if ((filter->given & TARGET_TYPE) && t.type != filter->t.type)
		return 0;
	if ((filter->given & TARGET_NODE) && t.node != filter->t.node)
		return 0;
	if ((filter->given & TARGET_CHIP) && t.chip != filter->t.chip)
		return 0;
	if ((filter->given & TARGET_CORE) && t.core != filter->t.core)
		return 0;
	return 1;
}

/* Fill @rec with what slot @slot holds after @written records. */
static void sim_slot_fill(unsigned char *rec, __u64 target, __u64 slot,
		   __u64 nslots, __u64 written)
{
	__u64 seq;

	if (hvsim_slot_seq(slot, nslots, written, &seq))
		hvsim_record_fill(rec, target, seq);
	else
		memset(rec, 0, HVSIM_RECORD_SIZE);
}

/*
 * Is @rec the intact record it claims to be, in the slot it belongs to?
 * Returns its target and sequence number if so.
 */
static int record_intact(const unsigned char *rec, __u64 slot, __u64 nslots,
			 __u64 *target, __u64 *seq)
{
	if (hvsim_record_get(rec, 0) != HVSIM_RECORD_MAGIC)
		return 0;
	*target = hvsim_record_get(rec, 1);
	*seq = hvsim_record_get(rec, 2);
	/* seq + 1 must not overflow: it is the count written. */
	if (*seq == UINT64_MAX || *seq % nslots != slot)
		return 0;
	return hvsim_record_equal(rec, *target, *seq);
}

/*
 * Pass 1: the target of the records and how many were written, from the
 * @nrec whole records the dump holds.
 */
static void infer_written(const unsigned char *buf, __u64 nrec,
			  const struct target_arg *filter,
			  struct verify_result *res)
{
	__u64 slot, target, seq;
	int have_seq = 0;

	for (slot = 0; slot < nrec; slot++) {
		const unsigned char *rec = buf + slot * HVSIM_RECORD_SIZE;

		if (!record_intact(rec, slot, res->nslots, &target, &seq))
			continue;
		if (!res->have_target) {
			if (!target_matches(target, filter))
				continue;
			res->target = target;
			res->have_target = 1;
		} else if (target != res->target) {
			continue;
		}
		if (!have_seq || seq >= res->written) {
			res->written = seq + 1;
			have_seq = 1;
		}
	}
}

/*
 * The record a dump cut short ends in was not used to infer the count
 * written: it may hold the record after the last one seen, if its slot is
 * where that one goes (one more lap would have overwritten records the
 * dump holds), or, if the dump holds no whole record, any record of its
 * slot (too short to tell which: its magic). The count written then
 * grows to include it.
 */
static int tail_is_next(const unsigned char *rec, size_t len, __u64 slot,
			const struct target_arg *filter,
			struct verify_result *res)
{
	unsigned char expect[HVSIM_RECORD_SIZE];
	__u64 target = res->target, seq = res->written;

	if (!res->written) {
		if (len < 3 * sizeof(__u64)) {
			hvsim_record_fill(expect, 0, slot);
			return !memcmp(rec, expect,
				       len < sizeof(__u64) ? len :
				       sizeof(__u64));
		}
		target = hvsim_record_get(rec, 1);
		seq = hvsim_record_get(rec, 2);
		if ((res->have_target && target != res->target) ||
		    !target_matches(target, filter))
			return 0;
	}
	if (seq == UINT64_MAX || seq % res->nslots != slot)
		return 0;
	hvsim_record_fill(expect, target, seq);
	if (memcmp(rec, expect, len))
		return 0;
	res->target = target;
	res->have_target = 1;
	res->written = seq + 1;
	res->wrapped = res->written > res->nslots;
	return 1;
}

/**
 * verify_dump() - check a simulator dump
 * @buf: the dump
 * @size: its size in bytes
 * @filter: target fields the records must have, or NULL
 * @buffer_size: the size of the HTM buffer dumped, or 0 if the dump is the
 *	whole buffer. With it, the dump may end before the buffer does (a
 *	trace whose data ended early, a dump cut short, even in a record):
 *	what it holds is checked against the buffer's slots.
 * @res: out: counts, the inferred target and written count, and the first
 *	wrong slot
 *
 * Every slot must hold exactly the record the simulator would have left
 * there, or zeros if it was never written.
 */
static void verify_dump(const unsigned char *buf, size_t size,
		 const struct target_arg *filter, __u64 buffer_size,
		 struct verify_result *res)
{
	unsigned char expect[HVSIM_RECORD_SIZE];
	__u64 slot, nrec;
	size_t len, tail;
	unsigned int i;

	memset(res, 0, sizeof(*res));
	if (!size) {
		res->status = VERIFY_EMPTY;
		return;
	}
	tail = size % HVSIM_RECORD_SIZE;
	if (buffer_size && (buffer_size % HVSIM_RECORD_SIZE ||
			    size > buffer_size)) {
		res->status = VERIFY_TOO_BIG;
		return;
	}
	if (tail && !buffer_size) {
		res->status = VERIFY_PARTIAL;
		res->bad_offset = size - tail;
		res->bad_byte = res->bad_offset;
		return;
	}
	res->nrecords = size / HVSIM_RECORD_SIZE;
	res->tail = tail;
	res->nslots = buffer_size ? buffer_size / HVSIM_RECORD_SIZE :
				    res->nrecords;
	if (filter && filter->given == TARGET_ALL) {
		res->target = target_word(&filter->t);
		res->have_target = 1;
	}

	infer_written(buf, res->nrecords, filter, res);
	res->wrapped = res->written > res->nslots;

	nrec = res->nrecords + (tail ? 1 : 0);
	for (slot = 0; slot < nrec; slot++) {
		const unsigned char *rec = buf + slot * HVSIM_RECORD_SIZE;

		/* The last record of a dump cut short: its leading bytes. */
		len = slot < res->nrecords ? HVSIM_RECORD_SIZE : tail;
		sim_slot_fill(expect, res->target, slot, res->nslots,
			      res->written);
		if (len < HVSIM_RECORD_SIZE && memcmp(rec, expect, len) &&
		    tail_is_next(rec, len, slot, filter, res))
			continue;
		if (!memcmp(rec, expect, len)) {
			if (len < HVSIM_RECORD_SIZE)
				continue;
			if (slot < res->written)
				res->valid++;
			else
				res->zero++;
			continue;
		}
		if (res->bad++)
			continue;
		for (i = 0; rec[i] == expect[i]; i++)
			;
		res->bad_offset = slot * HVSIM_RECORD_SIZE;
		res->bad_byte = res->bad_offset + i;
		res->bad_expect_zero = !hvsim_slot_seq(slot, res->nslots,
						       res->written,
						       &res->bad_expect_seq);
	}
	res->status = res->bad ? VERIFY_MISMATCH : VERIFY_OK;
}

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

static int cmd_verify(int argc, char **argv)
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

static int cmd_simgen(int argc, char **argv)
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

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *help;
};

#define TARGET_HELP \
	"  -t, --type TYPE       nest, core, llat, global or a number 0..255\n" \
	"  -n, --node NODE       node index, 0..65535\n" \
	"  -p, --chip CHIP       chip index on the node, 0..65535\n" \
	"  -c, --core CORE       core index on the chip, 0..65535\n"

static const struct command commands[] = {
	{ "verify", cmd_verify, "check a dump of the simulator",
	  "Usage: htmcheck verify [-t TYPE] [-n NODE] [-p CHIP] [-c CORE]\n"
	  "                       [--min-records N] [--buffer-size SIZE] FILE\n"
	  "\n"
	  "Check a dump of the hypervisor simulator byte for byte. The size must\n"
	  "be a multiple of 128 (one record); the target and the number of\n"
	  "records written are inferred from the intact records, and every slot\n"
	  "must hold exactly the record the simulator leaves there, or zeros if\n"
	  "it was never written. Target options force those fields. A trace\n"
	  "that ended before its buffer filled gives a shorter dump: it is\n"
	  "checked as it is; with --buffer-size, also one cut short (a kept\n"
	  "partial dump), even within a record, or of a wrapped trace.\n"
	  "Exit status 0 if the dump is good, 1 at the first wrong record.\n"
	  "\n"
	  TARGET_HELP
	  "      --min-records N   fail unless at least N records are valid\n"
	  "      --buffer-size SIZE  the size of the buffer dumped (K, M, G\n"
	  "                        suffixes): FILE may hold less, and every\n"
	  "                        byte it holds must be right\n" },
	{ "simgen", cmd_simgen, NULL,
	  "Usage: htmcheck simgen -t TYPE -n NODE [-p CHIP] [-c CORE] --log2 L\n"
	  "                       --written W -o FILE\n"
	  "\n"
	  "Write what the simulator would dump from a buffer of\n"
	  "2^L bytes (L 7..32) after W records, to FILE ('-' for standard\n"
	  "output). Chip and core default to 0.\n"
	  "\n"
	  TARGET_HELP
	  "  -s, --log2 L          buffer size as a power of two\n"
	  "  -w, --written W       records written since START\n"
	  "  -o, --output FILE     output file\n" },
};

static void usage(FILE *f)
{
	fputs("Usage: htmcheck verify [OPTIONS] FILE\n"
	      "       htmcheck simgen [OPTIONS] -o FILE\n"
	      "\n"
	      "Test helper: check a dump of the htmtrace hypervisor simulator\n"
	      "byte for byte (verify), or write what the simulator would dump\n"
	      "(simgen). Run 'htmcheck COMMAND --help' for the options.\n", f);
}

int main(int argc, char **argv)
{
	unsigned int i;

	prog_name = "htmcheck";
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(commands[i].name, argv[1]))
			continue;
		cmd_name = commands[i].name;
		cmd_help = commands[i].help;
		opterr = 0;
		return commands[i].fn(argc - 1, argv + 1);
	}
	return usage_err("unknown command '%s': expected verify or simgen",
			 argv[1]);
}
