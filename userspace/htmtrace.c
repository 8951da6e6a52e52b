// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: trace POWER Hardware Trace Macro units through /dev/htmN.
 *
 * This file only dispatches: the command table, the help texts and main().
 * The option loop the commands share is in opts.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dtl_svg.h"
#include "util.h"

#define MODE_HELP \
	"      --mode MASK:VALUE the HTM mode CONFIGURE passes to the hypervisor\n" \
	"                        (default: its own default mode)\n"
#define TARGET_HELP \
	"  -t, --type TYPE       nest, core, llat, global or a number 0..255\n" \
	"  -n, --node NODE       node index, 0..65535\n" \
	"  -p, --chip CHIP       chip index on the node, 0..65535\n" \
	"  -c, --core CORE       core index on the chip, 0..65535\n"

#define DTL_RECORD_USAGE \
	"Usage: htmtrace dtl record [-C CPUS] [-e EVENTS] [--ring-kb N]\n" \
	"                           [--latency MS] [-d DEV] -o FILE|-\n" \
	"                           [--duration SECS | [--] COMMAND [ARG...]]\n"
#define DTL_REPORT_USAGE \
	"Usage: htmtrace dtl report [-i] FILE|- [--format text|csv|json|jsonl|svg]\n" \
	"                           [-C CPUS] [--time START,END] [-o OUT]\n" \
	"                           [--header | --header-only] [--summary]\n" \
	"                           [--min-wait TIME] [--preempt REASONS]\n" \
	"                           [--dispatch REASONS] [--worst N]\n" \
	"                           [-F FIELDS] [--reltime] [--window MS]\n"
