#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# /dev/htmN against the simulated H_HTM: what a user of cat, dd, pread, poll
# and the ioctls sees. Every test starts with htmtrace and the simulator
# loaded: 256 KiB trace buffers read in four 64 KiB dump chunks (small, for
# the KASAN kernel under TCG), records written only when a test asks for them
# (rate=0, then "advance").

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
CHUNK=65536
SIZE=$((4 * CHUNK))
RECORDS=$((SIZE / 128))

# HTMTRACE_HVSIM_STRICT=1: the simulator's strict mode (every field only
# the simulator defines is random), as make check runs this file a second time.
# HTMTRACE_HVSIM_ALT="NAME=CHOICE ...": the simulator's answers where no
# public source says how PowerVM answers (module/hvsim/README.md,
# "Alternatives"); make check runs this file under every one of them.
SIM_ARGS="rate=0 log2_size=18${HTMTRACE_HVSIM_STRICT:+ strict=1}${HTMTRACE_HVSIM_ALT:+ $HTMTRACE_HVSIM_ALT}"

setup() {
	requires module htmtrace_hvsim
	requires tool
	guest_mark "$(sim_load "$SIM_ARGS" bounce_kb=64)"
}

# Whatever a test did, under whichever alternative: no DUMP_DATA went to a
# running trace, and every DUMP_DATA asked for whole pages at a page-aligned
# address (the simulator counts both since load).
teardown() {
	hv_protocol_unload
}

sim() {
	guest "echo $2 > $HVSIM/$1"
}

# trace DEV TYPE NODE CHIP CORE RECORDS [FLAGS]: a stopped trace of RECORDS
trace() {
	guest "htmtest configure $1 $2 $3 $4 $5 ${7:-0} && htmtest start $1 &&
	       echo $6 > $HVSIM/advance"
	stop_ok "$1"
}

# stop_ok DEV [STOP_FULL]: STOP succeeds; or, for a no-wrap trace that
# filled its buffer and stopped itself, where the test set the simulator's
# stop_full=state (STOP_FULL, the value it wrote), the hypervisor refuses it
# (H_STATE) and the driver says EIO, exactly. No STOP_FULL: success, the
# simulator's default; a test that fills a no-wrap buffer under a profile's
# stop_full=state by hand fails here, as its trace could not be read.
stop_ok() {
	local out
	out=$(guest htmtest stop "$1") || true
	echo "stop $1${2:+ (stop_full=$2)}: $out"
	if [ "${2:-success}" = state ]; then
		[ "$out" = EIO ]
	else
		[ "$out" = ok ]
	fi
}

counter() {
	guest "sed -n 's/^$2: //p' /sys/kernel/debug/htmtrace/$1/counters"
}

@test "cat /dev/htm0 > htm.bin gives exactly the simulator's bytes" {
	local size
	size=$(dump_size 1000)
	trace /dev/htm0 2 0 1 3 1000
	guest 'cat /dev/htm0 > /tmp/htm.bin'
	[ "$(guest stat -c %s /tmp/htm.bin)" -eq "$size" ]
	run guest htmcheck verify -t core -n 0 -p 1 -c 3 /tmp/htm.bin
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "records valid: 1000" <<<"$output"
	[ "$(counter htm0 bytes_dumped)" -eq "$size" ]
	# the end: the size STATUS gave (no hcall), or the hypervisor's
	# H_NOT_AVAILABLE where the data ended first
	run guest "grep 'errors H_NOT_AVAILABLE:' /sys/kernel/debug/htmtrace/htm0/counters"
	[ "$output" = "$([ "$size" -eq $SIZE ] || echo "errors H_NOT_AVAILABLE: 1")" ]
	run guest htmtest hvstatus /dev/htm0
	[ "$output" = "state 3 size $SIZE data_end $size status_error 0" ]
	assert_no_splat
}

@test "a wrapped trace and a full no-wrap trace verify" {
	trace /dev/htm0 2 0 0 0 $((RECORDS + 1000))
	guest 'cat /dev/htm0 > /tmp/wrap.bin'
	run guest htmcheck verify /tmp/wrap.bin
	echo "$output"
	[ "$status" -eq 0 ]

	# no-wrap: the simulator stops the trace itself when the buffer is full;
	# the driver cannot know: the read STOPs it, which the hypervisor may
	# refuse (stop_full=state), and the dump then decides
	guest htmtest configure /dev/htm1 2 0 0 1 1
	guest htmtest start /dev/htm1
	sim advance $((RECORDS + 1000))
	guest 'cat /dev/htm1 > /tmp/full.bin'
	run guest htmcheck verify /tmp/full.bin
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "records valid: $RECORDS" <<<"$output"
	run guest htmtest hvstatus /dev/htm1
	[ "$output" = "state 3 size $SIZE data_end $SIZE status_error 0" ]
}

@test "dd across dump chunks: every read size gives the verified reference bytes" {
	# The default 1 MiB bounce buffer and a 4 MiB trace: four dump chunks.
	# Read sizes that divide a chunk, that straddle its ends (1000000, 3M),
	# and a byte-at-a-time window across the first chunk end.
	local mib=1048576 records=$((4 * 1048576 / 128))
	guest "rmmod htmtrace htmtrace_hvsim &&
	       insmod $HTM_MODDIR/htmtrace_hvsim.ko ${SIM_ARGS/log2_size=18/log2_size=22} &&
	       insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	trace /dev/htm0 2 0 0 2 $records
	run guest "cat /dev/htm0 > /tmp/ref.bin && stat -c %s /tmp/ref.bin &&
		grep transfer_bytes /sys/kernel/debug/htmtrace/htm0/config &&
		htmcheck verify -t core -n 0 -p 0 -c 2 /tmp/ref.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -eq $((4 * mib)) ]
	[ "${lines[1]}" = "transfer_bytes: $mib" ]
	grep -qx "records valid: $records" <<<"$output"
	grep -qx "mismatched:    0" <<<"$output"
	run guest "for bs in 4096 65536 1000000 1M 3M; do
			dd if=/dev/htm0 of=/tmp/dd.bin bs=\$bs 2>/dev/null
			cmp /tmp/ref.bin /tmp/dd.bin && echo \"bs=\$bs same\"
		done
		dd if=/dev/htm0 of=/tmp/w.bin bs=1 skip=$((mib - 300)) count=600 2>/dev/null
		dd if=/tmp/ref.bin of=/tmp/wref.bin bs=1 skip=$((mib - 300)) count=600 2>/dev/null
		cmp /tmp/wref.bin /tmp/w.bin && echo 'bs=1 across the chunk end same'
		dd if=/dev/htm0 of=/tmp/t.bin bs=1000 skip=3000 2>/dev/null
		dd if=/tmp/ref.bin of=/tmp/tref.bin bs=1000 skip=3000 2>/dev/null
		cmp /tmp/tref.bin /tmp/t.bin && echo 'skip=3000 bs=1000 same'"
	echo "$output"
	[ "$output" = "bs=4096 same
bs=65536 same
bs=1000000 same
bs=1M same
bs=3M same
bs=1 across the chunk end same
skip=3000 bs=1000 same" ]
}

