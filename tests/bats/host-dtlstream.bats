#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# shellcheck disable=SC2016,SC2002 # bash -c scripts; cat makes a pipe
#
# Host tests of htmtrace dtl report reading a pipe (issue 42 item 7): the
# records are printed as they arrive, merged in time order through a
# window bounded by time (userspace/dtl_merge.c, report_pipe()), with the
# same bytes as the report of the same capture in a file; a damaged
# stream or one cut short is reported up to the damage, then said, exit 1.
# Captures come from tests/dtlgen.py and from records written here.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# Debian's interpreter: a python3 shim (pyenv, ...) costs 0.2 s a call.
	PY=python3
	[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
	export TOP PY
	make -s -C "$TOP/userspace" O="$TOP/build/host" all >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	# A capture of 4 CPUs over 2 s (340 KB, some reads of a pipe), with a
	# loss, a CPU offline for 0.5 s, and the file header dtl record writes.
	"$PY" "$TOP/tests/dtlgen.py" "$BATS_FILE_TMPDIR/g.bin" --cpus 4 \
		--entries 6000 --lost 1:0.5:7 --offline 2:0.7:1.2
	withheader "$BATS_FILE_TMPDIR/g.bin" "$BATS_FILE_TMPDIR/cap.bin"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	CAP=$BATS_FILE_TMPDIR/cap.bin
}

htm() {
	"$HTMTRACE" "$@"
}

# withheader IN OUT: IN after a file header record as dtl record writes
# one (userspace/dtl_header.c: type 0x8000, "HTMTRDTL", version 1, then
# "key\0value\0" pairs and NULs to a multiple of 8).
withheader() {
	"$PY" -c '
import struct, sys
kv = b"captured_on\0002025-12-05T00:00:00Z\0hostname\0lpar7\0cpus\0all\0"
body = b"HTMTRDTL" + struct.pack("<II", 1, 0) + kv + b"\0"
body += bytes(-(len(body) + 8) % 8)
out = struct.pack("<HHI", 0x8000, len(body) + 8, 0xffffffff) + body
out += open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(out)
' "$1" "$2"
}

# recs FILE: the records described on stdin, one a line, at a 1 MHz
# timebase (or FREQ Hz) whose 0 is at 1000 s since boot:
#   clock [FREQ]       entry CPU MICROSECONDS (ticks)      joined CPU
#   lost CPU COUNT (overwritten)
recs() {
	"$PY" -c '
import struct, sys
out = bytearray()
for line in sys.stdin:
    w = line.split()
    if w[0] == "clock":
        freq = int(w[1]) if len(w) > 1 else 10**6
        out += struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, freq, 0,
                           995 * 10**9, 1000 * 10**9, 1764892800 * 10**9)
    elif w[0] == "entry":
        out += struct.pack("<HHI", 2, 56, int(w[1]))
        out += struct.pack(">BBHIIIQQQQ", 0, 2, int(w[1]), 5, 0, 0,
                           int(w[2]), 0, 0, 0)
    elif w[0] == "joined":
        out += struct.pack("<HHIIi", 4, 16, int(w[1]), 1, 0)
    elif w[0] == "lost":
        out += struct.pack("<HHIIIQ", 3, 24, int(w[1]), 1, 0, int(w[2]))
open(sys.argv[1], "wb").write(out)
' "$1"
}

# wait_for FILE TEXT: until FILE has a line TEXT; 60 s bound a failure.
wait_for() {
	local i

	for ((i = 0; i < 600; i++)); do
		grep -qxF -- "$2" "$1" && return 0
		sleep 0.1
	done
	echo "no line '$2' in $1 after 60 s:" >&2
	cat "$1" >&2
	return 1
}

