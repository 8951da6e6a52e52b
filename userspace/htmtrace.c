// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: trace POWER Hardware Trace Macro units through /dev/htmN.
 *
 * This file holds the command table, the help texts and the option helpers
 * the commands share.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "htmtrace.h"

#define MODE_HELP \
	"      --mode MASK:VALUE the HTM mode CONFIGURE passes to the hypervisor\n" \
	"                        (default: its own default mode)\n"
#define TARGET_HELP \
	"  -t, --type TYPE       nest, core, llat, global or a number 0..255\n" \
	"  -n, --node NODE       node index, 0..65535\n" \
	"  -p, --chip CHIP       chip index on the node, 0..65535\n" \
	"  -c, --core CORE       core index on the chip, 0..65535\n"

#define DTL_RECORD_USAGE \
	"Usage: htmtrace dtl record [-C CPUS] [-e EVENTS] [--ring-kb N] [-d DEV]\n" \
	"                           -o FILE [--duration SECS | [--] COMMAND [ARG...]]\n"
#define DTL_REPORT_USAGE \
	"Usage: htmtrace dtl report FILE [--format text|csv|json]\n"

#define PROGRESS_HELP \
	"      --progress        show the progress of the read on standard\n" \
	"                        error even when it is not a terminal\n" \
	"      --no-progress     never show it (default: on a terminal, for a\n" \
	"                        read longer than a quarter of a second, the\n" \
	"                        bytes read of the buffer's size, MB/s and the\n" \
	"                        time left, updated 4 times a second)\n"
#define JSON_BLOCKS_HELP \
	"      --json            print one JSON object: what, source, bytes,\n" \
	"                        entries, entry_size and blocks, each with its\n" \
	"                        offset, size, entries, next (and hex)\n"
#define DEVICE_HELP \
	"  -d, --device DEV      channel device (default /dev/htm0; a number N\n" \
	"                        means /dev/htmN)\n"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *help;
};

static int cmd_dtl(int argc, char **argv);

