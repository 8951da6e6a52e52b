#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
#
# Host tests of htmtrace dtl: the decoder of /dev/vpa_dtl streams (exact
# vectors in text, csv and json; unknown codes and record types; damaged
# streams), the command line, and dtl record against a fake /dev/vpa_dtl:
# userspace/tests/fakedtl.c, preloaded with LD_PRELOAD, answers the DTL
# ioctls of uapi/linux/htmtrace.h, serves a stream file as whole records,
# logs every operation and fails the one it is told to. The driver itself
# is tested in the guest.

bats_require_minimum_version 1.5.0
load dtlfile

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# Debian's interpreter: a python3 shim (pyenv, ...) costs 0.2 s a call.
	PY=python3
	[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
	export TOP PY
	make -s -C "$TOP/userspace" O="$TOP/build/host" all fakehtm >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export FAKEDTL="$TOP/build/host/fakedtl.so"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export DEV=$BATS_TEST_TMPDIR/vpa_dtl
	export FAKE_DTL_DEV=$DEV
	export FAKE_DTL_LOG=$BATS_TEST_TMPDIR/log
	export FAKE_DTL_STREAM=$BATS_TEST_TMPDIR/served.bin
	# No /proc/powerpc/lparcfg, whatever the host has.
	export FAKE_LPARCFG=
}

htm() {
	"$HTMTRACE" "$@"
}

# htmtrace against the fake device.
fdtl() {
	LD_PRELOAD=$FAKEDTL "$HTMTRACE" "$@"
}

# The operations the fake saw, on one line.
ops() {
	grep -Ev '^(OPEN|OPEN nonblock|CLOSE)$' "$FAKE_DTL_LOG" | paste -s -d ' '
}

# mkstream FILE: write the records described on stdin, one a line:
#   clock TB_FREQ TIMEBASE MONOTONIC_NS BOOTTIME_NS REALTIME_NS
#   entry CPU DISPATCH PREEMPT PROC E2D R2E W2R TIMEBASE FAULT SRR0 SRR1
#   lost CPU WHY COUNT
#   cpu CPU EVENT ERROR
#   raw TYPE LEN CPU NBYTES   a header, then NBYTES zero bytes
# Headers and records in little-endian (the host's and ppc64le's order),
# the 48-byte entry big-endian, as uapi/linux/htmtrace.h lays them out.
mkstream() {
	"$PY" -c '
import struct, sys
out = bytearray()
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    k, a = w[0], [int(x, 0) for x in w[1:]]
    if k == "clock":
        out += struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, *a)
    elif k == "entry":
        out += struct.pack("<HHI", 2, 56, a[0])
        out += struct.pack(">BBHIIIQQQQ", *a[1:])
    elif k == "lost":
        out += struct.pack("<HHIIIQ", 3, 24, a[0], a[1], 0, a[2])
    elif k == "cpu":
        out += struct.pack("<HHIIi", 4, 16, *a)
    elif k == "raw":
        out += struct.pack("<HHI", *a[:3]) + bytes(a[3])
    else:
        sys.exit("mkstream: bad line: " + line)
open(sys.argv[1], "wb").write(out)
' "$1"
}