# in_two ONE TWO LINE ARGS...: report a FIFO (ARGS its options) into
# got.txt and got.err, written ONE, then, once the report has printed the
# line LINE, TWO; $status is the report's.
in_two() {
	local one=$1 two=$2 line=$3 pid
	shift 3
	rm -f in.fifo
	mkfifo in.fifo
	htm dtl report in.fifo "$@" >got.txt 2>got.err 3>&- &
	pid=$!
	exec 5>in.fifo
	cat "$one" >&5
	if ! wait_for got.txt "$line"; then
		exec 5>&-
		wait "$pid" || true
		return 1
	fi
	# Nothing of TWO yet: what was printed before it came.
	cp got.txt before.txt
	cat "$two" >&5
	exec 5>&-
	status=0
	wait "$pid" || status=$?
}

# in_parts PART... -- ARGS...: report a FIFO (ARGS its options) into
# got.txt and got.err, each PART written in one write once the report has
# read the one before (the FIFO is empty again; 60 s bound a failure), so
# that each comes in a read of its own; $status is the report's.
in_parts() {
	local parts=() pid
	while [ "$1" != -- ]; do
		parts+=("$1")
		shift
	done
	shift
	rm -f in.fifo
	mkfifo in.fifo
	htm dtl report in.fifo "$@" >got.txt 2>got.err 3>&- &
	pid=$!
	if ! "$PY" -c '
import fcntl, os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_WRONLY)
for i, name in enumerate(sys.argv[2:]):
    for _ in range(6000):
        if not struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, bytes(4)))[0]:
            break
        time.sleep(0.01)
    else:
        sys.exit("the report has not read %s after 60 s" % sys.argv[i + 1])
    data = open(name, "rb").read()
    if os.write(fd, data) != len(data):
        sys.exit("short write")
' in.fifo "${parts[@]}"; then
		wait "$pid" || true
		return 1
	fi
	status=0
	wait "$pid" || status=$?
}

# times FILE: the times of FILE's entries, space-separated.
times() {
	awk '/^[0-9].* cpu=/ { printf "%s%s", sep, $1; sep = " " } END { print "" }' "$1"
}

@test "report of a FIFO: the records are printed as they arrive, before the writer closes it (issue 42 item 7)" {
	# The first batch: both CPUs past 2.2 s, so that everything up to
	# there has no record older to come; the second comes only once the
	# report has printed the first's last entry.
	recs one.bin <<-'EOF'
	clock
	joined 0
	joined 1
	entry 0 2000000
	entry 1 2100000
	entry 0 2200000
	entry 1 2200000
	EOF
	recs two.bin <<-'EOF'
	entry 0 2400000
	entry 1 2500000
	EOF
	cat one.bin two.bin >whole.bin
	htm dtl report whole.bin >want.txt
	local last
	last=$(grep '^1002.200000000 .* cpu=1 ' want.txt)
	[ -n "$last" ]
	in_two one.bin two.bin "$last"
	[ "$status" -eq 0 ]
	# The first batch whole, nothing of the second, no summary: the
	# pipe was still open.
	run -0 cat before.txt
	[ "$output" = "$(head -n 7 want.txt)" ]
	cmp want.txt got.txt
	[ ! -s got.err ]
}

@test "report -: a capture through a pipe prints the bytes of the same file's report, in every format and with the filters" {
	local args n=0
	while read -r args; do
		# shellcheck disable=SC2086 # the arguments are words
		htm dtl report "$CAP" $args >want.txt 2>want.err
		# shellcheck disable=SC2086
		cat "$CAP" | htm dtl report - $args >got.txt 2>got.err
		sed "s|$CAP|standard input|" want.err | cmp - got.err
		cmp want.txt got.txt
		n=$((n + 1))
	done <<-'EOF'
	--format text --header
	--format csv
	--format json
	--format jsonl
	-F seconds,cpu,preempt,enqueue_to_dispatch_us --reltime
	-F offset,cpu,timebase --format csv
	-C 1,3 --format csv
	-C 2,9
	--time 1000.5,1001.2 --time 1001.5,1001.7 --format jsonl
	--preempt H_CEDE --min-wait 100us
	--summary
	--summary --format json
	--worst 5 --format csv
	--header-only
	EOF
	[ "$n" -eq 14 ]
	# A whole capture in order: no record out of order, nothing said.
	[ ! -s want.err ]
	# -o: the report, as for the file.
	cat "$CAP" | htm dtl report - --format jsonl -o out.jsonl
	htm dtl report "$CAP" --format jsonl -o want.jsonl
	cmp want.jsonl out.jsonl
}

