#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The htm and vpa_dtl PMUs seen by a perf client no one here wrote: mainline
# perf as Debian sid builds it (linux-perf 7.2, ppc64el) with every library
# it loads, unpacked by tests/deps.sh --perf and mounted at /host in the
# guest. It knows nothing of these PMUs but what sysfs says: the events it
# lists and the config it builds from our format strings are the ABI a
# user's perf sees; and its `perf script` decodes vpa_dtl AUX data with
# mainline's decoder (tools/perf/util/powerpc-vpadtl.c, from 6.18): what a
# user reads of our stream. (Debian 12's perf 6.1, the client here before,
# was retired: it cannot decode vpa_dtl, and 7.2 runs every test it ran.)

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
# perf and its libraries, copied from /host to the guest's tmpfs (loaded
# over 9p, each run of perf took 8 s under TCG; from tmpfs, 1.2 s)
PERF="/tmp/perf/ld64.so.2 --library-path /tmp/perf /tmp/perf/perf"

setup_file() {
	# make check packs the folder into its guest; alone, this file shares it
	if [ -z "${HTMTRACE_GUEST:-}" ] && [ -z "${GUEST_SHARE:-}" ]; then
		GUEST_SHARE=$("$HTM_TOP/tests/deps.sh" --perf) || return
	fi
	htm_setup_file || return
	guest "[ -f /host/guest/.done ] ||
		{ echo 'no perf at /host: boot the guest with --share DIR or --pack DIR/guest, DIR from tests/deps.sh --perf'; exit 1; }
	rm -rf /tmp/perf && cp -r /host/guest /tmp/perf"
	echo "# linux-perf $(guest cat /tmp/perf/linux-perf.version)" >&3
}

teardown_file() {
	guest "rm -rf /tmp/perf"
	htm_teardown_file
}

setup() {
	guest_mark "$(sim_load rate=0)"
}

teardown() {
	guest_unload_all
}

@test "perf list: both PMUs' events, as Kernel PMU events" {
	run -0 guest "$PERF list pmu 2>&1"
	echo "$output"
	for e in htm/htm_core/ htm/htm_llat/ htm/htm_nest/ vpa_dtl/dtl_all/ \
		 vpa_dtl/dtl_cede/ vpa_dtl/dtl_fault/ vpa_dtl/dtl_preempt/; do
		grep -Eq "^ +$e +\[Kernel PMU event\]$" <<<"$output" ||
			{ echo "missing: $e"; return 1; }
	done
	# and no other event of ours
	[ "$(grep -cE '^ +(htm|vpa_dtl)/' <<<"$output")" -eq 7 ]
}

# perf_attr FIELD: FIELD's value in the perf_event_attr perf -vv printed
# (perf 7.2 names some after it: "type   9 (vpa_dtl)")
perf_attr() {
	sed -n "s/^  $1 \+\([0-9a-fx]*\)\( (.*)\)\?\$/\1/p" <<<"$output" | head -n 1
}

@test "perf builds config from our format strings; a counting event is refused with EOPNOTSUPP" {
	# perf stat asks for counting events: event_init refuses them (perf
	# 7.2 then ends with status 1)
	run -1 guest "$PERF stat -vv -C 0 \
		-e htm/htm_core,nodeindex=3,nodalchipindex=0x2a,coreindexonchip=255/ \
		-- true 2>&1"
	echo "$output"
	[ "$(perf_attr type)" = "$(guest cat /sys/bus/event_source/devices/htm/type)" ]
	[ "$(perf_attr config)" = 0xff2a032 ]
	grep -q "sys_perf_event_open failed, error -95" <<<"$output"
	# perf 7.2's words for it
	grep -q "The sys_perf_event_open() syscall failed for event (htm/htm_core,nodeindex=3,nodalchipindex=0x2a,coreindexonchip=255/H): Operation not supported" <<<"$output"

	run -1 guest "$PERF stat -vv -C 0 -e vpa_dtl/dtl_preempt/ -- true 2>&1"
	echo "$output"
	[ "$(perf_attr type)" = "$(guest cat /sys/bus/event_source/devices/vpa_dtl/type)" ]
	[ "$(perf_attr config)" = 0x2 ]
	grep -q "sys_perf_event_open failed, error -95" <<<"$output"
}

# ops: the simulator's hcall counts by op that are not zero, on one line;
# fails if the guest does (`run -0 ops`: an empty answer is no proof)
ops() {
	local out
	out=$(guest "sed -n 's/^\([a-z_]*\) \([1-9][0-9]*\)$/\1=\2/p' $HVSIM/op_calls") || return
	echo "${out//$'\n'/ }"
}