# Hex digits to bytes.
unhex() {
	local hex=$1 out='' i

	for ((i = 0; i < ${#hex}; i += 2)); do
		out+="\\x${hex:i:2}"
	done
	# shellcheck disable=SC2059
	printf "$out"
}

# The main vector: 512 MHz timebase; the clock record says timebase
# 1024000000 is at boottime 7 s and at 2023-11-14T22:13:20.123456789Z.
vector() {
	mkstream "$1" <<-'EOF'
	clock 512000000 1024000000 5000000000 7000000000 1700000000123456789
	cpu 0 1 0
	entry 0 3 2 0x1234 512 256 1024 1536000000 0 0xc000000000012345 0x8000000000001033
	entry 0 7 4 5 1 511 0xffffffff 1536000001 0xc0000000deadbeef 0x100 0
	lost 1 1 5
	entry 1 17 42 6 0 0 0 1023999999 0 0 0
	lost 1 2 3
	cpu 1 2 0
	cpu 2 4 -19
	EOF
}

# --- report: exact decode vectors ---------------------------------------------

@test "report: a stream built byte by byte decodes exactly" {
	# CLOCK: 512 MHz, timebase 0 at boottime 0 and the epoch.
	{
		unhex 01003800ffffffff0100000000000000
		unhex 0080841e00000000
		unhex 00000000000000000000000000000000
		unhex 00000000000000000000000000000000
		# ENTRY of CPU 3: time_slice/time_slice, processor 10, waits of
		# 512, 256 and 128 ticks, timebase 512000000 (1 s), SRR0.
		unhex 0200380003000000
		unhex 0704000a000002000000010000000080
		unhex 000000001e8480000000000000000000
		unhex c0000000000010008000000000000000
	} >b.bin
	[ "$(stat -c %s b.bin)" -eq 112 ]
	run -0 --separate-stderr htm dtl report b.bin
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "CLOCK tb_freq=512000000 timebase=0 boottime=0.000000000 monotonic=0.000000000 realtime=1970-01-01T00:00:00.000000Z" ]
	[ "${lines[1]}" = "1.000000000 1970-01-01T00:00:01.000000Z cpu=3 dispatch=time_slice preempt=time_slice processor=10 enqueue_to_dispatch=1.000us ready_to_enqueue=0.500us waiting_to_ready=0.250us fault=0x0 srr0=0xc000000000001000" ]
}

@test "report text: every record in time order, then the summary with the wait distribution" {
	vector v.bin
	run -0 --separate-stderr htm dtl report v.bin
	[ "$stderr" = "" ]
	# CPU 2's FAILED, of a CPU with no entry before it in the stream,
	# comes after CPU 0's entries: the time settled then (CPU 0's last, the
	# first window past), which a pipe has printed. CPU 1's first LOST
	# would too, but not after CPU 1's entry that follows it: its time.
	local want=(
		"LOST cpu=1 count=5 why=overwritten"
		"6.999999998 2023-11-14T22:13:20.123456Z cpu=1 dispatch=17 preempt=42 processor=6 enqueue_to_dispatch=0.000us ready_to_enqueue=0.000us waiting_to_ready=0.000us fault=0x0 srr0=0x0"
		"LOST cpu=1 count=3 why=dropped"
		"CPU cpu=1 event=offline"
		"CLOCK tb_freq=512000000 timebase=1024000000 boottime=7.000000000 monotonic=5.000000000 realtime=2023-11-14T22:13:20.123456Z"
		"CPU cpu=0 event=joined"
		"8.000000000 2023-11-14T22:13:21.123456Z cpu=0 dispatch=decrementer_interrupt preempt=H_CEDE processor=4660 enqueue_to_dispatch=1.000us ready_to_enqueue=0.500us waiting_to_ready=2.000us fault=0x0 srr0=0xc000000000012345"
		"8.000000001 2023-11-14T22:13:21.123456Z cpu=0 dispatch=time_slice preempt=time_slice processor=5 enqueue_to_dispatch=0.001us ready_to_enqueue=0.998us waiting_to_ready=8388607.998us fault=0xc0000000deadbeef srr0=0x100"
		"CPU cpu=2 event=failed error=-19"
		""
		"summary"
		"cpu         entries  overwritten      dropped  events"
		"0                 2            0            0  joined=1"
		"1                 1            5            3  offline=1"
		"2                 0            0            0  failed=1"
		"dispatch    3 decrementer_interrupt                       1"
		"dispatch    7 time_slice                                  1"
		"dispatch   17 unknown                                     1"
		"preempt     2 H_CEDE                                      1"
		"preempt     4 time_slice                                  1"
		"preempt    42 unknown                                     1"
		""
		"dispatch wait (enqueue_to_dispatch), us"
		"                                              entries        p50        p90        p99        max"
		"cpu 0                                               2      0.001      1.000      1.000      1.000"
		"cpu 1                                               1      0.000      0.000      0.000      0.000"
		"dispatch 3 decrementer_interrupt                    1      1.000      1.000      1.000      1.000"
		"dispatch 7 time_slice                               1      0.001      0.001      0.001      0.001"
		"dispatch 17 unknown                                 1      0.000      0.000      0.000      0.000"
		"preempt 2 H_CEDE                                    1      1.000      1.000      1.000      1.000"
		"preempt 4 time_slice                                1      0.001      0.001      0.001      0.001"
		"preempt 42 unknown                                  1      0.000      0.000      0.000      0.000"
		"entries: 3, lost: 8 (overwritten 5, dropped 3), unknown records skipped: 0"
	)
	local i
	[ "$(printf '%s\n' "${want[@]}")" = "$output" ] || {
		diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$output")
		false
	}
	# Wall-clock times are rounded down to the microsecond, never up.
	for i in 0 5 6; do
		[[ "${lines[i]}" != *"T22:13:2"?".123457Z"* ]]
	done
}

@test "report csv: a header and one row per record" {
	vector v.bin
	run -0 --separate-stderr htm dtl report v.bin --format csv
	[ "$stderr" = "" ]
	local want=(
		"kind,offset,cpu,seconds,realtime,timebase,dispatch,preempt,processor_id,enqueue_to_dispatch_us,ready_to_enqueue_us,waiting_to_ready_us,fault_addr,srr0,srr1,count,why,event,error,wait_p50_us,wait_p90_us,wait_p99_us,wait_max_us"
		"lost,184,1,,,,,,,,,,,,,5,overwritten,,,,,,"
		"entry,208,1,6.999999998,2023-11-14T22:13:20.123456Z,1023999999,17,42,6,0.000,0.000,0.000,0x0,0x0,0x0,,,,,,,,"
		"lost,264,1,,,,,,,,,,,,,3,dropped,,,,,,"
		"cpu,288,1,,,,,,,,,,,,,,,offline,0,,,,"
		"clock,0,,7.000000000,2023-11-14T22:13:20.123456Z,1024000000,,,,,,,,,,,,,,,,,"
		"cpu,56,0,,,,,,,,,,,,,,,joined,0,,,,"
		"entry,72,0,8.000000000,2023-11-14T22:13:21.123456Z,1536000000,decrementer_interrupt,H_CEDE,4660,1.000,0.500,2.000,0x0,0xc000000000012345,0x8000000000001033,,,,,,,,"
		"entry,128,0,8.000000001,2023-11-14T22:13:21.123456Z,1536000001,time_slice,time_slice,5,0.001,0.998,8388607.998,0xc0000000deadbeef,0x100,0x0,,,,,,,,"
		"cpu,304,2,,,,,,,,,,,,,,,failed,-19,,,,"
		"wait_cpu,,0,,,,,,,,,,,,,2,,,,0.001,1.000,1.000,1.000"
		"wait_cpu,,1,,,,,,,,,,,,,1,,,,0.000,0.000,0.000,0.000"
		"wait_dispatch,,,,,,decrementer_interrupt,,,,,,,,,1,,,,1.000,1.000,1.000,1.000"
		"wait_dispatch,,,,,,time_slice,,,,,,,,,1,,,,0.001,0.001,0.001,0.001"
		"wait_dispatch,,,,,,17,,,,,,,,,1,,,,0.000,0.000,0.000,0.000"
		"wait_preempt,,,,,,,H_CEDE,,,,,,,,1,,,,1.000,1.000,1.000,1.000"
		"wait_preempt,,,,,,,time_slice,,,,,,,,1,,,,0.001,0.001,0.001,0.001"
		"wait_preempt,,,,,,,42,,,,,,,,1,,,,0.000,0.000,0.000,0.000"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$output" ] || {
		diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$output")
		false
	}
	# Every row has the header's 23 columns.
	[ "$(awk -F, '{ print NF }' <<<"$output" | sort -u)" = "23" ]
}

@test "report json: one document that python3 -m json.tool parses, records as rows of named columns, with the exact values" {
	vector v.bin
	htm dtl report v.bin --format json >v.json
	"$PY" -m json.tool v.json >/dev/null
	run -0 "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["clock", "columns", "records", "summary"], list(d)
cols = d["columns"]
assert cols["entry"] == ["kind", "offset", "cpu", "seconds", "timebase", "dispatch_reason",
    "preempt_reason", "processor_id", "enqueue_to_dispatch_us", "ready_to_enqueue_us",
    "waiting_to_ready_us", "fault_addr", "srr0", "srr1"], cols
assert all(len(x) == len(cols[x[0]]) for x in d["records"]), d["records"]
assert d["clock"] == {"version": 1, "tb_freq": 512000000, "timebase": 1024000000,
                      "monotonic_ns": 5000000000, "boottime_ns": 7000000000,
                      "realtime_ns": 1700000000123456789}, d["clock"]
r = [dict(zip(cols[x[0]], x)) for x in d["records"]]
# Time order: the entry of CPU 1 precedes the sample of the clock; the FAILED
# of CPU 2, of a CPU with no entry before it, takes the time settled when it
# came: the last of CPU 0, the window past; the first LOST of CPU 1 that
# of the entry of CPU 1 after it, earlier.
assert [x["kind"] for x in r] == ["lost", "entry", "lost", "cpu", "clock", "cpu", "entry",
                                  "entry", "cpu"], r
assert [x["offset"] for x in r] == [184, 208, 264, 288, 0, 56, 72, 128, 304]
r = sorted(r, key=lambda x: x["offset"])
e = r[2]
assert e == {"kind": "entry", "offset": 72, "cpu": 0, "seconds": 8.0,
             "timebase": 1536000000, "dispatch_reason": 3,
             "preempt_reason": 2, "processor_id": 4660,
             "enqueue_to_dispatch_us": 1.0, "ready_to_enqueue_us": 0.5,
             "waiting_to_ready_us": 2.0, "fault_addr": "0x0",
             "srr0": "0xc000000000012345", "srr1": "0x8000000000001033"}, e
assert r[3]["seconds"] == 8.000000001 and r[3]["waiting_to_ready_us"] == 8388607.998
assert r[3]["fault_addr"] == "0xc0000000deadbeef"
u = r[5]
assert (u["dispatch_reason"], u["preempt_reason"]) == (17, 42), u
assert u["seconds"] == 6.999999998
assert r[4] == {"kind": "lost", "offset": 184, "cpu": 1, "count": 5, "why_code": 1, "why": "overwritten"}, r[4]
assert r[6]["why"] == "dropped" and r[6]["count"] == 3
assert r[8] == {"kind": "cpu", "offset": 304, "cpu": 2, "event_code": 4, "event": "failed", "error": -19}, r[8]
s = d["summary"]
w0 = {"count": 0, "p50_us": 0, "p90_us": 0, "p99_us": 0, "max_us": 0}
assert s["cpus"] == [
    {"cpu": 0, "entries": 2, "overwritten": 0, "dropped": 0, "events": {"joined": 1},
     "wait": {"count": 2, "p50_us": 0.001, "p90_us": 1.0, "p99_us": 1.0, "max_us": 1.0}},
    {"cpu": 1, "entries": 1, "overwritten": 5, "dropped": 3, "events": {"offline": 1},
     "wait": dict(w0, count=1)},
    {"cpu": 2, "entries": 0, "overwritten": 0, "dropped": 0, "events": {"failed": 1},
     "wait": w0}], s["cpus"]
assert s["wait"]["of"] == "enqueue_to_dispatch"
assert s["wait"]["dispatch"][0] == {"code": 3, "name": "decrementer_interrupt", "count": 1,
    "p50_us": 1.0, "p90_us": 1.0, "p99_us": 1.0, "max_us": 1.0}, s["wait"]
assert [x["code"] for x in s["wait"]["preempt"]] == [2, 4, 42], s["wait"]
assert s["dispatch"] == [{"code": 3, "name": "decrementer_interrupt", "count": 1},
                         {"code": 7, "name": "time_slice", "count": 1},
                         {"code": 17, "name": None, "count": 1}], s["dispatch"]
assert s["preempt"] == [{"code": 2, "name": "H_CEDE", "count": 1},
                        {"code": 4, "name": "time_slice", "count": 1},
                        {"code": 42, "name": None, "count": 1}], s["preempt"]
assert (s["entries"], s["lost"], s["overwritten"], s["dropped"], s["lost_other"],
        s["unknown_records"], s["out_of_order"]) == (3, 8, 5, 3, 0, 0, 0), s
print("ok")
' v.json
	[ "$output" = "ok" ]
}

@test "report json: a stream of a clock only is a valid document" {
	mkstream c.bin <<<"clock 1 0 0 0 0"
	htm dtl report c.bin --format json >c.json
	run -0 "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["records"]) == 1 and d["summary"]["cpus"] == [] and d["summary"]["dispatch"] == []
print("ok")' c.json
	[ "$output" = "ok" ]
}

@test "report: every dispatch and preempt reason by perf's name, the next code as a number" {
	local i spec=''
	for ((i = 0; i <= 11; i++)); do
		spec+="entry 0 $i $((i < 11 ? i : 10)) 0 0 0 0 0 0 0 0"$'\n'
	done
	mkstream r.bin <<<"clock 1000000 0 0 0 0
$spec"
	run -0 htm dtl report r.bin
	local d=(external_interrupt firmware_internal_event H_PROD decrementer_interrupt
		 system_reset firmware_internal_event conferred_cycles time_slice
		 virtual_memory_page_fault expropriated_adjunct priv_doorbell 11)
	local p=(unused firmware_internal_event H_CEDE H_CONFER time_slice
		 migration_hibernation_page_fault virtual_memory_page_fault
		 H_CONFER_ADJUNCT hcall_adjunct HDEC_adjunct 10 10)
	for ((i = 0; i <= 11; i++)); do
		[[ "${lines[i + 1]}" == *" dispatch=${d[i]} preempt=${p[i]} "* ]] ||
			{ echo "code $i: ${lines[i + 1]}"; false; }
	done
	# (bats drops the blank line before the summary from $lines)
	[ "${lines[27]}" = "dispatch   11 unknown                                     1" ]
	[ "${lines[38]}" = "preempt    10 unknown                                     2" ]
	# The largest codes too.
	mkstream m.bin <<<"clock 1000000 0 0 0 0
entry 0 255 255 65535 0 0 0 0 0 0 0"
	run -0 htm dtl report m.bin
	[[ "${lines[1]}" == *" dispatch=255 preempt=255 processor=65535 "* ]]
}

@test "report: records of unknown types are skipped by their length" {
	vector v.bin
	run -0 htm dtl report v.bin
	local plain=$output
	mkstream u.bin <<-'EOF'
	clock 512000000 1024000000 5000000000 7000000000 1700000000123456789
	raw 0 8 0 0
	cpu 0 1 0
	raw 5 64 0 56
	entry 0 3 2 0x1234 512 256 1024 1536000000 0 0xc000000000012345 0x8000000000001033
	raw 65535 65528 7 65520
	entry 0 7 4 5 1 511 0xffffffff 1536000001 0xc0000000deadbeef 0x100 0
	lost 1 1 5
	entry 1 17 42 6 0 0 0 1023999999 0 0 0
	lost 1 2 3
	raw 200 16 1 8
	cpu 1 2 0
	cpu 2 4 -19
	EOF
	run -0 --separate-stderr htm dtl report u.bin
	[ "$stderr" = "" ]
	[ "${output%unknown records skipped: 4}" = "${plain%unknown records skipped: 0}" ]
	[[ "$output" == *"unknown records skipped: 4" ]]
	run -0 htm dtl report u.bin --format csv
	[ "$(grep -vc '^wait_' <<<"$output")" -eq 10 ]
	htm dtl report u.bin --format json | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["records"]) == 9 and d["summary"]["unknown_records"] == 4'
}

@test "report: known records longer than their struct are accepted" {
	mkstream l.bin <<-'EOF'
	raw 1 64 4294967295 0
	EOF
	# A CLOCK of 64 bytes: the struct, then 8 bytes a later version adds.
	"$PY" -c '
import struct
open("l.bin", "wb").write(struct.pack("<HHIIIQQQQQQ", 1, 64, 0xffffffff, 2, 0,
    1000, 0, 0, 3000000000, 0, 0xffff) + struct.pack("<HHI", 4, 24, 9) +
    struct.pack("<Ii", 1, 0) + bytes(8))'
	run -0 htm dtl report l.bin
	[ "${lines[0]}" = "CLOCK tb_freq=1000 timebase=0 boottime=3.000000000 monotonic=0.000000000 realtime=1970-01-01T00:00:00.000000Z" ]
	[ "${lines[1]}" = "CPU cpu=9 event=joined" ]
}

@test "report: a time before the clock's own sample, and before boot" {
	mkstream t.bin <<<"clock 1000 5000 0 1000000 1000000
entry 0 0 0 0 0 0 0 4998 0 0 0
entry 0 0 0 0 0 0 0 0 0 0 0"
	run -0 htm dtl report t.bin
	# 2 ticks of 1 ms before a boottime of 1 ms, a realtime of 1 ms.
	# In time order: the entry at timebase 0 first.
	[[ "${lines[0]}" == "-4.999000000 1969-12-31T23:59:55.001000Z cpu=0 "* ]]
	[[ "${lines[1]}" == "-0.001000000 1969-12-31T23:59:59.999000Z cpu=0 "* ]]
}

# --- report: damaged streams --------------------------------------------------

# report_fails FILE MESSAGE: exit 1, the message, nothing on stdout.
report_fails() {
	run -1 --separate-stderr htm dtl report "$1"
	[ "$output" = "" ] || { echo "stdout: $output"; return 1; }
	[ "$stderr" = "htmtrace dtl report: $2" ] || { echo "stderr: $stderr"; return 1; }
}

# report_cut FILE END MESSAGE: FILE is damaged at offset END: the report of
# the records before END (that of FILE cut there, with the line that says
# why it stops), the message with the bytes read, exit 1 (issue 42 item 4).
report_cut() {
	local f=$1 end=$2 msg=$3 size want
	size=$(stat -c %s "$f")
	head -c "$end" "$f" >"$f.head"
	want=$(htm dtl report "$f.head")
	run -1 --separate-stderr htm dtl report "$f"
	[ "$output" = "$want"$'\n'"damaged: $msg: the report stops there" ] || { echo "stdout: $output"; return 1; }
	[ "$stderr" = "htmtrace dtl report: $f: $msg: the report stops there ($end of $size bytes read)" ] || { echo "stderr: $stderr"; return 1; }
}

@test "report: truncated records: what comes before is reported, then where and why it stops, exit 1" {
	vector v.bin
	# 316 bytes: the last CPU record lacks its last 4 bytes.
	head -c 316 v.bin >t1.bin
	report_cut t1.bin 304 "truncated CPU record at offset 304: length 16, 12 bytes left"
	head -c 100 v.bin >t2.bin
	report_cut t2.bin 72 "truncated ENTRY record at offset 72: length 56, 28 bytes left"
	{ cat v.bin; head -c 4 v.bin; } >t3.bin
	report_cut t3.bin 320 "truncated record at offset 320: 4 bytes left, a header is 8"
	# nothing readable: refused, no output
	head -c 3 v.bin >t4.bin
	report_fails t4.bin "t4.bin: truncated record at offset 0: 3 bytes left, a header is 8"
	mkstream t5.bin <<<"clock 1 0 0 0 0
raw 77 4096 0 100"
	report_cut t5.bin 56 "truncated type 77 record at offset 56: length 4096, 108 bytes left"
	# every format reports up to the damage; json and jsonl say where
	run -1 --separate-stderr htm dtl report t2.bin --format csv
	[ "$output" = "$(htm dtl report t2.bin.head --format csv)" ]
	run -1 --separate-stderr htm dtl report t2.bin --format json
	printf '%s\n' "$output" >t2.json
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [r[0] for r in d["records"]] == ["clock", "cpu"], d["records"]
assert d["summary"]["damage"] == {"offset": 72, "why": "truncated ENTRY record at offset 72: length 56, 28 bytes left"}, d["summary"]
' t2.json
	run -1 --separate-stderr htm dtl report t2.bin --format jsonl
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[2]}" == *', "damage": {"offset": 72, "why": "truncated ENTRY record at offset 72: length 56, 28 bytes left"}}}' ]]
	# a whole file's summary has no "damage"
	run -0 htm dtl report v.bin --format jsonl
	[[ "${lines[-1]}" != *damage* ]]
}