@test "pread at random offsets returns the bytes at those offsets" {
	trace /dev/htm0 2 1 1 0 1500
	guest 'cat /dev/htm0 > /tmp/ref.bin'
	run guest htmtest pread /dev/htm0 /tmp/ref.bin 200 42
	echo "$output"
	[ "$output" = ok ]
	[ "$(guest htmtest seek-end /dev/htm0)" -eq "$(dump_size 1500)" ]
}

# The bytes of big-endian u64 VALUE as od -An -tx1 prints them.
be64() {
	printf '%016x' "$1" | sed 's/../ &/g'
}

@test "a 64 GiB trace: lseek and read are exact around 4 GiB and at the last record" {
	local size=$((1 << 36)) g4=$((1 << 32))
	local recs=$((size / 128))
	guest htmtest setup /dev/htm0 2 0 0 0 36
	# no-wrap, filled: every record written, the trace stopped itself
	guest "htmtest configure /dev/htm0 2 0 0 0 1 && htmtest start /dev/htm0 &&
	       echo $recs > $HVSIM/advance"
	stop_ok /dev/htm0
	run guest htmtest seek-end /dev/htm0
	[ "$output" = $size ]
	# word 2 of a record is its sequence number: slot = seq in a full trace
	for off in $((g4 - 128)) $g4 $((g4 + 128)) $((size - 128)); do
		run guest "set -o pipefail
			dd if=/dev/htm0 bs=128 skip=$((off / 128)) count=1 2>/dev/null |
			od -An -tx1 -j16 -N8"
		[ "$status" -eq 0 ]
		echo "offset $off: $output"
		[ "$output" = "$(be64 $((off / 128)))" ]
	done
	# a read across the 4 GiB line: the tail of one record, then the
	# magic and target words of record 2^25
	run guest "set -o pipefail
		dd if=/dev/htm0 bs=1 skip=$((g4 - 8)) count=24 2>/dev/null |
		od -An -tx1 -j8 -N16 | tr -d '\n'"
	[ "$status" -eq 0 ]
	[ "$output" = "$(be64 0x48544d53494d3031)$(be64 2)" ]
	# past the end: a read that succeeds with nothing (an error would fail dd)
	run guest "dd if=/dev/htm0 of=/tmp/end.bin bs=128 skip=$recs count=1 2>/dev/null &&
		stat -c %s /tmp/end.bin"
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
}

@test "two channels trace two targets at once" {
	guest htmtest configure /dev/htm0 2 0 0 1
	guest htmtest configure /dev/htm1 1 1 1 0
	guest htmtest start /dev/htm0
	guest htmtest start /dev/htm1
	sim advance 5000
	guest 'cat /dev/htm0 > /tmp/a.bin; cat /dev/htm1 > /tmp/b.bin'
	guest htmcheck verify -t core -n 0 -p 0 -c 1 /tmp/a.bin
	guest htmcheck verify -t nest -n 1 -p 1 -c 0 /tmp/b.bin
	run --separate-stderr guest htmcheck verify -t core -n 0 -p 0 -c 1 /tmp/b.bin
	[ "$status" -eq 1 ]
	[[ $stderr == *"found seq 4096 of nest node 1 chip 1 core 0, not the requested target"* ]]
}

@test "the same target on a second channel is refused with EBUSY" {
	guest htmtest configure /dev/htm0 2 0 1 2
	run guest htmtest configure /dev/htm1 2 0 1 2
	[ "$status" -eq 1 ]
	[ "$output" = EBUSY ]
	run guest htmtest status /dev/htm1
	[ "$output" = "state 0 flags 0 size 0" ]
	guest htmtest deconfigure /dev/htm0
	guest htmtest configure /dev/htm1 2 0 1 2
}

@test "a chip's nest targets are one unit to the registry (nest_unit=core|chip): EBUSY at claim, the first user's trace intact" {
	local v
	for v in core chip; do
		run guest "echo $v > $SIMPARAM/nest_unit &&
			htmtest configure /dev/htm0 1 0 1 0 && htmtest start /dev/htm0 &&
			{ htmtest configure /dev/htm1 1 0 1 3; htmtest status /dev/htm1; } &&
			echo 500 > $HVSIM/advance && htmtest stop /dev/htm0 &&
			htmtest copy /dev/htm0 /tmp/n.bin 65536 &&
			htmcheck verify -t nest -n 0 -p 1 -c 0 /tmp/n.bin > /tmp/verify.out &&
			grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
			htmtest deconfigure /dev/htm0 && htmtest configure /dev/htm1 1 0 1 3 &&
			htmtest deconfigure /dev/htm1"
		echo "$v: $output"
		[ "$status" -eq 0 ]
		[ "$output" = "ok
ok
EBUSY
state 0 flags 0 size 0
ok
bytes $(dump_size 500)
eof
records valid: 500
mismatched:    0
ok
ok
ok" ]
	done
}

# fail OP RC [AFTER]: the simulator answers OP with RC, every time, after
# AFTER calls of it succeeded.
fail() {
	guest "cd $HVSIM && echo 0 > fail_count && echo ${3:-0} > fail_after &&
	       echo $2 > fail_rc && echo $1 > fail_op"
}

# inject RC ERRNO: DUMP_DATA fails with RC after the first chunk; the reader
# gets ERRNO, exactly the bytes before it, and no garbage.
inject_mid_dump() {
	trace /dev/htm0 2 0 0 0 1500
	guest 'cat /dev/htm0 > /tmp/ref.bin'
	fail 9 "$1" 1
	run guest htmtest copy /dev/htm0 /tmp/part.bin 65536
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "bytes $CHUNK" ]
	[ "${lines[1]}" = "$2" ]
	guest cmp -n $CHUNK /tmp/ref.bin /tmp/part.bin
	sim reset 1
}