#define DTL_TOP_USAGE \
	"Usage: htmtrace dtl top [-C CPUS] [-I SECS] [-n COUNT] [--json] [-d DEV]\n" \
	"       htmtrace dtl top --input FILE [-C CPUS] [-I SECS] [-n COUNT] [--json]\n"

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
	{ "record", cmd_record, "trace HTM units while a workload runs",
	  "Usage: htmtrace record -t TYPE -n NODE -p CHIP -c CORE [OPTIONS]\n"
	  "                       [--duration SECS | [--] COMMAND [ARG...]]\n"
	  "\n"
	  "Configure a channel for the target, start tracing, run COMMAND (or\n"
	  "sleep SECS, or wait for Ctrl-C), stop, read the whole trace into\n"
	  "DIR/htm.bin.nN.pP.cC.tT and the memory configuration into\n"
	  "DIR/translation.nN.pP.cC.tT (the files perf writes for htmdecode),\n"
	  "then deconfigure. The trace may end before the buffer (a no-wrap\n"
	  "trace stopped early): \"N bytes of a buffer of M\" says so. A\n"
	  "COMMAND that fails makes the exit status its own (128 + the signal\n"
	  "that killed it), as perf record's, once the trace is taken.\n"
	  "Several targets: each of -t -n -p -c takes a list (0-7, 0,2,8-11,\n"
	  "core,llat) and may be repeated; every combination is a target (at\n"
	  "most 64), each on a free channel of its own (or the -d given once\n"
	  "per target), all started together, stopped together, and each read\n"
	  "into its own two files. Too few free channels or a busy target:\n"
	  "the error names the target and nothing is left configured.\n"
	  "A failure before the trace is taken deconfigures and removes the\n"
	  "files. After, nothing destroys the trace: if the copy fails (a full\n"
	  "disk, a read error) or Ctrl-C stops it, the trace file keeps what was\n"
	  "written, the channel stays configured and stopped, and the commands\n"
	  "that finish the job are printed (dump --offset, sysmem,\n"
	  "deconfigure), for each target; exit status 1. A second Ctrl-C ends\n"
	  "the tool.\n"
	  "\n"
	  "  -t, --type TYPES      nest, core, llat, global or a number 0..255\n"
	  "  -n, --node NODES      node indices, 0..65535, e.g. 0 or 0-1\n"
	  "  -p, --chip CHIPS      chip indices on the node, 0..65535\n"
	  "  -c, --core CORES      core indices on the chip, 0..65535, e.g. 0-7\n"
	  "  -d, --device DEV      the channel of a target, once per target (a\n"
	  "                        number N means /dev/htmN; default: the first\n"
	  "                        free channels)\n"
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
	  "       htmtrace dtl report FILE|- [OPTIONS]\n"
	  "       htmtrace dtl top [OPTIONS]\n"
	  "\n"
	  "The dispatch trace log of shared-processor LPARs: why and when the\n"
	  "hypervisor dispatched and preempted each virtual processor, captured\n"
	  "from /dev/vpa_dtl by 'dtl record', decoded or drawn by 'dtl report',\n"
	  "watched live by 'dtl top'. Run 'htmtrace help dtl record' (or\n"
	  "report, top) for their options.\n" },
	{ "dtl record", cmd_dtl_record, "capture the dispatch trace log of CPUs",
	  DTL_RECORD_USAGE
	  "\n"
	  "Configure /dev/vpa_dtl for the CPUs and events, start, run COMMAND (or\n"
	  "sleep SECS, or wait for Ctrl-C) while copying the stream into FILE,\n"
	  "stop, copy the rest of the stream, print each CPU's counters (entries\n"
	  "copied, overwritten by the hypervisor before they were read, dropped\n"
	  "because the session's ring was full, timer wakeups, captures folded\n"
	  "into another's waiting records) and deconfigure.\n"
	  "Ctrl-C ends the capture, also while COMMAND runs; COMMAND is then\n"
	  "still waited for; a second Ctrl-C stops the copy of the rest. FILE\n"
	  "is written under a temporary name and renamed once something was\n"
	  "captured: a failure before that leaves what FILE held as it was;\n"
	  "after, a failure (a full disk, a read error) or that second Ctrl-C\n"
	  "keeps the whole records written (exit status 1). A COMMAND that\n"
	  "fails makes the exit status its own (128 + the signal that killed\n"
	  "it), as perf record's, once the capture is taken. Decode FILE with\n"
	  "'htmtrace dtl report'.\n"
	  "\n"
	  "  -C, --cpus CPUS       CPUs to capture, e.g. 0-3,8 (default: every\n"
	  "                        CPU; a CPU that is offline joins when it comes\n"
	  "                        online)\n"
	  "      --cpu CPUS        the same (perf's name)\n"
	  "  -e, --events EVENTS   cede, preempt, fault or all, comma-separated\n"
	  "                        (default all)\n"
	  "      --ring-kb N       the session's ring of records, 4..65536 KiB\n"
	  "                        (default: the driver's, 256)\n"
	  "      --latency MS      bound the delay of an entry: flush every CPU's\n"
	  "                        log into the stream at least every MS\n"
	  "                        milliseconds, 1..60000, so that no entry\n"
	  "                        reaches FILE later than MS after it was logged\n"
	  "                        (plus the read); 0: no flush (default: the\n"
	  "                        driver's poll period bounds it, 200 ms on an\n"
	  "                        idle CPU)\n"
	  "  -d, --device DEV      the device (default /dev/vpa_dtl)\n"
	  "  -o, --output FILE     a file header (when, host, LPAR, kernel, CPUs,\n"
	  "                        events, ring, command line), then the stream\n"
	  "                        as read from the device; - for standard\n"
	  "                        output (the counters, and COMMAND's output,\n"
	  "                        then go to standard error)\n"
	  "      --duration SECS   capture for SECS seconds, e.g. 2 or 0.5\n" },
	{ "dtl report", cmd_dtl_report, "decode a dispatch trace log capture",
	  DTL_REPORT_USAGE
	  "\n"
	  "Decode a stream written by 'htmtrace dtl record' (or by cat from\n"
	  "/dev/vpa_dtl; - reads standard input): one line per entry, in time\n"
	  "order (a file's CPUs merged through a window of 2^20 records), with\n"
	  "its time in seconds since boot and on the wall clock (UTC, from the\n"
	  "stream's CLOCK record), the CPU, the dispatch and preempt reasons (a\n"
	  "code perf does not name is printed as a number), the processor id,\n"
	  "the three wait times in microseconds, the fault address and SRR0;\n"
	  "loss and CPU records at the time of their CPU's entry before them\n"
	  "(for a CPU with none, the time settled when they come, or that of\n"
	  "the CPU's next entry if earlier; see --window);\n"
	  "then a summary per CPU, per reason, the dispatch wait's p50, p90,\n"
	  "p99 and max per CPU and per reason (nearest rank; exact below 512\n"
	  "ticks, else within 0.4%), and the loss.\n"
	  "Records of unknown types are skipped by their length. A file cut\n"
	  "short or a malformed record: what comes before it is reported, then\n"
	  "where and why the report stops (on standard error, and in the\n"
	  "summary), exit 1. A file that is not a capture (a perf.data, an\n"
	  "htm.bin), whose first record is damaged, or with an entry before any\n"
	  "CLOCK record (its timebase cannot be converted): exit 1, nothing\n"
	  "printed. The file header that dtl record writes first (when, host,\n"
	  "LPAR, kernel, CPUs, events, ring, command line) is printed by\n"
	  "--header, and is in the json and jsonl output; a capture without it\n"
	  "is read as well.\n"
	  "\n"
	  "A pipe (htmtrace dtl record -o - | htmtrace dtl report -), a FIFO or\n"
	  "a device is reported as its records arrive, in the same order and\n"
	  "bytes as the same capture in a file: a record is printed once every\n"
	  "CPU has shown a later time, or once it is the window (--window)\n"
	  "behind the newest time seen. --summary, --worst and the end of the\n"
	  "report come when the pipe ends; the picture and --time in percents\n"
	  "first copy it whole into a temporary file (in $TMPDIR or /tmp).\n"
	  "\n"
	  "The svg format draws the capture as one self-contained SVG (no\n"
	  "script, no external resource): a lane per CPU over time (seconds\n"
	  "since boot and UTC), the time dispatched coloured by dispatch reason,\n"
	  "the time not dispatched by preempt reason, LOST records and CPUs\n"
	  "going offline and joining marked; then per CPU histograms of the\n"
	  "dispatch wait (enqueue_to_dispatch) and the ready-to-dispatch delay\n"
	  "(ready_to_enqueue + enqueue_to_dispatch) on a log scale, and the\n"
	  "count of each reason. Above 600 entries on a CPU, intervals are\n"
	  "aggregated per pixel column (the picture says so): the file is at\n"
	  "most 256 KiB + 512 KiB per CPU, whatever the capture's length.\n"
	  "\n"
	  "      --format FORMAT   text (the default); csv: a header and one row\n"
	  "                        per record, then the wait rows; json: one\n"
	  "                        document with \"clock\", \"records\" and\n"
	  "                        \"summary\"; jsonl: one record a line, the\n"
	  "                        summary last; svg: the picture\n"
	  "  -i, --input FILE      FILE, as perf report -i\n"
	  "  -C, --cpu CPUS        only these CPUs, e.g. 0-3,8 (one the capture\n"
	  "                        lacks is said; none of them: exit 1)\n"
	  "      --cpus CPUS       the same (dtl record's and dtl top's name)\n"
	  "      --time START,END  only from START to END seconds since boot,\n"
	  "                        e.g. 1000.5,1002 (either may be left out), or\n"
	  "                        percents of the capture, 0%-10%,50%-60%;\n"
	  "                        several --time: any of their ranges\n"
	  "      --min-wait TIME   only entries whose dispatch wait is at least\n"
	  "                        TIME, e.g. 1ms, 500us, 0.002 (seconds)\n"
	  "      --preempt REASONS only entries of these preempt reasons, perf's\n"
	  "                        names or codes, e.g. H_CEDE,time_slice\n"
	  "      --dispatch REASONS\n"
	  "                        only entries of these dispatch reasons\n"
	  "      --worst N         only the N entries of the longest dispatch\n"
	  "                        waits, longest first (the earlier of equal\n"
	  "                        ones first), then the summary of all\n"
	  "  -F, --fields FIELDS   the entries only, each as these of the csv\n"
	  "                        columns in this order, as perf script -F\n"
	  "                        (e.g. seconds,cpu,preempt,\n"
	  "                        enqueue_to_dispatch_us; text and csv)\n"
	  "      --reltime         times from the first record printed\n"
	  "      --window MS       a pipe's record waits for older ones at most\n"
	  "                        MS milliseconds of the capture's time behind\n"
	  "                        the newest (default 1000: the driver\n"
	  "                        delivers within 200 ms, or its dtl_period_us);\n"
	  "                        in a file too, the time settled for a loss or\n"
	  "                        CPU record of a CPU with no entry before it\n"
	  "  -o, --output OUT      write to OUT instead of standard output\n"
	  "                        (created only once FILE is found readable;\n"
	  "                        never FILE itself; replaced only by a whole\n"
	  "                        report: a failure leaves what it held; a\n"
	  "                        FIFO or /dev/null is written in place)\n"
	  "      --header          print the file header first, as perf report\n"
	  "                        --header (text format)\n"
	  "      --header-only     print the file header only\n"
	  "      --summary         no records: per CPU its dispatches, the time\n"
	  "                        they span and the share of it not dispatched,\n"
	  "                        dispatches a second, the dispatch wait's p50,\n"
	  "                        p90, p99 and max, the losses; its dispatches\n"
	  "                        by preempt reason (cedes, confers, time\n"
	  "                        slices) and by dispatch reason, with rates\n"
	  "                        (text, csv, json, jsonl)\n" },
	{ "dtl top", cmd_dtl_top, "watch the dispatch trace log live",
	  DTL_TOP_USAGE
	  "\n"
	  "Configure /dev/vpa_dtl for the CPUs (all events) and start; every\n"
	  "interval, flush the CPUs' logs and print a line per CPU: dispatches,\n"
	  "preempts, cedes and faults per second (an entry is a dispatch; its\n"
	  "preempt reason H_CEDE counts as a cede, a page fault as a fault,\n"
	  "anything else as a preempt), the share of the interval the CPU was\n"
	  "not dispatched (notdisp%, the entries' three waits; a wait longer than\n"
	  "the interval fills it, the rest carried into the next), the mean and the\n"
	  "largest dispatch wait (enqueue_to_dispatch) in microseconds, and the\n"
	  "entries lost. On a terminal the screen is redrawn; elsewhere a block\n"
	  "per interval. Ctrl-C ends it: stopped, deconfigured, exit status 0.\n"
	  "With --input, a capture of dtl record is replayed instead, interval\n"
	  "by interval of its records' time from the first (as perf stat -I),\n"
	  "the last as long as its records go; no device is used.\n"
	  "\n"
	  "  -C, --cpus CPUS       CPUs to watch, e.g. 0-3,8 (default: every CPU)\n"
	  "      --cpu CPUS        the same (perf's name)\n"
	  "  -I, --interval SECS   seconds between reports, 0.1..3600 (default 1),\n"
	  "                        as perf stat -I; -i is its older name\n"
	  "  -n, --count COUNT     end after COUNT reports (default: Ctrl-C)\n"
	  "      --json            a JSON object per interval, one a line\n"
	  "      --input FILE      replay FILE, a capture (- for standard input)\n"
	  "  -d, --device DEV      the device (default /dev/vpa_dtl)\n" },
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
	{ "translation", cmd_translation,
	  "write the translation files of perf's HTM traces",
	  "Usage: htmtrace translation [-d DEV] [--dry-run] [DIR]\n"
	  "\n"
	  "Write translation.nN.pP.cC beside each htm.bin.nN.pP.cC in DIR (by\n"
	  "default the current directory): the trace files 'perf report' writes\n"
	  "with IBM's perf HTM series, whose translation files, for htmdecode,\n"
	  "perf writes only from samples that the htmtrace driver's htm PMU\n"
	  "cannot emit. Each file holds the hypervisor's memory configuration\n"
	  "blocks (H_HTM DUMP_SYSMEM_CONF, asked of target 0, as the PMU does),\n"
	  "back to back, as 'htmtrace record' writes them; run it on the LPAR\n"
	  "the trace was taken on, before its memory changes. Written under a\n"
	  "temporary name and renamed: a file that exists is replaced whole.\n"
	  "The files of 'htmtrace record' (htm.bin.nN.pP.cC.tT) have theirs.\n"
	  "\n"
	  DEVICE_HELP
	  "      --dry-run         print the names of the files and exit\n" },
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
	{ "load", cmd_load, "load htmtrace.ko (--sim: a test build and its simulator)",
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
	  "With --sim (a test build, never installed) the hypervisor simulator\n"
	  "htmtrace_hvsim.ko, then htmtrace.ko backend=sim, come from the\n"
	  "directory of 1 or 3. A module already loaded is left as it is.\n"
	  "\n"
	  "PARAM=VALUE (or htmtrace.PARAM=VALUE) goes to htmtrace.ko, after the\n"
	  "options of modprobe.d; hvsim.PARAM=VALUE (or\n"
	  "htmtrace_hvsim.PARAM=VALUE) to the simulator.\n"
	  "\n"
	  "      --sim             load htmtrace_hvsim.ko first, and htmtrace.ko\n"
	  "                        with backend=sim\n"
	  "      --dir DIR         directory of the .ko files\n"
	  "      --root ROOT       find the modules and the modprobe configuration\n"
	  "                        under ROOT instead of / (an image, a DESTDIR)\n"
	  "      --dry-run         print what would be loaded (insmod FILE\n"
	  "                        OPTIONS) and exit\n" },
	{ "unload", cmd_unload, "unload htmtrace.ko (--sim: the simulator too)",
	  "Usage: htmtrace unload [--sim]\n"
	  "\n"
	  "Unload htmtrace.ko; with --sim, then htmtrace_hvsim.ko.\n"
	  "A module that is not loaded is skipped. Unloading fails while a\n"
	  "device is open or configured, or a perf event exists.\n"
	  "\n"
	  "      --sim             also unload htmtrace_hvsim.ko\n" },
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
	      "A target is -t TYPE -n NODE -p CHIP -c CORE: TYPE is nest, core,\n"
	      "llat, global or a number; indices are decimal or 0x hex.\n"
	      "-d DEV picks the channel: /dev/htm0 by default, N for /dev/htmN.\n"
	      "\n"
	      "'htmtrace --version' (-V) prints the versions of the tool and of\n"
	      "the loaded module.\n"
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