@test "report: a damaged record at the end of a large capture: every entry before it reported, exit 1" {
	"$PY" "$TOP/tests/dtlgen.py" big.bin --cpus 4 --entries 100000
	size=$(stat -c %s big.bin)
	# the last entry lacks its last byte
	head -c $((size - 1)) big.bin >cut.bin
	run -1 --separate-stderr "$HTMTRACE" dtl report cut.bin --format csv -o cut.csv
	[ "$stderr" = "htmtrace dtl report: cut.bin: truncated ENTRY record at offset $((size - 56)): length 56, 55 bytes left: the report stops there ($((size - 56)) of $((size - 1)) bytes read)" ]
	[ "$(grep -c '^entry,' cut.csv)" -eq 99999 ]
}

@test "report: a length below 8 or not a multiple of 8: reported up to it, exit 1" {
	mkstream a.bin <<<"clock 1 0 0 0 0
raw 2 4 0 60"
	report_cut a.bin 56 "bad ENTRY record at offset 56: length 4 is less than 8"
	mkstream b.bin <<<"clock 1 0 0 0 0
raw 9 0 0 8"
	report_cut b.bin 56 "bad type 9 record at offset 56: length 0 is less than 8"
	mkstream c.bin <<<"clock 1 0 0 0 0
raw 9 20 0 12"
	report_cut c.bin 56 "bad type 9 record at offset 56: length 20 is not a multiple of 8"
	mkstream d.bin <<<"clock 1 0 0 0 0
raw 2 60 0 52"
	report_cut d.bin 56 "bad ENTRY record at offset 56: length 60 is not a multiple of 8"
	# the first record damaged: nothing to report
	mkstream e.bin <<<"raw 2 4 0 60"
	report_fails e.bin "e.bin: bad ENTRY record at offset 0: length 4 is less than 8"
}

@test "report: a known record shorter than its struct: reported up to it, or refused if first" {
	mkstream a.bin <<<"clock 1 0 0 0 0
raw 2 48 0 40"
	report_cut a.bin 56 "bad ENTRY record at offset 56: length 48, expected at least 56"
	mkstream b.bin <<<"raw 1 48 0 40"
	report_fails b.bin "b.bin: bad CLOCK record at offset 0: length 48, expected at least 56"
	mkstream c.bin <<<"raw 3 16 0 8"
	report_fails c.bin "c.bin: bad LOST record at offset 0: length 16, expected at least 24"
	mkstream d.bin <<<"raw 4 8 0 0"
	report_fails d.bin "d.bin: bad CPU record at offset 0: length 8, expected at least 16"
}

@test "report: an entry before any CLOCK record is refused; loss and CPU records are not" {
	mkstream a.bin <<<"cpu 0 1 0
lost 0 1 2
entry 0 0 0 0 0 0 0 0 0 0 0
clock 1 0 0 0 0"
	report_fails a.bin "a.bin: ENTRY record at offset 40 comes before any CLOCK record: its time cannot be converted"
	mkstream b.bin <<<"cpu 0 1 0
lost 0 1 2"
	run -0 htm dtl report b.bin
	[ "${lines[0]}" = "CPU cpu=0 event=joined" ]
	[ "${lines[1]}" = "LOST cpu=0 count=2 why=overwritten" ]
}

@test "report: empty file, zero timebase frequency, other byte order, missing file" {
	: >e.bin
	report_fails e.bin "e.bin: empty file: no records"
	mkstream z.bin <<<"clock 0 0 0 0 0"
	report_fails z.bin "z.bin: CLOCK record at offset 0: timebase frequency 0"
	"$PY" -c '
import struct
open("s.bin", "wb").write(struct.pack(">HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, 1, 0, 0, 0, 0))'
	report_fails s.bin "s.bin: the stream was written with the other byte order"
	report_fails nope.bin "read nope.bin: No such file or directory"
}

@test "report: unknown loss reasons and CPU events as numbers" {
	mkstream n.bin <<<"lost 3 9 4
cpu 3 77 0"
	run -0 htm dtl report n.bin
	[ "${lines[0]}" = "LOST cpu=3 count=4 why=9" ]
	[ "${lines[1]}" = "CPU cpu=3 event=77" ]
	[ "${lines[4]}" = "3                 0            0            0  other=1" ]
	[ "${lines[5]}" = "entries: 0, lost: 4 (overwritten 0, dropped 0, other 4), unknown records skipped: 0" ]
}

# --- command line -------------------------------------------------------------

@test "help: dtl record and dtl report are listed; help and --help agree" {
	run -0 htm --help
	grep -qx "  dtl record   capture the dispatch trace log of CPUs" <<<"$output"
	grep -qx "  dtl report   decode a dispatch trace log capture" <<<"$output"
	local c
	for c in record report; do
		run -0 --separate-stderr htm help dtl "$c"
		[ "$stderr" = "" ]
		[[ "${lines[0]}" == "Usage: htmtrace dtl $c "* ]]
		local help=$output
		run -0 htm dtl "$c" --help
		[ "$output" = "$help" ]
		run -0 htm dtl "$c" -h
		[ "$output" = "$help" ]
	done
	run -0 htm help dtl
	[ "${lines[0]}" = "Usage: htmtrace dtl record [OPTIONS] -o FILE [...]" ]
	run -0 htm dtl --help
	[ "${lines[0]}" = "Usage: htmtrace dtl record [OPTIONS] -o FILE [...]" ]
}

@test "option names as perf's and across the dtl commands: --cpu and --cpus, report -i FILE, top -I SECS, help help (issue 42 item 6)" {
	vector "$FAKE_DTL_STREAM"
	# record and top take --cpu as -C (perf's name), report --cpus
	run -0 fdtl dtl record -d "$DEV" --cpu 0-1,3 -o dtl.bin --duration 0
	grep -qxF "CONFIGURE cpus=[0xb] cpus_size=8 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0" "$FAKE_DTL_LOG"
	rm "$FAKE_DTL_LOG"
	run -0 --separate-stderr fdtl dtl top -d "$DEV" --cpu 0-1,3 -n 1 -I 0.1
	grep -qxF "CONFIGURE cpus=[0xb] cpus_size=8 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0" "$FAKE_DTL_LOG"
	# -i, the older name of top's interval, still works
	run -0 --separate-stderr fdtl dtl top -d "$DEV" -n 1 -i 0.1
	run -2 --separate-stderr fdtl dtl top -d "$DEV" -n 1 -I 0
	[ "${stderr_lines[0]}" = "htmtrace dtl top: bad interval '0': expected 0.1 to 3600 seconds" ]
	vector v.bin
	run -0 htm dtl report v.bin -C 1
	local want=$output
	run -0 htm dtl report v.bin --cpus 1
	[ "$output" = "$want" ]
	run -0 htm dtl report -i v.bin --cpu 1
	[ "$output" = "$want" ]
	run -0 htm dtl report --input=v.bin -C 1
	[ "$output" = "$want" ]
	run -2 --separate-stderr htm dtl report -i v.bin v.bin
	[ "${stderr_lines[0]}" = "htmtrace dtl report: unexpected argument 'v.bin'" ]
	# help help: the synopsis lists it
	run -0 --separate-stderr htm help help
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "Usage: htmtrace help [COMMAND]" ]
	[ "${lines[1]}" = "Without a COMMAND, the list of commands (as htmtrace --help);" ]
	[ "${lines[2]}" = "with one (e.g. 'htmtrace help dtl record'), its options." ]
}

@test "dtl without a known command: exit 2" {
	run -2 --separate-stderr htm dtl
	[ "${stderr_lines[0]}" = "htmtrace dtl: missing dtl command: record, report or top" ]
	[ "${stderr_lines[1]}" = "Try 'htmtrace help dtl' for more information." ]
	run -2 --separate-stderr htm dtl frob
	[ "${stderr_lines[0]}" = "htmtrace dtl: unknown dtl command 'frob': expected record, report or top" ]
	run -2 --separate-stderr htm help dtl frob
	[ "${stderr_lines[0]}" = "htmtrace: help takes one command name" ]
}

# record_usage MESSAGE ARGS...: exit 2 with MESSAGE, nothing configured.
record_usage() {
	local msg=$1
	shift
	run -2 --separate-stderr fdtl dtl record -d "$DEV" "$@"
	[ "${stderr_lines[0]}" = "htmtrace dtl record: $msg" ] ||
		{ echo "args $*: $stderr"; return 1; }
	[ "${stderr_lines[1]}" = "Try 'htmtrace help dtl record' for more information." ]
	[ ! -e "$FAKE_DTL_LOG" ] || { echo "the device was opened"; return 1; }
}

@test "record: bad -C lists: exit 2" {
	local bad
	for bad in '' a 3-1 '1,' ,1 1- -1 1--2 1-2-3 ' 1' 0x1 1.5 8192 0-8192 99999999999999999999; do
		record_usage "bad CPU list '$bad': expected CPU numbers and ranges 0..8191, e.g. 0-3,8" \
			-C "$bad" -o x.bin --duration 0
	done
}

@test "record: bad -e lists: exit 2" {
	local bad
	for bad in '' 'cede,' ,cede CEDE foo cede,,fault preempt,al 7; do
		record_usage "bad event list '$bad': expected cede, preempt, fault or all, comma-separated" \
			-e "$bad" -o x.bin --duration 0
	done
}

@test "record: bad --ring-kb: exit 2" {
	local bad
	for bad in 0 3 65537 '' x -1 4k 1e3; do
		record_usage "bad ring size '$bad': expected 4 to 65536 KiB" \
			--ring-kb "$bad" -o x.bin --duration 0
	done
}

@test "record: bad --latency: exit 2" {
	local bad
	for bad in 60001 '' x -1 1.5 100ms 99999999999999999999; do
		record_usage "bad latency '$bad': expected 1 to 60000 milliseconds, or 0 for none" \
			--latency "$bad" -o x.bin --duration 0
	done
}

@test "record: output, duration and command errors: exit 2" {
	record_usage "missing output: -o FILE is required" --duration 0
	record_usage "bad output '': expected a file name, or - for standard output" -o '' --duration 0
	record_usage "--duration and a COMMAND exclude each other" -o x.bin --duration 1 true
	record_usage "bad duration 'x': expected seconds, e.g. 2 or 0.5" -o x.bin --duration x
	record_usage "unknown option '-t'" -t core -o x.bin
	record_usage "option '-C' needs an argument" -o x.bin -C
	[ ! -e x.bin ]
}

@test "report: argument errors: exit 2" {
	run -2 --separate-stderr htm dtl report
	[ "${stderr_lines[0]}" = "htmtrace dtl report: missing FILE" ]
	[ "${stderr_lines[1]}" = "Try 'htmtrace help dtl report' for more information." ]
	run -2 --separate-stderr htm dtl report a b
	[ "${stderr_lines[0]}" = "htmtrace dtl report: unexpected argument 'b'" ]
	run -2 --separate-stderr htm dtl report a --format xml
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad format 'xml': expected text, csv, json, jsonl or svg" ]
	run -2 --separate-stderr htm dtl report a -d x
	[ "${stderr_lines[0]}" = "htmtrace dtl report: unknown option '-d'" ]
}

# --- record against the fake device -------------------------------------------

@test "record: configure, start, stop, read to EOF, counters, deconfigure" {
	vector "$FAKE_DTL_STREAM"
	run -0 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "$stderr" = "" ]
	local want=(
		"captured all CPUs on $DEV, events cede,preempt,fault"
		"traced for 0 s"
		"wrote $(stat -c %s dtl.bin) bytes (a header of $(hdr_len dtl.bin) and 9 records: 3 entries, 8 lost) to dtl.bin"
		"cpu    state      log         entries  overwritten      dropped      wakeups       folded"
		"0      capturing  own               2            0            0          100            0"
		"1      ended      kernel            1            5            3          101            1"
		"2      ended      own               0            0            0          102            2"
		"3      capturing  kernel            0            0            0          103            3"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$output" ] || {
		diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$output")
		false
	}
	# Every CPU, all events, the driver's ring size; non-blocking reads.
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP READ 320 READ EOF at 320 STATS room=64 count=4 DECONFIGURE" ]
	[ "$(head -n 1 "$FAKE_DTL_LOG")" = "OPEN nonblock" ]
	[ "$(tail -n 1 "$FAKE_DTL_LOG")" = "CLOSE" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	# The file reports as the stream does.
	run -0 htm dtl report dtl.bin
	[ "${lines[6]}" = "8.000000000 2023-11-14T22:13:21.123456Z cpu=0 dispatch=decrementer_interrupt preempt=H_CEDE processor=4660 enqueue_to_dispatch=1.000us ready_to_enqueue=0.500us waiting_to_ready=2.000us fault=0x0 srr0=0xc000000000012345" ]
}

# --- the file header (issue 42 item 3) ----------------------------------------

@test "record: the file starts with a header of the tool's: when, where, what, by which command; report --header prints it as perf does" {
	vector "$FAKE_DTL_STREAM"
	printf 'lparcfg 1.9\nserial_number=IBM,0212345\npartition_id=7\npartition_name=lpar seven\n' >lparcfg
	FAKE_LPARCFG=$PWD/lparcfg run -0 --separate-stderr fdtl dtl record -d "$DEV" -C 0-1,3 -e cede,fault --ring-kb 64 -o dtl.bin -- true "a b"
	# the device's stream follows the header unchanged
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 24 ]
	[ $((h % 8)) -eq 0 ]
	[ "$(stat -c %s dtl.bin)" -eq $((h + 320)) ]
	run -0 --separate-stderr htm dtl report --header-only dtl.bin
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 15 ]
	[ "${lines[0]}" = "# ========" ]
	[[ "${lines[1]}" =~ ^"# captured on      : "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]
	# within a minute of now
	local t
	t=$(date -u -d "${lines[1]#*: }" +%s)
	[ $(($(date -u +%s) - t)) -lt 60 ]
	[ "${lines[2]}" = "# hostname         : $(uname -n)" ]
	[ "${lines[3]}" = "# lpar name        : lpar seven" ]
	[ "${lines[4]}" = "# partition id     : 7" ]
	[ "${lines[5]}" = "# os release       : $(uname -r)" ]
	[ "${lines[6]}" = "# arch             : $(uname -m)" ]
	[ "${lines[7]}" = "# htmtrace version : $("$HTMTRACE" --version | sed -n 's/^htmtrace //p')" ]
	[ "${lines[8]}" = "# cpus             : 0-1,3" ]
	[ "${lines[9]}" = "# events           : cede,fault" ]
	[ "${lines[10]}" = "# ring             : 64 KiB" ]
	[ "${lines[11]}" = "# cmdline          : htmtrace dtl record -d $DEV -C 0-1,3 -e cede,fault --ring-kb 64 -o dtl.bin -- true 'a b'" ]
	[ "${lines[12]}" = "# data offset      : $h" ]
	[ "${lines[13]}" = "# ========" ]
	[ "${lines[14]}" = "#" ]
	local head=$output
	# --header: the header, then the report of the stream
	run -0 htm dtl report --header dtl.bin
	[ "$output" = "$head"$'\n'"$(htm dtl report "$FAKE_DTL_STREAM")" ]
	# without it, the report is the stream's
	run -0 htm dtl report dtl.bin
	[ "$output" = "$(htm dtl report "$FAKE_DTL_STREAM")" ]
}