@test "perf record: an htm event configured, traced and given back by perf" {
	guest "echo 1 > $HVSIM/reset && echo 1000000 > $HVSIM/rate"
	# perf 7.2 asks for no inherit with -C (perf 6.1 did, and was refused
	# with EOPNOTSUPP: pmu.bats's event_init test has that errno)
	run -0 guest "$PERF record -c 1 -C 0 -o /tmp/record.data \
		-e htm/htm_core,coreindexonchip=1/ -- sleep 0.2 2>&1"
	echo "$output"
	grep -q "perf record: Captured and wrote" <<<"$output"
	# configured at open, traced while enabled, deconfigured at close; no
	# AUX area was mapped, so nothing was dumped
	run -0 ops
	[ "$output" = "status=1 configure=1 start=1 stop=1 deconfigure=1" ]
	run -0 guest "cat $HVSIM/targets; echo end"
	[ "$output" = end ]
	run -0 guest "htmtest configure /dev/htm0 2 0 0 1"
	assert_no_splat
}

@test "perf record: a vpa_dtl event takes CPU 1's log and gives it back; frequency mode taken" {
	local before w
	before=$(guest "awk '\$2 == 1 { print \$NF }' $HVSIM/dtl_cpus")
	# the workload waits (bounded) until CPU 1 logs every event (dtl_all:
	# the event's capture has begun) and says what mask it saw
	w=$(cat <<-'EOF'
	for i in $(seq 100); do
		m=$(awk '$2 == 1 { print $NF }' /sys/kernel/debug/htmtrace_hvsim/dtl_cpus)
		if [ $((m & 7)) -eq 7 ]; then break; fi
		sleep 0.05
	done
	echo "$m" > /tmp/mask
	EOF
	)
	guest "cat > /tmp/w.sh <<'EOF'
$w
EOF"
	# perf's default, frequency mode (4000 Hz: mainline's
	# 250 us period, polled at least every 1 ms)
	run -0 guest "$PERF record -C 1 -o /tmp/record.data \
		-e vpa_dtl/dtl_all/ -- sh /tmp/w.sh 2>&1"
	echo "$output"
	grep -q "perf record: Captured and wrote" <<<"$output"
	run -0 guest cat /tmp/mask
	[ $((output & 7)) -eq 7 ]
	# the mask given back, and the log has one owner: free again for
	# /dev/vpa_dtl
	run -0 guest "awk '\$2 == 1 { print \$NF }' $HVSIM/dtl_cpus"
	[ "$output" = "$before" ]
	run -0 guest "htmtest dtl-configure /dev/vpa_dtl all 7"
	[ "$output" = ok ]
	guest "htmtest dtl-deconfigure /dev/vpa_dtl"
	assert_no_splat
}

