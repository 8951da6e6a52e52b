#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The htm and vpa_dtl perf PMUs against the simulator, through a
# perf_event_open client of our own (tests/guest/htmperf.c: the ring buffer
# and the AUX area mapped by hand, no perf tool). Every test starts with
# htmtrace and the simulator loaded: 256 KiB no-wrap trace buffers, records
# written only when a test asks (rate, advance, dtl_burst).

# shellcheck disable=SC2086 # argument lists are split into words on purpose
load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
DEVS=/sys/bus/event_source/devices
SIZE=262144
RECORDS=$((SIZE / 128))
# htm_core, node 0, chip 0, core 1: htm_type 2 | coreindexonchip 1 << 20
CORE1=0x100002
# The simulator's alternatives (helpers.bash alt), as make check gives them.
SIM_ALT=${HTMTRACE_HVSIM_ALT:+ $HTMTRACE_HVSIM_ALT}

setup() {
	requires module htmtrace_hvsim
	guest_mark "$(sim_load "rate=0 log2_size=18$SIM_ALT")"
}

# No DUMP_DATA of a running trace, every one of whole pages at a
# page-aligned address (a bounce page where the AUX room is not); the
# unload takes the PMU stub one test loads too.
teardown() {
	# vcpudispatch_stats off, if a test turned it on, and the mask another
	# user took given back (the lppaca outlives our modules)
	[ -z "${vds_on:-}" ] || guest "echo 0 > $VDS"
	[ -z "${meddled:-}" ] || guest "echo '$meddled' > $HVSIM/dtl_meddle"
	hv_protocol_unload
}

# The kernel's own user of the log that the tests can turn on: without
# VIRT_CPU_ACCOUNTING_NATIVE it allocates a log per CPU when enabled and
# frees it when disabled (arch/powerpc/platforms/pseries/lpar.c).
VDS=/proc/powerpc/vcpudispatch_stats