@test "record: fields a machine does not have are left out (no lparcfg: not an LPAR); all CPUs, the driver's ring" {
	vector "$FAKE_DTL_STREAM"
	run -0 fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	run -0 htm dtl report --header-only dtl.bin
	[ "${#lines[@]}" -eq 13 ]
	[ "${lines[2]}" = "# hostname         : $(uname -n)" ]
	[ "${lines[3]}" = "# os release       : $(uname -r)" ]
	[ "${lines[6]}" = "# cpus             : all" ]
	[ "${lines[7]}" = "# events           : cede,preempt,fault" ]
	[ "${lines[8]}" = "# ring             : the driver's default" ]
	[ "${lines[9]}" = "# cmdline          : htmtrace dtl record -d $DEV -o dtl.bin --duration 0" ]
}

@test "report: the header in json and jsonl; every format and the SVG report the stream as without it" {
	vector "$FAKE_DTL_STREAM"
	run -0 fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 0 ]
	run -0 htm dtl report dtl.bin --format json
	"$PY" -c '
import json, sys
d = json.loads(sys.argv[1])
assert list(d) == ["header", "clock", "columns", "records", "summary"], list(d)
h = d["header"]
assert h["data_offset"] == int(sys.argv[2]), h
assert list(h["fields"]) == ["captured_on", "hostname", "os_release", "arch", "htmtrace_version", "cpus", "events", "ring", "cmdline"], h
assert h["fields"]["cpus"] == "all" and h["fields"]["ring"] == "the driver'"'"'s default", h
# offsets are the file'"'"'s: the CLOCK right after the header
assert [r[1] for r in d["records"] if r[0] == "clock"] == [int(sys.argv[2])], d["records"]
' "$output" "$h"
	run -0 htm dtl report dtl.bin --format jsonl
	[ "${#lines[@]}" -eq 11 ]
	[[ "${lines[0]}" == "{\"kind\": \"header\", \"offset\": 0, \"data_offset\": $h, \"fields\": {\"captured_on\": \""* ]]
	# csv and the SVG: the stream's, at the file's offsets
	mkdir s
	cp "$FAKE_DTL_STREAM" s/dtl.bin
	run -0 htm dtl report dtl.bin --format csv
	[ "$output" = "$("$PY" -c '
import sys
h = int(sys.argv[1])
for l in sys.stdin.read().splitlines():
    w = l.split(",")
    if w[1].isdigit():
        w[1] = str(int(w[1]) + h)
    print(",".join(w))' "$h" < <(htm dtl report s/dtl.bin --format csv))" ]
	cmp <(htm dtl report dtl.bin --format svg) <(cd s && htm dtl report dtl.bin --format svg)
	# --header is the text format's
	run -2 --separate-stderr htm dtl report dtl.bin --header --format csv
	[ "${stderr_lines[0]}" = "htmtrace dtl report: --header prints the text format's header; json and jsonl hold it in their document" ]
	run -2 --separate-stderr htm dtl report dtl.bin --header-only --format json
	[ "${stderr_lines[0]}" = "htmtrace dtl report: --header-only prints the text format's header; json and jsonl hold it in their document" ]
}

@test "report: a capture without the header (an older tool's, the device read with cat) is read; --header says it has none" {
	vector v.bin
	run -0 htm dtl report --header v.bin
	[ "${lines[0]}" = "# ========" ]
	[ "${lines[1]}" = "# no file header: a capture written without one (by an older htmtrace, or read from the device)" ]
	[ "${lines[2]}" = "# ========" ]
	[ "${lines[3]}" = "#" ]
	[ "${lines[4]}" = "$(htm dtl report v.bin | head -n 1)" ]
}

@test "report: a file that is not a capture is refused in a sentence that says so (perf.data, htm.bin, CSV)" {
	printf 'PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00' >perf.data
	report_fails perf.data "perf.data is a perf.data file, not a dispatch trace log capture: read it with perf report (htmtrace dtl report reads the files of htmtrace dtl record)"
	local other="is not a dispatch trace log capture: it starts with neither htmtrace's file header nor a record of /dev/vpa_dtl (htmtrace dtl report reads the files of htmtrace dtl record)"
	vector v.bin
	htm dtl report v.bin --format csv >v.csv
	report_fails v.csv "v.csv $other"
	# an HTM trace as htmtrace record writes it (the fake's pattern)
	"$PY" -c '
import random, sys
r = random.Random(5)
open(sys.argv[1], "wb").write(bytes([0xa5, 0x5a]) + bytes(r.randrange(256) for _ in range(4094)))' htm.bin
	report_fails htm.bin "htm.bin $other"
}

@test "report: a damaged file header or one of the other byte order is refused" {
	vector "$FAKE_DTL_STREAM"
	run -0 fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	# version 2
	{ head -c 16 dtl.bin; printf '\x02'; tail -c +18 dtl.bin; } >v2.bin
	report_fails v2.bin "v2.bin: damaged file header at offset 0: its length or version is not one htmtrace $("$HTMTRACE" --version | sed -n 's/^htmtrace //p') writes"
	# a length beyond the file
	{ head -c 2 dtl.bin; printf '\xf8\xff'; tail -c +5 dtl.bin; } >long.bin
	report_fails long.bin "long.bin: damaged file header at offset 0: its length or version is not one htmtrace $("$HTMTRACE" --version | sed -n 's/^htmtrace //p') writes"
	# the other byte order: the type reads 0x0080
	{ printf '\x80\x00'; tail -c +3 dtl.bin; } >sw.bin
	report_fails sw.bin "sw.bin: the stream was written with the other byte order"
	# a header and no records
	head -c "$(hdr_len dtl.bin)" dtl.bin >h.bin
	report_fails h.bin "h.bin: no records after the file header"
}

@test "record: a CPU whose log another user took: named, the file kept, exit 1" {
	mkstream "$FAKE_DTL_STREAM" <<-'EOF'
	clock 512000000 1024000000 5000000000 7000000000 1700000000123456789
	cpu 0 1 0
	cpu 1 1 0
	entry 1 17 42 6 0 0 0 1023999999 0 0 0
	cpu 1 3 0
	entry 0 3 2 0x1234 512 256 1024 1536000000 0 0xc000000000012345 0x8000000000001033
	EOF
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	echo "$stderr"
	[[ $stderr == *"CPU 1: another user took its dispatch trace log after 144 bytes of the capture: that CPU's capture ended there"* ]]
	[[ $stderr == *"the capture of 1 CPU(s) ended early"* ]]
	# the capture is kept whole, and the device deconfigured
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	[[ $(ops) == *" DECONFIGURE" ]]
}

@test "record: the CPU mask, event mask and ring size reach CONFIGURE" {
	vector "$FAKE_DTL_STREAM"
	local spec
	for spec in "0|cede|4|[0x1] cpus_size=8 mask=0x1 ring_kb=4" \
		    "0-3,8|preempt,fault|65536|[0x10f] cpus_size=8 mask=0x6 ring_kb=65536" \
		    "64|all|256|[0x0,0x1] cpus_size=16 mask=0x7 ring_kb=256" \
		    "0,63,64-65,127-128|cede,all|512|[0x8000000000000001,0x8000000000000003,0x1] cpus_size=24 mask=0x7 ring_kb=512" \
		    "5,3,4-4,3-5|fault,cede|8|[0x38] cpus_size=8 mask=0x5 ring_kb=8"; do
		IFS='|' read -r cpus events kb want <<<"$spec"
		rm -f "$FAKE_DTL_LOG"
		run -0 fdtl dtl record -d "$DEV" -C "$cpus" -e "$events" --ring-kb "$kb" -o dtl.bin --duration 0
		grep -qxF "CONFIGURE cpus=$want flags=0x0 reserved=0,0" "$FAKE_DTL_LOG" ||
			{ echo "$spec:"; cat "$FAKE_DTL_LOG"; false; }
	done
	[ "${lines[0]}" = "captured CPUs 3-5 on $DEV, events cede,fault" ]
	# 8191 is the highest CPU: a mask of 1 KiB.
	rm -f "$FAKE_DTL_LOG"
	run -0 fdtl dtl record -d "$DEV" -C 8191 -o dtl.bin --duration 0
	grep -q "cpus_size=1024 mask=0x7" "$FAKE_DTL_LOG"
	[ "${lines[0]}" = "captured CPUs 8191 on $DEV, events cede,preempt,fault" ]
}

