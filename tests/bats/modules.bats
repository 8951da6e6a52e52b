#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Loading and unloading htmtrace.ko and the simulator in QEMU pseries: the
# backend is chosen at load (backend=sim takes the simulator, which must be
# loaded first and cannot be unloaded while htmtrace holds it), and bad
# module parameters are refused with a clear message.

load helpers

teardown() {
	guest_unload_all
}

backend() {
	guest cat /sys/kernel/debug/htmtrace/backend
}

# The /dev/htmN nodes, one per line, in numeric order.
htm_devices() {
	guest 'ls /dev | grep "^htm[0-9][0-9]*$" | sed s/htm// | sort -n | sed s/^/htm/'
}

# The lines htmtrace logged since the test began (no timestamp; not the
# kernel's taint lines of a first load), a line repeated at once counted
# once: busybox's insmod, refused by finit_module(), tries init_module()
# too, so a failing init runs twice.
htm_log() {
	local log
	log=$(guest_dmesg) || return
	sed 's/^\[ *[0-9.]*\] //' <<<"$log" | grep '^htmtrace: ' |
		grep -v -e 'taints kernel' -e 'module verification failed' | uniq || true
}

# insmod htmtrace.ko ARG must fail and say which parameter is out of range.
refused() {
	local param=${1%%=*}
	guest_mark
	run --separate-stderr guest_load htmtrace "$1"
	[ "$status" -eq 22 ]
	[[ $stderr == "insmod: can't insert '$HTM_MODDIR/htmtrace.ko': Invalid argument"* ]]
	run guest_loaded htmtrace
	[ "$status" -eq 1 ]
	run guest_dmesg
	echo "$output"
	grep "$param" <<<"$output" | grep -q "out of range"
}

@test "htmtrace.ko loads and unloads cleanly three times in a row" {
	for _ in 1 2 3; do
		guest_load htmtrace
		guest_loaded htmtrace
		guest_unload htmtrace
		run guest_loaded htmtrace
		[ "$status" -eq 1 ]
	done
	assert_no_splat
}

@test "without the simulator: one H_HTM line says no /dev/htm devices were made" {
	guest_load htmtrace
	run guest_dmesg
	echo "$output"
	[ "$(grep -c H_HTM <<<"$output")" -eq 1 ]
	grep H_HTM <<<"$output" | grep -q /dev/htm
	run guest test -e /dev/htm0
	[ "$status" -eq 1 ]
	run -0 htm_devices
	[ "$output" = "" ]
	[ "$(backend)" = pseries ]
}

@test "backend=sim makes /dev/htm0../dev/htm3, mode 0600, backend hvsim" {
	guest_load htmtrace_hvsim
	guest_load htmtrace backend=sim
	run -0 htm_devices
	[ "${lines[*]}" = "htm0 htm1 htm2 htm3" ]
	run guest 'stat -c "%A %u %g" /dev/htm0 /dev/htm1 /dev/htm2 /dev/htm3'
	[ "${#lines[@]}" -eq 4 ]
	for line in "${lines[@]}"; do
		[ "$line" = "crw------- 0 0" ]
	done
	[ "$(backend)" = hvsim ]
	run guest cat /sys/module/htmtrace/parameters/backend
	[ "$output" = sim ]
	assert_no_splat
}

@test "backend=sim without the simulator: ENODEV, one line says to load it first" {
	run --separate-stderr guest_load htmtrace backend=sim
	[ "$status" -eq 19 ]
	[ "$stderr" = "insmod: can't insert '$HTM_MODDIR/htmtrace.ko': No such device" ]
	run guest_loaded htmtrace
	[ "$status" -eq 1 ]
	run htm_log
	echo "$output"
	[ "$output" = "htmtrace: backend=sim: the simulator htmtrace_hvsim is not loaded (load it first)" ]
	assert_no_splat
}

@test "an unknown backend is refused: EINVAL, one line" {
	guest_load htmtrace_hvsim
	run --separate-stderr guest_load htmtrace backend=powervm
	[ "$status" -eq 22 ]
	[ "$stderr" = "insmod: can't insert '$HTM_MODDIR/htmtrace.ko': Invalid argument" ]
	run htm_log
	echo "$output"
	[ "$output" = "htmtrace: backend=powervm: not pseries or sim" ]
	# the simulator was not taken: nothing holds it
	run guest cat /sys/module/htmtrace_hvsim/refcnt
	[ "$output" = 0 ]
}