# boot_log: the simulator's word on CPU 1's log: "kernel" where the kernel
# allocated one at boot (VIRT_CPU_ACCOUNTING_NATIVE: it lasts, and is
# shared), "none" where htmtrace registers its own
boot_log() {
	guest "sed -n 's/^cpu 1 log \([a-z]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

# cpu_mask CPU: the CPU's event mask now
cpu_mask() {
	guest_number "sed -n 's/^cpu $1 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus"
}

# The trace an htm event dumps: the simulator writes 10^6 records a second,
# so the no-wrap buffer is full (and stopped) long before the first read:
# the same bytes whatever the timing.
fast() {
	guest "echo 1000000 > $HVSIM/rate"
}

# verify_full FILE: FILE is the whole no-wrap trace of core 0 0 1
verify_full() {
	run guest "stat -c %s $1 && htmcheck verify -t core -n 0 -p 0 -c 1 $1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = $SIZE ]
	grep -qx "records valid: $RECORDS" <<<"$output"
	grep -qx "mismatched:    0" <<<"$output"
}

# field NAME LINE: the value of NAME=VALUE in LINE
field() {
	sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" <<<"$2"
}

# hold PMU CONFIG [ARGS...]: an event held open in the background, in the
# guest, until the test ends (guest_unload_all kills it); waits for its
# first whole line of output, which must be "ok"
hold() {
	# (read, a builtin, takes a whole first line only: no process a poll)
	guest "rm -f /tmp/hold.out; htmperf open $* --hold 3600 > /tmp/hold.out 2>&1 &
	       l=
	       for i in \$(seq 200); do
		       IFS= read -r l < /tmp/hold.out 2>/dev/null && break
		       nap 0.1
	       done
	       [ \"\$l\" = ok ] || { cat /tmp/hold.out; exit 1; }"
}

# The entries the simulator logged on CPU so far
written() {
	guest_number "sed -n 's/^cpu $1 .* written \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

# The events the simulator has had on CPU so far (logged or not): the next
# one is number $(events CPU), the n of hvsim_dtl_fill()
events() {
	guest_number "sed -n 's/^cpu $1 .* events \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

# The vpa_dtl events' counters (module/dtl_pmu.c)
PMUDBG=/sys/kernel/debug/htmtrace/vpa_dtl_pmu

# kernel_vpa: the kernel has a vpa_dtl PMU of its own (mainline's, 6.18
# on: Debian 13's 7.2), so ours is never registered; the tests of ours skip
# there, and kernel-vpa.bats tests /dev/vpa_dtl beside the kernel's. (The
# simulator cannot feed the kernel's PMU: its buffer is known to no one.)
kernel_vpa() {
	guest "grep -qw vpa_dtl_event_init /proc/kallsyms"
}
KERNEL_VPA_SKIP="the kernel's own vpa_dtl PMU serves vpa_dtl (kernel-vpa.bats)"

# decoded FILE CPU MASK FIRST END: htmperf dtl-decode, which reads
# mainline's AUX format (from the public facts, not from our stream code)
# and checks each entry against the simulator's; its output is in $output,
# the test fails on a bad entry
decoded() {
	run guest htmperf dtl-decode "$@"
	echo "$output"
	[ "$status" -eq 0 ]
}

# The mask the CPUs log with while we capture with MASK: ours, plus the
# kernel's own where it owns the log (the debug kernel: preemptions, 2).
effective_mask() {
	local kmask
	kmask=$(guest_number "sed -n 's/^cpu 0 .* mask \([0-9]*\)$/\1/p' $HVSIM/dtl_cpus") || return
	echo $(($1 | kmask))
}

# In the guest: "enabled" waits (bounded) until htmperf dtl -r /tmp/r says
# every event is enabled (a signal then ends it, never kills it), and
# "capturing" until CPU $1's log has every bit of mask $2, i.e. the
# vpa_dtl event's capture has begun there.
# shellcheck disable=SC2016 # expanded by the guest's shell
CAPTURING='rm -f /tmp/r
enabled() {
	for i in $(seq 200); do
		[ -e /tmp/r ] && return 0
		nap 0.05
	done
	echo "htmperf never enabled its events" >&2; return 1
}
capturing() {
	for i in $(seq 100); do
		m=$(sed -n "s/^cpu $1 .* mask \([0-9]*\)$/\1/p" '$HVSIM'/dtl_cpus)
		[ $((m & $2)) -eq $2 ] && return 0
		nap 0.05
	done
	echo "cpu $1 never captured" >&2; return 1
}
accounted() {
	for i in $(seq 600); do
		awk -v want=$2 "/^cpu $1 / { for (i = 1; i < NF; i++) if (\$i ~ /^(entries|overwritten|dropped)\$/) n += \$(i + 1) }
			END { exit !(n >= want) }" '$PMUDBG' && return 0
		nap 0.05
	done
	echo "cpu $1: never $2 entries accounted" >&2; return 1
}'

@test "the htm and vpa_dtl PMUs: format and events as specified" {
	run guest "cd $DEVS/htm && for f in format/* events/*; do echo \$f \$(cat \$f); done"
	echo "$output"
	# the HTM PMU proposal's terms and events (htm-perf.c), exactly
	[ "$output" = "format/coreindexonchip config:20-27
format/event config:0-27
format/htm_type config:0-3
format/nodalchipindex config:12-19
format/nodeindex config:4-11
events/htm_core event=0x02
events/htm_llat event=0x03
events/htm_nest event=0x01" ]
	run guest "cd $DEVS/vpa_dtl && for f in format/* events/*; do echo \$f \$(cat \$f); done"
	echo "$output"
	[ "$output" = "format/event config:0-7
events/dtl_all event=0x07
events/dtl_cede event=0x01
events/dtl_fault event=0x04
events/dtl_preempt event=0x02" ]
	# each has a dynamic type of its own, beyond the kernel's fixed ones
	run guest "cat $DEVS/htm/type $DEVS/vpa_dtl/type"
	[ "${lines[0]}" -ge 6 ]
	[ "${lines[1]}" -ge 6 ]
	[ "${lines[0]}" != "${lines[1]}" ]
}

@test "the PMUs follow the backend chosen at load: no htm PMU on pseries, both on the simulator" {
	guest "[ -d $DEVS/htm ] && [ -d $DEVS/vpa_dtl ]"
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko"
	# the pseries backend: QEMU answers H_HTM with H_FUNCTION, so no htm
	# PMU; QEMU's H_REGISTER_VPA serves a (silent) dispatch trace log, so
	# the vpa_dtl PMU is there
	run guest "ls $DEVS"
	echo "$output"
	[[ $output != *htm* ]]
	[[ $output == *vpa_dtl* ]]
	run guest htmperf open htm $CORE1
	[ "$status" -eq 1 ]
	[[ $output == *"devices/htm/type"*ENOENT* ]]
	run guest htmperf open vpa_dtl 7
	[ "$output" = ok ]
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	run guest "ls $DEVS"
	[[ $output == *htm*vpa_dtl* ]]
	run guest "htmperf open htm $CORE1 && htmperf open vpa_dtl 7"
	[ "$output" = "ok
ok" ]
	# and again, whole: the PMUs register afresh at each load
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	fast
	run guest "htmperf htm $CORE1 -o /tmp/a.bin"
	[ "$status" -eq 0 ]
	verify_full /tmp/a.bin
	hv_protocol_check
	guest "rmmod htmtrace && rmmod htmtrace_hvsim"
	run -0 guest "ls $DEVS"
	[[ $output != *htm* ]]
	# the kernel's own vpa_dtl PMU stays, where there is one
	if kernel_vpa; then
		[[ $output == *vpa_dtl* ]]
	else
		[[ $output != *vpa_dtl* ]]
	fi
	assert_no_splat
}

@test "htm through AUX: the simulator's bytes exactly, for AUX smaller than, equal to and larger than the trace" {
	# the reference: the identical no-wrap trace through /dev/htm0
	guest "htmtest configure /dev/htm0 2 0 0 1 1 && htmtest start /dev/htm0 &&
	       echo $((RECORDS + 100)) > $HVSIM/advance && cat /dev/htm0 > /tmp/ref.bin &&
	       htmtest deconfigure /dev/htm0"
	verify_full /tmp/ref.bin
	fast
	for kb in 64 256 1024; do
		run guest "htmperf htm $CORE1 -a $kb -v -o /tmp/aux$kb.bin"
		echo "AUX $kb KiB: $output"
		[ "$status" -eq 0 ]
		local sum=${lines[-1]}
		[ "$(field aux_bytes "$sum")" -eq $SIZE ]
		[ "$(field counts "$sum")" -eq $RECORDS ]
		[ "$(field truncated "$sum")" -eq 0 ]
		[ "$(field lost "$sum")" -eq 0 ]
		# every count is the records that read just put in AUX, the last 0
		[ "${lines[-2]}" = "read $(field reads "$sum") count 0 aux 0" ]
		awk '$1 == "read" && $6 != $4 * 128 { bad = 1 } END { exit bad }' \
			<<<"$output"
		verify_full /tmp/aux$kb.bin
		guest cmp /tmp/ref.bin /tmp/aux$kb.bin
	done
	# a smaller AUX area takes more reads: the trace came in pieces
	run guest "set -o pipefail; htmperf htm $CORE1 -a 64 | sed 's/ .*//'"
	[ "$status" -eq 0 ]
	[ "${output#reads=}" -gt 4 ]
	# the event is gone with its close: the channel can have the target
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = ok ]
	assert_no_splat
}

@test "htm: an event opened enabled and mapped afterwards, or remapped mid-dump, dumps on; an odd-releasing reader gets every byte" {
	fast
	# the perf core stops the event around each AUX change and may not
	# start it again: the dump goes on from where it was, all the same
	for args in "-E" "-R 2" "-E -R 3"; do
		run guest "htmperf htm $CORE1 -a 64 $args -o /tmp/e.bin"
		echo "$args: $output"
		[ "$status" -eq 0 ]
		[ "$(field aux_bytes "$output")" -eq $SIZE ]
		verify_full /tmp/e.bin
	done
	# drained only on count 1, an odd number of bytes handed back each
	# time: the area is never left without room, so the dump never ends
	# early (it did with count 0, "no AUX area")
	run guest "htmperf htm $CORE1 -a 64 -O -o /tmp/o.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field aux_bytes "$output")" -eq $SIZE ]
	verify_full /tmp/o.bin
	assert_no_splat
}

@test "htm: a task with a pinned event switched in on the event's CPU before each read: one START, one trace, byte-exact" {
	fast
	# each switch-in makes the perf core del and add the htm event (and
	# every flexible event of the CPU): the trace is neither stopped nor
	# restarted by them, and the dump goes on where it was
	guest "echo 1 > $HVSIM/reset"
	run guest "timeout 60 htmperf htm $CORE1 -C 1 -a 64 -Y -o /tmp/y.bin &&
		sed -n 's/^start //p' $HVSIM/op_calls"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field aux_bytes "${lines[0]}")" -eq $SIZE ]
	[ "$(field switch_ins "${lines[0]}")" -eq $(($(field reads "${lines[0]}") + 1)) ]
	[ "$(field reads "${lines[0]}")" -gt 4 ]
	[ "${lines[1]}" = 1 ]
	verify_full /tmp/y.bin
	assert_no_splat
}

@test "htm with a sibling in its group: never scheduled (its count could not move), said once in the log" {
	fast
	run guest "htmperf htm $CORE1 -S -o /tmp/s.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field reads "$output")" -eq 1 ]
	[ "$(field aux_bytes "$output")" -eq 0 ]
	# the perf core tries the group at every tick while it is enabled
	# (its add fails each time): the line comes once, not per try
	run guest_dmesg
	[ "$(grep -c "htm pmu: an htm event with siblings in its group is never scheduled: open the others on their own" <<<"$output")" -eq 1 ]
	# the target was given back at the close
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = ok ]
	assert_no_splat
}

@test "htm: one event per CPU (PERF_PMU_CAP_EXCLUSIVE), several targets at once on several CPUs" {
	fast
	# a second htm event on CPU 0, of another target: EBUSY from the core
	hold htm $CORE1
	run guest htmperf open htm 0x200002
	[ "$output" = EBUSY ]
	# on CPU 1 it is fine
	run guest htmperf open htm 0x200002 -C 1
	[ "$output" = ok ]
	hv_protocol_check
	guest_unload_all
	guest "insmod $HTM_MODDIR/htmtrace_hvsim.ko rate=1000000 log2_size=18$SIM_ALT &&
	       insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	# the perf command of htmtrace(4): -C 0,1 and one target each, as the
	# seed series' perf maps each AUX buffer to its target by the CPU
	run guest "htmperf htm $CORE1 -C 0 -o /tmp/c0.bin > /tmp/c0.out & p0=\$!
		htmperf htm 0x200002 -C 1 -o /tmp/c1.bin > /tmp/c1.out & p1=\$!
		wait \$p0 && wait \$p1 && cat /tmp/c0.out /tmp/c1.out"
	echo "$output"
	[ "$status" -eq 0 ]
	verify_full /tmp/c0.bin
	run guest "htmcheck verify -t core -n 0 -p 0 -c 2 /tmp/c1.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "records valid: $RECORDS" <<<"$output"
}

@test "htm with PERF_SAMPLE_RAW: accepted, the trace exact, no RAW sample (the configuration is htmtrace sysmem's)" {
	fast
	run guest "htmperf htm $CORE1 -r -a 1024 -o /tmp/raw.bin -m /tmp/mem.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field aux_bytes "$output")" -eq $SIZE ]
	# htm_pmu.c: a module cannot write a sample (perf_event_overflow() is
	# not exported), so the memory configuration never comes as RAW
	[ "$(field raw_blocks "$output")" -eq 0 ]
	[ "$(guest stat -c %s /tmp/mem.bin)" -eq 0 ]
	verify_full /tmp/raw.bin
	run guest_dmesg
	[[ $output == *"no memory configuration samples from a module: see htmtrace sysmem"* ]]
	# what perf's RAW samples would have held, while an event holds the
	# target: several blocks (3 entries a call), 32 + 32 * entries each
	guest "echo 3 > $HVSIM/entries_per_call"
	hold htm $CORE1
	run guest "htmtrace sysmem -o /tmp/sysmem.bin && stat -c %s /tmp/sysmem.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	# 2 nodes x 2 chips = 4 entries: blocks of 3 and 1 (under
	# partial=truncated the first block is cut, and says it is the last)
	if [ "$(alt partial)" = truncated ]; then
		[ "${lines[-1]}" -eq $((32 + 3 * 32)) ]
	else
		[ "${lines[-1]}" -eq $((32 + 3 * 32 + 32 + 32)) ]
	fi
}

@test "event_init: every errno of the ABI, for both PMUs" {
	local args htm dtl script='' want='' pmu config result
	# htm: the HTM PMU proposal's refusals and errnos (htm-perf.c
	# htm_event_init()), and what a module adds: config1/config2, groups.
	# vpa_dtl: mainline's (vpa-dtl.c vpa_dtl_event_init()): inherit,
	# frequency mode and any sample field taken; the task and exclude
	# EINVALs are the perf core's, for a CPU-only NO_EXCLUDE PMU
	# The three tables run in one guest round trip: a line "WHAT: RESULT"
	# per open, compared with the lines built from what the tables want.
	while read -r htm dtl args; do
		script+="printf 'htm $args: '; htmperf open htm $CORE1 $args 2>&1
			printf 'vpa_dtl $args: '; htmperf open vpa_dtl 7 $args 2>&1
			"
		want+="htm $args: $htm"$'\n'"vpa_dtl $args: $dtl"$'\n'
	done <<-EOF
		ok ok
		EOPNOTSUPP EOPNOTSUPP --counting
		EINVAL EINVAL --task
		EOPNOTSUPP ok --inherit
		EINVAL ok --freq
		EINVAL EINVAL --exclude-user
		EINVAL EINVAL --exclude-kernel
		EINVAL EINVAL --exclude-hv
		EOPNOTSUPP ok --callchain
		EOPNOTSUPP EOPNOTSUPP --branch
		EOPNOTSUPP ok --sample 0x1000
		EOPNOTSUPP ok --sample 0x2000
		EOPNOTSUPP ok --sample 0x40000
		ENOENT ENOENT --type-off 1000
		EACCES EACCES --drop-caps
	EOF
	# htm: the other sample fields are accepted (PERF_SAMPLE_WEIGHT, DATA_SRC,
	# READ); config1 and config2 name nothing; an htm event is no group's
	# member (a sibling's PERF_SAMPLE_READ would read it from any context)
	while read -r result args; do
		script+="printf 'htm $args: '; htmperf open htm $CORE1 $args 2>&1
			"
		want+="htm $args: $result"$'\n'
	done <<-EOF
		ok --sample 0x4000
		ok --sample 0x8000
		ok --sample 0x10
		EINVAL --config1 1
		EINVAL --config2 1
		EINVAL --group-of software:0
	EOF
	# config: htm_type 1..3 and nothing above bit 27; node 1 chip 1 core 3
	# is a target, core 49 is not (the hypervisor's H_P2 at CONFIGURE)
	while read -r pmu config result; do
		script+="printf '$pmu $config: '; htmperf open $pmu $config 2>&1
			"
		want+="$pmu $config: $result"$'\n'
	done <<-EOF
		htm 0x0 EINVAL
		htm 0x4 EINVAL
		htm 0xf EINVAL
		htm 0x10000002 EINVAL
		htm 0x100000002 EINVAL
		htm 0x1 ok
		htm 0x3 ok
		htm 0x301012 ok
		htm 0x3101012 EINVAL
		vpa_dtl 0 EINVAL
		vpa_dtl 8 EINVAL
		vpa_dtl 0x101 EINVAL
		vpa_dtl 0x100000001 EINVAL
		vpa_dtl 1 ok
		vpa_dtl 2 ok
		vpa_dtl 4 ok
		vpa_dtl 3 EINVAL
		vpa_dtl 5 EINVAL
		vpa_dtl 6 EINVAL
	EOF
	run guest "$script"
	diff -u <(printf '%s' "$want") <(printf '%s\n' "$output")
	# without CAP_PERFMON and CAP_SYS_ADMIN: EACCES whatever the paranoia,
	# while the software PMU opens at -1 (the capability drop alone does not
	# make an open fail)
	for p in 2 -1; do
		run guest "echo $p > /proc/sys/kernel/perf_event_paranoid &&
			   htmperf open htm $CORE1 --drop-caps;
			   htmperf open vpa_dtl 7 --drop-caps;
			   htmperf open software 0 --drop-caps"
		echo "paranoid $p: $output"
		[ "${lines[0]}" = EACCES ]
		[ "${lines[1]}" = EACCES ]
		[ "${lines[2]}" = "$([ $p = -1 ] && echo ok || echo EACCES)" ]
	done
	guest "echo 2 > /proc/sys/kernel/perf_event_paranoid"
	# nothing was left claimed by the failed opens
	run guest "htmtest configure /dev/htm0 2 0 0 1 && htmtest dtl-configure /dev/vpa_dtl all 7"
	[ "$output" = "ok
ok" ]
	assert_no_splat
}

@test "EBUSY both ways between an htm event and /dev/htmN" {
	guest htmtest configure /dev/htm0 2 0 0 1
	run guest htmperf open htm $CORE1
	[ "$output" = EBUSY ]
	# another target is free
	run guest htmperf open htm 0x200002
	[ "$output" = ok ]
	guest htmtest deconfigure /dev/htm0
	hold htm $CORE1
	run guest htmtest configure /dev/htm1 2 0 0 1
	[ "$output" = EBUSY ]
	run guest htmtrace configure -t core -n 0 -p 0 -c 1 -d 2
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"busy"* ]]
	# a second event on the same target, even on another CPU
	run guest htmperf open htm $CORE1 -C 1
	[ "$output" = EBUSY ]
	run guest htmtest configure /dev/htm1 2 0 0 2
	[ "$output" = ok ]
}