@test "report -: a damaged stream is reported up to the damage, then where and why it stops, exit 1, as a file" {
	# The header of the 3000th entry gets a length that is not a
	# multiple of 8.
	local size cut
	size=$(stat -c %s "$CAP")
	cut=$(htm dtl report "$CAP" --format csv | awk -F, '$1 == "entry" && ++n == 3000 { print $2 }')
	[[ $cut =~ ^[0-9]+$ ]]
	"$PY" -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2]) + 2] = 12
open("bad.bin", "wb").write(b)' "$CAP" "$cut"
	run -1 bash -c '"$HTMTRACE" dtl report bad.bin --format csv 2>want.err >want.csv'
	[ "$(cat want.err)" = "htmtrace dtl report: bad.bin: bad ENTRY record at offset $cut: length 12 is not a multiple of 8: the report stops there ($cut of $size bytes read)" ]
	run -1 bash -c 'cat bad.bin | "$HTMTRACE" dtl report - --format csv 2>got.err >got.csv'
	[ "$(cat got.err)" = "htmtrace dtl report: standard input: bad ENTRY record at offset $cut: length 12 is not a multiple of 8: the report stops there ($cut bytes read; the rest of the pipe is not)" ]
	cmp want.csv got.csv
	[ "$(tail -n 1 want.csv | cut -d, -f1)" = wait_preempt ]
	# The JSON summary says where.
	run -1 bash -c 'set -o pipefail; cat bad.bin | "$HTMTRACE" dtl report - --format jsonl 2>/dev/null | tail -n 1'
	[[ "$output" == *", \"damage\": {\"offset\": $cut, \"why\": \"bad ENTRY record at offset $cut: length 12 is not a multiple of 8\"}}}" ]]
}

@test "report -: a stream that ends mid-record: what comes before, then the truncated record said, exit 1" {
	local size
	size=$(stat -c %s "$CAP")
	[[ $size =~ ^[0-9]+$ ]]
	head -c $((size - 20)) "$CAP" >cut.bin
	run -1 bash -c '"$HTMTRACE" dtl report cut.bin >want.txt 2>/dev/null'
	run -1 bash -c 'cat cut.bin | "$HTMTRACE" dtl report - 2>got.err >got.txt'
	[ "$(cat got.err)" = "htmtrace dtl report: standard input: truncated ENTRY record at offset $((size - 56)): length 56, 36 bytes left: the report stops there ($((size - 56)) of $((size - 20)) bytes read)" ]
	# The file's message: the pipe was read to its end.
	run -1 --separate-stderr htm dtl report cut.bin
	[ "$stderr" = "$(sed 's/standard input/cut.bin/' got.err)" ]
	cmp want.txt got.txt
	[ "$(tail -n 1 got.txt)" = "damaged: truncated ENTRY record at offset $((size - 56)): length 56, 36 bytes left: the report stops there" ]
	# Cut within a record's header.
	head -c $((size - 52)) "$CAP" >cut4.bin
	run -1 --separate-stderr bash -c 'cat cut4.bin | "$HTMTRACE" dtl report - --summary'
	[ "$stderr" = "htmtrace dtl report: standard input: truncated record at offset $((size - 56)): 4 bytes left, a header is 8: the report stops there ($((size - 56)) of $((size - 52)) bytes read)" ]
}