@test "the simulator cannot be unloaded while htmtrace holds it; after htmtrace it can" {
	guest_load htmtrace_hvsim
	guest_load htmtrace backend=sim
	run guest "cat /sys/module/htmtrace_hvsim/refcnt; rmmod htmtrace_hvsim"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = 1 ]
	[ "${lines[1]}" = "rmmod: can't unload module 'htmtrace_hvsim': Resource temporarily unavailable" ]
	guest_loaded htmtrace_hvsim
	run -0 htm_devices
	[ "${#lines[@]}" -eq 4 ]
	guest_unload htmtrace
	run guest cat /sys/module/htmtrace_hvsim/refcnt
	[ "$output" = 0 ]
	guest_unload htmtrace_hvsim
	run guest_loaded htmtrace_hvsim
	[ "$status" -eq 1 ]
	assert_no_splat
}

@test "the default backend is pseries, even with the simulator loaded" {
	guest_load htmtrace_hvsim
	guest_load htmtrace
	[ "$(backend)" = pseries ]
	run -0 htm_devices
	[ "$output" = "" ]
	run guest cat /sys/module/htmtrace_hvsim/refcnt
	[ "$output" = 0 ]
}

@test "channels=N gives /dev/htm0../dev/htm(N-1)" {
	guest_load htmtrace_hvsim
	guest_load htmtrace backend=sim channels=2
	run -0 htm_devices
	[ "${lines[*]}" = "htm0 htm1" ]
	guest_unload htmtrace
	guest_load htmtrace backend=sim channels=64
	run -0 htm_devices
	[ "${#lines[@]}" -eq 64 ]
	[ "${lines[-1]}" = htm63 ]
}

@test "channels=0 is refused: out of range" {
	refused channels=0
}

@test "channels=65 is refused: out of range" {
	refused channels=65
}

@test "bounce_kb=0 is refused: out of range" {
	refused bounce_kb=0
}

@test "bounce_kb=63 and bounce_kb=65537 are refused: out of range" {
	refused bounce_kb=63
	refused bounce_kb=65537
}

@test "dtl_period_us can be changed at run time, within its range only" {
	guest_load htmtrace
	local p=/sys/module/htmtrace/parameters/dtl_period_us
	run guest "echo 1000000 > $p && cat $p"
	[ "$output" = 1000000 ]
	run --separate-stderr guest "echo 1000001 > $p"
	[ "$status" -eq 1 ]
	[[ $stderr == *"Invalid argument"* ]]
	run guest "cat $p"
	[ "$output" = 1000000 ]
	# 1..99 are refused too, not taken as 100; 100 and 0 are taken
	for v in 1 99; do
		run --separate-stderr guest "echo $v > $p"
		[ "$status" -eq 1 ]
		[[ $stderr == *"Invalid argument"* ]]
		run guest "cat $p"
		[ "$output" = 1000000 ]
	done
	run guest "echo 100 > $p && cat $p && echo 0 > $p && cat $p"
	[ "$output" = "100
0" ]
}

@test "dtl_period_us=99 is refused: out of range" {
	refused dtl_period_us=99
}

# In the guest: "held" waits (bounded) until the load (in the background,
# its status in /tmp/ins.done) holds at init_hold with everything
# registered: the vpa_dtl PMU, the last, exists.
# shellcheck disable=SC2016 # expanded by the guest's shell
HELD='held() {
	for i in $(seq 400); do
		[ -d /sys/bus/event_source/devices/vpa_dtl ] && return 0
		[ -e /tmp/ins.done ] && break
		nap 0.05
	done
	echo "the load never held" >&2; return 1
}'