static const struct command commands[] = {
	{ "record", cmd_record, "trace one HTM unit while a workload runs",
	  "Usage: htmtrace record -t TYPE -n NODE -p CHIP -c CORE [OPTIONS]\n"
	  "                       [--duration SECS | [--] COMMAND [ARG...]]\n"
	  "\n"
	  "Configure the channel for the target, start tracing, run COMMAND (or\n"
	  "sleep SECS, or wait for Ctrl-C), stop, read the whole trace into\n"
	  "DIR/htm.bin.nN.pP.cC.tT and the memory configuration into\n"
	  "DIR/translation.nN.pP.cC.tT (the files perf writes for htmdecode),\n"
	  "then deconfigure. The trace may end before the buffer (a no-wrap\n"
	  "trace stopped early): \"N bytes of a buffer of M\" says so.\n"
	  "A failure before the trace is taken deconfigures and removes the\n"
	  "files. After, nothing destroys the trace: if the copy fails (a full\n"
	  "disk, a read error) or Ctrl-C stops it, the trace file keeps what was\n"
	  "written, the channel stays configured and stopped, and the commands\n"
	  "that finish the job are printed (dump --offset, sysmem,\n"
	  "deconfigure); exit status 1. A second Ctrl-C ends the tool.\n"
	  "\n"
	  TARGET_HELP
	  DEVICE_HELP
	  "  -o, --output DIR      directory of the output files (default .)\n"
	  "      --nowrap          stop tracing when the HTM buffer is full (the\n"
	  "                        default)\n"
	  "      --wrap            wrap around instead: the dump is then in buffer\n"
	  "                        order, not time order\n"
	  MODE_HELP
	  "      --duration SECS   trace for SECS seconds, e.g. 2 or 0.5\n"
	  "      --bs SIZE         read() size (default 1M; K, M, G suffixes)\n"
	  PROGRESS_HELP
	  "      --dry-run         print the output file names and exit\n" },
	{ "dtl", cmd_dtl, NULL,
	  "Usage: htmtrace dtl record [OPTIONS] -o FILE [...]\n"
	  "       htmtrace dtl report FILE [--format text|csv|json]\n"
	  "\n"
	  "The dispatch trace log of shared-processor LPARs: why and when the\n"
	  "hypervisor dispatched and preempted each virtual processor, captured\n"
	  "from /dev/vpa_dtl by 'dtl record' and decoded by 'dtl report'.\n"
	  "Run 'htmtrace help dtl record' or 'htmtrace help dtl report' for\n"
	  "their options.\n" },
	{ "dtl record", cmd_dtl_record, "capture the dispatch trace log of CPUs",
	  DTL_RECORD_USAGE
	  "\n"
	  "Configure /dev/vpa_dtl for the CPUs and events, start, run COMMAND (or\n"
	  "sleep SECS, or wait for Ctrl-C) while copying the stream into FILE,\n"
	  "stop, copy the rest of the stream, print each CPU's counters (entries\n"
	  "copied, overwritten by the hypervisor before they were read, dropped\n"
	  "because the session's ring was full, timer wakeups) and deconfigure.\n"
	  "Ctrl-C ends the capture, also while COMMAND runs; COMMAND is then\n"
	  "still waited for; a second Ctrl-C stops the copy of the rest. A\n"
	  "failure before anything was captured removes FILE; after, a failure\n"
	  "(a full disk, a read error) or that second Ctrl-C keeps the whole\n"
	  "records written (exit status 1). Decode FILE with 'htmtrace dtl\n"
	  "report'.\n"
	  "\n"
	  "  -C, --cpus CPUS       CPUs to capture, e.g. 0-3,8 (default: every\n"
	  "                        CPU; a CPU that is offline joins when it comes\n"
	  "                        online)\n"
	  "  -e, --events EVENTS   cede, preempt, fault or all, comma-separated\n"
	  "                        (default all)\n"
	  "      --ring-kb N       the session's ring of records, 4..65536 KiB\n"
	  "                        (default: the driver's, 256)\n"
	  "  -d, --device DEV      the device (default /dev/vpa_dtl)\n"
	  "  -o, --output FILE     the stream, as read from the device\n"
	  "      --duration SECS   capture for SECS seconds, e.g. 2 or 0.5\n" },
	{ "dtl report", cmd_dtl_report, "decode a dispatch trace log capture",
	  DTL_REPORT_USAGE
	  "\n"
	  "Decode a stream written by 'htmtrace dtl record' (or by cat from\n"
	  "/dev/vpa_dtl): one line per entry with its time in seconds since\n"
	  "boot and on the wall clock (UTC, from the stream's CLOCK record), the\n"
	  "CPU, the dispatch and preempt reasons (a code perf does not name is\n"
	  "printed as a number), the processor id, the three wait times in\n"
	  "microseconds, the fault address and SRR0; loss and CPU records in\n"
	  "stream order; then a summary per CPU, per reason, and the loss.\n"
	  "Records of unknown types are skipped by their length. A truncated or\n"
	  "malformed record, or an entry before any CLOCK record (its timebase\n"
	  "cannot be converted), is an error: exit 1, nothing printed.\n"
	  "\n"
	  "      --format FORMAT   text (the default); csv: a header and one row\n"
	  "                        per record, no summary; json: one document\n"
	  "                        with \"clock\", \"records\" and \"summary\"\n" },
	{ "dump", cmd_dump, "read a stopped channel's trace",
	  "Usage: htmtrace dump [-d DEV] [-o FILE] [--offset BYTES] [--bs SIZE]\n"
	  "\n"
	  "Read the trace of a configured channel from offset 0 (or BYTES) until\n"
	  "the hypervisor says the data ends, into FILE or to standard output\n"
	  "(not a terminal). A channel that is still tracing is stopped by the\n"
	  "read, unless it was configured with --wait: then the read waits for\n"
	  "the trace to stop. If the dump fails after writing (a full disk, a\n"
	  "read error) or Ctrl-C stops it, FILE keeps what was written and the\n"
	  "command that resumes it is printed; exit status 1.\n"
	  "\n"
	  DEVICE_HELP
	  "  -o, --output FILE     output file (default: standard output)\n"
	  "      --offset BYTES    resume: read from offset BYTES, and write\n"
	  "                        after the first BYTES of FILE (which must\n"
	  "                        hold them; what follows is replaced)\n"
	  "      --bs SIZE         read() size (default 1M; K, M, G suffixes)\n"
	  PROGRESS_HELP },
	{ "sysmem", cmd_sysmem, "memory configuration blocks (translation data)",
	  "Usage: htmtrace sysmem [-t TYPE -n NODE -p CHIP -c CORE] [-d DEV]\n"
	  "                       [-o FILE | [--hex] [--json]]\n"
	  "       htmtrace sysmem -i FILE [--hex] [--json]\n"
	  "\n"
	  "Fetch the hypervisor's memory configuration blocks (H_HTM\n"
	  "DUMP_SYSMEM_CONF; what htmdecode reads as translation.*). With -o,\n"
	  "write the raw blocks to FILE; otherwise print each block's header:\n"
	  "entry count and next-entry iterator. The target defaults to all\n"
	  "zeros, as perf uses it.\n"
	  "\n"
	  TARGET_HELP
	  DEVICE_HELP
	  "  -o, --output FILE     write the raw blocks to FILE\n"
	  "  -i, --input FILE      decode FILE (e.g. translation.n0.p0.c0.t2)\n"
	  "                        instead of asking the device\n"
	  "      --hex             also dump each block in hex\n"
	  JSON_BLOCKS_HELP },
	{ "sysproc", cmd_sysproc, "processor configuration blocks",
	  "Usage: htmtrace sysproc [-t TYPE -n NODE -p CHIP -c CORE] [-d DEV]\n"
	  "                        [-o FILE | [--hex] [--json]]\n"
	  "       htmtrace sysproc -i FILE [--hex] [--json]\n"
	  "\n"
	  "Fetch the hypervisor's processor configuration blocks (H_HTM\n"
	  "DUMP_SYSPROC_CONF). With -o, write the raw blocks to FILE; otherwise\n"
	  "print each block's header: entry count and next-entry iterator.\n"
	  "\n"
	  TARGET_HELP
	  DEVICE_HELP
	  "  -o, --output FILE     write the raw blocks to FILE\n"
	  "  -i, --input FILE      decode FILE instead of asking the device\n"
	  "      --hex             also dump each block in hex\n"
	  JSON_BLOCKS_HELP },
	{ "configure", cmd_configure, "claim a target for a channel",
	  "Usage: htmtrace configure -t TYPE -n NODE -p CHIP -c CORE [-d DEV]\n"
	  "                          [--nowrap] [--wait] [--mode MASK:VALUE]\n"
	  "\n"
	  "Configure the channel for the target. The target is held by the\n"
	  "channel until 'htmtrace deconfigure'.\n"
	  "\n"
	  TARGET_HELP
	  DEVICE_HELP
	  "      --nowrap          stop tracing when the HTM buffer is full\n"
	  "      --wait            read() waits for the trace to stop instead\n"
	  "                        of stopping it\n"
	  MODE_HELP },
	{ "start", cmd_start, "start tracing",
	  "Usage: htmtrace start [-d DEV]\n"
	  "\n"
	  "Start tracing on a configured channel.\n"
	  "\n"
	  DEVICE_HELP },
	{ "stop", cmd_stop, "stop tracing",
	  "Usage: htmtrace stop [-d DEV]\n"
	  "\n"
	  "Stop tracing; the trace can then be read with 'htmtrace dump'.\n"
	  "\n"
	  DEVICE_HELP },
	{ "deconfigure", cmd_deconfigure, "release the channel's target",
	  "Usage: htmtrace deconfigure [-d DEV]\n"
	  "\n"
	  "Deconfigure the channel and release its target.\n"
	  "\n"
	  DEVICE_HELP },
	{ "setup", cmd_setup, "set the size of a target's HTM buffer",
	  "Usage: htmtrace setup -t TYPE -n NODE -p CHIP -c CORE -s LOG2 [-d DEV]\n"
	  "\n"
	  "Set the size of the target's HTM buffer to 2^LOG2 bytes (e.g. 33 for\n"
	  "8 GiB). On PowerVM the new size may take effect only after a CEC\n"
	  "reboot.\n"
	  "\n"
	  TARGET_HELP
	  "  -s, --log2 LOG2       buffer size as a power of two, 1..62\n"
	  DEVICE_HELP },
	{ "status", cmd_status, "show a channel's state",
	  "Usage: htmtrace status [-d DEV] [--json]\n"
	  "\n"
	  "Show the channel's state, target, flags and HTM buffer size (unknown\n"
	  "when the hypervisor's STATUS failed or gives none), where the trace\n"
	  "data ended if a read found its end (data size), and whether the\n"
	  "hypervisor refused the last stop.\n"
	  "\n"
	  DEVICE_HELP
	  "      --json            print one JSON object: device, state,\n"
	  "                        state_code, target (null when idle), flags,\n"
	  "                        flags_code, buffer_size (null when idle or\n"
	  "                        unknown), data_size (null unless known),\n"
	  "                        status_error (errno, 0 if none), stop_refused,\n"
	  "                        hv_flags_code\n" },
	{ "caps", cmd_caps, "show the hypervisor's HTM capabilities",
	  "Usage: htmtrace caps [-t TYPE -n NODE -p CHIP -c CORE] [-d DEV] [--json]\n"
	  "\n"
	  "Hex dump of the 128-byte H_HTM capabilities block. The target\n"
	  "defaults to all zeros.\n"
	  "\n"
	  TARGET_HELP
	  DEVICE_HELP
	  "      --json            print one JSON object: device, target, length\n"
	  "                        and the block as a string of hex digits\n" },
	{ "load", cmd_load, "load htmtrace.ko (and the simulator)",
	  "Usage: htmtrace load [--sim] [--dir DIR] [--root ROOT] [--dry-run]\n"
	  "                     [PARAM=VALUE...]\n"
	  "\n"
	  "Load htmtrace.ko, looking in this order:\n"
	  "  1. with --dir DIR, DIR/htmtrace.ko, as insmod loads a file;\n"
	  "  2. by name, as modprobe does: the module installed for the running\n"
	  "     kernel (DKMS, make install; /lib/modules/$(uname -r)/modules.dep)\n"
	  "     with the options of /etc/modprobe.d, unless modprobe.d\n"
	  "     blacklists it;\n"
	  "  3. /lib/modules/htmtrace/htmtrace.ko, else htmtrace.ko next to the\n"
	  "     htmtrace binary (an uninstalled build), as insmod.\n"
	  "With --sim (a test build, never installed) htmtrace.ko and the\n"
	  "hypervisor simulator htmtrace_hvsim.ko come from the directory of 1\n"
	  "or 3. A module already loaded is left as it is.\n"
	  "\n"
	  "PARAM=VALUE (or htmtrace.PARAM=VALUE) goes to htmtrace.ko, after the\n"
	  "options of modprobe.d; hvsim.PARAM=VALUE (or\n"
	  "htmtrace_hvsim.PARAM=VALUE) to the simulator.\n"
	  "\n"
	  "      --sim             also load htmtrace_hvsim.ko\n"
	  "      --dir DIR         directory of the .ko files\n"
	  "      --root ROOT       find the modules and the modprobe configuration\n"
	  "                        under ROOT instead of / (an image, a DESTDIR)\n"
	  "      --dry-run         print what would be loaded (insmod FILE\n"
	  "                        OPTIONS) and exit\n" },
	{ "unload", cmd_unload, "unload htmtrace.ko (and the simulator)",
	  "Usage: htmtrace unload [--sim]\n"
	  "\n"
	  "Unload htmtrace.ko; with --sim, unload htmtrace_hvsim.ko first.\n"
	  "A module that is not loaded is skipped. Unloading fails while a\n"
	  "channel is open or a perf event exists.\n"
	  "\n"
	  "      --sim             also unload htmtrace_hvsim.ko\n" },
	{ "verify", cmd_verify, "check a dump of the simulator",
	  "Usage: htmtrace verify [-t TYPE] [-n NODE] [-p CHIP] [-c CORE]\n"
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
	  "Usage: htmtrace simgen -t TYPE -n NODE [-p CHIP] [-c CORE] --log2 L\n"
	  "                       --written W -o FILE\n"
	  "\n"
	  "Developer aid: write what the simulator would dump from a buffer of\n"
	  "2^L bytes (L 7..32) after W records, to FILE ('-' for standard\n"
	  "output). Chip and core default to 0.\n"
	  "\n"
	  TARGET_HELP
	  "  -s, --log2 L          buffer size as a power of two\n"
	  "  -w, --written W       records written since START\n"
	  "  -o, --output FILE     output file\n" },
};