@test "report -: streams that are refused print nothing, as files; a later CLOCK of frequency 0 ends the report as damage" {
	run -1 --separate-stderr bash -c ': | "$HTMTRACE" dtl report -'
	[ "$stderr" = "htmtrace dtl report: standard input: empty file: no records" ]
	[ "$output" = "" ]
	run -1 --separate-stderr bash -c 'head -c 16 /dev/zero | "$HTMTRACE" dtl report -'
	[ "$stderr" = "htmtrace dtl report: standard input is not a dispatch trace log capture: it starts with neither htmtrace's file header nor a record of /dev/vpa_dtl (htmtrace dtl report reads the files of htmtrace dtl record)" ]
	[ "$output" = "" ]
	recs e.bin <<-'EOF'
	joined 0
	entry 0 5
	clock
	EOF
	run -1 --separate-stderr bash -c 'cat e.bin | "$HTMTRACE" dtl report - --format json'
	[ "$stderr" = "htmtrace dtl report: standard input: ENTRY record at offset 16 comes before any CLOCK record: its time cannot be converted" ]
	[ "$output" = "" ]
	# A second CLOCK of frequency 0: a file is refused whole; a pipe has
	# printed what came before, so it stops there as at damage.
	recs z.bin <<-'EOF'
	clock
	entry 0 5
	EOF
	"$PY" -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, 0, 0, 0, 0, 0))' >>z.bin
	run -1 --separate-stderr htm dtl report z.bin
	[ "$stderr" = "htmtrace dtl report: z.bin: CLOCK record at offset 112: timebase frequency 0" ]
	run -1 --separate-stderr bash -c 'cat z.bin | "$HTMTRACE" dtl report -'
	[ "$stderr" = "htmtrace dtl report: standard input: CLOCK record at offset 112: timebase frequency 0: the report stops there (112 bytes read; the rest of the pipe is not)" ]
	[ "${lines[1]}" = "1000.000005000 2025-12-05T00:00:00.000005Z cpu=0 dispatch=external_interrupt preempt=H_CEDE processor=0 enqueue_to_dispatch=5.000us ready_to_enqueue=0.000us waiting_to_ready=0.000us fault=0x0 srr0=0x0" ]
	# The summary's waits on the clock before it.
	grep -qE '^cpu 0 +1 +5\.000 +5\.000 +5\.000 +5\.000$' <<<"$output"
	# -C of CPUs the stream lacks: said at its end, nothing printed.
	run -1 --separate-stderr bash -c 'cat "$1" | "$HTMTRACE" dtl report - -C 9 -o out.txt' - "$CAP"
	[ "$stderr" = "htmtrace dtl report: standard input holds no records of CPU 9 (it holds records of CPUs 0-3): nothing to report" ]
	[ ! -e out.txt ]
}

@test "report --window MS: the time a pipe's records wait at most; bad values: exit 2" {
	run -0 htm dtl report --help
	[[ "$output" == *"--window MS "* ]]
	run -2 --separate-stderr htm dtl report "$CAP" --window 0
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad window '0': expected 1 to 3600000 milliseconds" ]
	run -2 --separate-stderr htm dtl report "$CAP" --window 1s
	# Both CPUs known (CPU 1 delivered at 0.5 s): what is more than the
	# window behind CPU 0's 3.6 s is printed; CPU 1's 2.6 s then comes.
	# With 1000 ms, the entry of 2.8 s still waits for it: the file's
	# order. With 500 ms it was printed: 2.6 s is out of order, counted
	# and said. (3.5 s, more than 500 ms after 2.8 s, counts once CPU 0's
	# next entry, 3.6 s, shows it was not damaged.)
	recs one.bin <<-'EOF'
	clock
	entry 1 500000
	entry 0 2000000
	entry 0 2800000
	entry 0 3500000
	entry 0 3600000
	EOF
	recs two.bin <<<"entry 1 2600000"
	cat one.bin two.bin >whole.bin
	htm dtl report whole.bin >want.txt
	local l20 l28
	l20=$(grep '^1002.000000000 ' want.txt)
	l28=$(grep '^1002.800000000 ' want.txt)
	[ -n "$l28" ]
	in_two one.bin two.bin "$l20"
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
	[ "$(tail -n 1 before.txt)" = "$l20" ]
	in_two one.bin two.bin "$l28" --window 500
	[ "$status" -eq 0 ]
	[ "$(cat got.err)" = "htmtrace dtl report: in.fifo: 1 records came after the window had passed their time (500 ms behind the newest timebase, or behind every CPU still delivering): printed out of time order" ]
	[ "$(tail -n 1 before.txt)" = "$l28" ]
	run -0 awk '/ cpu=/ { print $1 }' got.txt
	[ "$(paste -s -d ' ' <<<"$output")" = "1000.500000000 1002.000000000 1002.800000000 1002.600000000 1003.500000000 1003.600000000" ]
	grep -qx 'entries: 6, lost: 0 (overwritten 0, dropped 0), unknown records skipped: 0, out of time order: 1' got.txt
}

