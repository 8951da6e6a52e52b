#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# /dev/vpa_dtl against the simulated dispatch trace log: what a user of cat,
# read(), poll() and the ioctls sees. The simulator logs only on request
# (dtl_burst) unless a test sets dtl_rate. Runs on both test kernels: the
# debug kernel owns a log per CPU (VIRT_CPU_ACCOUNTING_NATIVE), so the
# capture reads the kernel's ring; the release kernel owns none, so the
# capture registers its own buffers.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
DEV=/dev/vpa_dtl
DTLFS=/sys/kernel/debug/htmtrace/dtl

setup() {
	requires module htmtrace_hvsim
	guest_mark "$(sim_load rate=0)"
}

teardown() {
	# The kernel's vcpudispatch_stats, if a test enabled it, goes off
	# first (it sets every CPU's mask); then the other user a test played
	# gives the mask it changed back: the lppaca outlives our modules, and
	# later suites (the kernel's own accounting too) expect the kernel's
	# mask.
	[ -z "${vds_on:-}" ] || guest "echo 0 > $VDS"
	[ -z "${meddled:-}" ] || guest "echo '$meddled' > $HVSIM/dtl_meddle"
	guest_unload_all
}

# The kernel's own user of the log that the tests can turn on: without
# VIRT_CPU_ACCOUNTING_NATIVE it allocates a log per CPU when enabled and
# frees it when disabled (arch/powerpc/platforms/pseries/lpar.c).
VDS=/proc/powerpc/vcpudispatch_stats

# The mask the CPUs log with while we capture with MASK: ours, plus the
# kernel's own where it owns the log (it logs preemptions, 2).
effective_mask() {
	local kmask
	kmask=$(guest_number "sed -n 's/^cpu 0 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus") || return
	echo $(($1 | kmask))
}

# caught_up CPU: wait (bounded) until the capture has read CPU's log up to
# the CPU's index
caught_up() {
	guest "for i in \$(seq 200); do
		idx=\$(sed -n 's/^cpu $1 .* index \([0-9]*\)$/\1/p' $DTLFS)
		nxt=\$(sed -n 's/^capture cpu $1 .* next \([0-9]*\)$/\1/p' $DTLFS)
		[ \"\$idx\" = \"\$nxt\" ] && exit 0
		nap 0.05
	done
	exit 1"
}

# written CPU: entries the simulator logged on CPU so far
written() {
	guest_number "sed -n 's/^cpu $1 .* written \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

@test "the device exists with the simulator, 0600" {
	run guest "stat -c '%A %u %g' $DEV"
	[ "$output" = "crw------- 0 0" ]
	run guest htmtest dtl-stats $DEV
	[ "$status" -eq 1 ]
	[ "$output" = ENODATA ]
}

@test "below the ring's capacity: every entry, byte for byte, no loss" {
	local mask
	mask=$(effective_mask 7)
	local w0 w1
	w0=$(written 0)
	w1=$(written 1)
	guest "htmtest dtl-configure $DEV all 7 && htmtest dtl-start $DEV"
	guest "echo '0 60' > $HVSIM/dtl_burst && echo '1 40' > $HVSIM/dtl_burst"
	caught_up 0
	guest "echo '0 70' > $HVSIM/dtl_burst"
	guest htmtest dtl-stop $DEV
	local n0 n1
	n0=$(written 0)
	n1=$(written 1)
	n0=$((n0 - w0)) n1=$((n1 - w1))
	[ "$n0" -gt 0 ]
	[ "$n1" -gt 0 ]
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "clock 1" ]
	[ "${lines[1]}" = "cpu 0 entries $n0 overwritten 0 dropped 0 events 1/0/0/0" ]
	[ "${lines[2]}" = "cpu 1 entries $n1 overwritten 0 dropped 0 events 1/0/0/0" ]
	[ "${lines[3]}" = "bad 0" ]
	# The checker itself: a stream with a tail shorter than a header, or
	# cut inside a record, is not whole.
	run -1 guest "head -c 3 /dev/zero >> /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "${lines[0]}" = "3 trailing bytes, less than a record header" ]
	[ "${lines[-1]}" = "bad 1" ]
	run -1 guest "n=\$((\$(stat -c %s /tmp/dtl.bin) - 11)) && head -c \$n /tmp/dtl.bin > /tmp/dtl.cut &&
		htmtest dtl-verify /tmp/dtl.cut $mask"
	echo "$output"
	[[ ${lines[0]} == "truncated or bad record "* ]]
	[ "${lines[-1]}" = "bad 1" ]
	run guest htmtest dtl-stats $DEV
	[[ ${lines[0]} == "cpu 0 state "*" entries $n0 overwritten 0 dropped 0 kernel "* ]]
	# stopped and drained: read() says end of file
	run guest "wc -c < $DEV"
	[ "$output" = 0 ]
	guest htmtest dtl-deconfigure $DEV
	assert_no_splat
}

@test "a burst beyond the hypervisor's ring: the loss is exactly what was overwritten" {
	local mask w
	mask=$(effective_mask 7)
	guest "htmtest dtl-configure $DEV 0 7 && htmtest dtl-start $DEV"
	w=$(written 0)
	# one burst with interrupts off: the ring keeps its 84 readable newest
	guest "echo '0 500' > $HVSIM/dtl_burst && htmtest dtl-stop $DEV"
	local n
	n=$(written 0)
	n=$((n - w))
	[ "$n" -gt 84 ]
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "cpu 0 entries 84 overwritten $((n - 84)) dropped 0 events 1/0/0/0" ]
}

