#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The htmtrace tool as a user runs it in the QEMU pseries guest, against
# htmtrace.ko and the simulated H_HTM: load and unload with libkmod, record
# the files perf writes for htmdecode, caps and status, and what the user sees
# when the target is held elsewhere or the hypervisor fails mid-dump.
# A failure after the trace was taken (a full tmpfs, a hypervisor error,
# Ctrl-C) keeps what was written and the channel, and the commands the
# tool prints finish the job byte for byte.
# Small traces, for the KASAN kernel under TCG: 256 KiB trace buffers
# (hvsim log2_size=18) read in 64 KiB dump chunks (bounce_kb=64), records
# written only when the workload asks for them (rate=0, then "advance").
# A guest command costs seconds on that kernel, so related probes share one.

# HTMTRACE_HVSIM_ALT="NAME=CHOICE ...": the simulator's answers where no
# public source says how PowerVM answers (module/hvsim/README.md,
# "Alternatives"), passed to every load as hvsim.NAME=CHOICE; make check
# runs this file under a profile of them on the 4 KiB stock guest. The
# expectations hold under each: a dump may end early under
# dump_end=written. stop_full is set, to each value, by the test about it.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
SIZE=262144
RECORDS=1000
# The dump chunk (bounce_kb=64): a dump that ends early ends on one.
CHUNK=65536
# The alternatives, as parameters of htmtrace load --sim.
ALT_ARGS=
for a in ${HTMTRACE_HVSIM_ALT:-}; do
	ALT_ARGS+=" hvsim.$a"
done

# alt NAME (helpers.bash): the choice this run makes for alternative NAME.

# ended_early BYTES [SIZE]: what record and dump add to "N bytes of a
# buffer of M" when the data ended before the buffer's end.
ended_early() {
	[ "$1" -ge "${2:-$SIZE}" ] || echo ": the trace ended before the buffer filled"
}
# The target of the record tests: core 2 of chip 1 of node 0, type core.
TARGET='-t core -n 0 -p 1 -c 2'
TRACE=htm.bin.n0.p1.c2.t2
XLATE=translation.n0.p1.c2.t2
# A workload that makes every tracing target write $RECORDS records.
WORKLOAD="sh -c 'echo $RECORDS > $HVSIM/advance'"
# The same, then each hypervisor call takes 0.2 s.
SLOW_WORKLOAD="sh -c 'echo $RECORDS > $HVSIM/advance; echo 200000 > $HVSIM/latency_us'"
IDLE='state 0 flags 0 size 0'

setup() {
	requires module htmtrace_hvsim
	requires tool
	guest_mark
}

teardown() {
	guest "while read -r _ m _; do [ \$m != /tmp/full ] || umount /tmp/full; done < /proc/mounts
		rm -rf /tmp/r /tmp/b /tmp/f /tmp/i /tmp/full /tmp/sysmem.bin
		$HTM_UNLOAD_ALL"
}

# load_sim [PARAM...]: the modules for these tests, the alternatives of
# this run applied.
load_sim() {
	guest htmtrace load --sim bounce_kb=64 hvsim.log2_size=18 hvsim.rate=0 \
		$ALT_ARGS "$@" >/dev/null
}

# What a record into DIR left behind, one line each: the files in DIR, the
# status of /dev/htm0, and the simulator's targets that are not idle.
leftovers() {
	guest "echo \$(ls -A $1); htmtest status /dev/htm0; echo \$(cat $HVSIM/targets)"
}

# The commands the last run printed to finish a job (the lines of $stderr
# that start with "  htmtrace "), joined by && for one guest command.
finish_cmds() {
	grep '^  htmtrace ' <<<"$stderr" | sed 's/^  //' | paste -s -d '\n' |
		sed ':a;N;$!ba;s/\n/ \&\& /g'
}