@test "report -: under UBSan and ASan, a pipe in every format, damaged and cut short" {
	local cc=cc
	if command -v ccache >/dev/null; then
		export CCACHE_DIR=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}/ccache
		cc="ccache cc"
	fi
	make -s -j2 -C "$TOP/userspace" host-san HOSTCC="$cc" >&2
	local san=$TOP/build/host-san/htmtrace size f
	size=$(stat -c %s "$CAP")
	[[ $size =~ ^[0-9]+$ ]]
	# Through a pipe (standard input a file would be mapped): the
	# report's bytes are the file's.
	for f in text csv json jsonl; do
		"$san" dtl report "$CAP" --format "$f" >want.txt
		run -0 bash -c 'set -o pipefail; cat "$2" | "$1" dtl report - --format "$3" >got.txt' - "$san" "$CAP" "$f"
		cmp want.txt got.txt
	done
	run -0 bash -c 'set -o pipefail; cat "$2" | "$1" dtl report - --worst 3 -C 1-2 >/dev/null' - "$san" "$CAP"
	head -c $((size - 20)) "$CAP" >cut.bin
	run -1 bash -c 'set -o pipefail; cat cut.bin | "$1" dtl report - --format json >/dev/null' - "$san"
	# Damaged: the 3000th entry's length is not a multiple of 8.
	local cut
	cut=$(htm dtl report "$CAP" --format csv | awk -F, '$1 == "entry" && ++n == 3000 { print $2 }')
	[[ $cut =~ ^[0-9]+$ ]]
	"$PY" -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2]) + 2] = 12
open("bad.bin", "wb").write(b)' "$CAP" "$cut"
	run -1 --separate-stderr bash -c 'set -o pipefail; cat bad.bin | "$1" dtl report - --format csv >/dev/null' - "$san"
	[[ "$stderr" == *"offset $cut: length 12 is not a multiple of 8: the report stops there ($cut bytes read; the rest of the pipe is not)" ]]
	# Parts in reads of their own: a damaged timebase, a CPU joining late.
	recs one.bin <<-'EOF'
	clock
	joined 0
	entry 0 1000000
	entry 1 1100000
	entry 0 3600000000
	EOF
	recs two.bin <<-'EOF'
	joined 2
	entry 1 1300000
	EOF
	recs three.bin <<<"entry 0 1250000"
	HTMTRACE=$san in_parts one.bin two.bin three.bin -- --format jsonl
	[ "$status" -eq 0 ]
	[ ! -s got.err ]
}

@test "report -: one entry whose timebase is damaged (an hour ahead) does not turn a pipe's window off (issue 42 item 7, review 1)" {
	# CPU 0's 3600 s is damaged; its next entry goes back to 1.25 s. The
	# file prints 1.25 s before CPU 1's 1.3 s; so must the pipe, each
	# part in a read of its own.
	recs one.bin <<-'EOF'
	clock
	joined 0
	joined 1
	entry 0 1000000
	entry 1 1100000
	entry 0 3600000000
	EOF
	recs two.bin <<<"entry 1 1300000"
	recs three.bin <<<"entry 0 1250000"
	cat one.bin two.bin three.bin >whole.bin
	run -0 --separate-stderr htm dtl report whole.bin
	[ "$stderr" = "" ]
	printf '%s\n' "$output" >want.txt
	[ "$(times want.txt)" = "1001.000000000 1001.100000000 1001.250000000 1001.300000000 4600.000000000" ]
	in_parts one.bin two.bin three.bin --
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
	# Two in a row that far ahead are the CPU's time: the window moves,
	# and what is older than 3599 s is printed before the next read. CPU
	# 2's first entry, 1.05 s, in that read, comes too late: printed out
	# of time order and said. (Were the two not counted, nothing would be
	# printed before it: the first window not over.)
	recs one.bin <<-'EOF'
	clock
	entry 0 1000000
	entry 1 1100000
	entry 0 3600000000
	entry 0 3600000001
	EOF
	recs two.bin <<<"entry 2 1050000"
	in_parts one.bin two.bin --
	[ "$status" -eq 0 ]
	[ "$(times got.txt)" = "1001.000000000 1001.100000000 1001.050000000 4600.000000000 4600.000001000" ]
	[ "$(cat got.err)" = "htmtrace dtl report: in.fifo: 1 records came after the window had passed their time (1000 ms behind the newest timebase, or behind every CPU still delivering): printed out of time order" ]
	[ "$(tail -n 1 got.txt)" = "entries: 5, lost: 0 (overwritten 0, dropped 0), unknown records skipped: 0, out of time order: 1" ]
}