@test "record -- COMMAND: the stream is copied while it runs, the rest after the stop" {
	vector "$FAKE_DTL_STREAM"
	# 128 bytes (CLOCK, CPU, ENTRY) are ready at once, at most 60 a read.
	# The workload ends once record has read them (three READs in the
	# log, waited for up to 20 s): an order, not a time.
	export FAKE_DTL_LIVE=128 FAKE_DTL_CHUNK=60
	# the workload's status is the capture's, as perf record's
	run -3 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- \
		sh -c 'i=0
			until [ "$(grep -c "^READ [0-9]" "$FAKE_DTL_LOG")" -ge 3 ]; do
				i=$((i + 1)); [ $i -le 2000 ] || exit 9; sleep 0.01
			done
			echo WORKLOAD >>"$FAKE_DTL_LOG"; exit 3'
	[ "$stderr" = "" ]
	[ "${lines[1]}" = "workload exited with status 3" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START READ 56 READ 16 READ 56 WORKLOAD STOP READ 56 READ 24 READ 56 READ 56 READ EOF at 320 STATS room=64 count=4 DECONFIGURE" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

@test "record -- COMMAND: the command's arguments are its own" {
	vector "$FAKE_DTL_STREAM"
	run -0 fdtl dtl record -d "$DEV" -o dtl.bin \
		sh -c 'printf "%s|" "$@" >args' sh -C 0 -e x --duration 1 -- y
	[ "$(cat args)" = "-C|0|-e|x|--duration|1|--|y|" ]
}

@test "record: more CPUs than the first counters buffer holds" {
	vector "$FAKE_DTL_STREAM"
	run -0 fdtl dtl record -d "$DEV" -C 0-99 -o dtl.bin --duration 0
	grep -qx "STATS room=64 ENOSPC count=100" "$FAKE_DTL_LOG"
	grep -qx "STATS room=100 count=100" "$FAKE_DTL_LOG"
	[ "${#lines[@]}" -eq 104 ]
	[ "${lines[103]}" = "99     capturing  kernel            0            0            0          199           99" ]
}

# The operations of a record on the fake device's virtual clock: a FLUSH
# is logged with its time since START.
CONF="CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0"
END="STOP READ EOF at 320 STATS room=64 count=4 DECONFIGURE"

@test "record --latency MS: a FLUSH at the START, then one every MS until the stop" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_VTIME=1
	run -0 --separate-stderr fdtl dtl record -d "$DEV" --latency 300 -o dtl.bin --duration 1
	[ "$stderr" = "" ]
	[ "${lines[2]}" = "wrote $(stat -c %s dtl.bin) bytes (a header of $(hdr_len dtl.bin) and 9 records: 3 entries, 8 lost) to dtl.bin" ]
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 320 FLUSH at 300 ms FLUSH at 600 ms FLUSH at 900 ms $END" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	# the smallest period; the largest, longer than the capture
	rm "$FAKE_DTL_LOG"
	run -0 fdtl dtl record -d "$DEV" --latency 1 -o dtl.bin --duration 0.005
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 320 FLUSH at 1 ms FLUSH at 2 ms FLUSH at 3 ms FLUSH at 4 ms $END" ]
	rm "$FAKE_DTL_LOG"
	run -0 fdtl dtl record -d "$DEV" --latency 60000 -o dtl.bin --duration 100
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 320 FLUSH at 60000 ms $END" ]
	# 0, as without the option: no FLUSH at all
	rm "$FAKE_DTL_LOG"
	run -0 fdtl dtl record -d "$DEV" --latency 0 -o dtl.bin --duration 1
	[ "$(ops)" = "$CONF START READ 320 $END" ]
}

@test "record --latency MS: a stream that never runs dry still gets a FLUSH every MS, plus one read" {
	vector "$FAKE_DTL_STREAM"
	# one record a read, 100 ms each: the stream is always ready
	export FAKE_DTL_VTIME=1 FAKE_DTL_CHUNK=1 FAKE_DTL_READ_US=100000
	run -0 fdtl dtl record -d "$DEV" --latency 250 -o dtl.bin --duration 1
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 56 READ 16 READ 56 FLUSH at 300 ms READ 56 READ 24 READ 56 FLUSH at 600 ms READ 24 READ 16 READ 16 FLUSH at 900 ms $END" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

@test "record --latency on a driver without FLUSH: said before the workload runs, stopped, deconfigured, file removed" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=flush:25
	run -1 --separate-stderr fdtl dtl record -d "$DEV" --latency 100 -o dtl.bin -- touch ran
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "htmtrace dtl record: flush $DEV: Inappropriate ioctl for device" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: the driver has no HTMTRACE_IOC_DTL_FLUSH (an htmtrace.ko older than this tool): --latency needs it" ]
	[ "${stderr_lines[2]}" = "htmtrace dtl record: removed the partial dtl.bin" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "$(ops)" = "$CONF START FLUSH FAIL 25 STOP DECONFIGURE" ]
	[ ! -e ran ]
	[ ! -e dtl.bin ]
}

@test "record --latency: a FLUSH failing mid-capture keeps what was copied; one on a stopped session is no error" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_VTIME=1 FAKE_DTL_FAIL=flush:5:2
	run -1 --separate-stderr fdtl dtl record -d "$DEV" --latency 300 -o dtl.bin --duration 1
	[ "${stderr_lines[0]}" = "htmtrace dtl record: flush $DEV: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: kept $(stat -c %s dtl.bin) bytes (a header of $(hdr_len dtl.bin) and 9 records: 3 entries, 8 lost) in dtl.bin: whole records, the capture cut short there" ]
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 320 FLUSH FAIL 5 STOP DECONFIGURE" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	# EBADFD: the session was stopped from another file; its stream ends
	rm "$FAKE_DTL_LOG"
	export FAKE_DTL_FAIL=flush:77:2
	run -0 --separate-stderr fdtl dtl record -d "$DEV" --latency 400 -o dtl.bin --duration 1
	[ "$stderr" = "" ]
	[ "$(ops)" = "$CONF START FLUSH at 0 ms READ 320 FLUSH FAIL 77 FLUSH FAIL 77 $END" ]
}

@test "record: a failed start: deconfigured, never stopped, workload never run, file removed" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=start:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- touch ran
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "htmtrace dtl record: start $DEV: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: removed the partial dtl.bin" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START FAIL 5 DECONFIGURE" ]
	[ "$(tail -n 1 "$FAKE_DTL_LOG")" = "CLOSE" ]
	[ ! -e ran ]
	[ ! -e dtl.bin ]
}

@test "record: a second session: EBUSY with a hint, nothing to deconfigure" {
	export FAKE_DTL_FAIL=configure:16
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -C 1 -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: configure $DEV: Device or resource busy" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: a dispatch trace log session exists already (one at a time)" ]
	[ "${stderr_lines[2]}" = "htmtrace dtl record: removed the partial dtl.bin" ]
	[ "$(ops)" = "CONFIGURE cpus=[0x2] cpus_size=8 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 CONFIGURE FAIL 16" ]
	[ ! -e dtl.bin ]
}

@test "record: missing permission gets a capability hint" {
	export FAKE_DTL_FAIL=configure:1
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: configure $DEV: Operation not permitted" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: this needs CAP_PERFMON or CAP_SYS_ADMIN" ]
}

@test "record: a failed stop: deconfigured, file removed" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=stop:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: stop $DEV: Input/output error" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP FAIL 5 DECONFIGURE" ]
	[ ! -e dtl.bin ]
}

@test "record: a failed read: deconfigured, file removed" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=read:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: read $DEV after 0 bytes: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: removed the partial dtl.bin" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP READ FAIL 5 DECONFIGURE" ]
	[ ! -e dtl.bin ]
}

@test "record: a failed read while the workload runs: stopped, deconfigured, file removed" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=read:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- sleep 5
	[ "${stderr_lines[0]}" = "htmtrace dtl record: read $DEV after 0 bytes: Input/output error" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START READ FAIL 5 STOP DECONFIGURE" ]
	[ ! -e dtl.bin ]
}

@test "record: a stream that is not whole records is refused" {
	# The fake serves what it is given; a record of 12 bytes is no record.
	mkstream "$FAKE_DTL_STREAM" <<<"clock 1 0 0 0 0
raw 2 12 0 4"
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: read $DEV after 0 bytes: the driver returned 68 bytes that are not whole records" ]
	grep -qx DECONFIGURE "$FAKE_DTL_LOG"
	[ ! -e dtl.bin ]
}

@test "record: failed counters or deconfigure: exit 1, the complete file stays" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_FAIL=stats:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: counters $DEV: Input/output error" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP READ 320 READ EOF at 320 STATS FAIL 5 DECONFIGURE" ]
	[ "${lines[2]}" = "wrote $(stat -c %s dtl.bin) bytes (a header of $(hdr_len dtl.bin) and 9 records: 3 entries, 8 lost) to dtl.bin" ]
	[ "${#lines[@]}" -eq 3 ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	rm -f "$FAKE_DTL_LOG" dtl.bin
	export FAKE_DTL_FAIL=deconfigure:5
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: deconfigure $DEV: Input/output error" ]
	[ "${#lines[@]}" -eq 8 ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

@test "record: a command that cannot run: stopped, deconfigured, file removed" {
	vector "$FAKE_DTL_STREAM"
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- no-such-command-dtl
	[ "${stderr_lines[0]}" = "htmtrace dtl record: run 'no-such-command-dtl': No such file or directory" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: removed the partial dtl.bin" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP DECONFIGURE" ]
	[ ! -e dtl.bin ]
}

@test "record: a failed record leaves an earlier capture as it was (no device, CONFIGURE busy, a command that cannot run)" {
	echo "earlier capture" >d.bin
	cp d.bin old.bin
	run -1 --separate-stderr htm dtl record -d "$BATS_TEST_TMPDIR/none" -o d.bin --duration 0
	cmp old.bin d.bin
	vector "$FAKE_DTL_STREAM"
	FAKE_DTL_FAIL=configure:16 run -1 --separate-stderr fdtl dtl record -d "$DEV" -o d.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: configure $DEV: Device or resource busy" ]
	[ "${stderr_lines[2]}" = "htmtrace dtl record: nothing captured: d.bin left as it was" ]
	cmp old.bin d.bin
	rm "$FAKE_DTL_LOG"
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o d.bin -- no-such-command-dtl
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START STOP DECONFIGURE" ]
	cmp old.bin d.bin
	# No temporary file is left behind, and a good record replaces it.
	[ "$(find . -name '.htmtrace*' | wc -l)" -eq 0 ]
	run -0 --separate-stderr fdtl dtl record -d "$DEV" -o d.bin --duration 0
	cmp "$FAKE_DTL_STREAM" <(stream_of d.bin)
	[ "$(find . -name '.htmtrace*' | wc -l)" -eq 0 ]
}

@test "record -o -: the stream on standard output, the counters on stderr, piped into report -" {
	vector "$FAKE_DTL_STREAM"
	run -0 --separate-stderr sh -c 'LD_PRELOAD=$FAKEDTL "$HTMTRACE" dtl record -d "$DEV" -o - -- sh -c "echo workload says hi" >piped.bin'
	cmp "$FAKE_DTL_STREAM" <(stream_of piped.bin)
	[ "${stderr_lines[0]}" = "workload says hi" ]
	[ "${stderr_lines[1]}" = "captured all CPUs on $DEV, events cede,preempt,fault" ]
	[ "${stderr_lines[3]}" = "wrote $(stat -c %s piped.bin) bytes (a header of $(hdr_len piped.bin) and 9 records: 3 entries, 8 lost) to standard output" ]
	htm dtl report piped.bin >want.txt
	LD_PRELOAD=$FAKEDTL "$HTMTRACE" dtl record -d "$DEV" -o - --duration 0 2>/dev/null |
		htm dtl report - >got.txt
	cmp want.txt got.txt
	[ -s got.txt ]
}

@test "record: an output that cannot be created: exit 1, nothing configured" {
	run -1 --separate-stderr fdtl dtl record -d "$DEV" -o no/such/dir/dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: create no/such/dir/dtl.bin: No such file or directory" ]
	[ "$(ops)" = "" ]
}

@test "record: a missing device: exit 1; -d takes a path, not a channel number" {
	run -1 --separate-stderr htm dtl record -d "$BATS_TEST_TMPDIR/none" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: open $BATS_TEST_TMPDIR/none: No such file or directory" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -1 --separate-stderr htm dtl record -d 0 -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: open 0: No such file or directory" ]
	[ ! -e dtl.bin ]
}

@test "record: a device that is no DTL device: ENOTTY with a hint" {
	: >notdtl
	run -1 --separate-stderr htm dtl record -d notdtl -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: configure notdtl: Inappropriate ioctl for device" ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: notdtl is not the htmtrace dispatch trace log device" ]
	[ ! -e dtl.bin ]
}