static const struct command *find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_usage(FILE *f)
{
	unsigned int i;

	fputs("Usage: htmtrace COMMAND [OPTIONS]\n"
	      "\n"
	      "Trace POWER Hardware Trace Macro (HTM) units through the\n"
	      "htmtrace driver's /dev/htmN channels, and capture the dispatch\n"
	      "trace log of CPUs through its /dev/vpa_dtl.\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].summary)
			fprintf(f, "  %-12s %s\n", commands[i].name,
				commands[i].summary);
	fputs("  help         show the options of a command\n"
	      "\n"
	      "Developer commands:\n"
	      "  simgen       write what the simulator would dump\n"
	      "\n"
	      "A target is -t TYPE -n NODE -p CHIP -c CORE: TYPE is nest, core,\n"
	      "llat, global or a number; indices are decimal or 0x hex.\n"
	      "-d DEV picks the channel: /dev/htm0 by default, N for /dev/htmN.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage error.\n"
	      "Run 'htmtrace help COMMAND' for the options of a command.\n", f);
}

static void print_cmd_help(FILE *f, const char *name)
{
	const struct command *cmd = find_command(name);

	if (cmd)
		fputs(cmd->help, f);
	fputs("  -h, --help            show this help\n", f);
}

/* "dtl record": a command of two words, if @argv starts with one. */
static const struct command *find_command2(int argc, char **argv)
{
	char name[64];

	if (argc < 2 || snprintf(name, sizeof(name), "%s %s", argv[0],
				 argv[1]) >= (int)sizeof(name))
		return NULL;
	return find_command(name);
}

static int cmd_help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc == 1) {
		print_usage(stdout);
		return EXIT_OK;
	}
	cmd = find_command2(argc - 1, argv + 1);
	if (cmd && argc == 3) {
		print_cmd_help(stdout, cmd->name);
		return EXIT_OK;
	}
	if (argc > 2)
		return usage_err("help takes one command name");
	if (!find_command(argv[1]))
		return usage_err("unknown command '%s'", argv[1]);
	print_cmd_help(stdout, argv[1]);
	return EXIT_OK;
}