@test "EBUSY both ways between vpa_dtl events and /dev/vpa_dtl" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	guest htmtest dtl-configure /dev/vpa_dtl 0 7
	run guest htmperf open vpa_dtl 7 -C 1
	[ "$output" = EBUSY ]
	guest htmtest dtl-deconfigure /dev/vpa_dtl
	hold vpa_dtl 7 -C 1
	for cpus in all 0 1; do
		run guest htmtest dtl-configure /dev/vpa_dtl $cpus 7
		[ "$output" = EBUSY ]
	done
	# one event per CPU; another CPU may have its own
	run guest "htmperf open vpa_dtl 7 -C 1; htmperf open vpa_dtl 1 -C 0"
	[ "$output" = "EBUSY
ok" ]
}

@test "htm close: SIGKILL pending, a busy hypervisor is waited out; a DECONFIGURE that fails keeps the target, EBUSY, said in debugfs" {
	# three 100 ms long-busy answers to the close's DECONFIGURE, the
	# closing process killed: the wait ignores the signal (a close cannot
	# restart), the unit is deconfigured and the target free
	hold htm $CORE1
	guest "echo 9902 > $HVSIM/long_busy && echo 3 > $HVSIM/long_busy_count &&
	       kill -9 \$(pidof htmperf) && while pidof htmperf; do nap 0.05; done"
	run guest "cat $HVSIM/long_busy_count; grep '^core 0 0 1 ' $HVSIM/targets || echo idle
		cat /sys/kernel/debug/htmtrace/targets"
	[ "$output" = "0
idle" ]
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = ok ]
	guest htmtest deconfigure /dev/htm0
	# DECONFIGURE fails (H_HARDWARE): the unit may stay configured; the
	# target is kept from every user, with the reason in debugfs
	hold htm $CORE1
	guest "echo -1 > $HVSIM/fail_rc && echo 0 > $HVSIM/fail_after &&
	       echo 0 > $HVSIM/fail_count && echo 7 > $HVSIM/fail_op &&
	       kill \$(pidof htmperf) && while pidof htmperf; do nap 0.05; done &&
	       echo 1 > $HVSIM/reset"
	run guest cat /sys/kernel/debug/htmtrace/targets
	[ "$output" = "type 2 node 0 chip 0 core 1 stranded DECONFIGURE -5" ]
	run guest "htmtest configure /dev/htm0 2 0 0 1; htmperf open htm $CORE1"
	[ "$output" = "EBUSY
EBUSY" ]
	run guest_dmesg
	[[ $output == *"htmtrace: type 2 node 0 chip 0 core 1: DECONFIGURE failed (-5): the unit may stay configured, the target is kept from every user"* ]]
	assert_no_splat
}

@test "rmmod htmtrace and the simulator refused while an event exists, and fine after" {
	for ev in "htm $CORE1" "vpa_dtl 7"; do
		hold $ev
		run guest rmmod htmtrace
		[ "$status" -eq 1 ]
		[[ $output == *"rmmod: can't unload module 'htmtrace': Resource temporarily unavailable"* ]]
		run guest rmmod htmtrace_hvsim
		[ "$status" -eq 1 ]
		[[ $output == *"rmmod: can't unload module 'htmtrace_hvsim': Resource temporarily unavailable"* ]]
		guest "[ -d $DEVS/htm ] && [ -d $DEVS/vpa_dtl ]"
		guest "kill \$(pidof htmperf) && while pidof htmperf; do nap 0.05; done"
	done
	hv_protocol_check
	guest "rmmod htmtrace && rmmod htmtrace_hvsim"
	run -0 guest "ls $DEVS"
	[[ $output != *htm* ]]
	# the kernel's own vpa_dtl PMU stays, where there is one
	if kernel_vpa; then
		[[ $output == *vpa_dtl* ]]
	else
		[[ $output != *vpa_dtl* ]]
	fi
	assert_no_splat
}

@test "vpa_dtl through AUX: mainline's format, every entry the simulator wrote, byte for byte, per CPU" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local mask e0 e1 w0 w1 tbf
	mask=$(effective_mask 7)
	e0=$(events 0)
	e1=$(events 1)
	w0=$(written 0)
	w1=$(written 1)
	# Two bursts on CPU 0 that fit the hypervisor's ring (84) together,
	# whether or not a poll comes between them: nothing is overwritten,
	# however slowly the guest runs. The capture ends when it is stopped.
	run guest "$CAPTURING
		echo 'htmtrace-test: vpa_dtl capture begins' > /dev/kmsg
		htmperf dtl 7 -C 0,1 -o /tmp/d -d 0 -r /tmp/r > /tmp/d.out & p=\$!
		enabled && capturing 0 7 && capturing 1 7 || { kill \$p; exit 1; }
		echo '0 60' > $HVSIM/dtl_burst && echo '1 40' > $HVSIM/dtl_burst &&
		echo '0 20' > $HVSIM/dtl_burst
		kill \$p; wait \$p && echo 'htmtrace-test: vpa_dtl capture ended' > /dev/kmsg &&
		cat /tmp/d.out"
	echo "$output"
	[ "$status" -eq 0 ]
	local n0 n1
	n0=$(written 0)
	n1=$(written 1)
	n0=$((n0 - w0)) n1=$((n1 - w1))
	[ "$n0" -eq 80 ]
	[ "$n1" -eq 40 ]
	# the boottb_freq record (48 bytes) and the entries, 48 bytes each;
	# no gap, so no PERF_RECORD_AUX flagged
	[[ ${lines[0]} == "cpu=0 aux_bytes=$((48 + 48 * n0)) entries="*" final=$n0 "*" truncated=0 partial=0 lost=0" ]]
	[[ ${lines[1]} == "cpu=1 aux_bytes=$((48 + 48 * n1)) entries="*" final=$n1 "*" truncated=0 partial=0 lost=0" ]]
	# the count read before DISABLE is what the polls had taken by then
	[ "$(field entries "${lines[0]}")" -le "$n0" ]
	tbf=$(guest "sed -n 's/^timebase[^0-9]*\([0-9]*\)$/\1/p' /proc/cpuinfo")
	decoded /tmp/d.cpu0 0 "$mask" "$e0" "$(events 0)"
	[ "${lines[0]%% first_s *}" = "boottb tb_freq $tbf" ]
	[ "${lines[-1]}" = "entries $n0 missing 0 gaps 0 bad 0" ]
	# the first entry's time since boot, from boot_tb: within the capture,
	# on the clock that counts from boot_tb, local_clock(): the kernel
	# log's timestamps, shown for the while (/proc/uptime starts later,
	# when timekeeping does)
	local s t
	s=${lines[0]##* first_s }
	t=$(guest "p=/sys/module/printk/parameters/time; o=\$(cat \$p); echo Y > \$p
		dmesg | sed -n 's/^\[ *\([0-9.]*\)\] htmtrace-test: vpa_dtl capture [a-z]*\$/\1/p' | tail -n 2
		echo \$o > \$p")
	echo "first entry at $s s, the capture from $(echo $t | tr ' ' '-') s"
	awk -v s="$s" -v t0="${t%%$'\n'*}" -v t1="${t##*$'\n'}" \
		'BEGIN { exit !(s >= t0 - 0.001 && s <= t1 + 0.001) }'
	decoded /tmp/d.cpu1 1 "$mask" "$e1" "$(events 1)"
	[ "${lines[-1]}" = "entries $n1 missing 0 gaps 0 bad 0" ]
	# one boot_tb (the boottb_freq record's first 8 bytes) for every event
	# of the record, as mainline's get_boot_tb(): taken once, at load
	run guest "for c in 0 1; do head -c 8 /tmp/d.cpu\$c | od -An -tx1; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(tr -d ' 0' <<<"${lines[0]}")" != "" ]
	[ "${lines[0]}" = "${lines[1]}" ]
	# the CPUs' masks are given back (the kernel's, where it owns the log)
	run guest "sed -n 's/^cpu \([01]\) .* mask \([0-9]*\)$/\1 \2/p' $HVSIM/dtl_cpus"
	echo "$output"
	[ "$output" = "0 $(effective_mask 0)
1 $(effective_mask 0)" ]
	# the event mask: cede only on CPU 1, a third of the events
	mask=$(effective_mask 1)
	e1=$(events 1)
	run guest "$CAPTURING
		htmperf dtl 1 -C 1 -o /tmp/m -d 0 -r /tmp/r > /dev/null & p=\$!
		enabled && capturing 1 1 || { kill \$p; exit 1; }
		echo '1 60' > $HVSIM/dtl_burst
		kill \$p; wait \$p"
	[ "$status" -eq 0 ]
	decoded /tmp/m.cpu1 1 "$mask" "$e1" "$(events 1)"
	[ "${lines[-1]}" = "entries $((mask == 1 ? 20 : 40)) missing 0 gaps 0 bad 0" ]
	# the CPUs' masks are given back
	run guest "sed -n 's/^cpu \([01]\) .* mask \([0-9]*\)$/\1 \2/p' $HVSIM/dtl_cpus"
	[ "$output" = "0 $((mask & ~1))
1 $((mask & ~1))" ]
	assert_no_splat
}

@test "vpa_dtl: a CPU that logs nothing has no AUX data at all (no boottb_freq record alone), as mainline" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local w0 w1
	w0=$(written 0)
	w1=$(written 1)
	run guest "$CAPTURING
		htmperf dtl 7 -C 0,1 -o /tmp/q -d 0 -r /tmp/r > /tmp/q.out & p=\$!
		enabled && capturing 0 7 && capturing 1 7 || { kill \$p; exit 1; }
		echo '0 10' > $HVSIM/dtl_burst
		kill \$p; wait \$p && cat /tmp/q.out"
	echo "$output"
	[ "$status" -eq 0 ]
	local n0 n1
	n0=$(written 0)
	n1=$(written 1)
	[ $((n0 - w0)) -eq 10 ]
	[ $((n1 - w1)) -eq 0 ]
	# CPU 0: the boottb_freq record with its first entry; CPU 1: nothing,
	# no PERF_RECORD_AUX (perf's decoder reads past an AUX record that
	# holds the boottb_freq record alone, and never ends)
	[[ ${lines[0]} == "cpu=0 aux_bytes=$((48 + 48 * 10)) entries="*" final=10 "*" truncated=0 partial=0 lost=0" ]]
	[[ ${lines[1]} == "cpu=1 aux_bytes=0 entries=0 final=0 "*" truncated=0 partial=0 lost=0" ]]
	assert_no_splat
}

@test "vpa_dtl: a burst beyond the hypervisor's ring, the loss counted exactly and its AUX record flagged PARTIAL" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local mask w e
	mask=$(effective_mask 7)
	w=$(written 0)
	e=$(events 0)
	# the burst is logged on CPU 0 with its interrupts off: one poll sees
	# all of it, and can copy only the newest 84
	run guest "$CAPTURING
		htmperf dtl 7 -C 0 -o /tmp/d -d 0 -r /tmp/r > /tmp/d.out & p=\$!
		enabled && capturing 0 7 || { kill \$p; exit 1; }
		echo '0 500' > $HVSIM/dtl_burst
		accounted 0 500 && cat $PMUDBG
		kill \$p; wait \$p && cat /tmp/d.out"
	echo "$output"
	[ "$status" -eq 0 ]
	local n
	n=$(written 0)
	n=$((n - w))
	[ "$n" -eq 500 ]
	[[ ${lines[0]} == "cpu 0 config 7 deadline_ns 0 entries 84 overwritten $((n - 84)) dropped 0 aux_records "*" partial 1 truncated 0 deadline_polls 0" ]]
	[[ ${lines[1]} == "cpu=0 aux_bytes=$((48 + 48 * 84)) entries="*" final=84 "*" truncated=0 partial=1 lost=0" ]]
	decoded /tmp/d.cpu0 0 "$mask" "$e" "$(events 0)"
	[ "${lines[-1]}" = "entries 84 missing $((n - 84)) gaps 1 bad 0" ]
	assert_no_splat
}

@test "vpa_dtl: an AUX area never drained, the entries it could not hold are counted exactly" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local mask w e
	mask=$(effective_mask 7)
	w=$(written 0)
	e=$(events 0)
	# 64 KiB of AUX (at least a page) is never drained during the capture
	# (-n); 20 bursts of 80, 0.3 s apart: the capture polls at least every
	# 200 ms, so the hypervisor overwrites nothing, unless the guest's CPU
	# was kept from running (then what it did overwrite is counted too)
	run guest "$CAPTURING
		htmperf dtl 7 -C 0 -a 64 -n -o /tmp/d -d 0 -r /tmp/r > /tmp/d.out & p=\$!
		enabled && capturing 0 7 || { kill \$p; exit 1; }
		for i in \$(seq 20); do echo '0 80' > $HVSIM/dtl_burst; nap 0.3; done
		accounted 0 1600 && cat $PMUDBG
		kill \$p; wait \$p && cat /tmp/d.out"
	echo "$output"
	[ "$status" -eq 0 ]
	local n en o d p
	n=$(written 0)
	n=$((n - w))
	[ "$n" -eq 1600 ]
	read -r en o d p < <(sed -n 's/^cpu 0 .* entries \([0-9]*\) overwritten \([0-9]*\) dropped \([0-9]*\) .* partial \([0-9]*\) .*/\1 \2 \3 \4/p' <<<"$output")
	echo "entries $en overwritten $o dropped $d of $n, $p records flagged"
	[ "$en" -gt 0 ]
	[ "$d" -gt 0 ]
	[ $((en + o + d)) -eq "$n" ]
	# the AUX area was full but for the byte that keeps the event enabled:
	# what is in it is the count, and the records that came after a loss
	# said so (PARTIAL; TRUNCATED would disable the event)
	local sum=${lines[1]}
	[ "$(field final "$sum")" -eq "$en" ]
	[ "$(field partial "$sum")" -eq "$p" ]
	[ "$p" -gt 0 ]
	[ "$(field truncated "$sum")" -eq 0 ]
	[ "$(field aux_bytes "$sum")" -eq $((48 + 48 * en)) ]
	[ "$(field aux_bytes "$sum")" -le 65535 ]
	[ "$(field aux_bytes "$sum")" -gt $((65536 - 2 * 48)) ]
	decoded /tmp/d.cpu0 0 "$mask" "$e" "$(events 0)"
	[[ ${lines[-1]} == "entries $en missing $((o + d)) gaps "*" bad 0" ]]
	assert_no_splat
}