@test "init: the devices and PMUs take no user until it is over; a failure after they are registered leaves nothing" {
	local p=/sys/module/htmtrace/parameters/init_hold
	guest_load htmtrace_hvsim
	# held with every device and PMU registered: none takes a user yet
	run guest "$HELD
		rm -f /tmp/ins.done
		(insmod $HTM_MODDIR/htmtrace.ko backend=sim init_hold=1 > /tmp/ins.out 2>&1
		 echo \$? > /tmp/ins.done) &
		held || exit 1
		[ -c /dev/htm0 ] && [ -c /dev/vpa_dtl ] && [ -d /sys/bus/event_source/devices/htm ] || exit 1
		cat /dev/htm0 2>&1; cat /dev/vpa_dtl 2>&1
		htmperf open htm 0x100002; htmperf open vpa_dtl 7
		echo 0 > $p
		for i in \$(seq 400); do [ -e /tmp/ins.done ] && break; nap 0.05; done
		cat /tmp/ins.done /tmp/ins.out
		htmperf open htm 0x100002 && htmperf open vpa_dtl 7 && : < /dev/htm0 && : < /dev/vpa_dtl"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "cat: can't open '/dev/htm0': No such device" ]
	[ "${lines[1]}" = "cat: can't open '/dev/vpa_dtl': No such device" ]
	[ "${lines[2]}" = ENODEV ]
	[ "${lines[3]}" = ENODEV ]
	[ "${lines[4]}" = 0 ]
	[ "${lines[5]}" = ok ]
	[ "${lines[6]}" = ok ]
	[ "${#lines[@]}" -eq 7 ]
	guest_unload htmtrace

	# the same, but the init fails then (busybox's insmod tries twice):
	# every device and PMU is gone, and a load after it works
	guest_mark
	run guest "$HELD
		rm -f /tmp/ins.done
		(insmod $HTM_MODDIR/htmtrace.ko backend=sim init_hold=1 > /tmp/ins.out 2>&1
		 echo \$? > /tmp/ins.done) &
		held || exit 1
		for i in \$(seq 400); do
			[ -e /tmp/ins.done ] && break
			{ echo 2 > $p; } 2>/dev/null; nap 0.05
		done
		cat /tmp/ins.done /tmp/ins.out
		ls /dev | grep -e '^htm[0-9]' -e '^vpa_dtl\$'
		ls /sys/bus/event_source/devices | grep -e '^htm\$' -e '^vpa_dtl\$'
		[ -d /sys/module/htmtrace ] && echo loaded; true"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ne 0 ]
	[[ ${lines[1]} == "insmod: can't insert '$HTM_MODDIR/htmtrace.ko': Operation canceled"* ]]
	[ "${#lines[@]}" -eq 2 ]
	run guest_dmesg
	grep -q "htmtrace: hvsim: init failed after the devices were registered: -125" <<<"$output"
	assert_no_splat
	guest_load htmtrace backend=sim
	guest "[ -c /dev/htm0 ] && [ -c /dev/vpa_dtl ] && htmperf open vpa_dtl 7"
}