# A guest script: run COMMAND... in the background (stdout to out, stderr
# to err), send it SIGINT once FILE holds BYTES, and print "rc=" its exit
# status and "ms=" how long it took to end after the signal (10 ms steps).
ctrl_c_after() {
	local bytes=$1 file=$2
	shift 2
	echo "$* >out 2>err & pid=\$!
		while [ \$(stat -c %s $file 2>/dev/null || echo 0) -lt $bytes ]; do nap 0.05; done
		read t0 x </proc/uptime; kill -INT \$pid; wait \$pid; rc=\$?; read t1 x </proc/uptime
		echo rc=\$rc; echo ms=\$(( (\${t1%.*}\${t1#*.} - \${t0%.*}\${t0#*.}) * 10 ))"
}

@test "htmtrace load --sim loads both modules with libkmod; /dev/htm0 appears" {
	run guest test -e /dev/htm0
	[ "$status" -eq 1 ]
	run --separate-stderr guest htmtrace load --sim bounce_kb=64 \
		hvsim.log2_size=18 hvsim.rate=0 $ALT_ARGS
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "loaded /lib/modules/htmtrace/htmtrace_hvsim.ko log2_size=18 rate=0${ALT_ARGS// hvsim./ }
loaded /lib/modules/htmtrace/htmtrace.ko backend=sim bounce_kb=64" ]
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
	[ "$output" = "module htmtrace_hvsim is already loaded
module htmtrace is already loaded" ]
	[ -z "$stderr" ]
	# a loaded module keeps its parameters, and the tool says so
	run --separate-stderr guest htmtrace load --sim bounce_kb=128
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "module htmtrace_hvsim is already loaded
module htmtrace is already loaded
parameters not applied: bounce_kb=128" ]
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
	dump=$(dump_size $RECORDS)

	# the length of the memory configuration, and the sizes of the files:
	# the dump's size and that length
	run guest "htmtest info /dev/htm0 sysmem 65536 && stat -c %s /tmp/r/$TRACE /tmp/r/$XLATE &&
		htmtrace sysmem -o /tmp/sysmem.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	len=${lines[0]#length }
	[ "$len" -gt 0 ]
	[ "${lines[1]}" = ok ]
	[ "${lines[2]}" = "$dump" ]
	[ "${lines[3]}" = "$len" ]
	counts=${lines[4]#wrote $len bytes }
	counts=${counts% to /tmp/sysmem.bin}
	# 2 nodes x 2 chips: 4 entries, 3 per call (the simulator's defaults;
	# an alternative may end or cut the iteration otherwise)
	[ "$(alt iter_end)$(alt partial)" != minus1none ] || [ "$counts" = "(2 blocks, 4 entries)" ]
	[ "$record" = "traced core node 0 chip 1 core 2 on /dev/htm0
workload exited with status 0
wrote $dump bytes of a buffer of $SIZE to /tmp/r/$TRACE$(ended_early "$dump")
wrote $len bytes of memory configuration $counts to /tmp/r/$XLATE" ]

	# exactly the two files; the channel and the simulated target are
	# deconfigured
	[ "$(leftovers /tmp/r)" = "$TRACE $XLATE
$IDLE" ]
	# the translation file is the memory configuration, byte for byte
	guest "cmp /tmp/sysmem.bin /tmp/r/$XLATE"

	run --separate-stderr guest htmcheck verify $TARGET /tmp/r/$TRACE
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "file:          /tmp/r/$TRACE
records:       $((dump / 128)) of 128 bytes
target:        core node 0 chip 1 core 2
written:       $RECORDS
wrapped:       no
records valid: $RECORDS
zero-filled:   $((dump / 128 - RECORDS))
mismatched:    0" ]
	# and the records are not those of another core
	run guest htmcheck verify -t core -n 0 -p 1 -c 3 /tmp/r/$TRACE
	[ "$status" -eq 1 ]
	assert_no_splat
}

@test "translation: beside a trace named as perf report names it, the memory configuration byte for byte" {
	load_sim
	# what IBM's perf report leaves with our PMU: the trace, no translation
	run --separate-stderr guest "mkdir -p /tmp/r && touch /tmp/r/htm.bin.n0.p1.c2 &&
		htmtrace translation /tmp/r && htmtrace sysmem -o /tmp/sysmem.bin >/dev/null &&
		cmp /tmp/sysmem.bin /tmp/r/translation.n0.p1.c2 && stat -c %s /tmp/sysmem.bin && ls /tmp/r"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ ${lines[0]} =~ ^"wrote "([0-9]+)" bytes of memory configuration ("[0-9]+" block".*" to /tmp/r/translation.n0.p1.c2"$ ]]
	[ "${BASH_REMATCH[1]}" = "${lines[1]}" ]
	[ "${lines[2]}" = htm.bin.n0.p1.c2 ]
	[ "${lines[3]}" = translation.n0.p1.c2 ]
	[ "${#lines[@]}" -eq 4 ]
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
	# no files, /dev/htm0 idle, the holder keeps its target (configured
	# without no-wrap: the simulator shows the mode CONFIGURE passed)
	left=$(leftovers /tmp/b)
	echo "$left"
	[[ "$left" == "
$IDLE
core 0 1 2 state=configured log2_size=18 nowrap=0 full=0 records=0"* ]]
	run guest htmtrace status -d 1
	[ "${lines[1]}" = "state:       configured" ]
	[ "${lines[2]}" = "target:      core node 0 chip 1 core 2" ]
}

@test "H_HARDWARE during the dump: record exits 1 with EIO, keeps what it read and the channel; the printed commands finish it" {
	load_sim
	# the second DUMP_DATA (offset 64 KiB) and every later one fail
	guest "mkdir -p /tmp/f && cd $HVSIM && echo 0 > fail_count &&
		echo 1 > fail_after && echo -1 > fail_rc && echo 9 > fail_op"
	run --separate-stderr guest "cd /tmp/f && htmtrace record $TARGET --wrap $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ "$output" = "traced core node 0 chip 1 core 2 on /dev/htm0
workload exited with status 0" ]
	[ "$stderr" = "htmtrace record: read /dev/htm0 at offset 65536: Input/output error
htmtrace record: kept 65536 bytes of a buffer of $SIZE in $TRACE: the dump is incomplete
htmtrace record: /dev/htm0 still holds the whole trace, left configured and stopped; to finish, then release the channel:
  htmtrace dump -d 0 --offset 65536 -o $TRACE
  htmtrace sysmem -d 0 -o $XLATE
  htmtrace deconfigure -d 0" ]
	[ "$(guest cat $HVSIM/injected)" -eq 1 ]
	# the trace file holds what was read; the channel and the simulated
	# target are stopped, not deconfigured
	left=$(leftovers /tmp/f)
	echo "$left"
	[[ "$left" == "$TRACE
state 3 flags 0 size $SIZE
core 0 1 2 state=stopped log2_size=18 nowrap=0 full=0 records=$RECORDS"* ]]
	# the hypervisor recovers: the printed commands, as printed
	run --separate-stderr guest "echo 1 > $HVSIM/reset && cd /tmp/f && $(finish_cmds)"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	run guest "set -o pipefail; htmcheck verify $TARGET /tmp/f/$TRACE | grep -e valid -e mismatched &&
		htmtrace sysmem -o /tmp/sysmem.bin >/dev/null && cmp /tmp/sysmem.bin /tmp/f/$XLATE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "records valid: $RECORDS
mismatched:    0" ]
	[ "$(leftovers /tmp/f)" = "$TRACE $XLATE
$IDLE" ]
	assert_no_splat
}

@test "a tmpfs that fills up during record: the bytes written kept, the channel stopped, the printed commands finish it byte for byte" {
	load_sim
	# 64 KiB: less than the dump, even one that ends early (dump_end=written)
	local dump
	dump=$(dump_size $RECORDS)
	run --separate-stderr guest "mkdir -p /tmp/full && mount -t tmpfs -o size=64k tmpfs /tmp/full &&
		cd /tmp/full && htmtrace record $TARGET $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	kept=$(sed -n 's/^htmtrace record: kept \([0-9]*\) bytes of a buffer of .*/\1/p' <<<"$stderr")
	[ "$kept" -gt 0 ]
	[ "$kept" -lt "$SIZE" ]
	[ "$stderr" = "htmtrace record: write $TRACE: No space left on device
htmtrace record: kept $kept bytes of a buffer of $SIZE in $TRACE: the dump is incomplete
htmtrace record: /dev/htm0 still holds the whole trace, left configured and stopped; to finish once there is room, then release the channel:
  htmtrace dump -d 0 --offset $kept -o $TRACE
  htmtrace sysmem -d 0 -o $XLATE
  htmtrace deconfigure -d 0" ]
	left=$(leftovers /tmp/full)
	echo "$left"
	[[ "$left" == "$TRACE
state 3 flags 1 size $SIZE
core 0 1 2 state=stopped log2_size=18 nowrap=1 full=0 records=$RECORDS"* ]]
	[ "$(guest stat -c %s /tmp/full/$TRACE)" -eq "$kept" ]
	# what was kept is right as far as it goes
	guest htmcheck verify --buffer-size $SIZE /tmp/full/$TRACE >/dev/null

	# room again: the printed commands give the files a record without
	# failure writes
	run --separate-stderr guest "mount -o remount,size=1m /tmp/full && cd /tmp/full && $(finish_cmds)"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "wrote $((dump - kept)) bytes from offset $kept of /dev/htm0 to $TRACE, which holds $dump bytes of a buffer of $SIZE$(ended_early "$dump")" ]
	run guest "set -o pipefail; htmcheck verify $TARGET /tmp/full/$TRACE | grep -e valid -e zero -e mismatched &&
		htmtrace sysmem -o /tmp/sysmem.bin >/dev/null && cmp /tmp/sysmem.bin /tmp/full/$XLATE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "records valid: $RECORDS
zero-filled:   $((dump / 128 - RECORDS))
mismatched:    0" ]
	[ "$(leftovers /tmp/full)" = "$TRACE $XLATE
$IDLE" ]
	assert_no_splat
}

@test "a tmpfs that fills up during dump: kept; the printed --offset command resumes it byte for byte" {
	load_sim
	guest "htmtrace configure $TARGET --nowrap && htmtrace start && echo $RECORDS > $HVSIM/advance &&
		htmtrace stop && mkdir -p /tmp/b && htmtrace dump -o /tmp/b/all.bin >/dev/null"
	run --separate-stderr guest "mkdir -p /tmp/full && mount -t tmpfs -o size=64k tmpfs /tmp/full &&
		htmtrace dump -o /tmp/full/t.bin"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	kept=$(guest stat -c %s /tmp/full/t.bin)
	[ "$kept" -gt 0 ]
	[ "$stderr" = "htmtrace dump: write /tmp/full/t.bin: No space left on device
htmtrace dump: kept $kept bytes of a buffer of $SIZE in /tmp/full/t.bin: the dump is incomplete
htmtrace dump: /dev/htm0 still holds the trace; to resume the dump once there is room:
  htmtrace dump -d 0 --offset $kept -o /tmp/full/t.bin" ]
	run --separate-stderr guest "mount -o remount,size=1m /tmp/full && $(finish_cmds) &&
		cmp /tmp/b/all.bin /tmp/full/t.bin && htmtest status /dev/htm0"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "state 3 flags 1 size $SIZE" ]
	assert_no_splat
}

@test "a tmpfs that fills up during dtl record: the whole records written kept, decoded by dtl report; the device released" {
	load_sim
	guest "mkdir -p /tmp/full && mount -t tmpfs -o size=64k tmpfs /tmp/full &&
		echo 10000 > $HVSIM/dtl_rate"
	run --separate-stderr guest "htmtrace dtl record -C 0 -o /tmp/full/dtl.bin --duration 3"
	echo "$output"
	echo "$stderr"
	guest "echo 0 > $HVSIM/dtl_rate"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	kept=$(guest stat -c %s /tmp/full/dtl.bin)
	[ "$kept" -gt 0 ]
	[ "${stderr_lines[0]}" = "htmtrace dtl record: write /tmp/full/dtl.bin: No space left on device" ]
	[[ "${stderr_lines[1]}" == "htmtrace dtl record: kept $kept bytes ("*" records: "*" entries, "*" lost) in /tmp/full/dtl.bin: whole records, the capture cut short there" ]]
	[ "${stderr_lines[2]}" = "htmtrace dtl record: the rest of the capture is lost: the dispatch trace log is a stream, read once" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	entries=${stderr_lines[1]#*records: }
	entries=${entries%% entries*}
	[ "$entries" -gt 0 ]
	# the file is whole records: dtl report decodes every entry
	run guest "set -o pipefail; htmtrace dtl report /tmp/full/dtl.bin --format csv | grep -c '^entry,'"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" -eq "$entries" ]
	# and the device is free again
	run guest htmtest dtl-stats /dev/vpa_dtl
	[ "$output" = ENODATA ]
	assert_no_splat
}

@test "Ctrl-C during a slow dump stops record and dump within a second; the channel stays stopped; the printed commands finish both" {
	# a 2 MiB trace, 64 KiB a DUMP_DATA (a page of the test kernels is
	# 64 KiB, the least a DUMP_DATA asks for), 0.2 s each: 6.4 s
	# (12000 records, 1.5 MB: long under dump_end=written too)
	local size=2097152 records=12000
	guest htmtrace load --sim bounce_kb=64 hvsim.log2_size=21 hvsim.rate=0 $ALT_ARGS >/dev/null
	guest "mkdir -p /tmp/i"
	# the workload writes the records and slows the hypervisor down
	run guest "cd /tmp/i || exit 99; $(ctrl_c_after 131072 $TRACE "htmtrace record $TARGET ${SLOW_WORKLOAD/$RECORDS/$records}")"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "rc=1" ]
	ms=${lines[1]#ms=}
	[ "$ms" -lt 1000 ]
	kept=$(guest stat -c %s /tmp/i/$TRACE)
	[ "$kept" -ge 131072 ]
	[ "$kept" -lt "$size" ]
	run --separate-stderr guest cat /tmp/i/err
	[ "$output" = "htmtrace record: interrupted: the dump stopped at offset $kept
htmtrace record: kept $kept bytes of a buffer of $size in $TRACE: the dump is incomplete
htmtrace record: /dev/htm0 still holds the whole trace, left configured and stopped; to finish, then release the channel:
  htmtrace dump -d 0 --offset $kept -o $TRACE
  htmtrace sysmem -d 0 -o $XLATE
  htmtrace deconfigure -d 0" ]
	finish_record=$(stderr=$output finish_cmds)
	run guest htmtest status /dev/htm0
	[ "$output" = "state 3 flags 1 size $size" ]

	# the same for a dump of the stopped channel
	run guest "cd /tmp/i || exit 99; $(ctrl_c_after 131072 d.bin htmtrace dump -o d.bin)"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "rc=1" ]
	ms=${lines[1]#ms=}
	[ "$ms" -lt 1000 ]
	dkept=$(guest stat -c %s /tmp/i/d.bin)
	run --separate-stderr guest cat /tmp/i/err
	[ "$output" = "htmtrace dump: interrupted: the dump stopped at offset $dkept
htmtrace dump: kept $dkept bytes in d.bin: the dump is incomplete
htmtrace dump: /dev/htm0 still holds the trace; to resume the dump:
  htmtrace dump -d 0 --offset $dkept -o d.bin" ]
	finish_dump=$(stderr=$output finish_cmds)

	# both finish, at full speed, and agree with each other
	run --separate-stderr guest "set -o pipefail; echo 0 > $HVSIM/latency_us && cd /tmp/i && $finish_dump && $finish_record &&
		cmp d.bin $TRACE && htmcheck verify $TARGET $TRACE | grep -e valid -e mismatched"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[-2]}" = "records valid: $records" ]
	[ "${lines[-1]}" = "mismatched:    0" ]
	run guest htmtest status /dev/htm0
	[ "$output" = "$IDLE" ]
	assert_no_splat
}

@test "a trace that ends before its buffer (dump_end=written): record says so and exits 0; verify accepts the file" {
	load_sim hvsim.dump_end=written
	run --separate-stderr guest "mkdir -p /tmp/r && htmtrace record $TARGET -o /tmp/r $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	len=$(guest stat -c %s /tmp/r/$TRACE)
	[ "$len" -ge $((RECORDS * 128)) ]
	[ "$len" -lt "$SIZE" ]
	[ "${lines[2]}" = "wrote $len bytes of a buffer of $SIZE to /tmp/r/$TRACE: the trace ended before the buffer filled" ]
	run guest "set -o pipefail; htmcheck verify $TARGET /tmp/r/$TRACE | grep -e valid -e mismatched"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "records valid: $RECORDS
mismatched:    0" ]
	assert_no_splat
}

@test "record of a trace that fills its no-wrap buffer (stop_full=success|state): every slot verified; a stop refused is said, and nothing of the trace read" {
	local v
	load_sim
	for v in success state; do
		guest "echo $v > /sys/module/htmtrace_hvsim/parameters/stop_full && echo 1 > $HVSIM/reset &&
		       rm -rf /tmp/r && mkdir -p /tmp/r"
		run --separate-stderr guest "htmtrace record $TARGET -o /tmp/r sh -c 'echo 3000 > $HVSIM/advance'"
		echo "$v: $output"
		echo "$stderr"
		if [ $v = state ]; then
			# no DUMP_DATA of a trace whose STOP failed (htm-perf.c:
			# "cannot dump a live buffer"): the read's STOP is refused
			# too, and the record keeps nothing
			[ "$status" -eq 1 ]
			[ "${stderr_lines[0]}" = "htmtrace record: stop /dev/htm0: Input/output error" ]
			[ "${stderr_lines[1]}" = "htmtrace record: the hypervisor refused the stop: no data is read while the trace may run; the read asks for the stop again" ]
			[ "${stderr_lines[2]}" = "htmtrace record: read /dev/htm0 at offset 0: Input/output error" ]
			[ "${stderr_lines[3]}" = "htmtrace record: the hypervisor refused the stop and the read: no trace to keep" ]
			run guest "sed -n 's/^dump_data //p' $HVSIM/op_calls"
			[ "$output" = 0 ]
			[ "$(leftovers /tmp/r)" = "
$IDLE" ]
			continue
		fi
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[ "${lines[2]}" = "wrote $SIZE bytes of a buffer of $SIZE to /tmp/r/$TRACE" ]
		run guest "set -o pipefail; htmcheck verify $TARGET /tmp/r/$TRACE | grep -e written -e valid -e mismatched"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "written:       $((SIZE / 128))
records valid: $((SIZE / 128))
mismatched:    0" ]
		[ "$(leftovers /tmp/r)" = "$TRACE $XLATE
$IDLE" ]
	done
	assert_no_splat
}

# The 8 targets of the multi-target tests: cores 0-3 of chips 0 and 1 of
# node 0, in the order record takes them.
TARGETS8='-t core -n 0 -p 0,1 -c 0-3'
targets8() {
	local p c
	for p in 0 1; do
		for c in 0 1 2 3; do
			echo "$p $c"
		done
	done
}

@test "record of 8 targets at once: a channel each, started and stopped together, each file pair byte for byte; progress of the total" {
	load_sim channels=8
	# 20 ms a hypervisor call: the dumps last long enough for the
	# progress line to be drawn
	run --separate-stderr guest "mkdir -p /tmp/r && cd /tmp/r && htmtrace record $TARGETS8 --progress sh -c 'echo $RECORDS > $HVSIM/advance; echo 20000 > $HVSIM/latency_us'"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	local dump i=0 want=() p c total
	dump=$(dump_size $RECORDS)
	while read -r p c; do
		want+=("traced core node 0 chip $p core $c on /dev/htm$i")
		i=$((i + 1))
	done < <(targets8)
	want+=("workload exited with status 0")
	while read -r p c; do
		want+=("wrote $dump bytes of a buffer of $SIZE to htm.bin.n0.p$p.c$c.t2$(ended_early "$dump")")
		want+=("wrote * bytes of memory configuration (* block*, * entr*) to translation.n0.p$p.c$c.t2")
	done < <(targets8)
	[ "${#lines[@]}" -eq "${#want[@]}" ]
	for i in "${!want[@]}"; do
		# shellcheck disable=SC2053
		[[ "${lines[i]}" == ${want[i]} ]]
	done
	# one progress line, of the 8 buffers together, ended once
	total=$((8 * dump))
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"$((total / 1048576)).$((total % 1048576 * 10 / 1048576)) MiB of 2.0 MiB ("*"), "*" MB/s, done in "* ]]
	# every target wrote its records while the workload ran (all were
	# tracing), all are idle again, and so is every channel
	run guest "cat $HVSIM/targets; for i in 0 1 2 3 4 5 6 7; do htmtest status /dev/htm\$i; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "state=" <<<"$output")" -eq 0 ]
	[ "$(grep -cxF "$IDLE" <<<"$output")" -eq 8 ]
	# each trace holds its own core's records, byte for byte, and each
	# translation file the memory configuration
	run guest "set -o pipefail; cd /tmp/r && htmtrace sysmem -o /tmp/sysmem.bin >/dev/null &&
		for t in '0 0' '0 1' '0 2' '0 3' '1 0' '1 1' '1 2' '1 3'; do
			set -- \$t
			htmcheck verify -t core -n 0 -p \$1 -c \$2 htm.bin.n0.p\$1.c\$2.t2 | grep -e valid -e mismatched | paste -s -d ' ' &&
			cmp /tmp/sysmem.bin translation.n0.p\$1.c\$2.t2 || exit 1
		done; ls | wc -l"
	echo "$output"
	[ "$status" -eq 0 ]
	for i in 0 1 2 3 4 5 6 7; do
		[ "${lines[i]}" = "records valid: $RECORDS mismatched:    0" ]
	done
	[ "${lines[8]}" = 16 ]
	assert_no_splat
}

@test "record of 8 targets with 4 channels, or with a busy target: the error names the target, nothing left configured, no files" {
	load_sim
	run --separate-stderr guest "mkdir -p /tmp/b && htmtrace record $TARGETS8 -o /tmp/b --duration 0.1"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "htmtrace record: too few channels: no free channel for target core node 0 chip 1 core 0 (8 targets; 4 channels, 0 of them in use by others)
htmtrace record: load htmtrace with channels=8 or more, or deconfigure a channel; nothing left configured
htmtrace record: removed the partial files of the 8 targets" ]
	run guest "ls -A /tmp/b; cat $HVSIM/targets; for i in 0 1 2 3; do htmtest status /dev/htm\$i; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' "$IDLE" "$IDLE" "$IDLE" "$IDLE")" ]

	# a channel someone else configured is skipped; a target held by
	# another channel is busy: named, and the 5 claimed before released
	guest "htmtrace unload --sim >/dev/null"
	load_sim channels=8
	guest "htmtrace configure -d 0 -t nest -n 1 -p 1 -c 0 && htmtrace configure -d 7 -t core -n 0 -p 1 -c 1"
	run --separate-stderr guest "htmtrace record $TARGETS8 -o /tmp/b --duration 0.1"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "htmtrace record: configure /dev/htm6: Device or resource busy
htmtrace record: the target is held by another channel or perf event, or the hypervisor stayed busy
htmtrace record: target core node 0 chip 1 core 1 (6 of 8) is busy: nothing left configured
htmtrace record: removed the partial files of the 8 targets" ]
	run guest "ls -A /tmp/b; cat $HVSIM/targets; for i in 0 1 2 3 4 5 6 7; do htmtest status /dev/htm\$i; done"
	echo "$output"
	[ "$status" -eq 0 ]
	# the two holders keep their targets; every other channel is idle
	[ "$(grep -c "state=" <<<"$output")" -eq 2 ]
	[ "$(grep -cxF "$IDLE" <<<"$output")" -eq 6 ]
	[ "${lines[2]}" = "state 1 flags 0 size $SIZE" ]
	[ "${lines[9]}" = "state 1 flags 0 size $SIZE" ]
	guest "htmtrace deconfigure -d 0 && htmtrace deconfigure -d 7"
}

@test "a tmpfs that fills up during a record of 3 targets: each target keeps what it wrote and its channel; the commands printed for each finish them byte for byte" {
	load_sim channels=3
	local dump room
	dump=$(dump_size $RECORDS)
	# room for the first trace and half the second
	room=$((dump * 3 / 2 / 1024))
	run --separate-stderr guest "mkdir -p /tmp/full && mount -t tmpfs -o size=${room}k tmpfs /tmp/full &&
		cd /tmp/full && htmtrace record -t core -n 0 -p 1 -c 0-2 $WORKLOAD"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	# the first whole; the second and the third kept, each with its commands
	[ "${lines[4]}" = "wrote $dump bytes of a buffer of $SIZE to htm.bin.n0.p1.c0.t2$(ended_early "$dump")" ]
	[ "${#lines[@]}" -eq 6 ]
	[ "$(grep -cE '^  htmtrace dump -d [12]( --offset [0-9]+)? -o htm.bin.n0.p1.c[12].t2$' <<<"$stderr")" -eq 2 ]
	[ "$(grep -c '^  htmtrace deconfigure -d [12]$' <<<"$stderr")" -eq 2 ]
	[[ "$stderr" == *"htmtrace record: 2 of 3 traces not finished: see the messages above" ]]
	run guest "for i in 0 1 2; do htmtest status /dev/htm\$i; done"
	[ "$output" = "$IDLE
state 3 flags 1 size $SIZE
state 3 flags 1 size $SIZE" ]
	# room again: the printed commands finish both
	run --separate-stderr guest "mount -o remount,size=4m /tmp/full && cd /tmp/full && $(finish_cmds)"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	run guest "set -o pipefail; cd /tmp/full && htmtrace sysmem -o /tmp/sysmem.bin >/dev/null &&
		for c in 0 1 2; do
			htmcheck verify -t core -n 0 -p 1 -c \$c htm.bin.n0.p1.c\$c.t2 | grep -e valid -e mismatched | paste -s -d ' ' &&
			cmp /tmp/sysmem.bin translation.n0.p1.c\$c.t2 || exit 1
		done; for i in 0 1 2; do htmtest status /dev/htm\$i; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "records valid: $RECORDS mismatched:    0
records valid: $RECORDS mismatched:    0
records valid: $RECORDS mismatched:    0
$IDLE
$IDLE
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

@test "load --sim refuses an htmtrace loaded without the simulator; unload alone leaves the simulator" {
	guest_load htmtrace
	run --separate-stderr guest htmtrace load --sim
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "htmtrace load: htmtrace is loaded without the simulator (not backend=sim): 'htmtrace unload' first" ]
	run -0 guest "htmtrace unload && htmtrace load --sim hvsim.rate=0"
	[ "$output" = "unloaded htmtrace
loaded /lib/modules/htmtrace/htmtrace_hvsim.ko rate=0
loaded /lib/modules/htmtrace/htmtrace.ko backend=sim" ]
	run -0 guest htmtrace unload
	[ "$output" = "unloaded htmtrace" ]
	guest_loaded htmtrace_hvsim
	# the simulator loaded alone: --sim loads htmtrace.ko backend=sim only
	run -0 guest htmtrace load --sim
	[ "$output" = "module htmtrace_hvsim is already loaded
loaded /lib/modules/htmtrace/htmtrace.ko backend=sim" ]
	[ "$(guest cat /sys/kernel/debug/htmtrace/backend)" = hvsim ]
}

@test "htmtrace unload --sim removes both modules; /dev/htm0 disappears" {
	load_sim
	# refused while a channel holds a target: both modules stay
	run --separate-stderr guest "htmtrace configure $TARGET && htmtrace unload --sim"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "htmtrace unload: unload htmtrace: Resource temporarily unavailable
htmtrace unload: htmtrace is in use: close /dev/htm* and /dev/vpa_dtl, deconfigure them, end perf sessions" ]
	guest "[ -d /sys/module/htmtrace ] && [ -d /sys/module/htmtrace_hvsim ]"

	run --separate-stderr guest "htmtrace deconfigure && htmtrace unload --sim"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "unloaded htmtrace
unloaded htmtrace_hvsim" ]
	[ -z "$stderr" ]
	# no module of ours, no /dev/htmN
	run guest 'ls -d /sys/module/htmtrace* /dev/htm[0-9]* 2>/dev/null; echo end'
	[ "$status" -eq 0 ]
	[ "$output" = end ]
	assert_no_splat
}