/* "dtl" without a known second word. */
static int cmd_dtl(int argc, char **argv)
{
	if (argc < 2)
		return usage_err("missing dtl command: record or report");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_cmd_help(stdout, "dtl");
		return EXIT_OK;
	}
	return usage_err("unknown dtl command '%s': expected record or report",
			 argv[1]);
}

/* Handle -t, -n, -p or -c. Returns EXIT_OK or, after a message, EXIT_USAGE. */
static int target_opt(struct target_arg *ta, int opt, const char *arg)
{
	const char *name;
	__u32 *field;
	unsigned int bit;
	int err;

	switch (opt) {
	case 't':
		err = parse_type(arg, &ta->t.type);
		if (err == -ERANGE)
			return usage_err("HTM type '%s' out of range 0..255",
					 arg);
		if (err)
			return usage_err("unknown HTM type '%s': expected nest, core, llat, global or a number 0..255",
					 arg);
		ta->given |= TARGET_TYPE;
		return EXIT_OK;
	case 'n':
		name = "node";
		field = &ta->t.node;
		bit = TARGET_NODE;
		break;
	case 'p':
		name = "chip";
		field = &ta->t.chip;
		bit = TARGET_CHIP;
		break;
	case 'c':
		name = "core";
		field = &ta->t.core;
		bit = TARGET_CORE;
		break;
	default:
		return usage_err("internal error: option -%c", opt);
	}
	err = parse_index(arg, field);
	if (err == -ERANGE)
		return usage_err("%s index '%s' out of range 0..%u",
				 name, arg, HTMTRACE_INDEX_MAX);
	if (err)
		return usage_err("%s index '%s' is not a number", name, arg);
	ta->given |= bit;
	return EXIT_OK;
}