@test "a session ring too small for the entries: dropped entries are counted exactly" {
	local mask w
	mask=$(effective_mask 7)
	# 4 KiB, CPU 0's ring: its JOINED record (16 bytes), then 72 entries
	# (the clock record is the session's, in no CPU's ring)
	guest "htmtest dtl-configure $DEV 0 7 4 && htmtest dtl-start $DEV"
	w=$(written 0)
	for i in 1 2 3 4; do
		guest "echo '0 80' > $HVSIM/dtl_burst"
		caught_up 0
	done
	guest htmtest dtl-stop $DEV
	local n
	n=$(written 0)
	n=$((n - w))
	[ "$n" -eq 320 ]
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "cpu 0 entries 72 overwritten 0 dropped $((n - 72)) events 1/0/0/0" ]
	run guest htmtest dtl-stats $DEV
	[[ ${lines[0]} == *" entries 72 overwritten 0 dropped $((n - 72)) "* ]]
}

@test "read: whole records only, EAGAIN when empty, poll wakes on a record" {
	guest "htmtest dtl-configure $DEV 0 7 && htmtest dtl-start $DEV"
	# the clock and joined records are there
	run guest htmtest read $DEV 8
	[ "$output" = EINVAL ]
	run guest htmtest read $DEV 4096 nonblock
	[ "$output" = 72 ]
	run guest htmtest read $DEV 4096 nonblock
	[ "$output" = EAGAIN ]
	run guest htmtest poll $DEV 200
	[ "$output" = timeout ]
	run guest "htmtest poll $DEV 20000 > /tmp/p.out 2>&1 & echo \$! > /tmp/p.pid
		htmtest blocked \$(cat /tmp/p.pid) poll 20000"
	[ "$output" = blocked ]
	run guest "echo '0 5' > $HVSIM/dtl_burst
		for i in \$(seq 100); do [ -d /proc/\$(cat /tmp/p.pid) ] || break; nap 0.1; done
		cat /tmp/p.out"
	[ "$output" = ready ]
	run guest htmtest read $DEV 56 nonblock
	[ "$output" = 56 ]
	guest htmtest dtl-stop $DEV
	run guest htmtest poll $DEV 0
	[ "$output" = ready ]
}

@test "the mask: only the events asked for are logged" {
	local mask
	mask=$(effective_mask 1)
	guest "htmtest dtl-configure $DEV 1 1 && htmtest dtl-start $DEV"
	guest "echo '1 60' > $HVSIM/dtl_burst && htmtest dtl-stop $DEV"
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	# 60 events, a third of each type: 20 cede (or 40 with the kernel's)
	[ "${lines[1]}" = "cpu 1 entries $((mask == 1 ? 20 : 40)) overwritten 0 dropped 0 events 1/0/0/0" ]
}

@test "one session at a time; bad configurations; non-root refused" {
	guest htmtest dtl-configure $DEV all 7
	run guest htmtest dtl-configure $DEV all 7
	[ "$output" = EBUSY ]
	guest htmtest dtl-deconfigure $DEV
	for args in "all 0" "all 8" "all 7 2" "all 7 65537" "all 7 0 2" "7 7"; do
		run guest htmtest dtl-configure $DEV $args
		echo "$args: $output"
		[ "$output" = EINVAL ]
	done
	run guest htmtest dtl-start $DEV
	[ "$output" = EBADFD ]
	run guest htmtest read $DEV 64
	[ "$output" = ENODATA ]
	guest chmod 0666 $DEV
	run guest htmtest runas 1000 htmtest dtl-configure $DEV all 7
	[ "$output" = EPERM ]
	guest chmod 0600 $DEV
	run guest htmtest runas 1000 htmtest dtl-stats $DEV
	[ "$output" = EACCES ]
}

@test "the CPU's mask and log are given back; rmmod refused while configured" {
	local before
	before=$(guest "sed -n 's/^cpu \([01]\) log \([a-z]*\) .* mask \([0-9]*\)$/\1 \2 \3/p' $HVSIM/dtl_cpus")
	guest "htmtest dtl-configure $DEV all 4 && htmtest dtl-start $DEV"
	run guest "sed -n 's/^cpu 0 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus"
	[ $((output & 4)) -eq 4 ]
	run guest rmmod htmtrace
	[ "$status" -eq 1 ]
	[[ $output == *"rmmod: can't unload module 'htmtrace': Resource temporarily unavailable"* ]]
	guest htmtest dtl-deconfigure $DEV
	run guest "sed -n 's/^cpu \([01]\) log \([a-z]*\) .* mask \([0-9]*\)$/\1 \2 \3/p' $HVSIM/dtl_cpus"
	[ "$output" = "$before" ]
}