@test "vpa_dtl: inherit and frequency mode taken as mainline does; sample_period the longest a poll waits" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	# frequency mode becomes the period NSEC_PER_SEC / freq; at least 1 ms;
	# none where the capture's own timer never waits as long (200 ms)
	local args want
	while read -r want args; do
		hold vpa_dtl 7 $args
		run guest "cat $PMUDBG"
		echo "$args: $output"
		[[ $output == "cpu 0 config 7 deadline_ns $want entries 0 "* ]]
		guest "kill \$(pidof htmperf) && while pidof htmperf; do nap 0.05; done"
	done <<-EOF
		5000000 --sample-freq 200
		1000000 --sample-freq 4000
		1000000 --period 1
		20000000 --period 20000000
		0 --period 200000000
		0 --inherit --period 1000000000
	EOF
	# a 10 ms period: the deadline timer polls, and never more often than
	# once a period. Its count is read between two readings of the
	# guest's clock (10 ms steps), so at most (t1 - t0) / 10 ms + 1 polls
	# fall between them, however late TCG runs the timers; no lower bound
	# but that it ran.
	run guest "$CAPTURING
		htmperf dtl 7 -C 0 -P 10000000 -o /tmp/d -d 0 -r /tmp/r > /dev/null & p=\$!
		enabled && capturing 0 7 || { kill \$p; exit 1; }
		cut -d' ' -f1 /proc/uptime; cat $PMUDBG; nap 1; cat $PMUDBG
		cut -d' ' -f1 /proc/uptime; kill \$p; wait \$p"
	echo "$output"
	[ "$status" -eq 0 ]
	local p0 p1 ms
	p0=$(sed -n 's/^cpu 0 .* deadline_polls \([0-9]*\)$/\1/p' <<<"${lines[1]}")
	p1=$(sed -n 's/^cpu 0 .* deadline_polls \([0-9]*\)$/\1/p' <<<"${lines[2]}")
	[[ $p0 =~ ^[0-9]+$ ]]
	[[ $p1 =~ ^[0-9]+$ ]]
	ms=$(( (${lines[3]/./} - ${lines[0]/./}) * 10 ))
	echo "deadline polls in $ms ms: $((p1 - p0))"
	[ $((p1 - p0)) -ge 1 ]
	[ $((p1 - p0)) -le $((ms / 10 + 2)) ]
	assert_no_splat
}