@test "report -: a CPU record of a CPU with no entry yet takes the time settled when it comes, in a file and a pipe (issue 42 item 7, review 2)" {
	# CPU 1 joins at 2.1 s (a CPU brought online during the capture).
	recs one.bin <<-'EOF'
	clock
	joined 0
	entry 0 500000
	entry 0 1000000
	entry 0 2000000
	EOF
	recs two.bin <<-'EOF'
	joined 1
	entry 1 2100000
	EOF
	cat one.bin two.bin >whole.bin
	run -0 --separate-stderr htm dtl report whole.bin
	[ "$stderr" = "" ]
	printf '%s\n' "$output" >want.txt
	# After the 2.0 s entry, the last before it in the stream.
	run -0 grep -A 1 '^1002.000000000 ' want.txt
	[ "${lines[1]}" = "CPU cpu=1 event=joined" ]
	in_parts one.bin two.bin --
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
	# Before any entry: the CLOCK record's time, as before.
	[ "$(sed -n 2p want.txt)" = "CPU cpu=0 event=joined" ]
	# In the first window (nothing settled yet) too: CPU 1's first LOST,
	# after CPU 0's 0.5 s in the stream, stays before CPU 1's entries.
	recs one.bin <<-'EOF'
	clock
	joined 0
	joined 1
	entry 0 500000
	lost 1 4
	entry 1 400000
	entry 0 1200000
	entry 1 1100000
	EOF
	recs two.bin <<<"entry 0 1300000"
	cat one.bin two.bin >whole.bin
	run -0 --separate-stderr htm dtl report whole.bin
	[ "$stderr" = "" ]
	printf '%s\n' "$output" >want.txt
	[ "$(sed -n 4p want.txt)" = "LOST cpu=1 count=4 why=overwritten" ]
	[ "$(sed -n 5p want.txt | cut -d ' ' -f 1,3)" = "1000.400000000 cpu=1" ]
	in_parts one.bin two.bin --
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
}

@test "report --window 3600000: a timebase frequency whose window does not fit 64 bits holds every record (issue 42 item 7, review 7)" {
	# 5124095576030999 Hz x 3600 s is 2^64 + 2044784 ticks: wrapped, the
	# window would be 0.4 ns and CPU 1's 1.5e9 would come too late.
	recs one.bin <<-'EOF'
	clock 5124095576030999
	entry 1 1000000000
	entry 0 2000000000
	entry 0 3000000000
	EOF
	recs two.bin <<<"entry 1 1500000000"
	cat one.bin two.bin >whole.bin
	htm dtl report whole.bin >want.txt
	in_parts one.bin two.bin -- --window 3600000
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
}

@test "report -: a pipe's window full (2^20 records): the memory the man page says, and which cause is said (issue 42 item 7, review 6)" {
	# CPU 1's entry at 0 holds the rest back (no window of time with
	# --window 3600000): the window fills with CPU 0's 2^20 + 1000, and
	# the earliest leave it; CPU 1's 5 us then comes too late.
	"$PY" -c '
import struct, sys
clock = struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, 10**6, 0,
                    995 * 10**9, 1000 * 10**9, 1764892800 * 10**9)