@test "a registration the hypervisor refuses: the CPU says so in the stream" {
	run -0 guest "sed -n 's/^cpu 0 log \([a-z]*\) .*/\1/p' $HVSIM/dtl_cpus"
	if [ "$output" = kernel ]; then
		skip "the kernel owns the log: nothing is registered"
	fi
	[ "$output" = none ]
	guest "echo -16 > $HVSIM/dtl_register_rc"
	guest "htmtest dtl-configure $DEV 0 7 && htmtest dtl-start $DEV && htmtest dtl-stop $DEV"
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin 7"
	echo "$output"
	[ "${lines[1]}" = "cpu 0 entries 0 overwritten 0 dropped 0 events 0/0/0/1" ]
}

@test "without the simulator: QEMU's H_REGISTER_VPA takes the capture, and the logs are given back" {
	guest "rmmod htmtrace htmtrace_hvsim && insmod $HTM_MODDIR/htmtrace.ko"
	local before
	before=$(guest "grep '^cpu ' $DTLFS")
	guest "htmtest dtl-configure $DEV all 5 && htmtest dtl-start $DEV"
	run guest "sed -n 's/^cpu 0 .* mask \([0-9]*\) .*/\1/p' $DTLFS"
	[ $((output & 5)) -eq 5 ]
	guest htmtest dtl-stop $DEV
	# QEMU logs nothing: the clock and a joined record per CPU
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin 5"
	echo "$output"
	[ "$output" = "clock 1
cpu 0 entries 0 overwritten 0 dropped 0 events 1/0/0/0
cpu 1 entries 0 overwritten 0 dropped 0 events 1/0/0/0
bad 0" ]
	guest htmtest dtl-deconfigure $DEV
	run guest "grep '^cpu ' $DTLFS"
	[ "$output" = "$before" ]
	assert_no_splat
}

# cycle_cpu1 MASK: take CPU 1 offline and online 3 times during the
# capture, stop it, and verify the stream (MASK: the effective mask); the
# output of dtl-verify is then in $output and $lines
cycle_cpu1() {
	run guest "for i in 1 2 3; do
			echo 0 > /sys/devices/system/cpu/cpu1/online || exit 1
			echo 1 > /sys/devices/system/cpu/cpu1/online || exit 1
		done"
	[ "$status" -eq 0 ]
	guest "htmtest dtl-stop $DEV && echo 0 > $HVSIM/dtl_rate"
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $1"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "CPU offline and online during a capture: the CPU leaves and joins, the stream stays whole" {
	local mask
	mask=$(effective_mask 7)
	# a 16 MiB ring: room for a minute of entries, however slow the guest
	guest "echo 2000 > $HVSIM/dtl_rate && htmtest dtl-configure $DEV all 7 16384 && htmtest dtl-start $DEV"
	cycle_cpu1 "$mask"
	[[ ${lines[2]} == "cpu 1 entries "*" events 4/3/0/0" ]]
	assert_no_splat
}

@test "CPU offline and online while the ring is full: the records of every cycle wait, in order" {
	local mask
	mask=$(effective_mask 7)
	# the smallest ring, left unread: full within a few polls
	guest "echo 2000 > $HVSIM/dtl_rate && htmtest dtl-configure $DEV all 7 4 && htmtest dtl-start $DEV
	       for i in \$(seq 300); do
		       s=\$(htmtest dtl-stats $DEV) || exit 2
		       echo \"\$s\" | grep -q '^cpu 1 .* dropped [1-9]' && exit 0
		       nap 0.1
	       done
	       exit 1"
	# Each cycle's OFFLINE and JOINED wait for room, then come out in
	# that order: none is folded (up to 8 captures' records wait).
	cycle_cpu1 "$mask"
	# (dtl-verify checks the order: JOINED, entries and losses, OFFLINE)
	[[ ${lines[2]} == "cpu 1 entries "*" dropped "[1-9]*" events 4/3/0/0" ]]
	assert_no_splat
}

@test "another user changes a CPU's mask: that CPU's capture ends, saying so, and its mask is left alone" {
	meddled="1 $(guest "sed -n 's/^cpu 1 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus")"
	guest "htmtest dtl-configure $DEV all 7 && htmtest dtl-start $DEV"
	guest "echo '1 1' > $HVSIM/dtl_meddle"
	# the capture notices at its next poll (at most 200 ms when idle)
	run guest "for i in \$(seq 100); do
			grep -q '^capture cpu 1 state 2 ' $DTLFS && exit 0
			nap 0.05
		done
		exit 1"
	[ "$status" -eq 0 ]
	guest "echo '0 30' > $HVSIM/dtl_burst && echo '1 30' > $HVSIM/dtl_burst"
	guest htmtest dtl-stop $DEV
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $(effective_mask 7)"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "cpu 0 entries 30 overwritten 0 dropped 0 events 1/0/0/0" ]
	[ "${lines[2]}" = "cpu 1 entries 0 overwritten 0 dropped 0 events 1/0/1/0" ]
	# CPU 1 keeps the other user's mask; CPU 0 has its own back
	run guest "sed -n 's/^cpu 1 .* mask \([0-9]*\) .*/\1/p' $DTLFS"
	[ "$output" = 1 ]
	guest htmtest dtl-deconfigure $DEV
	# the log was still ours (only the mask changed): given back, freed
	run -0 guest_dmesg
	[[ $output != *"left allocated"* ]]
}

# steal_check TICKS: with the simulator logging on CPU 0 and CPU 0 busy
# entering the kernel (so the kernel scans its log often), until the
# simulator's entries say TICKS USER_HZ ticks were stolen (a count, not a
# time: a loaded host runs the guest's timers late), the steal time
# /proc/stat reports for cpu0 grows by what the simulator's entries say, less
# what the kernel could not count: the entries overwritten in its 85-entry
# ring before it scanned them, which the simulator counts ("unscanned").
# A capture that broke the kernel's log would leave it near 0; one that
# counted twice, near 200%. Each pair of readings is one cat (the
# simulator's before the kernel's at the start, after it at the end), so
# the windows differ by microseconds, not by a process start; what is left
# is the kernel's flush of steal time at its tick and USER_HZ rounding:
# 5% and one USER_HZ tick either way.
steal_check() {
	run guest "H=$HVSIM
		set -o pipefail
		tb=\$(sed -n 's/^timebase[^0-9]*\([0-9]*\).*/\1/p' /proc/cpuinfo | head -n 1)
		s() { sed -n 's/^cpu 0 .* stolen \([0-9]*\) unscanned \([0-9]*\) .*/\1 \2/p' \$1; }
		cat \$H/dtl_cpus /proc/stat > /tmp/steal.0 || exit 1
		taskset 1 dd if=/dev/zero of=/dev/null bs=1 2>/dev/null & pid=\$!
		set -- \$(s /tmp/steal.0)
		from=\$((\$1 - \$2)) i=0
		while [ \$i -lt 600 ]; do
			set -- \$(s \$H/dtl_cpus)
			[ \$(( (\$1 - \$2 - from) * 100 / tb )) -lt $1 ] || break
			nap 0.1; i=\$((i + 1))
		done
		kill \$pid; wait \$pid 2>/dev/null
		cat /proc/stat \$H/dtl_cpus > /tmp/steal.1 || exit 1
		k() { awk '\$1 == \"cpu0\" { print \$9 }' \$1; }
		set -- \$(s /tmp/steal.0) \$(s /tmp/steal.1)
		[ \$# = 4 ] || exit 1
		echo \$(( (\$3 - \$4 - \$1 + \$2) * 100 / tb )) \$(( (\$4 - \$2) * 100 / tb )) \$((\$(k /tmp/steal.1) - \$(k /tmp/steal.0)))"
	echo "expected, unscanned and seen steal (USER_HZ): $output"
	[ "$status" -eq 0 ]
	local want got
	read -r want _ got <<<"$output"
	[ "$want" -ge "$1" ]
	[ $((got * 100 + 100)) -ge $((want * 95)) ]
	[ $((got * 100 - 100)) -le $((want * 105)) ]
}

@test "the kernel's stolen time still counts the entries, while htmtrace captures and after" {
	# Whether the kernel owns a log is the simulator's word (it sees the
	# kernel's paca->dispatch_log), not the driver's: the driver's
	# detection is under test, so it must agree, never decide the skip.
	run -0 guest "sed -n 's/^cpu 0 log \([a-z]*\) .*/\1/p' $HVSIM/dtl_cpus"
	if [ "$output" != kernel ]; then
		[ "$output" = none ]
		skip "the kernel owns no log: it counts no stolen time from it"
	fi
	guest "grep -q '^cpu 0 kernel_log yes' $DTLFS"
	guest "echo 10000 > $HVSIM/dtl_rate && htmtest dtl-configure $DEV 0 7 0 && htmtest dtl-start $DEV"
	steal_check 10
	guest "htmtest dtl-stop $DEV && htmtest dtl-deconfigure $DEV"
	# only preemptions are logged again now: a third of the events
	steal_check 10
	guest "echo 0 > $HVSIM/dtl_rate"
}

@test "htmtrace dtl record around a workload, then report: every entry decoded" {
	requires tool
	local mask
	mask=$(effective_mask 7)
	run guest "htmtrace dtl record -C 0 -e all -o /tmp/t.bin -- \
		sh -c \"echo '0 40' > $HVSIM/dtl_burst\""
	echo "$output"
	[ "$status" -eq 0 ]
	run guest "htmtest dtl-verify /tmp/t.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "cpu 0 entries 40 overwritten 0 dropped 0 events 1/0/0/0" ]
	run guest "set -o pipefail; htmtrace dtl report /tmp/t.bin | grep -c ' cpu=0 dispatch='"
	[ "$status" -eq 0 ]
	[ "$output" = 40 ]
	# the session is gone: the device is free for the next user
	run guest htmtest dtl-stats $DEV
	[ "$output" = ENODATA ]
}

# own_buffer_mode: true where the kernel owns no log on CPU 1, so that
# htmtrace registers buffers of its own
own_buffer_mode() {
	[ "$(guest "sed -n 's/^cpu 1 kernel_log \([a-z]*\) .*/\1/p' $DTLFS")" = no ]
}

@test "every pair of transitions raced from two processes: no splat, and the module count right after" {
	local rounds=2500
	GUEST_TIMEOUT=900 run guest htmtest dtl-race $DEV $rounds
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "raced $((2 * rounds))" ]
	# A session configured with KEEP outlives its file: one DECONFIGURE.
	guest "htmtest dtl-deconfigure $DEV >/dev/null; true"
	run guest htmtest dtl-deconfigure $DEV
	[ "$output" = EBADFD ]
	assert_no_splat
	# every file closed: nothing holds htmtrace
	run guest cat /sys/module/htmtrace/refcnt
	[ "$output" = 0 ]
	# one file open: exactly one reference, rmmod refused; closed: rmmod works
	run guest "exec 3<$DEV; cat /sys/module/htmtrace/refcnt; rmmod htmtrace"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = 1 ]
	guest rmmod htmtrace
}