@test "vpa_dtl: the deadline holds while perf reschedules the CPU's events more often than the period" {
	# A task with a pinned event of its own, woken every ms on CPU 0:
	# each time it runs, perf takes CPU 0's flexible events off and puts
	# them back (del, add) with the capture running on. The deadline
	# (150 ms) runs from the capture's begin to its end: del and add leave
	# it alone. Were it re-armed at each add, with a full period, it
	# would not come due while the task wakes more often than that.
	run guest "$CAPTURING
		htmperf dtl 7 -C 0 -P 150000000 -o /tmp/d -d 0 -r /tmp/r > /dev/null & p=\$!
		enabled && capturing 0 7 || { kill \$p; exit 1; }
		cat $PMUDBG; htmperf resched 0 1000 2000 || { kill \$p; exit 1; }
		cat $PMUDBG; kill \$p; wait \$p"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "resched 2000" ]
	local p0 p1
	p0=$(sed -n 's/^cpu 0 config 7 deadline_ns 150000000 .* deadline_polls \([0-9]*\)$/\1/p' <<<"${lines[0]}")
	p1=$(sed -n 's/^cpu 0 config 7 deadline_ns 150000000 .* deadline_polls \([0-9]*\)$/\1/p' <<<"${lines[2]}")
	echo "deadline polls while rescheduled: $p0 -> $p1"
	[ -n "$p0" ]
	[ -n "$p1" ]
	[ "$p1" -gt "$p0" ]
	assert_no_splat
}