# The entries the simulator logged on CPU so far, and the events it has had
# there (logged or not): the next one is number $(events CPU), the n of
# hvsim_dtl_fill() (module/hvsim/hvsim_record.h)
written() {
	guest_number "sed -n 's/^cpu $1 .* written \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}
events() {
	guest_number "sed -n 's/^cpu $1 .* events \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

# dtl_record NAME PERF-OPTIONS CPUS BURST...: in the guest, perf record
# PERF-OPTIONS -e vpa_dtl/dtl_all/ (mainline's documented period: a poll a
# second) into /tmp/NAME.data, its workload waiting (bounded) until each of
# CPUS logs every event type (the capture has begun there), then writing
# each BURST ("CPU COUNT") to the simulator's dtl_burst. Kernel log marks
# before and after: dtl_marks NAME prints their times.
# --proc-map-timeout: perf's 500 ms to read a task's maps runs out in the
# debug guest under load, and perf script then warns of the maps it lacks
# (the tests want perf script's stderr empty but for the gaps they make).
dtl_record() {
	local name=$1 opts=$2 cpus=$3 b bursts=
	shift 3
	for b in "$@"; do
		bursts+="echo '$b' > $HVSIM/dtl_burst || exit 1"$'\n'
	done
	guest "cat > /tmp/$name.sh <<'EOF'
for c in $cpus; do
	for i in \$(seq 100); do
		m=\$(sed -n \"s/^cpu \$c .* mask \\([0-9]*\\)\$/\\1/p\" $HVSIM/dtl_cpus)
		[ \$((m & 7)) -eq 7 ] && continue 2
		sleep 0.05
	done
	echo \"cpu \$c never captured\" >&2; exit 1
done
$bursts
EOF"
	run guest "echo 'htmtrace-test: perf $name begins' > /dev/kmsg &&
		$PERF record $opts -e vpa_dtl/dtl_all/ -c 1000000000 --proc-map-timeout 60000 \
			-o /tmp/$name.data -- sh /tmp/$name.sh 2>&1 &&
		echo 'htmtrace-test: perf $name ended' > /dev/kmsg"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "perf record: Captured and wrote" <<<"$output"
}

# dtl_marks NAME: the kernel log times (s) of dtl_record NAME's marks, on
# one line: the clock that counts from boot_tb, local_clock(), as perf's
# sample times do ((timebase - boot_tb) / tb_freq)
dtl_marks() {
	guest "p=/sys/module/printk/parameters/time; o=\$(cat \$p); echo Y > \$p
		dmesg | sed -n 's/^\[ *\([0-9.]*\)\] htmtrace-test: perf $1 [a-z]*\$/\1/p' | tail -n 2 | tr '\n' ' '
		echo \$o > \$p"
}

# DTL_CHECK: awk that reads `perf script`'s vpa-dtl samples (two lines each:
# perf_sample__fprintf_synth_vpadtl() of tools/perf/builtin-script.c,
# "timebase: %lu dispatch_reason:%s, preempt_reason:%s,\n
# enqueue_to_dispatch_time:%d, ready_to_enqueue_time:%d,waiting_to_ready_time:%d,
# processor_id: %d") and checks each against the entry the simulator wrote
# (hvsim_dtl_fill(): a pure function of (cpu, n), n counting from -v first
# "CPU:N ..." in the CPU's order), the reason names as mainline's decoder
# names them (tools/perf/util/powerpc-vpadtl.c, dispatch_reasons[] and
# preempt_reasons[]), the hardware ids -v proc "CPU:ID ...", timebases in
# order, sample times within -v t0 and t1 (s; 1 ms either way, as pmu.bats).
# Prints "cpu C entries N bad B" per CPU, sorted by the caller.
# shellcheck disable=SC2016 # awk's
DTL_CHECK='
BEGIN {
	split("external_interrupt firmware_internal_event H_PROD decrementer_interrupt system_reset firmware_internal_event conferred_cycles time_slice virtual_memory_page_fault expropriated_adjunct priv_doorbell", dr, " ")
	nf = split(first, a, " ")
	for (i = 1; i <= nf; i++) { split(a[i], b, ":"); n0[b[1]] = b[2] }
	np = split(proc, a, " ")
	for (i = 1; i <= np; i++) { split(a[i], b, ":"); pid[b[1]] = b[2] }
}
function val(l, key) {
	if (!match(l, key ": ?-?[0-9]+"))
		return "none"
	return substr(l, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0
}
function bad(why) {
	if (nbad[c]++ < 5)
		print "bad: cpu " c " entry " k ": " why
}
/timebase: [0-9]+ dispatch_reason:/ {
	if (!match($0, /\[[0-9]+\]/)) { print "no cpu: " $0; other++; next }
	c = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (!match($0, / [0-9]+\.[0-9]+: /)) { print "no time: " $0; other++; next }
	t = substr($0, RSTART + 1, RLENGTH - 3) + 0
	tb = val($0, "timebase")
	d = $0; sub(/.* dispatch_reason:/, "", d); sub(/,.*/, "", d)
	p = $0; sub(/.* preempt_reason:/, "", p); sub(/,.*/, "", p)
	if ((getline l2) <= 0) { print "cut short"; other++; exit }
	k = cnt[c]++
	if (!(c in n0)) { bad("a CPU that logged nothing"); next }
	n = n0[c] + k
	type = 2 ^ ((n + c) % 3)
	wp = type == 1 ? "H_CEDE" : type == 2 ? (n % 2 ? "time_slice" : "H_CONFER") : "virtual_memory_page_fault"
	if (d != dr[n % 11 + 1]) bad("dispatch_reason " d ", not " dr[n % 11 + 1] " (n " n ")")
	if (p != wp) bad("preempt_reason " p ", not " wp " (n " n ")")
	if (val(l2, "enqueue_to_dispatch_time") != 1000 + n % 4000) bad("enqueue_to_dispatch_time: " l2 " (n " n ")")
	if (val(l2, "ready_to_enqueue_time") != 500 + n % 1500) bad("ready_to_enqueue_time: " l2 " (n " n ")")
	if (val(l2, "waiting_to_ready_time") != n % 10000) bad("waiting_to_ready_time: " l2 " (n " n ")")
	if (val(l2, "processor_id") != pid[c]) bad("processor_id: " l2 ", not " pid[c])
	if (k && tb < last[c]) bad("timebase " tb " before " last[c])
	last[c] = tb
	if (t < t0 - 0.001 || t > t1 + 0.001) bad("time " t " s outside the capture " t0 "-" t1)
	next
}
/vpa-dtl/ { print "not decoded: " $0; other++ }
END {
	for (c in n0) printf "cpu %d entries %d bad %d\n", c, cnt[c], nbad[c]
	for (c in cnt) if (!(c in n0)) printf "cpu %d entries %d bad %d\n", c, cnt[c], nbad[c]
	if (other) printf "other %d\n", other
}'

# dtl_script NAME FIRST: perf script of dtl_record NAME's data (bounded:
# it never ended on an AUX area that held the boottb_freq record alone),
# its stderr in $script_err, checked by DTL_CHECK with FIRST ("CPU:N ...");
# the check's lines in $output, sorted
dtl_script() {
	local t out proc
	t=$(dtl_marks "$1") || return
	# the CPUs' hardware ids
	proc=$(guest 'for c in 0 1; do echo -n "$c:$(cat /sys/devices/system/cpu/cpu$c/physical_id) "; done') ||
		return
	echo "the capture: ${t% } s"
	run --separate-stderr guest "timeout 90 $PERF script -i /tmp/$1.data"
	echo "perf script: status $status, $(grep -c 'timebase: ' <<<"$output") samples; stderr:"
	echo "$stderr"
	script_err=$stderr
	[ "$status" -eq 0 ] || return
	out=$(awk -v first="$2" -v proc="$proc" -v t0="${t%% *}" -v t1="$(echo $t | cut -d' ' -f2)" "$DTL_CHECK" <<<"$output" | sort)
	output=$out
	echo "$output"
}

@test "perf 7.2 decodes vpa_dtl (mainline's command line, every CPU): every entry the simulator wrote, per CPU, within the capture" {
	local e0 e1 w0 w1 n0 n1
	e0=$(events 0)
	e1=$(events 1)
	w0=$(written 0)
	w1=$(written 1)
	# Documentation/arch/powerpc/vpa-dtl.rst: every CPU, a poll a second.
	# Bursts that fit the hypervisor's ring (84) together, whether or not
	# a poll comes between them: nothing is overwritten
	dtl_record all -a "0 1" "0 60" "1 40" "0 20"
	n0=$(written 0)
	n1=$(written 1)
	[ $((n0 - w0)) -eq 80 ]
	[ $((n1 - w1)) -eq 40 ]
	dtl_script all "0:$e0 1:$e1"
	[ "$output" = "cpu 0 entries 80 bad 0
cpu 1 entries 40 bad 0" ]
	# nothing lost, nothing to warn of
	[ -z "$script_err" ]
	# of our PMU's type, with the period asked for
	local type line
	type=$(guest cat /sys/bus/event_source/devices/vpa_dtl/type)
	run -0 guest "$PERF evlist -v -i /tmp/all.data 2>&1"
	echo "$output"
	line=$(grep '^vpa_dtl/dtl_all/:' <<<"$output")
	[[ $line == "vpa_dtl/dtl_all/: type: $type (vpa_dtl), size: "*", config: 0x7 (dtl_all), { sample_period, sample_freq }: 1000000000, "* ]]
	# every CPU's log was given back
	run -0 guest "htmtest dtl-configure /dev/vpa_dtl all 7"
	[ "$output" = ok ]
	guest "htmtest dtl-deconfigure /dev/vpa_dtl"
	assert_no_splat
}

@test "perf 7.2 decodes vpa_dtl: a burst beyond the hypervisor's ring, perf warns of the gap and decodes the 84 newest exactly" {
	local e w n
	e=$(events 0)
	w=$(written 0)
	# logged on CPU 0 with its interrupts off: one poll sees all of it,
	# and can copy only the newest 84 (the AUX record flagged PARTIAL)
	dtl_record lost "-C 0" 0 "0 500"
	n=$(written 0)
	[ $((n - w)) -eq 500 ]
	dtl_script lost "0:$((e + 500 - 84))"
	[ "$output" = "cpu 0 entries 84 bad 0" ]
	grep -q "AUX data had gaps in it" <<<"$script_err"
	assert_no_splat
}

@test "perf 7.2 decodes vpa_dtl: a CPU that logged nothing (no AUX data) and perf script ends" {
	local e0 w0 w1 n0 n1
	e0=$(events 0)
	w0=$(written 0)
	w1=$(written 1)
	dtl_record quiet -a "0 1" "0 10"
	n0=$(written 0)
	n1=$(written 1)
	[ $((n0 - w0)) -eq 10 ]
	[ $((n1 - w1)) -eq 0 ]
	# bounded: perf script never ended on a CPU whose AUX area held the
	# boottb_freq record alone (timeout's status 124)
	dtl_script quiet "0:$e0"
	[ "$output" = "cpu 0 entries 10 bad 0" ]
	[ -z "$script_err" ]
	# perf's own dump: AUX data of CPU 0 only (the boottb_freq record
	# and 10 entries, 48 bytes each), none at all of CPU 1
	run -0 guest "timeout 90 $PERF script -D -i /tmp/quiet.data > /tmp/quiet.D 2>&1 &&
		sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\) .* cpu: \([0-9-]*\)\$/cpu \2 size \1/p' /tmp/quiet.D"
	echo "$output"
	[ "$output" = "cpu 0 size 0x210" ]
	assert_no_splat
}