@test "the session ends when the file that configured it closes, unless configured with KEEP" {
	requires tool
	local before
	before=$(guest "sed -n 's/^cpu \([01]\) log \([a-z]*\) .* mask \([0-9]*\)$/\1 \2 \3/p' $HVSIM/dtl_cpus")
	guest htmtest dtl-configure $DEV all 7 0 0
	run guest htmtest dtl-stats $DEV
	[ "$output" = ENODATA ]
	guest htmtest dtl-configure $DEV all 7 0 1
	run guest htmtest dtl-stats $DEV
	[ "$status" -eq 0 ]
	guest htmtest dtl-deconfigure $DEV
	# a capture whose process is killed ends with its file, logs given back
	run guest "htmtrace dtl record -C 0,1 -o /tmp/d.bin -- sleep 10 >/dev/null 2>&1 &
		pid=\$!
		for i in \$(seq 100); do
			grep -q '^capture cpu 1 state 1 ' $DTLFS && break
			nap 0.05
		done
		htmtest dtl-stats $DEV >/dev/null && echo running
		kill -9 \$pid; wait \$pid; htmtest dtl-stats $DEV"
	echo "$output"
	[ "${lines[0]}" = running ]
	[ "${lines[1]}" = ENODATA ]
	run guest "sed -n 's/^cpu \([01]\) log \([a-z]*\) .* mask \([0-9]*\)$/\1 \2 \3/p' $HVSIM/dtl_cpus"
	[ "$output" = "$before" ]
}