def entry(cpu, us):
    # Waits that grow: --worst keeps each new one.
    return struct.pack("<HHI", 2, 56, cpu) + struct.pack(">BBHIIIQQQQ", 0, 2, cpu, us, 0, 0, us, 0, 0, 0)
with open(sys.argv[1], "wb") as f:
    f.write(clock + entry(1, 0))
    f.write(b"".join(entry(0, us) for us in range(1, (1 << 20) + 1001)))
    f.write(entry(1, 5))
' full.bin
	run -0 --separate-stderr htm dtl report full.bin -F cpu,timebase --format csv -o want.csv --window 3600000
	[ "$stderr" = "htmtrace dtl report: full.bin: 1 records more than 1048576 records late in the file are printed out of time order" ]
	# 104 bytes a record (a copy, its place in the window, a free slot):
	# 104 MiB, in 150000 KiB of address space with the program (it needs
	# about 117000; a slot taken before the earliest freed its own, 190000).
	run -0 --separate-stderr bash -c 'set -o pipefail; ulimit -v 150000; cat full.bin | "$HTMTRACE" dtl report - -F cpu,timebase --format csv --window 3600000 >got.csv'
	[ "$stderr" = "htmtrace dtl report: standard input: 1 records came after the window, full (1048576 records), had printed records of later times: printed out of time order" ]
	cmp want.csv got.csv
	# --worst 1048576 holds as many, in as much memory (the shortest
	# wait leaves before the next takes a slot).
	htm dtl report full.bin --worst 1048576 -F cpu,timebase --format csv -o want.csv
	run -0 --separate-stderr bash -c 'set -o pipefail; ulimit -v 150000; cat full.bin | "$HTMTRACE" dtl report - --worst 1048576 -F cpu,timebase --format csv >got.csv'
	[ "$stderr" = "" ]
	cmp want.csv got.csv
}

@test "top --input: a LOST of a CPU with no entry yet counts in the interval dtl report places it in, under the default window (issue 42 item 7, review 2)" {
	# dtl report places the LOST at 3.3 s (CPU 0's time settled when it
	# comes): in the interval from 3 s, not the one ending at 3 s.
	recs tp.bin <<-'EOF'
	clock
	joined 0
	entry 0 500000
	entry 0 1200000
	entry 0 1900000
	entry 0 2600000
	entry 0 3300000
	lost 1 7
	entry 0 3400000
	EOF
	run -0 htm dtl report tp.bin
	run -0 grep -B 1 '^LOST cpu=1 count=7 why=overwritten$' <<<"$output"
	[ "$(cut -d ' ' -f 1 <<<"${lines[0]}")" = "1003.300000000" ]
	run -0 htm dtl top --input tp.bin -I 1 --json
	"$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
got = [(r["time"], [(c["cpu"], c["lost"]) for c in r["cpus"]]) for r in rows]
want = [("2025-12-05T00:00:01.000000Z", [(0, 0)]),
        ("2025-12-05T00:00:02.000000Z", [(0, 0)]),
        ("2025-12-05T00:00:03.000000Z", [(0, 0)]),
        ("2025-12-05T00:00:03.400000Z", [(0, 0), (1, 7)])]
assert got == want, got
' "$output"
}