static int help_command(int argc, char **argv)
{
	const struct command *cmd;

	if (argc == 1) {
		print_usage(stdout);
		return EXIT_OK;
	}
	/* The synopsis lists "help [command]": help is a command too. */
	if (argc == 2 && !strcmp(argv[1], "help")) {
		fputs("Usage: htmtrace help [COMMAND]\n"
		      "\n"
		      "Without a COMMAND, the list of commands (as htmtrace --help);\n"
		      "with one (e.g. 'htmtrace help dtl record'), its options.\n", stdout);
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
		return usage_err("missing dtl command: record, report or top");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_cmd_help(stdout, "dtl");
		return EXIT_OK;
	}
	return usage_err("unknown dtl command '%s': expected record, report or top",
			 argv[1]);
}

/* The loaded module's version (TOOL_VERSION: commands.h). */
#define MODULE_VERSION_PATH	"/sys/module/htmtrace/version"

/*
 * --version: the tool's and the loaded module's, which may differ (a
 * module from DKMS, a tool from elsewhere): the ABI's commands decide
 * what works, and a command the module lacks fails with ENOTTY.
 */
static int print_version(void)
{
	char buf[64];
	ssize_t n = -1;
	int fd;

	printf("htmtrace %s\n", TOOL_VERSION);
	fd = open(MODULE_VERSION_PATH, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("module htmtrace %s\n", buf);
		if (strcmp(buf, TOOL_VERSION))
			fprintf(stderr, "htmtrace: the loaded module is version %s, this tool %s: a command the module lacks fails with ENOTTY\n",
				buf, TOOL_VERSION);
	} else if (!access("/sys/module/htmtrace", F_OK)) {
		printf("module htmtrace loaded, version unknown (no %s: a module older than 0.1)\n",
		       MODULE_VERSION_PATH);
	} else {
		printf("module htmtrace not loaded (htmtrace load)\n");
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			return usage_err("--version takes no argument");
		return print_version();
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help_command(argc - 1, argv + 1);

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
	cmd_help = cmd->help;
	opterr = 0;
	return cmd->fn(argc - 1, argv + 1);
}