@test "a full, unread ring: the capture backs off to the idle period" {
	# Full once it drops: from then on nothing is read, and the poll backs
	# off to the idle period (200 ms; the rate alone would give 8 ms at
	# 2000 entries/s). Judged by the period the driver chose (debugfs),
	# not by its wakeups in a wall-clock window, which a slow or preempted
	# guest inflates; the waits are bounded, their bounds deadlines only.
	run -0 guest "htmtest dtl-configure $DEV 0 7 4 >/dev/null && htmtest dtl-start $DEV >/dev/null &&
		echo 2000 > $HVSIM/dtl_rate || exit 1
		cap() {
			local l
			l=\$(sed -n 's/^capture cpu 0 .* dropped \([0-9]*\) wakeups \([0-9]*\) .*/\1 \2/p' $DTLFS) &&
				d=\${l% *} w=\${l#* } &&
				p=\$(sed -n 's/^poll cpu 0 .* period_ns \([0-9]*\)\$/\1/p' $DTLFS)
		}
		i=0
		until cap && [ \"\$d\" -gt 0 ] && [ \"\$p\" = 200000000 ]; do
			i=\$((i + 1)); [ \$i -lt 300 ] || { echo \"never backed off: \$d \$w \$p\"; exit 1; }
			nap 0.1
		done
		echo \$p; d0=\$d w0=\$w
		# two polls later, the ring still full: still at the idle period
		i=0
		until cap && [ \$w -ge \$((w0 + 2)) ]; do
			i=\$((i + 1)); [ \$i -lt 300 ] || { echo \"no poll: \$w\"; exit 1; }
			nap 0.1
		done
		echo \$p; [ \$d -gt \$d0 ] && echo dropping"
	echo "$output"
	guest "echo 0 > $HVSIM/dtl_rate"
	[ "$output" = "200000000
200000000
dropping" ]
}

@test "another user widens a CPU's mask: that CPU's capture ends, and its mask is left alone" {
	local eff
	eff=$(effective_mask 1)
	meddled="1 $(guest "sed -n 's/^cpu 1 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus")"
	guest "htmtest dtl-configure $DEV all 1 && htmtest dtl-start $DEV"
	guest "echo '1 $((eff | 4))' > $HVSIM/dtl_meddle"
	run guest "for i in \$(seq 100); do
			grep -q '^capture cpu 1 state 2 ' $DTLFS && exit 0
			nap 0.05
		done
		exit 1"
	[ "$status" -eq 0 ]
	run guest "sed -n 's/^capture cpu 0 state \([0-9]\) .*/\1/p' $DTLFS"
	[ "$output" = 1 ]
	guest htmtest dtl-stop $DEV
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $eff"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "cpu 1 entries 0 overwritten 0 dropped 0 events 1/0/1/0" ]
	# CPU 1 keeps the other user's mask; CPU 0 has its own back
	run guest "sed -n 's/^cpu 1 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus"
	[ "$output" = $((eff | 4)) ]
	run guest "sed -n 's/^cpu 0 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus"
	[ "$output" = $((eff & ~1)) ]
	guest htmtest dtl-deconfigure $DEV
}

@test "own buffers: a CPU with another user's event mask is refused at configure" {
	own_buffer_mode || skip "the kernel owns the log: htmtrace shares it"
	meddled="1 0"
	guest "echo '1 4' > $HVSIM/dtl_meddle"
	run guest htmtest dtl-configure $DEV all 7
	[ "$output" = EBUSY ]
	run guest htmtest dtl-configure $DEV 0 7
	[ "$output" = ok ]
	guest htmtest dtl-deconfigure $DEV
}

@test "own buffers: registered, index reset, then the mask: a dispatch during the registration is not lost" {
	own_buffer_mode || skip "the kernel owns the log: htmtrace registers none"
	local w
	# the simulator logs 5 events inside each registration, before the reset
	guest "echo 5 > $HVSIM/dtl_register_log"
	w=$(written 1)
	guest "htmtest dtl-configure $DEV 1 7 && htmtest dtl-start $DEV"
	guest "echo '1 20' > $HVSIM/dtl_burst"
	caught_up 1
	guest htmtest dtl-stop $DEV
	local n
	n=$(written 1)
	n=$((n - w))
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin 7"
	echo "$output"
	[ "$status" -eq 0 ]
	# every entry the hypervisor wrote is in the stream (none logged in
	# the registration: the mask was still 0)
	[ "$n" -eq 20 ]
	[ "${lines[1]}" = "cpu 1 entries 20 overwritten 0 dropped 0 events 1/0/0/0" ]
}

@test "a CPU set with CPUs that do not exist (a full cpu_set_t) selects the possible ones" {
	run guest htmtest dtl-configure $DEV 0,1,2,63,100,1023 7
	[ "$output" = ok ]
	run guest htmtest dtl-stats $DEV
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == "cpu 0 "* ]]
	[[ ${lines[1]} == "cpu 1 "* ]]
	guest htmtest dtl-deconfigure $DEV
}

# In the guest's shell: cap reads CPU 0's capture line of the driver's
# debugfs with builtins only (no process: nothing to wait for): $E the
# entries it put in the stream, $W its timer's wakeups. tick waits
# (bounded) for the timer's next wakeup, so that a test's steps right
# after it fall between two timer polls: with dtl_period_us=1000000 a
# second apart, and a change of $W says when one fell inside after all.
# shellcheck disable=SC2016 # expanded by the guest's shell
CAP='cap() {
	local c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 crest try
	for try in 1 2 3; do
		while read -r c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 crest; do
			[ "$c1 $c2 $c3 $c6 $c12" = "capture cpu 0 entries wakeups" ] || continue
			E=$c7 W=$c13
			return 0
		done < '$DTLFS'
	done
	echo "no capture line for cpu 0 in:"
	cat '$DTLFS'
	return 1
}
tick() {
	cap || return
	local tw=$W ti=0
	while [ $ti -lt 400 ]; do
		cap || return
		[ "$W" = "$tw" ] || return 0
		ti=$((ti + 1))
		nap 0.01
	done
	echo "no timer wakeup in 4 s"
	return 1
}
echo 1000000 > /sys/module/htmtrace/parameters/dtl_period_us || exit 1'

@test "DTL_FLUSH bounds the delivery latency: an entry is in the stream when it returns" {
	# The timer polls once a second: the entries are in the stream at the
	# FLUSH's return with no timer poll in between (a try that had one
	# proves nothing and is made again), so the FLUSH delivered them.
	run -0 guest "$CAP
		htmtest dtl-configure $DEV 0 7 >/dev/null && htmtest dtl-start $DEV >/dev/null || exit 1
		for try in 1 2 3 4 5; do
			tick || exit 1
			e=\$E w=\$W
			echo '0 3' > $HVSIM/dtl_burst && r=\$(htmtest dtl-flush $DEV)
			[ \"\$r\" = ok ] || { echo \"flush: \$r\"; exit 1; }
			cap || exit 1
			[ \$W = \$w ] || continue
			echo entries \$((E - e))
			exit 0
		done
		echo 'a timer poll in every try'"
	echo "$output"
	[ "$output" = "entries 3" ]
	run guest htmtest dtl-flush $DEV
	[ "$output" = ok ]
	guest htmtest dtl-stop $DEV
	run guest htmtest dtl-flush $DEV
	[ "$output" = EBADFD ]
	guest htmtest dtl-deconfigure $DEV
}

@test "losses counted before a STOP come out before the next START's clock: each in its capture" {
	guest "htmtest dtl-configure $DEV 0 7 4 && htmtest dtl-start $DEV"
	# far beyond the hypervisor's ring and the session's: losses of both
	guest "echo '0 300' > $HVSIM/dtl_burst"
	caught_up 0
	# no reader: the LOST records wait for room at the STOP and the START
	guest "htmtest dtl-stop $DEV && htmtest dtl-start $DEV && htmtest dtl-stop $DEV"
	run guest "set -o pipefail; cat $DEV > /tmp/dtl.bin && htmtest dtl-dump /tmp/dtl.bin | tr '\n' ' '"
	echo "$output"
	[ "$status" -eq 0 ]
	# the first capture: JOINED, its losses; then the second: its clock,
	# JOINED and nothing lost
	[[ $output =~ ^"clock cpu 0 1 lost 0 1 "[0-9]+" lost 0 2 "[0-9]+" clock cpu 0 1 "$ ]]
	run guest "htmtest dtl-verify /tmp/dtl.bin $(effective_mask 7)"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "own buffers: another user's registration whose index passes ours ends the CPU's capture" {
	own_buffer_mode || skip "the kernel owns the log: htmtrace registers none"
	# The mask stays the other user's after the capture: cleared at the end.
	meddled="1 0"
	guest "htmtest dtl-configure $DEV 1 7 && htmtest dtl-start $DEV"
	guest "echo '1 10' > $HVSIM/dtl_burst"
	caught_up 1
	# another user registers its own buffer: the index restarts at 0 and
	# passes ours (10) before the capture's next poll
	guest "echo '1 40' > $HVSIM/dtl_thief"
	run guest "for i in \$(seq 100); do
			grep -q '^capture cpu 1 state 2 ' $DTLFS && exit 0
			nap 0.05
		done
		exit 1"
	[ "$status" -eq 0 ]
	guest htmtest dtl-stop $DEV
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin 7"
	echo "$output"
	[ "$status" -eq 0 ]
	# the 10 entries of our buffer, none of the other user's, no garbage
	[ "${lines[1]}" = "cpu 1 entries 10 overwritten 0 dropped 0 events 1/0/1/0" ]
	guest htmtest dtl-deconfigure $DEV
	# the log is the other user's: not unregistered, our buffer kept
	run guest_dmesg
	[[ $output == *"replaced by another user"* ]]
}

@test "a reader waiting on idle CPUs gets their JOINED and OFFLINE records without waiting for an entry" {
	# Where the kernel owns no log, CPU 1's mask is 0 unless a test before
	# left another user's there (the registration test leaves ours to the
	# other user, who never gives it back): no one logs on it now.
	if own_buffer_mode; then
		guest "echo '1 0' > $HVSIM/dtl_meddle"
	fi
	guest "htmtest dtl-configure $DEV 1 7 && htmtest dtl-start $DEV"
	# The clock record (56 bytes), CPU 1's JOINED (16), its OFFLINE (16),
	# its JOINED again: each wait ends as soon as the record is there, its
	# bound is only a deadline. No entry is logged meanwhile.
	run guest "set -o pipefail
		cat $DEV > /tmp/j.bin & pid=\$!
		size() { stat -c %s /tmp/j.bin 2>/dev/null || echo 0; }
		grown() {
			for i in \$(seq 600); do
				[ \$(size) -ge \$1 ] && return 0
				nap 0.05
			done
			return 1
		}
		grown 72 && echo joined
		echo 0 > /sys/devices/system/cpu/cpu1/online
		grown 88 && echo offline
		echo 1 > /sys/devices/system/cpu/cpu1/online
		grown 104 && echo joined
		htmtest dtl-stop $DEV >/dev/null; wait \$pid
		htmtest dtl-dump /tmp/j.bin | tr '\n' ' '"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = joined ]
	[ "${lines[1]}" = offline ]
	[ "${lines[2]}" = joined ]
	[ "${lines[3]}" = "clock cpu 1 1 cpu 1 2 cpu 1 1 " ]
	guest htmtest dtl-deconfigure $DEV
	assert_no_splat
}

@test "dtl record --latency 50: an entry logged during the capture is in the file before record ends" {
	requires tool
	# The file grows while record runs: after the tool's file header (its
	# length from dtl report --header-only), the clock record and CPU 0's
	# JOINED (56 + 16 bytes), then the burst's five entries (56 bytes
	# each). Each wait ends as soon as the bytes are there; its bound is
	# only a deadline. The timer polls once a second: the burst's entries
	# reach the stream with no timer poll in between (a try that had one
	# proves nothing, and another burst is tried), so record's FLUSHes
	# brought them. record ends by SIGTERM, as by Ctrl-C.
	run guest "$CAP
		rm -f /tmp/l.bin
		htmtrace dtl record -C 0 --latency 50 -o /tmp/l.bin >/tmp/l.out 2>&1 &
		pid=\$!
		size() { stat -c %s /tmp/l.bin 2>/dev/null || echo 0; }
		grown() {
			for i in \$(seq 600); do
				[ \$(size) -ge \$1 ] && return 0
				nap 0.05
			done
			return 1
		}
		grown 1 || echo 'no file'
		h=\$(htmtrace dtl report --header-only /tmp/l.bin > /tmp/l.hdr &&
			sed -n 's/^# data offset *: //p' /tmp/l.hdr)
		[ -n \"\$h\" ] || { echo 'no file header'; h=0; }
		grown \$((h + 72)) || echo 'no JOINED record'
		n=0 flushed=
		while [ \$n -lt 5 ] && [ -z \"\$flushed\" ]; do
			n=\$((n + 1))
			tick || break
			e=\$E w=\$W
			echo '0 5' > $HVSIM/dtl_burst
			while cap && [ \$W = \$w ] && [ \$E -lt \$((e + 5)) ]; do nap 0.01; done
			[ \$W = \$w ] && flushed=\"by a flush: \$((E - e))\"
		done
		echo \"\${flushed:-a timer poll in every try}\"
		grown \$((h + 72 + n * 5 * 56)) || echo 'no entries'
		kill -0 \$pid && echo running
		kill \$pid; wait \$pid; echo status \$?
		echo bursts \$n
		cat /tmp/l.out"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "by a flush: 5" ]
	[ "${lines[1]}" = running ]
	[ "${lines[2]}" = "status 0" ]
	[[ ${lines[3]} =~ ^bursts\ ([1-5])$ ]]
	local bursts=${BASH_REMATCH[1]}
	run guest "htmtest dtl-verify /tmp/l.bin $(effective_mask 7)"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "cpu 0 entries $((5 * bursts)) overwritten 0 dropped 0 events 1/0/0/0" ]
	assert_no_splat
}

# boot_log: the simulator's word on CPU 1's log before any test's change:
# "kernel" where the kernel allocated one at boot (VIRT_CPU_ACCOUNTING_NATIVE:
# it lives as long as the kernel, and is shared), "none" elsewhere
boot_log() {
	guest "sed -n 's/^cpu 1 log \([a-z]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

@test "vcpudispatch_stats: a kernel log it may free is another user's (EBUSY, CPU_LOST mid-capture, never read); one that lasts is shared" {
	local boot
	boot=$(boot_log)
	[[ $boot =~ ^(kernel|none)$ ]]
	guest "[ -e $VDS ]"
	# vcpudispatch_stats holds dtl_access_lock from its enable to its
	# disable, in the task that enabled it: each guest script below turns
	# it on and off from one shell (builtin echo), or lockdep reports the
	# kernel's lock left held at that shell's exit (the debug kernel).
	# No session: with vcpudispatch_stats on, where its logs are freed
	# when it goes off (no native accounting: Debian's kernels), every CPU
	# has a log htmtrace may not read: CONFIGURE refuses it; once off, the
	# CPUs are free again. Where the kernel's logs last (the debug kernel),
	# they are shared as ever.
	vds_on=1
	run guest "echo 1 > $VDS || exit 9
		htmtest dtl-configure $DEV 1 7; htmtest dtl-deconfigure $DEV >/dev/null
		echo 0 > $VDS || exit 9
		htmtest dtl-configure $DEV 1 7; htmtest dtl-deconfigure $DEV"
	echo "$output"
	[ "$output" = "$([ "$boot" = none ] && echo EBUSY || echo ok)
ok
ok" ]
	# A capture running when it is turned on: where the log may be freed,
	# each CPU's capture ends (CPU_LOST) at its next poll and reads nothing
	# more (its own buffer, which the kernel's registration replaced, is
	# left to the hypervisor), and the log is freed while the session
	# still exists; where it lasts, the capture goes on. Each wait is
	# bounded, its bound a deadline only.
	local mask
	mask=$(effective_mask 7)
	run guest "htmtest dtl-configure $DEV all 7 >/dev/null && htmtest dtl-start $DEV >/dev/null || exit 9
		idx() { sed -n \"s/^cpu \$1 .* index \\([0-9]*\\)\$/\\1/p\" $DTLFS; }
		nxt() { sed -n \"s/^capture cpu \$1 .* next \\([0-9]*\\)\$/\\1/p\" $DTLFS; }
		caught_up() {
			for i in \$(seq 200); do
				[ \"\$(idx \$1)\" = \"\$(nxt \$1)\" ] && return 0
				nap 0.05
			done
			echo \"cpu \$1 not caught up\"; return 1
		}
		ended_all() {
			for i in \$(seq 100); do
				grep -q '^capture cpu [0-9]* state [01] ' $DTLFS || return 0
				nap 0.05
			done
			echo 'a capture still runs'; return 1
		}
		echo '1 20' > $HVSIM/dtl_burst && caught_up 1 || exit 1
		echo 1 > $VDS || exit 9
		if [ $boot = none ]; then
			ended_all || { echo 0 > $VDS; exit 1; }
			echo 0 > $VDS || exit 9
		fi
		echo '0 30' > $HVSIM/dtl_burst && echo '1 30' > $HVSIM/dtl_burst
		r=0
		[ $boot = none ] || caught_up 1 || r=1
		htmtest dtl-stop $DEV || r=1
		[ $boot = none ] || echo 0 > $VDS || exit 9
		exit \$r"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	vds_on=
	run guest "cat $DEV > /tmp/dtl.bin && htmtest dtl-verify /tmp/dtl.bin $mask"
	echo "$output"
	[ "$status" -eq 0 ]
	if [ "$boot" = none ]; then
		[ "${lines[1]}" = "cpu 0 entries 0 overwritten 0 dropped 0 events 1/0/1/0" ]
		[ "${lines[2]}" = "cpu 1 entries 20 overwritten 0 dropped 0 events 1/0/1/0" ]
	else
		[ "${lines[1]}" = "cpu 0 entries 30 overwritten 0 dropped 0 events 1/0/0/0" ]
		[ "${lines[2]}" = "cpu 1 entries 50 overwritten 0 dropped 0 events 1/0/0/0" ]
	fi
	guest htmtest dtl-deconfigure $DEV
	assert_no_splat
}