@test "H_HARDWARE mid-dump: EIO, the bytes before it, no garbage" {
	inject_mid_dump -1 EIO
}

@test "H_STATE mid-dump: EIO" {
	inject_mid_dump -75 EIO
}

@test "H_PARAMETER mid-dump: EINVAL" {
	inject_mid_dump -4 EINVAL
}

@test "H_AUTHORITY mid-dump: EPERM" {
	inject_mid_dump -10 EPERM
}

@test "H_RESOURCE mid-dump: ENOBUFS (ENOSPC means only a short buffer)" {
	inject_mid_dump -16 ENOBUFS
}

@test "H_FUNCTION mid-dump: EOPNOTSUPP" {
	inject_mid_dump -2 EOPNOTSUPP
}

@test "H_PARTIAL is success on configure, start, stop and deconfigure, as in IBM's drivers" {
	# op numbers: CONFIGURE 4, START 5, STOP 6, DECONFIGURE 7; H_PARTIAL 5.
	# An injected answer skips the call, so the simulator's state stays
	# behind the driver's: each op is then made again for real.
	fail 4 5
	run guest htmtest configure /dev/htm0 2 0 0 0
	[ "$output" = ok ]
	run guest htmtest status /dev/htm0
	[ "$output" = "state 1 flags 0 size $SIZE" ]
	sim reset 1
	run guest htmtest configure /dev/htm1 2 0 0 1
	[ "$output" = ok ]
	for op in "5 start 2" "6 stop 3"; do
		set -- $op
		fail "$1" 5
		run guest htmtest "$2" /dev/htm1
		[ "$output" = ok ]
		run guest htmtest status /dev/htm1
		[ "$output" = "state $3 flags 0 size $SIZE" ]
		sim reset 1
	done
	fail 7 5
	for dev in /dev/htm1 /dev/htm0; do
		run guest htmtest deconfigure $dev
		[ "$output" = ok ]
		run guest htmtest status $dev
		[ "$output" = "state 0 flags 0 size 0" ]
	done
}

