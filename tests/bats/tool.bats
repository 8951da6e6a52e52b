#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The htmtrace tool as a user runs it in the QEMU pseries guest, against
# htmtrace.ko and the simulated H_HTM: load and unload with libkmod, record
# the files perf writes for htmdecode, caps and status, and what the user sees
# when the target is held elsewhere or the hypervisor fails mid-dump.
# Small traces, for the KASAN kernel under TCG: 256 KiB trace buffers
# (hvsim log2_size=18) read in 64 KiB dump chunks (bounce_kb=64), records
# written only when the workload asks for them (rate=0, then "advance").
# A guest command costs seconds on that kernel, so related probes share one.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
SIZE=262144
RECORDS=1000
# The target of the record tests: core 2 of chip 1 of node 0, type core.
TARGET='-t core -n 0 -p 1 -c 2'
TRACE=htm.bin.n0.p1.c2.t2
XLATE=translation.n0.p1.c2.t2
# A workload that makes every tracing target write $RECORDS records.
WORKLOAD="sh -c 'echo $RECORDS > $HVSIM/advance'"
IDLE='state 0 flags 0 size 0'

setup() {
	requires module htmtrace_hvsim
	requires tool
	guest_mark
}

teardown() {
	guest "rm -rf /tmp/r /tmp/b /tmp/f /tmp/sysmem.bin
		$HTM_UNLOAD_ALL"
}

load_sim() {
	guest htmtrace load --sim bounce_kb=64 hvsim.log2_size=18 hvsim.rate=0 \
		>/dev/null
}

# What a record into DIR left behind, one line each: the files in DIR, the
# status of /dev/htm0, and the simulator's targets that are not idle.
leftovers() {
	guest "echo \$(ls -A $1); htmtest status /dev/htm0; echo \$(cat $HVSIM/targets)"
}

@test "htmtrace load --sim loads both modules with libkmod; /dev/htm0 appears" {
	run guest test -e /dev/htm0
	[ "$status" -eq 1 ]
	run --separate-stderr guest htmtrace load --sim bounce_kb=64 \
		hvsim.log2_size=18 hvsim.rate=0
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "loaded /lib/modules/htmtrace/htmtrace.ko bounce_kb=64
loaded /lib/modules/htmtrace/htmtrace_hvsim.ko log2_size=18 rate=0" ]
	[ -z "$stderr" ]
	# both loaded, the parameters reached them, the simulator is the backend
	run guest "test -c /dev/htm0 && cd /sys/module && cat \
		htmtrace/parameters/bounce_kb htmtrace_hvsim/parameters/log2_size \
		htmtrace_hvsim/parameters/rate /sys/kernel/debug/htmtrace/backend"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "64
18
0
hvsim" ]
	assert_no_splat
}

@test "htmtrace load --sim again says already loaded and exits 0" {
	load_sim
	run --separate-stderr guest htmtrace load --sim
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "module htmtrace is already loaded
module htmtrace_hvsim is already loaded" ]
	[ -z "$stderr" ]
	# a loaded module keeps its parameters, and the tool says so
	run --separate-stderr guest htmtrace load --sim bounce_kb=128
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "module htmtrace is already loaded
parameters not applied: bounce_kb=128
module htmtrace_hvsim is already loaded" ]
	[ -z "$stderr" ]
	[ "$(guest cat /sys/module/htmtrace/parameters/bounce_kb)" = 64 ]
}