/* Check that the fields in @need were given. Returns EXIT_OK or EXIT_USAGE. */
int target_require(const struct target_arg *ta, unsigned int need)
{
	static const struct {
		unsigned int bit;
		const char *opt;
	} fields[] = {
		{ TARGET_TYPE, "-t TYPE" },
		{ TARGET_NODE, "-n NODE" },
		{ TARGET_CHIP, "-p CHIP" },
		{ TARGET_CORE, "-c CORE" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if ((need & fields[i].bit) && !(ta->given & fields[i].bit))
			return usage_err("missing target: %s is required",
					 fields[i].opt);
	return EXIT_OK;
}

/*
 * The one FILE operand of a command (at optind), read whole into *@bufp.
 * Returns EXIT_OK, or EXIT_USAGE or EXIT_FAIL after a message.
 */
int read_file_operand(int argc, char **argv, const char **file,
		      unsigned char **bufp, size_t *lenp)
{
	int err;

	if (optind == argc)
		return usage_err("missing FILE");
	if (optind + 1 < argc)
		return usage_err("unexpected argument '%s'", argv[optind + 1]);
	*file = argv[optind];
	err = read_file(*file, bufp, lenp);
	if (err) {
		pr_errno(-err, "read %s", *file);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Handle -d. Returns EXIT_OK or EXIT_USAGE. */
static int device_opt(char *buf, size_t len, const char *arg, int is_path)
{
	int err;

	if (!is_path)
		err = device_path(buf, len, arg);
	else if (!*arg)
		err = -EINVAL;
	else if ((size_t)snprintf(buf, len, "%s", arg) >= len)
		err = -ENAMETOOLONG;
	else
		err = 0;

	if (err == -ERANGE)
		return usage_err("channel number '%s' out of range", arg);
	if (err)
		return usage_err("bad device '%s'", arg);
	return EXIT_OK;
}

/* Report what getopt_long() did not accept. Returns EXIT_USAGE. */
static int bad_option(char **argv, int opt)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		return usage_err("option '%s' needs an argument", arg);
	/* --NAME=VALUE for a NAME without argument: optopt is NAME's value. */
	if (optopt && !strncmp(arg, "--", 2))
		return usage_err("option '%.*s' takes no argument",
				 (int)strcspn(arg, "="), arg);
	if (optopt && optopt != '?')
		return usage_err("unknown option '-%c'", optopt);
	return usage_err("unknown option '%s'", arg);
}

static int opts_stop(struct cmd_opts *co, int status)
{
	co->status = status;
	return OPTS_STOP;
}

/**
 * next_option() - the option loop of every command
 * @argc: number of the command's arguments
 * @argv: the command's arguments, the command name first
 * @optstring: as for getopt_long(), starting with ':' (or "+:")
 * @longopts: as for getopt_long()
 * @co: the shared options, zero-initialised by the caller
 *
 * Takes -t, -n, -p, -c and -d into @co, prints the help for -h and reports
 * what getopt_long() refuses; at the end of the options it refuses operands
 * unless @co->operands. Every other option is the command's own: it is
 * returned, with optarg set, for the command to handle.
 *
 * Return: the command's next own option; OPTS_END when the options are done
 * (optind indexes the first operand); OPTS_STOP when the command must end
 * with @co->status: EXIT_OK after the help, EXIT_USAGE after a message.
 */
int next_option(int argc, char **argv, const char *optstring,
		const struct option *longopts, struct cmd_opts *co)
{
	int opt;

	if (!co->dev[0])
		snprintf(co->dev, sizeof(co->dev), "%s", DEFAULT_DEVICE);
	while ((opt = getopt_long(argc, argv, optstring, longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 't':
		case 'n':
		case 'p':
		case 'c':
			if (target_opt(&co->ta, opt, optarg))
				return opts_stop(co, EXIT_USAGE);
			break;
		case 'd':
			if (device_opt(co->dev, sizeof(co->dev), optarg,
				       co->dev_is_path))
				return opts_stop(co, EXIT_USAGE);
			co->dev_given = 1;
			break;
		case 'h':
			print_cmd_help(stdout, cmd_name);
			return opts_stop(co, EXIT_OK);
		case ':':
		case '?':
			return opts_stop(co, bad_option(argv, opt));
		default:
			return opt;
		}
	}
	if (optind < argc && !co->operands)
		return opts_stop(co, usage_err("unexpected argument '%s'",
					       argv[optind]));
	return OPTS_END;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);

	cmd = find_command2(argc - 1, argv + 1);
	if (cmd) {
		/* The command's arguments start at its second word. */
		argc--;
		argv++;
	} else {
		cmd = find_command(argv[1]);
	}
	if (!cmd) {
		if (argv[1][0] == '-')
			return usage_err("unknown option '%s'", argv[1]);
		return usage_err("unknown command '%s'", argv[1]);
	}
	cmd_name = cmd->name;
	opterr = 0;
	return cmd->fn(argc - 1, argv + 1);
}
