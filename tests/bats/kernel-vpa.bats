#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# /dev/vpa_dtl beside a kernel that has its own vpa_dtl PMU (mainline's
# arch/powerpc/perf/vpa-dtl.c, built in on Debian 13's 7.2: HV_PERF_CTRS=y).
# make check runs this file only there (tests/check.sh, new_boot). That
# PMU is the real one, opened by our perf_event_open client (htmperf,
# which finds a PMU by its name); the hypervisor side is the simulator's.
#
# What a user gets (htmtrace(4)): ours stays unregistered; the kernel's
# PMU and /dev/vpa_dtl never share a CPU's log silently. A CPU whose log
# the kernel's PMU holds (its event mask set) is refused at configure
# (EBUSY); a CPU the kernel's PMU takes during a capture (a registration
# of its own: the index reset to 0, its mask) ends that CPU's capture with
# a record saying so, and `htmtrace dtl record` exits 1.

# shellcheck disable=SC2086 # argument lists are split into words on purpose
load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
DEVS=/sys/bus/event_source/devices
DEV=/dev/vpa_dtl
DTLFS=/sys/kernel/debug/htmtrace/dtl

setup() {
	requires module htmtrace_hvsim
	guest_mark "$(sim_load rate=0)"
}

# The kernel's event is disabled before its holder exits: mainline's
# vpa_dtl PMU has no stop callback, and the perf core calls one when an
# AUX area is unmapped under an active event (a holder killed outright):
# a NULL call, seen to panic Debian's 7.2.11 here. htmperf ends on SIGTERM
# with a DISABLE first.
teardown() {
	guest "[ ! -e /tmp/k.pid ] || { kill \$(cat /tmp/k.pid)
		while kill -0 \$(cat /tmp/k.pid) 2>/dev/null; do nap 0.05; done
		rm -f /tmp/k.pid; }"
	guest_unload_all
}

# hold_kernel_pmu CPUS: a vpa_dtl event of the kernel's PMU on each of
# CPUS (all events), held in the background until teardown; returns once
# htmperf says they are enabled
hold_kernel_pmu() {
	guest "rm -f /tmp/kr; htmperf dtl 7 -C $1 -o /tmp/k -d 0 -r /tmp/kr > /tmp/k.out 2>&1 &
		echo \$! > /tmp/k.pid
		for i in \$(seq 200); do
			[ -e /tmp/kr ] && exit 0
			nap 0.05
		done
		cat /tmp/k.out; exit 1"
}

# mask CPU: CPU's event mask in the lppaca, as the simulator reads it
mask() {
	guest "sed -n 's/^cpu $1 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus"
}

@test "the kernel's own vpa_dtl PMU serves vpa_dtl: ours is not registered, said in one line; htm is ours" {
	run guest_dmesg
	echo "$output"
	[ "$(grep -c 'a vpa_dtl perf PMU exists already: not registering ours' <<<"$output")" -eq 1 ]
	run guest "[ -d $DEVS/vpa_dtl ] && [ -d $DEVS/htm ] && [ ! -e /sys/kernel/debug/htmtrace/vpa_dtl_pmu ] && echo ok"
	[ "$output" = ok ]
	# unloading ours leaves the kernel's in place
	guest_unload_all
	run guest "[ -d $DEVS/vpa_dtl ] && [ ! -e $DEVS/htm ] && echo ok"
	[ "$output" = ok ]
}

@test "the kernel's vpa_dtl PMU has the format and events ours registers (pmu.bats), exactly" {
	run guest "cd $DEVS/vpa_dtl && for f in format/* events/*; do echo \$f \$(cat \$f); done"
	echo "$output"
	[ "$output" = "format/event config:0-7
events/dtl_all event=0x07
events/dtl_cede event=0x01
events/dtl_fault event=0x04
events/dtl_preempt event=0x02" ]
}

@test "a CPU whose log the kernel's vpa_dtl PMU holds is refused at configure (EBUSY); the other CPUs are not" {
	[ "$(mask 1)" -eq 0 ]
	hold_kernel_pmu 1
	[ "$(mask 1)" -eq 7 ]
	run guest htmtest dtl-configure $DEV all 7
	[ "$output" = EBUSY ]
	run guest htmtest dtl-configure $DEV 1 7
	[ "$output" = EBUSY ]
	# nothing was left configured: CPU 0 alone is fine
	run guest htmtest dtl-configure $DEV 0 7
	[ "$output" = ok ]
	guest htmtest dtl-deconfigure $DEV
	# the kernel's event kept its mask
	[ "$(mask 1)" -eq 7 ]
}

@test "the kernel's vpa_dtl PMU takes a CPU during a capture: that CPU ends saying so, the others go on, dtl record exits 1" {
	# record runs until /tmp/stop exists; its exit status ends its output
	guest "rm -f /tmp/d.bin /tmp/rec.out /tmp/stop
		{ htmtrace dtl record -C 0,1 -e all -o /tmp/d.bin -- \
			sh -c 'while [ ! -e /tmp/stop ]; do sleep 0.05; done'
		  echo \"exit \$?\"; } > /tmp/rec.out 2>&1 &"
	# both CPUs captured, then 10 entries read on CPU 1
	run guest "for i in \$(seq 200); do
			[ \$(grep -c '^capture cpu [01] state 1 ' $DTLFS) -eq 2 ] && exit 0
			nap 0.05
		done
		cat $DTLFS; exit 1"
	[ "$status" -eq 0 ]
	guest "echo '1 10' > $HVSIM/dtl_burst"
	run guest "for i in \$(seq 200); do
			grep -q '^capture cpu 1 .* next 10\$' $DTLFS && exit 0
			nap 0.05
		done
		cat $DTLFS; exit 1"
	[ "$status" -eq 0 ]
	# the kernel's PMU registers a log of its own on CPU 1 (its index
	# reset, its mask): our capture of CPU 1 ends at its next poll
	hold_kernel_pmu 1
	run guest "for i in \$(seq 200); do
			grep -q '^capture cpu 1 state 2 ' $DTLFS && exit 0
			nap 0.05
		done
		cat $DTLFS; exit 1"
	[ "$status" -eq 0 ]
	# CPU 0's goes on
	run guest "grep '^capture cpu 0 ' $DTLFS"
	[[ $output == "capture cpu 0 state 1 "* ]]
	guest "echo '0 5' > $HVSIM/dtl_burst"
	run guest "touch /tmp/stop
		for i in \$(seq 400); do
			grep -q '^exit ' /tmp/rec.out && break
			nap 0.05
		done
		cat /tmp/rec.out"
	echo "$output"
	[[ $output == *"CPU 1: another user took its dispatch trace log"* ]]
	[[ $output == *"the capture of 1 CPU(s) ended early"* ]]
	[ "${lines[-1]}" = "exit 1" ]
	# the stream says so too: CPU 1's 10 entries and its "lost" event,
	# CPU 0's 5 entries
	run guest "htmtrace dtl report /tmp/d.bin --format csv"
	echo "$output"
	[ "$(grep -c '^entry,[0-9]*,1,' <<<"$output")" -eq 10 ]
	[ "$(grep -c '^entry,[0-9]*,0,' <<<"$output")" -eq 5 ]
	[ "$(grep -c '^cpu,[0-9]*,1,.*,lost,0\(,\|$\)' <<<"$output")" -eq 1 ]
	# the kernel's event holds CPU 1's log: its mask is untouched
	[ "$(mask 1)" -eq 7 ]
	assert_no_splat
}