@test "a STOP that keeps failing: deconfigure still gives the target back" {
	guest "htmtest configure /dev/htm0 2 0 0 0 && htmtest start /dev/htm0"
	fail 6 -1
	run guest htmtest stop /dev/htm0
	[ "$output" = EIO ]
	run guest htmtest deconfigure /dev/htm0
	[ "$output" = ok ]
	run guest "htmtest status /dev/htm0; cat $HVSIM/targets; echo end"
	[ "$output" = "state 0 flags 0 size 0
end" ]
	run guest_dmesg
	[[ $output == *"htm0: STOP failed (-5), DECONFIGURE succeeded (0)"* ]]
	run guest htmtest configure /dev/htm1 2 0 0 0
	[ "$output" = ok ]
}

@test "H_PARTIAL on the information blocks is success: the blocks as written, no loop" {
	fail 1 5
	run guest htmtest info /dev/htm0 caps 128
	[ "$output" = "length 128
ok" ]
	# an injected answer writes nothing: one zeroed block, whose iterator
	# (0) ends the iteration at once
	for op in "10 sysmem" "11 sysproc"; do
		sim reset 1
		fail ${op% *} 5
		run guest htmtest info /dev/htm0 ${op#* } 65536
		echo "$op: $output"
		[ "$output" = "length 32
ok" ]
		[ "$(guest cat $HVSIM/calls)" -eq 1 ]
	done
}

@test "H_PARTIAL on a short dump transfer: the bytes written, then zeros, never older bytes" {
	trace /dev/htm0 2 0 0 0 $RECORDS
	# a full read first: the bounce buffer then holds trace bytes
	run guest 'cat /dev/htm0 > /tmp/full.bin && htmcheck verify /tmp/full.bin'
	[ "$status" -eq 0 ]
	guest "echo 4096 > $HVSIM/short_xfer"
	# each 64 KiB chunk: its first 4 KiB as the hypervisor wrote them, zeros
	run guest 'cat /dev/htm0 > /tmp/short.bin &&
		for c in 0 1 2 3; do
			dd if=/tmp/full.bin bs=4096 skip=$((c * 16)) count=1 2>/dev/null
			head -c 61440 /dev/zero
		done > /tmp/expected.bin &&
		cmp /tmp/expected.bin /tmp/short.bin && echo same'
	echo "$output"
	[ "$output" = same ]
	[ "$(counter htm0 bytes_dumped)" -eq $((2 * SIZE)) ]
}

@test "H_NOT_AVAILABLE on DUMP_DATA is the end of the data at any offset; the dump needs no STATUS" {
	trace /dev/htm0 2 0 0 0 $RECORDS
	guest 'cat /dev/htm0 > /tmp/ref.bin'
	# at offset 0: an empty trace, read() returns 0 (status 0, "eof")
	fail 9 3
	run guest htmtest copy /dev/htm0 /tmp/x.bin 65536
	[ "$status" -eq 0 ]
	[ "$output" = "bytes 0
eof" ]
	run guest htmtest hvstatus /dev/htm0
	[ "$output" = "state 3 size $SIZE data_end 0 status_error 0" ]
	# after two chunks, on a new trace: those two chunks, exactly
	sim reset 1
	trace /dev/htm1 2 0 0 1 $RECORDS
	fail 9 3 2
	run guest htmtest copy /dev/htm1 /tmp/x.bin 65536
	[ "$output" = "bytes 131072
eof" ]
	run guest htmtest hvstatus /dev/htm1
	[ "$output" = "state 3 size $SIZE data_end 131072 status_error 0" ]
	run guest htmtest seek-end /dev/htm1
	[ "$output" = 131072 ]
	# STATUS failing: the size is unknown, SEEK_END says so, and the dump
	# goes on until the hypervisor ends it
	sim reset 1
	trace /dev/htm2 2 0 0 2 $RECORDS
	fail 2 -1
	run guest htmtest hvstatus /dev/htm2
	[ "$output" = "state 3 size 0 data_end none status_error -5" ]
	run guest htmtest seek-end /dev/htm2
	[ "$output" = ENODATA ]
	run guest htmtest copy /dev/htm2 /tmp/x.bin 65536
	[ "$output" = "bytes $SIZE
eof" ]
	run guest htmtest seek-end /dev/htm2
	[ "$output" = $SIZE ]
	guest "htmcheck verify -t core -n 0 -p 0 -c 2 /tmp/x.bin"
}

@test "STATUS's size byte is read for nest and core only (status_size=all|nest_core|wrong): an llat trace dumps page by page to the hypervisor's end" {
	local v page size
	page=$(guest_number htmtest pagesize)
	size=$(dump_size 1500 $SIZE "$page")
	for v in all nest_core wrong; do
		run guest "echo $v > $SIMPARAM/status_size &&
			htmtest configure /dev/htm0 3 0 1 2 && htmtest start /dev/htm0 &&
			echo 1500 > $HVSIM/advance && htmtest stop /dev/htm0 &&
			htmtest hvstatus /dev/htm0 && htmtest seek-end /dev/htm0;
			htmtest copy /dev/htm0 /tmp/llat.bin 65536 &&
			htmcheck verify -t llat -n 0 -p 1 -c 2 /tmp/llat.bin > /tmp/verify.out &&
			grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
			htmtest seek-end /dev/htm0 && htmtest deconfigure /dev/htm0"
		echo "$v: $output"
		[ "$status" -eq 0 ]
		[ "$output" = "ok
ok
ok
state 3 size 0 data_end none status_error 0
ENODATA
bytes $size
eof
records valid: 1500
mismatched:    0
$size
ok" ]
	done
}

@test "a no-wrap trace stopped before its buffer filled: its data, then 0, and where it ended" {
	local size
	size=$(dump_size 700)
	guest "htmtest configure /dev/htm0 2 1 0 3 1 && htmtest start /dev/htm0 &&
	       echo 700 > $HVSIM/advance && htmtest stop /dev/htm0"
	run guest htmtest copy /dev/htm0 /tmp/short.bin 65536
	[ "$output" = "bytes $size
eof" ]
	run guest htmcheck verify -t core -n 1 -p 0 -c 3 /tmp/short.bin
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "records valid: 700" <<<"$output"
	run guest htmtest hvstatus /dev/htm0
	[ "$output" = "state 3 size $SIZE data_end $size status_error 0" ]
	run guest "grep data_end /sys/kernel/debug/htmtrace/htm0/status"
	[ "$output" = "data_end: $size" ]
}

SIMPARAM=/sys/module/htmtrace_hvsim/parameters

@test "STOP of a no-wrap trace that stopped itself: success, every byte; H_STATE (stop_full=state): EIO, and no DUMP_DATA" {
	local v
	for v in success state; do
		guest "echo $v > $SIMPARAM/stop_full && echo 1 > $HVSIM/reset &&
		       htmtest configure /dev/htm0 2 0 1 0 1 && htmtest start /dev/htm0"
		sim advance $((RECORDS + 10))
		run guest htmtest stop /dev/htm0
		if [ $v = state ]; then
			# H_STATE is an error, and the channel is not marked
			# stopped; the hypervisor may still write the buffer
			# (htm-perf.c: "cannot dump a live buffer"): a read
			# sends STOP again and fails as it does
			[ "$output" = EIO ]
			run guest htmtest hvstatus /dev/htm0
			[ "$output" = "state 2 size $SIZE data_end none status_error 0 stop_refused" ]
			run guest htmtest copy /dev/htm0 /tmp/full.bin 65536
			[ "$output" = "bytes 0
EIO" ]
			run guest "sed -n 's/^\(stop\|dump_data\) //p' $HVSIM/op_calls"
			[ "$output" = "2
0" ]
			guest htmtest deconfigure /dev/htm0
			continue
		fi
		[ "$output" = ok ]
		run guest htmtest copy /dev/htm0 /tmp/full.bin 65536
		[ "$output" = "bytes $SIZE
eof" ]
		run guest htmcheck verify -t core -n 0 -p 1 -c 0 /tmp/full.bin
		[ "$status" -eq 0 ]
		grep -qx "records valid: $RECORDS" <<<"$output"
		run guest htmtest hvstatus /dev/htm0
		[ "$output" = "state 3 size $SIZE data_end $SIZE status_error 0" ]
		guest htmtest deconfigure /dev/htm0
	done
	[ "$(guest cat $HVSIM/dump_tracing)" -eq 0 ]
}

@test "a DUMP_DATA length refused (xfer_long=p5|parameter|p4): halved until taken, remembered for the target" {
	local v rc c
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim bounce_kb=256"
	# each answer on a core of its own, which has learned nothing yet
	for v in p5 parameter p4; do
		case $v in p5) rc=H_P5 c=1 ;; parameter) rc=H_PARAMETER c=2 ;; p4) rc=H_P4 c=3 ;; esac
		guest "echo $v > $SIMPARAM/xfer_long && echo 1 > $HVSIM/reset &&
		       echo 65536 > $HVSIM/max_xfer"
		trace /dev/htm0 2 1 1 $c $RECORDS
		run guest "cat /dev/htm0 > /tmp/x.bin &&
			htmcheck verify -t core -n 1 -p 1 -c $c /tmp/x.bin > /tmp/verify.out &&
			grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
			grep transfer_bytes /sys/kernel/debug/htmtrace/htm0/config &&
			grep 'errors $rc:' /sys/kernel/debug/htmtrace/htm0/counters"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "records valid: $RECORDS
mismatched:    0
transfer_bytes: 65536
errors $rc: 2" ]
		guest htmtest deconfigure /dev/htm0
		# another channel, the same target: the length that worked first
		trace /dev/htm1 2 1 1 $c $RECORDS
		run guest "cat /dev/htm1 > /tmp/x.bin &&
			grep transfer_bytes /sys/kernel/debug/htmtrace/htm1/config &&
			grep -c 'errors H_' /sys/kernel/debug/htmtrace/htm1/counters || :"
		[ "$output" = "transfer_bytes: 65536
0" ]
		guest htmtest deconfigure /dev/htm1
	done
}

@test "STOP of a running trace refused (stop_running=state): EIO, never dumped while it runs; the read's own STOP stops it, every byte" {
	local v
	for v in success state; do
		guest "echo $v > $SIMPARAM/stop_running && echo 1 > $HVSIM/reset &&
		       htmtest configure /dev/htm0 2 0 1 1 && htmtest start /dev/htm0"
		sim advance 700
		run guest htmtest stop /dev/htm0
		if [ $v = state ]; then
			[ "$output" = EIO ]
			run guest htmtest hvstatus /dev/htm0
			[ "$output" = "state 2 size $SIZE data_end none status_error 0 stop_refused" ]
		else
			[ "$output" = ok ]
		fi
		run guest htmtest copy /dev/htm0 /tmp/run.bin 65536
		[ "$output" = "bytes $(dump_size 700)
eof" ]
		run guest htmcheck verify -t core -n 0 -p 1 -c 1 /tmp/run.bin
		echo "$output"
		[ "$status" -eq 0 ]
		grep -qx "records valid: 700" <<<"$output"
		run guest "sed -n 's/^stop //p' $HVSIM/op_calls; cat $HVSIM/dump_tracing"
		[ "$output" = "$([ $v = state ] && echo 2 || echo 1)
0" ]
		guest htmtest deconfigure /dev/htm0
	done
}

@test "a DUMP_DATA across the buffer's end, no size known (dump_span=inside|not_available): exactly the buffer, a page at a time" {
	local v
	# a 64 KiB buffer, transfers of up to 256 KiB, every STATUS failing:
	# no request may reach past the buffer's end, which the hypervisor
	# may answer with the part inside (the rest would read as trace) or
	# with H_NOT_AVAILABLE for the whole of it (the trace would be lost)
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim bounce_kb=256"
	fail 2 -1
	for v in inside not_available; do
		run guest "echo $v > $SIMPARAM/dump_span &&
			htmtest setup /dev/htm0 2 1 0 2 16 &&
			htmtest configure /dev/htm0 2 1 0 2 && htmtest start /dev/htm0 &&
			echo 600 > $HVSIM/advance && htmtest stop /dev/htm0 &&
			htmtest copy /dev/htm0 /tmp/span.bin 65536 &&
			htmcheck verify -t core -n 1 -p 0 -c 2 /tmp/span.bin > /tmp/verify.out &&
			grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
			htmtest hvstatus /dev/htm0 && htmtest deconfigure /dev/htm0"
		echo "$v: $output"
		[ "$status" -eq 0 ]
		[ "$output" = "ok
ok
ok
ok
bytes 65536
eof
records valid: 512
mismatched:    0
state 3 size 0 data_end 65536 status_error -5
ok" ]
	done
}

# The alternatives that can change one dump together, against each
# answer of dump_end (where the data of a short trace ends): each round
# sets one value of each, and traces a core target (a STOP that may be
# refused, a DUMP_DATA length that is refused until 64 KiB, in chunks of
# up to 256 KiB) and an llat one (whose size byte the driver never reads)
# at once, with their dumps checked byte for byte. Over the three rounds of each dump_end, every
# value of stop_running, status_size, xfer_long and dump_span meets it.
@test "the alternatives that meet in one dump, against dump_end=buffer|written: byte-exact under each pair" {
	local end i k n p c sr ss xl ds rc page core llat h0 h1
	local -a srs=(success state success) sss=(all nest_core wrong)
	local -a xls=(p5 parameter p4) dss=(inside not_available inside)
	page=$(guest_number htmtest pagesize)
	# each pair on channels and a target of its own: counters and learnt
	# lengths start afresh without reloading htmtrace
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim bounce_kb=256 channels=12"
	k=0
	for end in buffer written; do
		for i in 0 1 2; do
			sr=${srs[i]} ss=${sss[i]} xl=${xls[i]} ds=${dss[i]}
			case $xl in p5) rc=H_P5 ;; parameter) rc=H_PARAMETER ;; p4) rc=H_P4 ;; esac
			core=$(dump_size 700 $SIZE 65536 $end)
			llat=$(dump_size 900 $SIZE "$page" $end)
			n=1 p=$((k / 4)) c=$((k % 4)) h0=htm$((2 * k)) h1=htm$((2 * k + 1))
			run guest "cd $SIMPARAM && echo $end > dump_end && echo $sr > stop_running &&
				echo $ss > status_size && echo $xl > xfer_long && echo $ds > dump_span &&
				echo 1 > $HVSIM/reset && echo 65536 > $HVSIM/max_xfer &&
				htmtest configure /dev/$h0 2 $n $p $c && htmtest start /dev/$h0 &&
				htmtest configure /dev/$h1 3 $n $p $c && htmtest start /dev/$h1 &&
				echo 700 > $HVSIM/advance &&
				htmtest stop /dev/$h0; htmtest copy /dev/$h0 /tmp/c.bin 65536 &&
				htmcheck verify -t core -n $n -p $p -c $c /tmp/c.bin > /tmp/verify.out &&
				grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
				echo 200 > $HVSIM/advance &&
				htmtest stop /dev/$h1; htmtest copy /dev/$h1 /tmp/l.bin 65536 &&
				htmcheck verify -t llat -n $n -p $p -c $c /tmp/l.bin > /tmp/verify.out &&
				grep -e '^records valid' -e '^mismatched' /tmp/verify.out &&
				grep -h 'errors H_P' /sys/kernel/debug/htmtrace/$h0/counters;
				grep -c 'errors H_P' /sys/kernel/debug/htmtrace/$h1/counters;
				htmtest deconfigure /dev/$h0 && htmtest deconfigure /dev/$h1"
			echo "dump_end=$end stop_running=$sr status_size=$ss xfer_long=$xl dump_span=$ds: $output"
			[ "$status" -eq 0 ]
			[ "$output" = "ok
ok
ok
ok
$([ "$sr" = state ] && echo EIO || echo ok)
bytes $core
eof
records valid: 700
mismatched:    0
$([ "$sr" = state ] && echo EIO || echo ok)
bytes $llat
eof
records valid: 900
mismatched:    0
errors $rc: 2
0
ok
ok" ]
			k=$((k + 1))
		done
	done
}

@test "H_BUSY and H_LONG_BUSY are waited out and counted" {
	trace /dev/htm0 2 0 0 0 3000
	guest 'cat /dev/htm0 > /tmp/ref.bin'
	guest htmtest deconfigure /dev/htm0
	trace /dev/htm0 2 0 0 0 3000
	sim busy_every 2
	guest 'cat /dev/htm0 > /tmp/busy.bin'
	guest cmp /tmp/ref.bin /tmp/busy.bin
	[ "$(counter htm0 busy_retries)" -gt 0 ]
	sim reset 1
	guest htmtest stop /dev/htm0
	sim long_busy 9900
	sim long_busy_count 3
	guest 'dd if=/dev/htm0 of=/tmp/lb.bin bs=64k 2>/dev/null'
	guest cmp /tmp/ref.bin /tmp/lb.bin
	[ "$(counter htm0 long_busy_sleeps)" -eq 3 ]
}

@test "a hypervisor that moves less than the bounce buffer: the dump adapts" {
	guest rmmod htmtrace
	guest_load htmtrace backend=sim bounce_kb=256
	sim max_xfer 65536
	trace /dev/htm0 2 0 0 0 1500
	guest 'cat /dev/htm0 > /tmp/x.bin'
	guest htmcheck verify /tmp/x.bin
	run guest "grep transfer_bytes /sys/kernel/debug/htmtrace/htm0/config"
	[ "$output" = "transfer_bytes: 65536" ]
}

@test "wrong state, bad argument, unknown ioctl: exact errno" {
	run guest htmtest read /dev/htm0 100
	[ "$output" = ENODATA ]
	run guest htmtest start /dev/htm0
	[ "$output" = EBADFD ]
	run guest htmtest stop /dev/htm0
	[ "$output" = EBADFD ]
	run guest htmtest ioctl-unknown /dev/htm0
	[ "$output" = ENOTTY ]
	run guest htmtest ioctl-badptr /dev/htm0
	[ "$output" = EFAULT ]
	run guest htmtest configure /dev/htm0 2 0 0 0 0 1
	[ "$output" = EINVAL ]
	# flag 8: the first one HTMTRACE_CFG_FLAGS does not know
	run guest htmtest configure /dev/htm0 2 0 0 0 8
	[ "$output" = EINVAL ]
	run guest htmtest configure /dev/htm0 7 0 0 0
	[ "$output" = EINVAL ]
	# a target the hypervisor does not have
	run guest htmtest configure /dev/htm0 2 9 0 0
	[ "$output" = EINVAL ]
	run guest htmtest status /dev/htm0
	[ "$output" = "state 0 flags 0 size 0" ]
	guest htmtest configure /dev/htm0 2 0 0 0
	run guest htmtest read /dev/htm0 100
	[ "$output" = ENODATA ]
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = EBADFD ]
	assert_no_splat
}

@test "reserved fields, target kind and mode without its flag: EINVAL, nothing changes" {
	run guest htmtest setup /dev/htm0 2 0 0 0 16 1
	[ "$status" -eq 1 ]
	[ "$output" = EINVAL ]
	# the simulator's buffer for that target was not resized
	run guest "cat $HVSIM/targets; echo end"
	[ "$output" = end ]
	run guest htmtest setup /dev/htm0 2 0 0 0 16 0
	[ "$output" = ok ]
	run guest "cat $HVSIM/targets"
	[ "$output" = "core 0 0 0 state=idle log2_size=16 nowrap=0 full=0 records=0" ]
	for args in "128 0 1" "128 0 0 1"; do
		for what in caps sysmem sysproc; do
			run guest htmtest info /dev/htm0 $what $args
			echo "$what $args: $output"
			[ "$status" -eq 1 ]
			[ "${lines[1]}" = EINVAL ]
		done
	done
	# configure: reserved[0]; target kind 1 (logical); the target's
	# reserved word; a mode without HTMTRACE_CFG_MODE (flag 4)
	for args in "0 1" "0 0 1" "0 0 0 1" "0 0 0 0 0xff 0x1"; do
		run guest htmtest configure /dev/htm0 2 0 0 1 $args
		echo "configure $args: $output"
		[ "$status" -eq 1 ]
		[ "$output" = EINVAL ]
	done
	run guest "htmtest status /dev/htm0; cat $HVSIM/targets"
	[ "$output" = "state 0 flags 0 size 0
core 0 0 0 state=idle log2_size=16 nowrap=0 full=0 records=0" ]
}

@test "the length an information block needs is the natural retry input" {
	run guest htmtest info /dev/htm0 sysproc 32
	[ "$status" -eq 1 ]
	[ "${lines[1]}" = ENOSPC ]
	local len=${lines[0]#length }
	[ "$len" -gt 32 ]
	# the same struct back, size = the length it was told: accepted
	run guest htmtest info /dev/htm0 sysproc "$len" "$len"
	[ "$output" = "length $len
ok" ]
}

@test "a mode given with HTMTRACE_CFG_MODE reaches CONFIGURE; none gives htmdump's -1/-1 with no-wrap, 0/0 without" {
	guest htmtest configure /dev/htm0 2 0 0 0
	guest htmtest configure /dev/htm1 2 0 0 1 4 0 0 0 0x00ff00ff00ff00ff 0x1234
	guest htmtest configure /dev/htm2 2 0 0 2 1
	run guest "cat $HVSIM/targets"
	echo "$output"
	[ "$output" = "core 0 0 0 state=configured log2_size=18 nowrap=0 full=0 records=0 mode=0x0:0x0
core 0 0 1 state=configured log2_size=18 nowrap=0 full=0 records=0 mode=0xff00ff00ff00ff:0x1234
core 0 0 2 state=configured log2_size=18 nowrap=1 full=0 records=0" ]
	run guest "grep mode: /sys/kernel/debug/htmtrace/htm1/config"
	[ "$output" = "mode: mask 0xff00ff00ff00ff value 0x1234" ]
}

@test "a file reads one trace: a START from another file makes it ESTALE until lseek" {
	trace /dev/htm0 2 0 0 0 1000
	local g1 g2
	g1=$(guest htmtest generation /dev/htm0)
	run guest htmtest stale /dev/htm0
	echo "$output"
	# the second read would have spliced two traces; the seek rebinds,
	# and that read stops the new trace
	# (a trace just started has no record: where the data ends at the
	# records, dump_end=written, that read finds its end)
	[ "$output" = "read 128
read ESTALE
poll stale
read $([ "$(alt dump_end)" = written ] && echo 0 || echo 128)" ]
	g2=$(guest htmtest generation /dev/htm0)
	[ "$g2" -gt "$g1" ]
	run guest htmtest status /dev/htm0
	[ "$output" = "state 3 flags 0 size $SIZE" ]
	# DECONFIGURE ends the trace too
	guest htmtest deconfigure /dev/htm0
	[ "$(guest htmtest generation /dev/htm0)" -gt "$g2" ]
}

@test "non-root: the device is refused, and configuring needs CAP_PERFMON" {
	run guest htmtest runas 1000 htmtest status /dev/htm0
	[ "$output" = EACCES ]
	guest chmod 0666 /dev/htm0
	run guest htmtest runas 1000 htmtest configure /dev/htm0 2 0 0 0
	[ "$output" = EPERM ]
	run guest htmtest runas 1000 htmtest setup /dev/htm0 2 0 0 0 16
	[ "$output" = EPERM ]
	run guest htmtest runas 1000 htmtest status /dev/htm0
	[ "$output" = "state 0 flags 0 size 0" ]
	# reading a tracing channel would stop it: the opener may not
	guest "htmtest configure /dev/htm0 2 0 0 0 && htmtest start /dev/htm0"
	run guest htmtest runas 1000 htmtest read /dev/htm0 128
	[ "$status" -eq 1 ]
	[ "$output" = EPERM ]
	run guest htmtest status /dev/htm0
	[ "$output" = "state 2 flags 0 size $SIZE" ]
	guest chmod 0600 /dev/htm0
}

@test "poll on a channel with no trace reports a hang-up, not data" {
	run guest htmtest poll /dev/htm0 0
	[ "$output" = hangup ]
	guest htmtest configure /dev/htm0 2 0 0 0
	run guest htmtest poll /dev/htm0 0
	[ "$output" = hangup ]
	run guest htmtest read /dev/htm0 128
	[ "$output" = ENODATA ]
	guest "htmtest start /dev/htm0 && htmtest stop /dev/htm0"
	run guest htmtest poll /dev/htm0 0
	[ "$output" = ready ]
}

# In the background: a reader (read COUNT) and a poller on DEV, each in its
# own process, then wait until both are seen asleep in read() and poll().
# Their results go to /tmp/r.out and /tmp/p.out.
start_waiters() {
	run guest "htmtest read $1 $2 > /tmp/r.out 2>&1 & echo \$! > /tmp/r.pid
		htmtest poll $1 -1 > /tmp/p.out 2>&1 & echo \$! > /tmp/p.pid
		htmtest blocked \$(cat /tmp/r.pid) read 20000 &&
		htmtest blocked \$(cat /tmp/p.pid) poll 20000"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "blocked
blocked" ]
}

# Wait (bounded) until both waiters have exited; print what they printed.
waiters_done() {
	guest 'for i in $(seq 100); do
		[ -d /proc/$(cat /tmp/r.pid) ] || [ -d /proc/$(cat /tmp/p.pid) ] || break
		nap 0.1
	done
	cat /tmp/r.out /tmp/p.out'
}

@test "wait-for-stop: a buffer that fills wakes no one and is never dumped; the STOP does (stop_full=success|state)" {
	local v
	for v in success state; do
		# flags 3: no-wrap and wait
		guest "echo $v > $SIMPARAM/stop_full && echo 1 > $HVSIM/reset"
		guest htmtest configure /dev/htm0 2 0 0 0 3
		guest htmtest start /dev/htm0
		run guest htmtest read /dev/htm0 4096 nonblock
		[ "$status" -eq 1 ]
		[ "$output" = EAGAIN ]
		run guest htmtest poll /dev/htm0 300
		[ "$status" -eq 0 ]
		[ "$output" = timeout ]
		start_waiters /dev/htm0 4096
		# the simulator fills the buffer and stops the trace by itself:
		# the driver asks the hypervisor nothing while it runs, so it
		# does not know
		sim advance $((RECORDS + 1000))
		run guest "htmtest blocked \$(cat /tmp/r.pid) read 2000 &&
			htmtest blocked \$(cat /tmp/p.pid) poll 2000 &&
			cat $HVSIM/dump_tracing"
		[ "$output" = "blocked
blocked
0" ]
		# stopped through the driver (refused under stop_full=state:
		# the waiters are woken all the same, and the reader fails: no
		# dump of a trace the hypervisor may still write)
		stop_ok /dev/htm0 $v
		if [ $v = state ]; then
			run waiters_done
			echo "$output"
			[ "$output" = "EIO
ready" ]
			run guest "htmtest status /dev/htm0; cat $HVSIM/dump_tracing"
			[ "$output" = "state 2 flags 3 size $SIZE
0" ]
			guest htmtest deconfigure /dev/htm0
			continue
		fi
		run waiters_done
		echo "$output"
		[ "$output" = "4096
ready" ]
		run guest htmtest poll /dev/htm0 0
		[ "$output" = ready ]
		run guest htmtest status /dev/htm0
		[ "$output" = "state 3 flags 3 size $SIZE" ]
		guest htmtest deconfigure /dev/htm0
	done
}

@test "wait-for-stop: a stop from another file wakes the reader and the poller" {
	guest htmtest configure /dev/htm0 2 0 0 0 2
	guest htmtest start /dev/htm0
	sim advance 10
	start_waiters /dev/htm0 128
	run guest htmtest stop /dev/htm0
	echo "stop: $output"
	[ "$output" = ok ]
	run waiters_done
	echo "$output"
	[ "$output" = "128
ready" ]
}

@test "wait-for-stop: a reader that missed a STOP and a START gets ESTALE, not the new trace" {
	guest htmtest configure /dev/htm0 2 0 0 0 2
	guest htmtest start /dev/htm0
	run guest "htmtest read /dev/htm0 128 > /tmp/r.out 2>&1 & echo \$! > /tmp/r.pid
		htmtest blocked \$(cat /tmp/r.pid) read 20000"
	[ "$output" = blocked ]
	# The reader is held (SIGSTOP) while the trace stops and restarts, so
	# it cannot run in between: it waited for the first trace.
	run guest 'kill -STOP $(cat /tmp/r.pid) && htmtest stop /dev/htm0 &&
		htmtest start /dev/htm0 && kill -CONT $(cat /tmp/r.pid)
		for i in $(seq 100); do
			[ -d /proc/$(cat /tmp/r.pid) ] || break
			nap 0.1
		done
		cat /tmp/r.out'
	echo "$output"
	[ "$output" = "ok
ok
ESTALE" ]
	run guest htmtest status /dev/htm0
	[ "$output" = "state 2 flags 2 size $SIZE" ]
}

@test "information blocks: caps, sysmem and sysproc, iterated, ENOSPC when short" {
	run guest htmtest info /dev/htm0 caps 128
	[ "${lines[0]}" = "length 128" ]
	[ "${lines[1]}" = ok ]
	run guest htmtest info /dev/htm0 sysmem 65536
	echo "$output"
	[ "${lines[1]}" = ok ]
	len=${lines[0]#length }
	[ "$len" -gt 32 ]
	run guest htmtest info /dev/htm0 sysmem $((len - 1))
	[ "${lines[0]}" = "length $len" ]
	[ "${lines[1]}" = ENOSPC ]
	run guest htmtest info /dev/htm0 sysproc 65536
	[ "${lines[1]}" = ok ]
	# the same bytes through debugfs (strict mode draws the headers' other
	# bytes anew for each request: then the same length)
	if [ -z "${HTMTRACE_HVSIM_STRICT:-}" ]; then
		run guest "htmtest info-file /dev/htm0 sysmem /tmp/ioc.bin &&
			cmp /tmp/ioc.bin /sys/kernel/debug/htmtrace/htm0/sysmem && echo same"
		[ "$output" = same ]
	else
		[ "$(guest "wc -c < /sys/kernel/debug/htmtrace/htm0/sysmem")" -eq "$len" ]
	fi
}

@test "debugfs config answers while an information walk of the channel waits out a long-busy hypervisor" {
	local d=/sys/kernel/debug/htmtrace/htm0
	# every call answered long busy (10 ms hints) until released: the
	# sysproc walk waits (10 s at most) without the channel's lock, and
	# config, which takes it, answers meanwhile: the walk still runs
	run guest "echo 9901 > $HVSIM/long_busy && echo 1000000000 > $HVSIM/long_busy_count &&
		{ cat $d/sysproc > /tmp/sp.bin & echo \$! > /tmp/sp.pid; } &&
		for i in \$(seq 1000); do
			grep -q '^dump_sysproc_conf [1-9]' $HVSIM/op_calls && break
			nap 0.01
		done &&
		grep '^state:' $d/config &&
		[ -d /proc/\$(cat /tmp/sp.pid) ] && echo walking
		echo 0 > $HVSIM/long_busy_count
		wait \$(cat /tmp/sp.pid); echo rc=\$?"
	echo "$output"
	[ "$output" = "state: idle
walking
rc=0" ]
	[ "$(counter htm0 long_busy_sleeps)" -gt 0 ]
}

@test "information blocks: the iterator is followed to its end, however the hypervisor ends it (iter_end x partial)" {
	# 2 nodes x 2 chips: 4 entries of 32 bytes, 3 a block (entries_per_call)
	local ie p blocks entries calls
	for ie in minus1 zero not_available p6 parameter; do
		for p in none more truncated; do
			blocks=2 entries=4 calls=2
			if [ $p = truncated ]; then
				# the first block is cut, and its iterator says it is the end
				blocks=1 entries=3 calls=1
			fi
			# the end as the call after the last block: one call more
			case $ie in minus1|zero) ;; *) calls=$((calls + 1)) ;; esac
			run guest "echo $ie > $SIMPARAM/iter_end && echo $p > $SIMPARAM/partial &&
				echo 1 > $HVSIM/reset && htmtest info /dev/htm0 sysmem 65536 &&
				sed -n 's/^dump_sysmem_conf //p' $HVSIM/op_calls"
			echo "iter_end=$ie partial=$p: $output"
			[ "$status" -eq 0 ]
			[ "$output" = "length $((blocks * 32 + entries * 32))
ok
$calls" ]
		done
	done
}

@test "rmmod is refused while a device is open or a channel configured" {
	# a process that holds /dev/htm2 open, seen holding it
	run guest 'sleep 600 < /dev/htm2 > /dev/null 2>&1 & echo $! > /tmp/holder.pid
		for i in $(seq 100); do
			[ "$(readlink /proc/$(cat /tmp/holder.pid)/fd/0)" = /dev/htm2 ] && exit 0
			nap 0.05
		done
		exit 1'
	[ "$status" -eq 0 ]
	run guest rmmod htmtrace
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"rmmod: can't unload module 'htmtrace': Resource temporarily unavailable"* ]]
	guest 'kill $(cat /tmp/holder.pid)
		while [ -d /proc/$(cat /tmp/holder.pid) ]; do nap 0.05; done'
	# configured, no file open: the channel holds the module
	guest htmtest configure /dev/htm2 2 1 0 0
	run guest "cat /sys/module/htmtrace/refcnt; rmmod htmtrace"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = 1 ]
	[[ $output == *"rmmod: can't unload module 'htmtrace': Resource temporarily unavailable"* ]]
	guest htmtest deconfigure /dev/htm2
	[ "$(guest cat /sys/module/htmtrace/refcnt)" = 0 ]
	hv_protocol_check
	guest rmmod htmtrace
	guest rmmod htmtrace_hvsim
}