@test "no poll_ms: the driver asks the hypervisor nothing while a trace runs" {
	local hvsim=/sys/kernel/debug/htmtrace_hvsim
	guest_load htmtrace_hvsim rate=0
	guest_load htmtrace backend=sim
	run guest "[ -e /sys/module/htmtrace/parameters/poll_ms ]"
	[ "$status" -eq 1 ]
	# A running no-wrap trace that waits for a stop (flags 3), a reader
	# asleep in read() and one in poll(): the simulator's H_HTM calls
	# counted over 2 s in which the trace moves, then fills and stops by
	# itself (what a polling driver would look for)
	run -0 guest "htmtest configure /dev/htm0 2 0 0 0 3 && htmtest start /dev/htm0 || exit 1
		htmtest read /dev/htm0 4096 > /tmp/r.out 2>&1 & echo \$! > /tmp/r.pid
		htmtest poll /dev/htm0 -1 > /tmp/p.out 2>&1 & echo \$! > /tmp/p.pid
		htmtest blocked \$(cat /tmp/r.pid) read 20000 &&
			htmtest blocked \$(cat /tmp/p.pid) poll 20000 || exit 1
		c0=\$(cat $hvsim/calls)
		echo 1000 > $hvsim/advance && nap 1 &&
			echo 1000000000 > $hvsim/advance && nap 1 || exit 1
		c1=\$(cat $hvsim/calls)
		htmtest blocked \$(cat /tmp/r.pid) read 0 &&
			htmtest blocked \$(cat /tmp/p.pid) poll 0 || exit 1
		grep -o 'nowrap=1 full=1' $hvsim/targets
		echo calls \$c0 \$c1"
	echo "$output"
	[ "${lines[0]}" = ok ]
	[ "${lines[1]}" = ok ]
	[ "${lines[2]}" = blocked ]
	[ "${lines[3]}" = blocked ]
	[ "${lines[4]}" = blocked ]
	[ "${lines[5]}" = blocked ]
	[ "${lines[6]}" = "nowrap=1 full=1" ]
	[[ ${lines[7]} =~ ^calls\ ([0-9]+)\ ([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[ "${BASH_REMATCH[2]}" -eq "${BASH_REMATCH[1]}" ]
	[ "${#lines[@]}" -eq 8 ]
	# the STOP through the driver wakes both
	run -0 guest "htmtest stop /dev/htm0 >/dev/null
		for i in \$(seq 100); do
			[ -d /proc/\$(cat /tmp/r.pid) ] || [ -d /proc/\$(cat /tmp/p.pid) ] || break
			nap 0.1
		done
		cat /tmp/r.out /tmp/p.out"
	[ "$output" = "4096
ready" ]
}

@test "the parameter limits themselves are accepted" {
	for arg in channels=1 channels=64 bounce_kb=64 bounce_kb=65536 dtl_period_us=0 dtl_period_us=100 dtl_period_us=1000000; do
		guest_load htmtrace "$arg"
		guest_unload htmtrace
	done
	assert_no_splat
}

@test "bounce_kb above the largest contiguous allocation is capped, and configuring works" {
	guest_load htmtrace_hvsim
	guest_load htmtrace backend=sim bounce_kb=65536
	run guest_dmesg
	local kb
	kb=$(sed -n 's/.*bounce_kb=65536 is more than one allocation gives: using \([0-9]*\) KiB$/\1/p' <<<"$output")
	echo "$output"
	[ -n "$kb" ]
	[ "$kb" -lt 65536 ]
	run guest "htmtest configure /dev/htm0 2 0 0 0 &&
		grep bounce_bytes /sys/kernel/debug/htmtrace/htm0/config &&
		htmtest deconfigure /dev/htm0"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "bounce_bytes: $((kb * 1024))" ]
}

@test "64 channels trace 64 targets at once, each dump verified" {
	guest_load htmtrace_hvsim cores=16 rate=0 log2_size=14
	guest_load htmtrace backend=sim channels=64 bounce_kb=64
	# 64 core targets: node 0 and 1, chip 0 and 1, cores 0..15; all
	# configured and tracing at once, then each dump checked byte for byte
	run guest htmtest many 64 2 16 100
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = verified ]
}

@test "htmtest mark ++ load: the mark in the kernel log, each module with the words after it as parameters, in one exec" {
	requires module htmtrace_hvsim
	# a mark no earlier run in this guest wrote
	local probe="probe $$ $RANDOM"
	run -0 guest "htmtest mark htmtrace-test: $probe ++ load \
		$HTM_MODDIR/htmtrace_hvsim.ko rate=0 log2_size=18 $HTM_MODDIR/htmtrace.ko backend=sim bounce_kb=64"
	[ -z "$output" ]
	run -0 guest "cat /sys/module/htmtrace_hvsim/parameters/log2_size \
		/sys/module/htmtrace_hvsim/parameters/rate /sys/module/htmtrace/parameters/backend \
		/sys/module/htmtrace/parameters/bounce_kb; dmesg | grep -c 'htmtrace-test: $probe\$'"
	[ "$output" = "$(printf '18\n0\nsim\n64\n1')" ]
	# a parameter before any module, or nothing: usage; a missing file: its
	# errno, and nothing loaded after it
	guest_unload_all
	run --separate-stderr guest htmtest load rate=0
	[ "$status" -eq 2 ]
	[[ $stderr == "usage: htmtest load "* ]]
	run --separate-stderr guest htmtest load
	[ "$status" -eq 2 ]
	run --separate-stderr guest htmtest load /nonexistent.ko $HTM_MODDIR/htmtrace_hvsim.ko
	[ "$status" -eq 1 ]
	[ "$stderr" = "insmod /nonexistent.ko: No such file or directory" ]
	run guest_loaded htmtrace_hvsim
	[ "$status" -eq 1 ]
	# one mark a call
	run --separate-stderr guest htmtest mark a ++ mark b
	[ "$status" -eq 2 ]
}

@test "htmtest log-since: the kernel log after the last line with the mark, as dmesg prints it" {
	local probe="probe $$ $RANDOM"
	run -0 guest "htmtest mark htmtrace-test: $probe && echo 'htmtrace-test: one' > /dev/kmsg &&
		htmtest mark htmtrace-test: $probe && echo 'htmtrace-test: two' > /dev/kmsg &&
		echo 'htmtrace-test: three' > /dev/kmsg"
	run -0 guest "htmtest log-since htmtrace-test: $probe"
	[ "${#lines[@]}" -eq 2 ]
	# (a timestamp first where the kernel prints them)
	[[ ${lines[0]} =~ ^(\[[^]]*\] )?"htmtrace-test: two"$ ]]
	[[ ${lines[1]} =~ ^(\[[^]]*\] )?"htmtrace-test: three"$ ]]
	# no line holds the mark: the whole log, line for line dmesg's (its
	# start: the boot, which no one logs to any more)
	run -0 guest "dmesg | head -n 40 > /tmp/a && htmtest log-since '$probe x' > /tmp/all &&
		head -n 40 /tmp/all > /tmp/b &&
		cmp /tmp/a /tmp/b && grep -c . /tmp/b"
	[ "$output" -eq 40 ]
	run -2 guest htmtest log-since
}