@test "record writes the trace and the translation file, verified; the channel ends idle" {
	load_sim
	run --separate-stderr guest "mkdir -p /tmp/r && htmtrace record $TARGET -o /tmp/r $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	record=$output

	# the length of the memory configuration, and the sizes of the files:
	# the buffer size and that length
	run guest "htmtest info /dev/htm0 sysmem 65536 && stat -c %s /tmp/r/$TRACE /tmp/r/$XLATE"
	echo "$output"
	[ "$status" -eq 0 ]
	len=${lines[0]#length }
	[ "$len" -gt 0 ]
	[ "$output" = "length $len
ok
$SIZE
$len" ]
	# 2 nodes x 2 chips: 4 entries, 3 per call (the simulator's defaults)
	[ "$record" = "traced core node 0 chip 1 core 2 on /dev/htm0
workload exited with status 0
wrote $SIZE bytes of trace to /tmp/r/$TRACE
wrote $len bytes of memory configuration (2 blocks, 4 entries) to /tmp/r/$XLATE" ]

	# exactly the two files; the channel and the simulated target are
	# deconfigured
	[ "$(leftovers /tmp/r)" = "$TRACE $XLATE
$IDLE" ]
	# the translation file is the memory configuration, byte for byte
	guest "htmtrace sysmem -o /tmp/sysmem.bin >/dev/null && cmp /tmp/sysmem.bin /tmp/r/$XLATE"

	run --separate-stderr guest htmtrace verify $TARGET /tmp/r/$TRACE
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "file:          /tmp/r/$TRACE
records:       $((SIZE / 128)) of 128 bytes
target:        core node 0 chip 1 core 2
written:       $RECORDS
wrapped:       no
records valid: $RECORDS
zero-filled:   $((SIZE / 128 - RECORDS))
mismatched:    0" ]
	# and the records are not those of another core
	run guest htmtrace verify -t core -n 0 -p 1 -c 3 /tmp/r/$TRACE
	[ "$status" -eq 1 ]
	assert_no_splat
}

@test "record on a target another channel holds: exit 1, EBUSY, no files" {
	load_sim
	guest htmtrace configure -d 1 $TARGET
	run --separate-stderr guest "mkdir -p /tmp/b && htmtrace record $TARGET -o /tmp/b --duration 0.1"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "htmtrace record: configure /dev/htm0: Device or resource busy
htmtrace record: the target is held by another channel or perf event, or the hypervisor stayed busy
htmtrace record: removed the partial /tmp/b/$TRACE and /tmp/b/$XLATE" ]
	# no files, /dev/htm0 idle, the holder keeps its target
	[ "$(leftovers /tmp/b)" = "
$IDLE
core 0 1 2 state=configured log2_size=18 nowrap=0 full=0 records=0" ]
	run guest htmtrace status -d 1
	[ "${lines[1]}" = "state:       configured" ]
	[ "${lines[2]}" = "target:      core node 0 chip 1 core 2" ]
}

@test "H_HARDWARE during the dump: record exits 1 with EIO, deconfigures, leaves no files" {
	load_sim
	# the second DUMP_DATA (offset 64 KiB) and every later one fail
	guest "mkdir -p /tmp/f && cd $HVSIM && echo 0 > fail_count &&
		echo 1 > fail_after && echo -1 > fail_rc && echo 9 > fail_op"
	# --wrap: a no-wrap channel probes DUMP_DATA while it traces, which
	# would take the first of the injected failures
	run --separate-stderr guest "htmtrace record $TARGET --wrap -o /tmp/f $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "htmtrace record: read /dev/htm0 at offset 65536: Input/output error
htmtrace record: removed the partial /tmp/f/$TRACE and /tmp/f/$XLATE" ]
	[ "$(guest cat $HVSIM/injected)" -eq 1 ]
	[ "$(leftovers /tmp/f)" = "
$IDLE" ]
	assert_no_splat
}

@test "caps and status print the capabilities and a channel's state" {
	load_sim
	run --separate-stderr guest htmtrace caps
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "HTM capabilities from /dev/htm0 (128 bytes):" ]
	# version 1, log2 sizes 12..30, default 18, types nest/core/llat,
	# NOWRAP, 128-byte records, 2 nodes, 2 chips, 4 cores, 8 threads;
	# then no transfer limit and rate 0
	[ "${lines[1]}" = "00000000  01 0c 28 12 0e 01 00 80  00 02 00 02 00 04 00 08  |..(.............|" ]
	for i in 1 2 3 4 5 6 7; do
		[ "${lines[i + 1]}" = "000000${i}0  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|" ]
	done
	[ "${#lines[@]}" -eq 9 ]

	run --separate-stderr guest "htmtrace status &&
		htmtrace configure -d 2 -t core -n 1 -p 0 -c 3 --nowrap &&
		htmtrace status -d 2"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "device:      /dev/htm0
state:       idle
device:      /dev/htm2
state:       configured
target:      core node 1 chip 0 core 3
flags:       nowrap
buffer size: $SIZE bytes (2^18)" ]

	run --separate-stderr guest htmtrace status -d 9
	[ "$status" -eq 1 ]
	[ "$stderr" = "htmtrace status: open /dev/htm9: No such file or directory
htmtrace status: htmtrace has no such channel: see its channels parameter (/sys/module/htmtrace/parameters/channels)" ]
}

@test "a missing device is explained: no module, or no H_HTM from the hypervisor" {
	run --separate-stderr guest htmtrace status
	[ "$status" -eq 1 ]
	[ "${stderr_lines[1]}" = "htmtrace status: is the htmtrace module loaded? (htmtrace load)" ]
	# without the simulator, QEMU answers H_FUNCTION: no /dev/htmN
	guest_load htmtrace
	run --separate-stderr guest htmtrace status
	[ "$status" -eq 1 ]
	[ "$stderr" = "htmtrace status: open /dev/htm0: No such file or directory
htmtrace status: htmtrace is loaded but made no /dev/htmN: the hypervisor offers no H_HTM to this partition (see the kernel log)" ]
}

@test "htmtrace unload --sim removes both modules; /dev/htm0 disappears" {
	load_sim
	# refused while a channel holds a target
	run --separate-stderr guest "htmtrace configure $TARGET && htmtrace unload --sim"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "htmtrace unload: unload htmtrace_hvsim: Resource temporarily unavailable
htmtrace unload: htmtrace_hvsim is in use: close /dev/htm* and end perf sessions" ]

	run --separate-stderr guest "htmtrace deconfigure && htmtrace unload --sim"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "unloaded htmtrace_hvsim
unloaded htmtrace" ]
	[ -z "$stderr" ]
	# no module of ours, no /dev/htmN
	run guest 'ls -d /sys/module/htmtrace* /dev/htm[0-9]* 2>/dev/null; echo end'
	[ "$status" -eq 0 ]
	[ "$output" = end ]
	assert_no_splat
}