@test "record without a workload captures until SIGINT" {
	vector "$FAKE_DTL_STREAM"
	export FAKE_DTL_LIVE=72
	LD_PRELOAD=$FAKEDTL "$HTMTRACE" dtl record -d "$DEV" -o dtl.bin \
		>out.txt 2>err.txt &
	local pid=$! i rc=0
	for ((i = 0; i < 400; i++)); do
		grep -q 'press Ctrl-C' err.txt 2>/dev/null && break
		sleep 0.05
	done
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(cat err.txt)" = "htmtrace dtl record: capturing; press Ctrl-C to stop" ]
	[ "$(sed -n 2p out.txt)" = "traced until a signal" ]
	[ "$(sed -n 3p out.txt)" = "wrote $(stat -c %s dtl.bin) bytes (a header of $(hdr_len dtl.bin) and 9 records: 3 entries, 8 lost) to dtl.bin" ]
	[ "$(ops)" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START READ 72 STOP READ 248 READ EOF at 320 STATS room=64 count=4 DECONFIGURE" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

@test "record -- COMMAND: the workload's failure is the capture's exit status, as perf record's; the file kept" {
	vector "$FAKE_DTL_STREAM"
	run -7 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- sh -c 'exit 7'
	[ "$stderr" = "" ]
	[ "${lines[1]}" = "workload exited with status 7" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	# killed by a signal: 128 + the signal, as a shell says it
	run -137 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- sh -c 'kill -KILL $$'
	[ "${lines[1]}" = "workload killed by signal 9" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
	# the tool's own failure comes first: 1
	FAKE_DTL_FAIL=stats:5 run -1 --separate-stderr fdtl dtl record -d "$DEV" -o dtl.bin -- sh -c 'exit 7'
	[ "${stderr_lines[0]}" = "htmtrace dtl record: counters $DEV: Input/output error" ]
	[ "${lines[1]}" = "workload exited with status 7" ]
}

@test "report -C: CPUs the capture does not hold are said; none of them: nothing to report, exit 1 (issue 42 item 10)" {
	vector v.bin
	run -1 --separate-stderr htm dtl report v.bin -C 9
	[ "$output" = "" ]
	[ "$stderr" = "htmtrace dtl report: v.bin holds no records of CPU 9 (it holds records of CPUs 0-2): nothing to report" ]
	run -1 --separate-stderr htm dtl report v.bin -C 8-9 --format svg
	[ "$output" = "" ]
	[ "$stderr" = "htmtrace dtl report: v.bin holds no records of CPUs 8-9 (it holds records of CPUs 0-2): nothing to report" ]
	# some of them: the report of those, the others said
	run -0 --separate-stderr htm dtl report v.bin -C 1,9
	[ "$stderr" = "htmtrace dtl report: v.bin holds no records of CPU 9 (it holds records of CPUs 0-2)" ]
	[ "$output" = "$(htm dtl report v.bin -C 1)" ]
	mkstream c.bin <<<"clock 1 0 0 0 0"
	run -1 --separate-stderr htm dtl report c.bin -C 0
	[ "$stderr" = "htmtrace dtl report: c.bin holds no records of CPU 0 (it holds records of no CPU): nothing to report" ]
}

@test "record --duration captures at least that long" {
	vector "$FAKE_DTL_STREAM"
	local t0 t1
	t0=$(date +%s%N)
	run -0 fdtl dtl record -d "$DEV" -o dtl.bin --duration 0.3
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -ge 300 ]
	[ "${lines[1]}" = "traced for 0.3 s" ]
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

# --- report: safety, order, filters, distributions, JSON Lines ----------------

@test "report -o: /dev/null, a FIFO and /dev/stdout are written in place, exit 0 (issue 42 item 9)" {
	vector v.bin
	htm dtl report v.bin >want.txt
	run -0 --separate-stderr htm dtl report v.bin -o /dev/null
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	mkfifo fifo
	cat fifo >got.txt &
	run -0 --separate-stderr htm dtl report v.bin -o fifo
	wait $!
	[ "$stderr" = "" ]
	cmp want.txt got.txt
	[ -p fifo ]
	# standard output a pipe, then a regular file: /dev/stdout stays a link
	run -0 --separate-stderr htm dtl report v.bin -o /dev/stdout
	[ "$output" = "$(cat want.txt)" ]
	htm dtl report v.bin -o /dev/stdout >out.txt
	cmp want.txt out.txt
	[ -L /dev/stdout ]
	[ "$(find . -name '.htmtrace.*')" = "" ]
}

@test "report -o: an existing file is replaced only by a whole report; a write error (a file size limit) leaves it as it was" {
	"$PY" "$TOP/tests/dtlgen.py" big.bin --cpus 2 --entries 2000
	printf 'an earlier report\n' >out.txt
	run -1 --separate-stderr bash -c 'ulimit -f 4; exec "$HTMTRACE" dtl report big.bin -o out.txt'
	[ "$output" = "" ]
	[ "$stderr" = "htmtrace dtl report: write out.txt: File too large" ]
	[ "$(cat out.txt)" = "an earlier report" ]
	[ "$(find . -name '.htmtrace.*')" = "" ]
	# a whole one replaces it, with the mode a new file gets
	chmod 600 out.txt
	umask 022
	run -0 --separate-stderr htm dtl report big.bin -o out.txt
	cmp out.txt <(htm dtl report big.bin)
	[ "$(stat -c %a out.txt)" = 644 ]
	[ "$(find . -name '.htmtrace.*')" = "" ]
}

@test "report: an output that is the input is refused, the capture kept" {
	vector v.bin
	cp v.bin keep.bin
	run -1 --separate-stderr htm dtl report v.bin -o v.bin
	[ "$stderr" = "htmtrace dtl report: v.bin is the input v.bin: give another output" ]
	cmp keep.bin v.bin
	ln v.bin hard.bin
	run -1 --separate-stderr htm dtl report v.bin --format csv -o hard.bin
	[ "$stderr" = "htmtrace dtl report: hard.bin is the input v.bin: give another output" ]
	cmp keep.bin v.bin
}

@test "report: /dev/zero ends at its first header; - reads standard input" {
	run -1 --separate-stderr timeout 10 "$HTMTRACE" dtl report /dev/zero
	[ "$stderr" = "htmtrace dtl report: /dev/zero is not a dispatch trace log capture: it starts with neither htmtrace's file header nor a record of /dev/vpa_dtl (htmtrace dtl report reads the files of htmtrace dtl record)" ]
	[ "$output" = "" ]
	# Standard input that is a pipe reports as the file does.
	vector v.bin
	htm dtl report v.bin --format csv >want.csv
	cat v.bin | htm dtl report - --format csv >got.csv
	cmp want.csv got.csv
}

# A capture regrouped per CPU, as mkstream lines: all of CPU 0, then all
# of CPU 1, whose first entry is the oldest.
regrouped() {
	cat <<-'EOF'
	clock 1000000 0 0 1000000000000 0
	entry 0 3 2 0 5 0 0 1980000 0 0 0
	entry 0 3 2 0 5 0 0 1990000 0 0 0
	entry 1 3 2 0 7 0 0 15000 0 0 0
	entry 1 3 2 0 7 0 0 1985000 0 0 0
	EOF
}

@test "report -: a pipe's temporary copy that cannot be made or written says so, naming the directory (issue 42 item 7)" {
	# The reports that need the whole capture copy a pipe first: the
	# picture, --time in percents (the others stream: host-dtlstream.bats).
	vector v.bin
	run -1 --separate-stderr bash -c 'cat v.bin | TMPDIR=/nonexistent "$HTMTRACE" dtl report - --format svg'
	[ "$output" = "" ]
	[ "$stderr" = "htmtrace dtl report: standard input is a pipe or a device, copied into a temporary file in /nonexistent (TMPDIR) to be read; creating it failed: No such file or directory" ]
	"$PY" "$TOP/tests/dtlgen.py" big.bin --cpus 2 --entries 2000
	run -1 --separate-stderr bash -c 'cat big.bin | (ulimit -f 4; TMPDIR=$PWD exec "$HTMTRACE" dtl report - --time 0%-50%)'
	[ "$output" = "" ]
	[ "$stderr" = "htmtrace dtl report: copy standard input into a temporary file in $PWD (TMPDIR): File too large" ]
	run -1 --separate-stderr htm dtl report .
	[ "$stderr" = "htmtrace dtl report: read .: Is a directory" ]
}

@test "report: CPUs merged by time, whatever their order in the file" {
	regrouped | mkstream g.bin
	run -0 --separate-stderr htm dtl report g.bin
	[ "$stderr" = "" ]
	[[ "${lines[0]}" == "CLOCK "* ]]
	[[ "${lines[1]}" == "1000.015000000 "*" cpu=1 "* ]]
	[[ "${lines[2]}" == "1001.980000000 "*" cpu=0 "* ]]
	[[ "${lines[3]}" == "1001.985000000 "*" cpu=1 "* ]]
	[[ "${lines[4]}" == "1001.990000000 "*" cpu=0 "* ]]
	run -0 htm dtl report g.bin --format jsonl
	[ "$(head -n 5 <<<"$output" | "$PY" -c '
import json, sys
print(" ".join(str(json.loads(l).get("cpu")) for l in sys.stdin))')" = "None 1 0 1 0" ]
}

@test "report --cpu and --time: the records kept, in every format, the SVG included" {
	{
		regrouped
		echo "lost 1 1 4"
		echo "entry 2 3 2 0 7 0 0 1985000 0 0 0"
	} | mkstream g.bin
	run -0 htm dtl report g.bin --cpu 1
	[ "$(grep -c '^100.* cpu=1 ' <<<"$output")" -eq 2 ]
	[ "$(grep -c ' cpu=[02] ' <<<"$output")" -eq 0 ]
	[[ "$output" == *"entries: 2, lost: 4 (overwritten 4, dropped 0)"* ]]
	run -0 htm dtl report g.bin --time 1001.981,1001.99
	[ "$(grep -c '^100' <<<"$output")" -eq 3 ]
	[[ "$output" == *"entries: 3,"* ]]
	run -0 htm dtl report g.bin -C 0,2 --time ,1001.985 --format csv
	[ "$(grep -c '^entry,' <<<"$output")" -eq 2 ]
	run -0 htm dtl report g.bin --cpu 1 --time 1001, --format json
	[ "$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["summary"]["entries"])' <<<"$output")" = 1 ]
	run -0 htm dtl report g.bin --cpu 2 --format svg
	[[ "$output" == *'data-entries="1"'* ]]
	[ "$(grep -c 'class="lane"' <<<"$output")" -eq 1 ]
	local bad
	for bad in '' , x 2,1 1,2,3 1..2 -1,2; do
		run -2 --separate-stderr htm dtl report g.bin --time "$bad"
		[ "${stderr_lines[0]}" = "htmtrace dtl report: bad time range '$bad': expected START,END in seconds since boot, e.g. 1000.5,1002 (either may be left out), or percents of the capture, e.g. 0%-10%,50%-60% (at most 16 ranges)" ]
	done
	run -2 --separate-stderr htm dtl report g.bin --cpu x
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad CPU list 'x': expected CPU numbers and ranges 0..8191, e.g. 0-3,8" ]
}

@test "report: the dispatch wait distribution per CPU and per reason, exact below 512 ticks" {
	# 100 entries of CPU 0 with waits of 1..100 ticks of 1 us; one of
	# 100000 ticks, above 512: its bin starts at 99840 (1/256 of 65536).
	{
		echo "clock 1000000 0 0 0 0"
		for i in $(seq 1 100); do echo "entry 0 7 2 0 $i 0 0 $((1000 + i)) 0 0 0"; done
		echo "entry 1 3 4 0 100000 0 0 5000 0 0 0"
	} | mkstream w.bin
	run -0 htm dtl report w.bin
	local want=(
		"dispatch wait (enqueue_to_dispatch), us"
		"                                              entries        p50        p90        p99        max"
		"cpu 0                                             100     50.000     90.000     99.000    100.000"
		"cpu 1                                               1  99840.000  99840.000  99840.000 100000.000"
		"dispatch 3 decrementer_interrupt                    1  99840.000  99840.000  99840.000 100000.000"
		"dispatch 7 time_slice                             100     50.000     90.000     99.000    100.000"
		"preempt 2 H_CEDE                                  100     50.000     90.000     99.000    100.000"
		"preempt 4 time_slice                                1  99840.000  99840.000  99840.000 100000.000"
	)
	[ "$(grep -A 7 '^dispatch wait' <<<"$output")" = "$(printf '%s\n' "${want[@]}")" ]
	run -0 htm dtl report w.bin --format csv
	[ "$(grep '^wait_cpu,,0,' <<<"$output")" = "wait_cpu,,0,,,,,,,,,,,,,100,,,,50.000,90.000,99.000,100.000" ]
	run -0 htm dtl report w.bin --format json
	"$PY" -c '
import json, sys
s = json.load(sys.stdin)["summary"]
assert s["cpus"][0]["wait"] == {"count": 100, "p50_us": 50.0, "p90_us": 90.0,
                                "p99_us": 99.0, "max_us": 100.0}, s["cpus"][0]
assert s["wait"]["preempt"][0]["p90_us"] == 90.0' <<<"$output"
}

# summary_vector FILE: at 1000 ticks a second, CPU 0 dispatched at 100,
# 300 and 590 ms after waits of 10, 100 and 100 ms (its time: 90 to 590
# ms, 42% not dispatched), CPU 1 once, and 5 of its entries overwritten.
summary_vector() {
	mkstream "$1" <<-'EOF'
	clock 1000 0 0 0 0
	entry 0 7 4 0 10 0 0 100 0 0 0
	entry 1 3 0 0 0 0 0 1000 0 0 0
	lost 1 1 5
	entry 0 0 2 0 20 30 50 300 0 0 0
	entry 0 0 2 0 5 5 90 590 0 0 0
	EOF
}

@test "report --summary: per CPU, dispatches, the share not dispatched, rates, wait percentiles, reasons; no records (issue 42 item 5)" {
	summary_vector s.bin
	run -0 --separate-stderr htm dtl report s.bin --summary
	[ "$stderr" = "" ]
	local want=(
		"cpu    dispatches      seconds        per_s  not_disp    wait_p50    wait_p90    wait_p99    wait_max overwritten     dropped"
		"0               3     0.500000        6.000    42.00%   10000.000   20000.000   20000.000   20000.000           0           0"
		"1               1            -            -         -       0.000       0.000       0.000       0.000           5           0"
		""
		"cpu    by        code reason                             dispatches        per_s"
		"0      preempt      2 H_CEDE                                      2        4.000"
		"0      preempt      4 time_slice                                  1        2.000"
		"0      dispatch     0 external_interrupt                          2        4.000"
		"0      dispatch     7 time_slice                                  1        2.000"
		"1      preempt      0 unused                                      1            -"
		"1      dispatch     3 decrementer_interrupt                       1            -"
		"waits (enqueue_to_dispatch) in us; not_disp: the share of the CPU's time not dispatched"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$output" ] || {
		diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$output")
		false
	}
	run -0 htm dtl report s.bin --summary --format csv
	want=(
		"kind,cpu,code,reason,dispatches,seconds,per_s,not_dispatched,wait_p50_us,wait_p90_us,wait_p99_us,wait_max_us,overwritten,dropped"
		"cpu,0,,,3,0.500000000,6.000,0.420000,10000.000,20000.000,20000.000,20000.000,0,0"
		"preempt,0,2,H_CEDE,2,,4.000,,,,,,,"
		"preempt,0,4,time_slice,1,,2.000,,,,,,,"
		"dispatch,0,0,external_interrupt,2,,4.000,,,,,,,"
		"dispatch,0,7,time_slice,1,,2.000,,,,,,,"
		"cpu,1,,,1,,,,0.000,0.000,0.000,0.000,5,0"
		"preempt,1,0,unused,1,,,,,,,,,"
		"dispatch,1,3,decrementer_interrupt,1,,,,,,,,,"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$output" ]
	run -0 htm dtl report s.bin --summary --format json
	"$PY" -c '
import json, sys
d = json.loads(sys.argv[1])
assert list(d) == ["cpus"], d
c0, c1 = d["cpus"]
assert c0 == {"cpu": 0, "dispatches": 3, "seconds": 0.5, "per_s": 6.0, "not_dispatched": 0.42,
              "overwritten": 0, "dropped": 0,
              "wait": {"count": 3, "p50_us": 10000.0, "p90_us": 20000.0, "p99_us": 20000.0, "max_us": 20000.0},
              "preempt": [{"code": 2, "name": "H_CEDE", "dispatches": 2, "per_s": 4.0},
                          {"code": 4, "name": "time_slice", "dispatches": 1, "per_s": 2.0}],
              "dispatch": [{"code": 0, "name": "external_interrupt", "dispatches": 2, "per_s": 4.0},
                           {"code": 7, "name": "time_slice", "dispatches": 1, "per_s": 2.0}]}, c0
# one entry spans no time: no rate, no share
assert (c1["seconds"], c1["per_s"], c1["not_dispatched"], c1["overwritten"]) == (None, None, None, 5), c1
' "$output"
	run -0 htm dtl report s.bin --summary --format jsonl
	[ "${#lines[@]}" -eq 2 ]
	"$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(r["kind"], r["summary"]["cpu"]) for r in rows] == [("cpu_summary", 0), ("cpu_summary", 1)], rows
assert rows[0]["summary"] == json.loads(sys.argv[2])["cpus"][0]
' "$output" "$(htm dtl report s.bin --summary --format json)"
	# with -C and --time, of what they keep
	run -0 htm dtl report s.bin --summary -C 0 --time ,0.35
	[ "${lines[1]}" = "0               2     0.210000        9.524    52.38%   10000.000   20000.000   20000.000   20000.000           0           0" ]
	[ "${#lines[@]}" -eq 8 ]
	run -2 --separate-stderr htm dtl report s.bin --summary --format svg
	[ "${stderr_lines[0]}" = "htmtrace dtl report: --summary is a report of text, csv, json or jsonl, not a picture" ]
}

@test "report --summary of a large capture: a line per CPU and reason, however many entries" {
	"$PY" "$TOP/tests/dtlgen.py" big.bin --cpus 4 --entries 100000
	run -0 --separate-stderr htm dtl report big.bin --summary --format csv
	[ "$(grep -c '^cpu,' <<<"$output")" -eq 4 ]
	[ "$(awk -F, '$1 == "cpu" { n += $5 } END { print n }' <<<"$output")" -eq 100000 ]
	[ "${#lines[@]}" -lt 40 ]
}

# entry_offsets ARGS...: the offsets of the entries dtl report ARGS prints
# as CSV, in its order, on one line.
entry_offsets() {
	htm dtl report "$@" --format csv | awk -F, '$1 == "entry" { print $2 }' | paste -s -d ' '
}

@test "report --min-wait, --preempt, --dispatch: the entries kept, the summary of them, other records as they were (issue 42 item 6)" {
	vector v.bin
	# the entries: 72 waits 1 us (decrementer_interrupt, H_CEDE), 128
	# 0.001 us (time_slice, time_slice), 208 none (17, 42); 208 first in time
	[ "$(entry_offsets v.bin)" = "208 72 128" ]
	[ "$(entry_offsets v.bin --min-wait 1us)" = "72" ]
	[ "$(entry_offsets v.bin --min-wait 0.000001)" = "72" ]
	[ "$(entry_offsets v.bin --min-wait 1001ns)" = "" ]
	[ "$(entry_offsets v.bin --min-wait 1ns)" = "72 128" ]
	[ "$(entry_offsets v.bin --preempt H_CEDE)" = "72" ]
	[ "$(entry_offsets v.bin --preempt time_slice,42)" = "208 128" ]
	[ "$(entry_offsets v.bin --dispatch 17)" = "208" ]
	[ "$(entry_offsets v.bin --dispatch decrementer_interrupt --preempt h_cede)" = "72" ]
	[ "$(entry_offsets v.bin --dispatch time_slice --preempt H_CEDE)" = "" ]
	# the loss and CPU records stay; the summary counts the entries kept
	run -0 htm dtl report v.bin --preempt H_CEDE
	[ "$(grep -c '^LOST \|^CPU ' <<<"$output")" -eq 5 ]
	[ "${lines[-1]}" = "entries: 1, lost: 8 (overwritten 5, dropped 3), unknown records skipped: 0" ]
	run -0 htm dtl report v.bin --min-wait 1ms --summary --format csv
	[ "$(grep -c '^cpu,' <<<"$output")" -eq 3 ]
	[ "$(awk -F, '$1 == "cpu" { n += $5 } END { print n }' <<<"$output")" -eq 0 ]
	local bad
	for bad in 1x ms -1ms ''; do
		run -2 --separate-stderr htm dtl report v.bin --min-wait "$bad"
		[ "${stderr_lines[0]}" = "htmtrace dtl report: bad wait '$bad': expected a time, e.g. 1ms, 500us or 0.002 (seconds)" ]
	done
	run -2 --separate-stderr htm dtl report v.bin --preempt H_CEDE,nope
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad preempt reasons 'H_CEDE,nope': expected perf's names or codes 0..255, comma-separated, e.g. H_CEDE,time_slice" ]
	run -2 --separate-stderr htm dtl report v.bin --dispatch 256
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad dispatch reasons '256': expected perf's names or codes 0..255, comma-separated, e.g. external_interrupt,3" ]
	run -2 --separate-stderr htm dtl report v.bin --preempt 2 --format svg
	[ "${stderr_lines[0]}" = "htmtrace dtl report: --min-wait, --preempt and --dispatch select entries of a report, not of the picture" ]
}

@test "report --worst N: the N longest dispatch waits, longest first, then the summary of all (issue 42 item 6)" {
	vector v.bin
	[ "$(entry_offsets v.bin --worst 2)" = "72 128" ]
	[ "$(entry_offsets v.bin --worst 5)" = "72 128 208" ]
	run -0 htm dtl report v.bin --worst 1
	[[ "${lines[0]}" == *" cpu=0 dispatch=decrementer_interrupt preempt=H_CEDE "* ]]
	[ "${lines[-1]}" = "entries: 3, lost: 8 (overwritten 5, dropped 3), unknown records skipped: 0" ]
	# on a larger capture: as sorting every entry by its wait, the
	# earlier of equal waits first
	"$PY" "$TOP/tests/dtlgen.py" g.bin --cpus 3 --entries 3000
	htm dtl report g.bin --format csv >all.csv
	[ "$(entry_offsets g.bin --worst 50)" = "$(awk -F, '$1 == "entry" { print $10, $2 }' all.csv |
		LC_ALL=C sort -k1,1gr -k2,2n | head -n 50 | cut -d' ' -f2 | paste -s -d ' ')" ]
	# with the filters
	[ "$(entry_offsets v.bin --worst 2 --preempt time_slice,42)" = "128 208" ]
	run -2 --separate-stderr htm dtl report v.bin --worst 0
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad count '0': expected 1 to 1048576 entries" ]
	run -2 --separate-stderr htm dtl report v.bin --worst 3 --summary
	[ "${stderr_lines[0]}" = "htmtrace dtl report: --worst lists entries: not with --summary or the picture" ]
}

@test "report -F FIELDS: the entries' columns in the order asked, as perf script -F; --reltime: times from the first record (issue 42 item 6)" {
	vector v.bin
	run -0 --separate-stderr htm dtl report v.bin -F seconds,cpu,preempt,enqueue_to_dispatch_us
	[ "$stderr" = "" ]
	[ "$output" = "$(printf '%s\n' "6.999999998 1 42 0.000" "8.000000000 0 H_CEDE 1.000" "8.000000001 0 time_slice 0.001")" ]
	run -0 htm dtl report v.bin --format csv -F cpu,offset,srr1,cpu
	[ "$output" = "$(printf '%s\n' "cpu,offset,srr1,cpu" "1,208,0x0,1" "0,72,0x8000000000001033,0" "0,128,0x0,0")" ]
	# every field: the CSV report's columns, for its entries
	local all=offset,cpu,seconds,realtime,timebase,dispatch,preempt,processor_id,enqueue_to_dispatch_us,ready_to_enqueue_us,waiting_to_ready_us,fault_addr,srr0,srr1
	run -0 htm dtl report v.bin --format csv -F "$all"
	[ "$output" = "$(htm dtl report v.bin --format csv | sed -n '1s/^kind,\(.*\),count,why.*/\1/p; s/^entry,\(.*\),,,,,,,,$/\1/p')" ]
	# with --worst and the filters
	run -0 htm dtl report v.bin -F offset --worst 2
	[ "$output" = "$(printf '%s\n' 72 128)" ]
	run -0 htm dtl report v.bin -F offset --preempt time_slice
	[ "$output" = 128 ]
	# --reltime: seconds from the first record printed
	run -0 htm dtl report v.bin -F seconds --reltime
	[ "$output" = "$(printf '%s\n' 0.000000000 1.000000002 1.000000003)" ]
	run -0 htm dtl report v.bin --reltime
	[ "${lines[0]}" = "LOST cpu=1 count=5 why=overwritten" ]
	[[ "${lines[1]}" == "0.000000000 "* ]]
	[[ "$(grep '^CLOCK ' <<<"$output")" == "CLOCK tb_freq=512000000 timebase=1024000000 boottime=0.000000002 "* ]]
	run -2 --separate-stderr htm dtl report v.bin -F cpu,nope
	[ "${stderr_lines[0]}" = "htmtrace dtl report: bad fields 'cpu,nope': expected some of $all, comma-separated" ]
	run -2 --separate-stderr htm dtl report v.bin -F cpu --format json
	[ "${stderr_lines[0]}" = "htmtrace dtl report: -F selects the columns of the text and csv formats' entries: not with --summary, json, jsonl or the picture" ]
}

@test "report --time: several ranges, and percents of the capture as perf's (issue 42 item 6)" {
	vector v.bin
	# entries at 6.999999998 s (208), 8.000000000 (72) and 8.000000001 (128)
	[ "$(entry_offsets v.bin --time ,7 --time 8.000000001,)" = "208 128" ]
	[ "$(entry_offsets v.bin --time 0%-50%)" = "208" ]
	[ "$(entry_offsets v.bin --time 50%-100%)" = "72 128" ]
	[ "$(entry_offsets v.bin --time 0%-10%,90%-100%)" = "208 72 128" ]
	[ "$(entry_offsets v.bin --time 10%-20%)" = "" ]
	# a percent range in the picture: the same entries as the report's
	run -0 htm dtl report v.bin --format svg --time 50%-100%
	[[ "$output" == *'data-cpu="0" data-y='*'data-entries="2"'* ]]
	run -2 --separate-stderr htm dtl report v.bin --format svg --time ,7 --time 8,
	[ "${stderr_lines[0]}" = "htmtrace dtl report: the picture takes one --time range" ]
	local bad
	for bad in 5% 20%-10% 0%-101% 1%-2%, 'x%-2%'; do
		run -2 --separate-stderr htm dtl report v.bin --time "$bad"
		[ "${stderr_lines[0]}" = "htmtrace dtl report: bad time range '$bad': expected START,END in seconds since boot, e.g. 1000.5,1002 (either may be left out), or percents of the capture, e.g. 0%-10%,50%-60% (at most 16 ranges)" ]
	done
}

@test "top --input FILE: a capture replayed interval by interval, as perf stat -I (issue 42 item 8)" {
	summary_vector s.bin
	run -0 --separate-stderr htm dtl top --input s.bin -I 0.25 --json
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 5 ]
	# per interval: its end, its length, CPU 0's dispatches, cedes/s,
	# the share not dispatched and the mean wait; CPU 1's from the fifth
	"$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
got = [(r["time"], r["interval_s"], r["cpus"][0]["dispatches"], r["cpus"][0]["cedes_per_s"],
        r["cpus"][0]["not_dispatched"], r["cpus"][0]["dispatch_wait_mean_us"]) for r in rows]
want = [("1970-01-01T00:00:00.250000Z", 0.25, 1, 0.0, 0.04, 10000.0),
        ("1970-01-01T00:00:00.500000Z", 0.25, 1, 4.0, 0.4, 20000.0),
        ("1970-01-01T00:00:00.750000Z", 0.25, 1, 4.0, 0.4, 5000.0),
        ("1970-01-01T00:00:01.000000Z", 0.25, 0, 0.0, 0.0, 0.0),
        ("1970-01-01T00:00:01.250000Z", 0.25, 0, 0.0, 0.0, 0.0)]
assert got == want, got
assert [len(r["cpus"]) for r in rows] == [1, 1, 1, 1, 2], rows
assert rows[4]["cpus"][1] == {"cpu": 1, "offline": False, "dispatches": 1, "dispatches_per_s": 4.0,
    "preempts_per_s": 4.0, "cedes_per_s": 0.0, "faults_per_s": 0.0, "not_dispatched": 0.0,
    "dispatch_wait_mean_us": 0.0, "dispatch_wait_max_us": 0.0, "lost": 5}, rows[4]
' "$output"
	# a larger capture: every entry in one interval, the last one as long
	# as its records go; -n and -C as live
	"$PY" "$TOP/tests/dtlgen.py" t.bin --cpus 2 --entries 2000 --seconds 2.5
	run -0 htm dtl top --input t.bin --json
	[ "${#lines[@]}" -eq 3 ]
	"$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert sum(c["dispatches"] for r in rows for c in r["cpus"]) == 2000, rows
assert [r["interval_s"] for r in rows[:2]] == [1.0, 1.0] and 0 < rows[2]["interval_s"] < 1, rows
' "$output"
	run -0 htm dtl top --input t.bin -n 1 -C 1
	[ "${lines[0]}" = "2025-12-05T00:00:01.000000Z  interval 1.000 s" ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[2]}" == "    1 "* ]]
	# a damaged capture: replayed up to the damage, said, exit 1
	head -c $(($(stat -c %s t.bin) - 1)) t.bin >cut.bin
	run -1 --separate-stderr htm dtl top --input cut.bin --json
	[ "${#lines[@]}" -eq 3 ]
	[ "$stderr" = "htmtrace dtl top: cut.bin: truncated ENTRY record at offset $(($(stat -c %s t.bin) - 56)): length 56, 55 bytes left: the replay stops there ($(($(stat -c %s t.bin) - 56)) of $(($(stat -c %s t.bin) - 1)) bytes read)" ]
	printf 'PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00' >perf.data
	run -1 --separate-stderr htm dtl top --input perf.data
	[ "$stderr" = "htmtrace dtl top: perf.data is a perf.data file, not a dispatch trace log capture: read it with perf report (htmtrace dtl report reads the files of htmtrace dtl record)" ]
}

@test "report --format jsonl: one record a line, the summary last" {
	vector v.bin
	run -0 htm dtl report v.bin --format jsonl
	[ "${#lines[@]}" -eq 10 ]
	"$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert [r["kind"] for r in rows[:-1]].count("entry") == 3
assert rows[-1]["kind"] == "summary" and rows[-1]["summary"]["entries"] == 3, rows[-1]' <<<"$output"
}

@test "report json and jsonl: the same records, json's rows being jsonl's objects less what follows from them, at under a third of the size" {
	vector v.bin
	htm dtl report v.bin --format json >v.json
	htm dtl report v.bin --format jsonl >v.jsonl
	run -0 "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert lines[-1] == {"kind": "summary", "summary": d["summary"]}, lines[-1]
names = {k: {x["code"]: x["name"] for x in d["summary"][k]} for k in ("dispatch", "preempt")}
assert len(lines) - 1 == len(d["records"]), (len(lines), len(d["records"]))
for row, obj in zip(d["records"], lines):
    cols = d["columns"][row[0]]
    assert dict(zip(cols, row)) == {k: obj[k] for k in cols}, (row, obj)
    left = sorted(set(obj) - set(cols))
    if row[0] == "entry":
        assert left == ["dispatch", "preempt", "realtime"], left
        assert (obj["dispatch"], obj["preempt"]) == (names["dispatch"][obj["dispatch_reason"]],
                                                     names["preempt"][obj["preempt_reason"]]), obj
    else:
        assert left == [], left
print("ok")' v.json v.jsonl
	[ "$output" = ok ]
	# 2000 entries: the document a JSON tool loads whole is under a third
	# of jsonl (1M entries: 135 MB against 435 MB; jq 455 MB of memory
	# against 2.5 GB)
	{
		echo "clock 512000000 0 0 0 0"
		for i in $(seq 1 2000); do
			echo "entry $((i % 4)) 7 2 $i 512 256 1024 $((1000 + i)) 0 0xc000000000012345 0x8000000000001033"
		done
	} | mkstream big.bin
	htm dtl report big.bin --format json >big.json
	htm dtl report big.bin --format jsonl >big.jsonl
	local json jsonl
	json=$(stat -c %s big.json)
	jsonl=$(stat -c %s big.jsonl)
	echo "json $json jsonl $jsonl"
	[ $((json * 3)) -lt "$jsonl" ]
	run -0 "$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["records"]))' big.json
	[ "$output" = 2001 ]
}

@test "report svg: a file name that is not UTF-8 stays well-formed XML; a capture of a clock only says no entries" {
	vector "$(printf 'v\xff\xfe.bin')"
	run -0 htm dtl report "$(printf 'v\xff\xfe.bin')" --format svg
	"$PY" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())' <<<"$output"
	[[ "$output" == *"htmtrace dtl: v"$'\xef\xbf\xbd\xef\xbf\xbd'".bin"* ]]
	mkstream c.bin <<<"clock 512000000 0 0 0 0"
	run -0 htm dtl report c.bin --format svg
	"$PY" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())' <<<"$output"
	[[ "$output" == *">no entries</text>"* ]]
	[[ "$output" != *"1970-"* ]]
}