@test "vpa_dtl: event_init refuses a CPU whose log another user holds (EBUSY, as CONFIGURE); a kernel log that lasts is shared" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local boot want
	boot=$(boot_log)
	[[ $boot =~ ^(kernel|none)$ ]]
	# Another user's event mask on CPU 1 (debugfs dtl, another tool):
	# where htmtrace registers its own buffer, that CPU is theirs, for an
	# event as for /dev/vpa_dtl; where the kernel's log lasts, it is read
	# alongside whatever the mask. CPU 0 is free either way.
	meddled="1 $(cpu_mask 1)"
	want=$([ "$boot" = none ] && echo EBUSY || echo ok)
	run guest "echo '1 4' > $HVSIM/dtl_meddle || exit 9
		htmperf open vpa_dtl 7 -C 1; htmperf open vpa_dtl 7 -C 0
		htmtest dtl-configure /dev/vpa_dtl 1 7; htmtest dtl-deconfigure /dev/vpa_dtl >/dev/null
		echo '$meddled' > $HVSIM/dtl_meddle"
	echo "$output"
	[ "$output" = "$want
ok
$want" ]
	meddled=
	# vcpudispatch_stats on: where its logs are freed when it goes off
	# (Debian's kernels), every CPU's log is another user's; where they
	# last (the debug kernel's native accounting), shared. Off: free.
	guest "[ -e $VDS ]"
	vds_on=1
	run guest "echo 1 > $VDS || exit 9
		htmperf open vpa_dtl 7 -C 1; htmperf open vpa_dtl 7 -C 0
		htmtest dtl-configure /dev/vpa_dtl all 7; htmtest dtl-deconfigure /dev/vpa_dtl >/dev/null
		echo 0 > $VDS || exit 9
		htmperf open vpa_dtl 7 -C 1"
	echo "$output"
	[ "$output" = "$want
$want
$want
ok" ]
	vds_on=
	assert_no_splat
}

@test "vpa_dtl: a capture that ends before its event (another user's change, a refused registration): its AUX record flagged TRUNCATED" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	local boot
	boot=$(boot_log)
	[[ $boot =~ ^(kernel|none)$ ]]
	# Another user narrows CPU 0's mask mid-capture: the capture ends
	# there (the entries before it are in the AUX area), and at once a
	# PERF_RECORD_AUX says so with TRUNCATED (perf: "AUX data lost"),
	# not when the event goes; the perf core disables the event.
	meddled="0 $(cpu_mask 0)"
	run guest "$CAPTURING
		htmperf dtl 7 -C 0 -o /tmp/t -d 0 -r /tmp/r > /tmp/t.out & p=\$!
		enabled && capturing 0 7 && echo '0 10' > $HVSIM/dtl_burst &&
			accounted 0 10 || { kill \$p; exit 1; }
		echo '0 1' > $HVSIM/dtl_meddle
		for i in \$(seq 100); do
			grep -q '^cpu 0 .* truncated 1 ' $PMUDBG && break
			nap 0.05
		done
		cat $PMUDBG; kill \$p; wait \$p && cat /tmp/t.out"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "cpu 0 config 7 deadline_ns 0 entries 10 overwritten 0 dropped 0 aux_records "*" partial 0 truncated 1 deadline_polls 0" ]]
	[[ ${lines[1]} == "cpu=0 aux_bytes=$((48 + 48 * 10)) entries="*" final=10 aux_records="*" truncated=1 partial=0 lost=0" ]]
	guest "echo '$meddled' > $HVSIM/dtl_meddle"
	meddled=
	if [ "$boot" = none ]; then
		# Where htmtrace registers its own buffer: the hypervisor refuses
		# it (H_RESOURCE) after event_init took the CPU. Its AUX area
		# gets no data, one PERF_RECORD_AUX flagged TRUNCATED.
		run guest "echo -16 > $HVSIM/dtl_register_rc &&
			htmperf dtl 7 -C 1 -o /tmp/f -d 300 && echo 0 > $HVSIM/dtl_register_rc"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "cpu=1 aux_bytes=0 entries=0 final=0 aux_records=1 truncated=1 partial=0 lost=0" ]
		# vcpudispatch_stats turned on mid-capture: its log (which it
		# frees when it goes off) is another user's; the capture ends
		# and says so, and never reads it
		vds_on=1
		run guest "$CAPTURING
			htmperf dtl 7 -C 1 -o /tmp/v -d 0 -r /tmp/r > /tmp/v.out & p=\$!
			enabled && capturing 1 7 || { kill \$p; exit 1; }
			echo 1 > $VDS || { kill \$p; exit 1; }
			for i in \$(seq 100); do
				grep -q '^cpu 1 .* truncated 1 ' $PMUDBG && break
				nap 0.05
			done
			echo 0 > $VDS; kill \$p; wait \$p && cat /tmp/v.out"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "cpu=1 aux_bytes=0 entries=0 final=0 aux_records=1 truncated=1 partial=0 lost=0" ]
		vds_on=
	fi
	assert_no_splat
}