@test "report: a CPU's own records keep their stream order: a LOST or CPU record of a CPU with no entry yet is never after that CPU's first entry, in a file and a pipe (issue 42 item 7, review 2)" {
	# A file regrouped by CPU: CPU 1's joined comes after all of CPU 0's.
	recs rg.bin <<-'EOF'
	clock
	joined 0
	entry 0 100000
	entry 0 2000000
	entry 0 4000000
	joined 1
	entry 1 150000
	entry 1 2100000
	entry 1 3900000
	EOF
	run -0 --separate-stderr htm dtl report rg.bin
	[ "$stderr" = "" ]
	[ "$(sed -n 4p <<<"$output")" = "CPU cpu=1 event=joined" ]
	[ "$(sed -n 5p <<<"$output" | cut -d ' ' -f 1,3)" = "1000.150000000 cpu=1" ]
	[ "$(times <(printf '%s\n' "$output"))" = "1000.100000000 1000.150000000 1002.000000000 1002.100000000 1003.900000000 1004.000000000" ]
	# -C 1: the same order of CPU 1's records
	run -0 --separate-stderr htm dtl report rg.bin -C 1
	[ "$stderr" = "" ]
	[ "$(sed -n 2p <<<"$output")" = "CPU cpu=1 event=joined" ]
	[ "$(times <(printf '%s\n' "$output"))" = "1000.150000000 1002.100000000 1003.900000000" ]
	# CPU 1's first delivery after the first window: its LOST (settled
	# at 2.2 s) before its entries at 2.05 and 2.15 s; a pipe as the file.
	recs one.bin <<-'EOF'
	clock
	joined 0
	entry 0 500000
	entry 0 1500000
	entry 0 2000000
	entry 0 2200000
	lost 1 5
	EOF
	recs two.bin <<-'EOF'
	entry 1 2050000
	entry 1 2150000
	entry 0 2300000
	EOF
	cat one.bin two.bin >whole.bin
	run -0 --separate-stderr htm dtl report whole.bin
	[ "$stderr" = "" ]
	printf '%s\n' "$output" >want.txt
	run -0 grep -A 1 '^LOST cpu=1 count=5 why=overwritten$' want.txt
	[ "$(cut -d ' ' -f 1,3 <<<"${lines[1]}")" = "1002.050000000 cpu=1" ]
	in_parts one.bin two.bin --
	[ "$status" -eq 0 ]
	cmp want.txt got.txt
	[ ! -s got.err ]
	# A pipe holds it only until the window has passed its time (2.2 s):
	# CPU 1's entry at 2.1 s, after that, is late; said, and still after
	# CPU 1's LOST.
	recs one.bin <<-'EOF'
	clock
	joined 0
	entry 0 500000
	entry 0 1500000
	entry 0 2200000
	lost 1 3
	entry 0 2900000
	entry 0 3300000
	EOF
	recs two.bin <<-'EOF'
	entry 1 2100000
	entry 0 3600000
	EOF
	in_parts one.bin two.bin --
	[ "$status" -eq 0 ]
	[ "$(times got.txt)" = "1000.500000000 1001.500000000 1002.200000000 1002.100000000 1002.900000000 1003.300000000 1003.600000000" ]
	run -0 grep -A 1 '^LOST cpu=1 count=3 why=overwritten$' got.txt
	[ "$(cut -d ' ' -f 1,3 <<<"${lines[1]}")" = "1002.100000000 cpu=1" ]
	[ "$(cat got.err)" = "htmtrace dtl report: in.fifo: 1 records came after the window had passed their time (1000 ms behind the newest timebase, or behind every CPU still delivering): printed out of time order" ]
	# The file: CPU 1's LOST and entry before 2.2 s.
	cat one.bin two.bin >whole.bin
	run -0 htm dtl report whole.bin
	[ "$(times <(printf '%s\n' "$output"))" = "1000.500000000 1001.500000000 1002.100000000 1002.200000000 1002.900000000 1003.300000000 1003.600000000" ]
	run -0 grep -A 1 '^LOST cpu=1 count=3 why=overwritten$' <<<"$output"
	[ "$(cut -d ' ' -f 1,3 <<<"${lines[1]}")" = "1002.100000000 cpu=1" ]
}

@test "help dtl report: the time of a LOST or CPU record of a CPU with no entry yet, and --window's effect on a file, as the man page says (issue 42 item 7, review 2)" {
	run -0 htm help dtl report
	grep -qxF "loss and CPU records at the time of their CPU's entry before them" <<<"$output"
	grep -qxF "(for a CPU with none, the time settled when they come, or that of" <<<"$output"
	grep -qxF "the CPU's next entry if earlier; see --window);" <<<"$output"
	grep -qxF "                        in a file too, the time settled for a loss or" <<<"$output"
	grep -qxF "                        CPU record of a CPU with no entry before it" <<<"$output"
}