@test "vpa_dtl: a PMU of that name registered first (the kernel's own): ours is not, said in one line" {
	if kernel_vpa; then skip "$KERNEL_VPA_SKIP"; fi
	requires module htmtrace_pmu_stub
	hv_protocol_check
	guest "rmmod htmtrace && rmmod htmtrace_hvsim"
	guest_mark "insmod $HTM_MODDIR/htmtrace_pmu_stub.ko &&
		insmod $HTM_MODDIR/htmtrace_hvsim.ko rate=0 log2_size=18$SIM_ALT &&
		insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	# the load found it: one line
	run guest_dmesg
	echo "$output"
	[ "$(grep -c 'vpa_dtl' <<<"$output")" -eq 1 ]
	# (a stock kernel's log has timestamps)
	sed 's/^\[ *[0-9.]*\] //' <<<"$output" |
		grep -qx "htmtrace: a vpa_dtl perf PMU exists already: not registering ours (/dev/vpa_dtl only)"
	# the PMU named vpa_dtl is the stub (no format, its own errno); the
	# htm PMU and /dev/vpa_dtl are there
	run guest "ls $DEVS/vpa_dtl; htmperf open vpa_dtl 7; htmtest dtl-configure /dev/vpa_dtl 0 7"
	echo "$output"
	[[ $output != *format* ]]
	[[ $output == *ENODEV*ok ]]
	guest "htmtest dtl-deconfigure /dev/vpa_dtl"
	run guest "htmperf open htm $CORE1"
	[ "$output" = ok ]
	# the stub gone, the next load registers ours
	guest "rmmod htmtrace && rmmod htmtrace_pmu_stub &&
	       insmod $HTM_MODDIR/htmtrace.ko backend=sim"
	run guest "cat $DEVS/vpa_dtl/format/event; htmperf open vpa_dtl 7"
	[ "$output" = "config:0-7
ok" ]
	assert_no_splat
}

@test "htm: one read dumps at most the bounce size (bounce_kb), whatever room AUX has" {
	fast
	guest "rmmod htmtrace && insmod $HTM_MODDIR/htmtrace.ko backend=sim bounce_kb=64 &&
	       echo 1 > $HVSIM/reset"
	run guest "htmperf htm $CORE1 -a 1024 -v -o /tmp/c.bin &&
		sed -n 's/^dump_data //p' $HVSIM/op_calls"
	echo "$output"
	[ "$status" -eq 0 ]
	# four DUMP_DATA of 64 KiB, each read brings one
	[ "${lines[-1]}" = 4 ]
	[ "$(grep -c "count 512 aux 65536$" <<<"$output")" -eq 4 ]
	verify_full /tmp/c.bin
	assert_no_splat
}

@test "htm with no size from STATUS (dump_span=inside|not_available): a 64 KiB buffer dumped exactly, a page a request" {
	local v sum
	fast
	for v in inside not_available; do
		# every STATUS fails; a request past the buffer's end would get
		# the part inside (the rest read as trace) or H_NOT_AVAILABLE
		# (the trace lost)
		guest "echo $v > /sys/module/htmtrace_hvsim/parameters/dump_span &&
		       echo 1 > $HVSIM/reset && htmtest setup /dev/htm0 2 0 0 1 16 &&
		       echo -1 > $HVSIM/fail_rc && echo 0 > $HVSIM/fail_count &&
		       echo 2 > $HVSIM/fail_op"
		run guest "set -o pipefail; htmperf htm $CORE1 -a 1024 -v -o /tmp/s.bin &&
			htmcheck verify -t core -n 0 -p 0 -c 1 /tmp/s.bin | grep -e '^records valid' -e '^mismatched'"
		echo "$v: $output"
		[ "$status" -eq 0 ]
		sum=${lines[-3]}
		[ "$(field aux_bytes "$sum")" -eq 65536 ]
		[ "$(field counts "$sum")" -eq 512 ]
		[ "${lines[-2]}" = "records valid: 512" ]
		[ "${lines[-1]}" = "mismatched:    0" ]
	done
	assert_no_splat
}

@test "htm dump faults: H_HARDWARE mid-dump ends the drain with 0 and one AUX record flagged TRUNCATED, named in the kernel log" {
	fast
	guest "htmperf htm $CORE1 -a 1024 -o /tmp/ref.bin > /dev/null"
	verify_full /tmp/ref.bin
	# the second DUMP_DATA (op 9) fails, and every one after it
	guest "echo -1 > $HVSIM/fail_rc && echo 1 > $HVSIM/fail_after &&
	       echo 0 > $HVSIM/fail_count && echo 9 > $HVSIM/fail_op"
	run guest "htmperf htm $CORE1 -a 64 -v -o /tmp/f.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-2]}" = "read $(field reads "${lines[-1]}") count 0 aux 0" ]
	local got
	got=$(field aux_bytes "${lines[-1]}")
	[ "$got" -gt 0 ]
	[ "$got" -lt $SIZE ]
	# the short trace says it is short: its last AUX record, of no
	# bytes, flagged TRUNCATED (perf report: "AUX data lost 1 times")
	[ "$(field truncated "${lines[-1]}")" -eq 1 ]
	[ "$(field partial "${lines[-1]}")" -eq 0 ]
	# what came is the start of the trace, nothing else
	run guest "cmp /tmp/f.bin /tmp/ref.bin"
	[[ $output == *"EOF on /tmp/f.bin"* ]]
	run guest_dmesg
	[[ $output == *"htm pmu: type 2 node 0 chip 0 core 1: DUMP_DATA failed (-5)"* ]]
	# the target was given back all the same
	guest "echo 1 > $HVSIM/reset"
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = ok ]
	assert_no_splat
}

@test "htm dump faults: H_BUSY every 3rd call and H_LONG_BUSY leave the data exact" {
	fast
	guest "htmperf htm $CORE1 -a 1024 -o /tmp/ref.bin > /dev/null"
	verify_full /tmp/ref.bin
	guest "echo 3 > $HVSIM/busy_every"
	run guest "htmperf htm $CORE1 -a 64 -o /tmp/b.bin && cat $HVSIM/injected"
	echo "$output"
	[ "$(field counts "${lines[0]}")" -eq $RECORDS ]
	[ "${lines[1]}" -gt 2 ]
	guest cmp /tmp/ref.bin /tmp/b.bin
	# H_LONG_BUSY for 5 calls from the first read on: the PMU cannot sleep
	# in its callbacks, so each of those reads counts 1 (read again) with
	# nothing in AUX; then the dump goes on, exact. The fault is set once
	# the event is enabled and before its first read (htmperf -s waits).
	guest "echo 1 > $HVSIM/reset"
	run guest "rm -f /tmp/go /tmp/go.ready
		htmperf htm $CORE1 -a 64 -v -s /tmp/go -o /tmp/l.bin & p=\$!
		for i in \$(seq 600); do [ -e /tmp/go.ready ] && break; nap 0.05; done
		echo 9901 > $HVSIM/long_busy; echo 5 > $HVSIM/long_busy_count; touch /tmp/go
		wait \$p && cat $HVSIM/injected"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" -eq 5 ]
	[ "$(grep -c 'count 1 aux 0$' <<<"$output")" -eq 5 ]
	guest cmp /tmp/ref.bin /tmp/l.bin
	assert_no_splat
}

@test "htm dump faults: a hypervisor busy past the long-busy bound ends the drain with 0 and TRUNCATED" {
	fast
	# The bound is production's 10 s (KUnit hv_long_busy_bounded checks
	# it); the test build's long_busy_cap_ms caps it at 1 s here, so that
	# the drain and the close's two requests wait 1 s each, not 10.
	local cap=/sys/module/htmtrace/parameters/long_busy_cap_ms
	run guest "cat $cap && echo 1000 > $cap && cat $cap"
	[ "${lines[*]}" = "0 1000" ]
	run guest "rm -f /tmp/go /tmp/go.ready
		(for i in \$(seq 600); do [ -e /tmp/go.ready ] && break; nap 0.05; done
		 echo 9901 > $HVSIM/long_busy; echo 1000000000 > $HVSIM/long_busy_count
		 touch /tmp/go) &
		read -r t0 _ < /proc/uptime
		htmperf htm $CORE1 -a 64 -s /tmp/go -o /tmp/l.bin
		read -r t1 _ < /proc/uptime
		echo \$((\${t1/./} - \${t0/./}))"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field aux_bytes "${lines[0]}")" -eq 0 ]
	[ "$(field truncated "${lines[0]}")" -eq 1 ]
	# the count says 1 for the bound (1 s), then 0; the close then waits
	# out its own bounds in process context, STOP's and DECONFIGURE's
	# (each ends once its next 10 ms hint would pass 1 s: after 991 ms at
	# the least): 2.98 s in all at the least (centiseconds of /proc/uptime).
	# Without the cap any one of the three waits takes 10 s: under 8 s
	# (4.3 s measured on the debug guest) proves each was capped.
	[ "${lines[1]}" -ge 298 ]
	[ "${lines[1]}" -lt 800 ]
	# the read's STOP failed once, and the close's STOP and DECONFIGURE
	run -0 guest_dmesg
	echo "$output"
	[ "$(grep -c "htm pmu: type 2 node 0 chip 0 core 1: STOP failed (-16)$" <<<"$output")" -eq 1 ]
	[ "$(grep -c "htm pmu: type 2 node 0 chip 0 core 1: STOP failed (-16), DECONFIGURE -16$" <<<"$output")" -eq 1 ]
}

# start_fault RC COUNT: START (op 5) answers RC, COUNT times (0: every time)
start_fault() {
	guest "echo 1 > $HVSIM/reset && echo $1 > $HVSIM/fail_rc &&
	       echo 0 > $HVSIM/fail_after && echo $2 > $HVSIM/fail_count &&
	       echo 5 > $HVSIM/fail_op"
}

# op_count OP: the simulator's calls of OP since its reset
op_count() {
	guest_number "sed -n 's/^$1 //p' $HVSIM/op_calls"
}

@test "htm START met by a long-busy answer in add: asked again at its hint, one trace, exact" {
	fast
	# the first START (in add) is answered H_LONG_BUSY_ORDER_10_MSEC: the
	# event's timer asks again 10 ms later, once; htmperf reads only after
	# that (-s; 10 s at most, well before htmperf's own 60 s: before the
	# fix the read then comes, and finds the event dead), so the trace has
	# run and filled its buffer
	start_fault 9901 1
	run guest "rm -f /tmp/go /tmp/go.ready
		htmperf htm $CORE1 -a 1024 -s /tmp/go -o /tmp/s.bin > /tmp/s.out & p=\$!
		for i in \$(seq 600); do [ -e /tmp/go.ready ] && break; nap 0.05; done
		for i in \$(seq 200); do
			[ \"\$(sed -n 's/^start //p' $HVSIM/op_calls)\" = 2 ] && break
			nap 0.05
		done
		touch /tmp/go; wait \$p && cat /tmp/s.out"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field aux_bytes "$output")" -eq $SIZE ]
	[ "$(field truncated "$output")" -eq 0 ]
	verify_full /tmp/s.bin
	# two STARTs (the busy one and the timer's), nothing more injected
	[ "$(op_count start)" -eq 2 ]
	[ "$(guest cat $HVSIM/injected)" -eq 1 ]
	run -0 guest_dmesg
	[[ $output != *"START failed"* ]]
	assert_no_splat
}

@test "htm START that fails for good: one AUX record flagged TRUNCATED, count 0, no DUMP_DATA, STARTs bounded by the hint" {
	fast
	# H_HARDWARE: START fails at once, in add; the first read says it
	start_fault -1 0
	run guest "htmperf htm $CORE1 -a 64 -v -o /tmp/f.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "read 1 count 0 aux 0" ]
	[ "$(field aux_bytes "${lines[-1]}")" -eq 0 ]
	[ "$(field aux_records "${lines[-1]}")" -eq 1 ]
	[ "$(field truncated "${lines[-1]}")" -eq 1 ]
	[ "$(op_count start)" -eq 1 ]
	[ "$(op_count dump_data)" -eq 0 ]
	[ "$(op_count stop)" -eq 0 ]
	[ "$(op_count deconfigure)" -eq 1 ]

	# busy for good, 10 ms hints, the bound capped at 1 s: a read ends
	# the trace, so the first read (htmperf reads without pause) finds
	# START still waiting: it has failed, said at once (count 0, the AUX
	# record TRUNCATED), never STARTed then STOPped as an empty trace;
	# before it, START is asked no more often than the hint says: 101
	# times at most (KUnit pmu_start_busy: 0, 10, ..., 1000 ms)
	guest "echo 1000 > /sys/module/htmtrace/parameters/long_busy_cap_ms"
	start_fault 9901 0
	run guest "htmperf htm $CORE1 -a 64 -v -o /tmp/b.bin"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "read 1 count 0 aux 0" ]
	[ "$(field aux_bytes "${lines[-1]}")" -eq 0 ]
	[ "$(field aux_records "${lines[-1]}")" -eq 1 ]
	[ "$(field truncated "${lines[-1]}")" -eq 1 ]
	local starts
	starts=$(op_count start)
	echo "STARTs: $starts"
	[ "$starts" -ge 1 ]
	[ "$starts" -le 101 ]
	[ "$(op_count dump_data)" -eq 0 ]
	[ "$(op_count stop)" -eq 0 ]
	# each failure once in the log, with its errno
	run guest_dmesg
	[ "$(grep -c "htm pmu: type 2 node 0 chip 0 core 1: START failed (-5)" <<<"$output")" -eq 1 ]
	[ "$(grep -c "htm pmu: type 2 node 0 chip 0 core 1: START failed (-16)" <<<"$output")" -eq 1 ]
	# the target was given back each time
	run guest htmtest configure /dev/htm0 2 0 0 1
	[ "$output" = ok ]
	assert_no_splat
}
