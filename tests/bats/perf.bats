#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The htm and vpa_dtl PMUs seen by a perf client no one here wrote: Debian's
# own perf (linux-perf 6.1, ppc64el) with the libraries it loads, unpacked by
# tests/deps.sh --perf and mounted at /host in the guest. It knows nothing of
# these PMUs but what sysfs says: the events it lists and the config it
# builds from our format strings are the ABI a user's perf sees.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
# perf and its libraries, copied from /host to the guest's tmpfs (loaded
# over 9p, each run of perf took 8 s under TCG; from tmpfs, 1.2 s)
PERF="/tmp/perf/ld64.so.2 --library-path /tmp/perf /tmp/perf/perf"

setup_file() {
	# make check shares the folder with its guest; alone, this file does
	if [ -z "${HTMTRACE_GUEST:-}" ] && [ -z "${GUEST_SHARE:-}" ]; then
		GUEST_SHARE=$("$HTM_TOP/tests/deps.sh" --perf) || return
	fi
	htm_setup_file || return
	guest "[ -f /host/guest/.done ] ||
		{ echo 'no Debian perf at /host: boot the guest with --share \$(tests/deps.sh --perf)'; exit 1; }
	rm -rf /tmp/perf && cp -r /host/guest /tmp/perf"
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
perf_attr() {
	sed -n "s/^  $1 \+\([0-9a-fx]*\)\$/\1/p" <<<"$output" | head -n 1
}

@test "perf builds config from our format strings; a counting event is refused with EOPNOTSUPP" {
	# perf stat asks for counting events: event_init refuses them
	run -0 guest "$PERF stat -vv -C 0 \
		-e htm/htm_core,nodeindex=3,nodalchipindex=0x2a,coreindexonchip=255/ \
		-- true 2>&1"
	echo "$output"
	[ "$(perf_attr type)" = "$(guest cat /sys/bus/event_source/devices/htm/type)" ]
	[ "$(perf_attr config)" = 0xff2a032 ]
	grep -q "sys_perf_event_open failed, error -95" <<<"$output"
	grep -q "<not supported>.*htm/htm_core,nodeindex=3,nodalchipindex=0x2a,coreindexonchip=255/" <<<"$output"

	run -0 guest "$PERF stat -vv -C 0 -e vpa_dtl/dtl_preempt/ -- true 2>&1"
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

@test "perf record: an htm event configured, traced and given back by perf; inherit refused with EOPNOTSUPP" {
	guest "echo 1 > $HVSIM/reset && echo 1000000 > $HVSIM/rate"
	# perf record asks for inherit unless -i: refused with the HTM PMU
	# proposal's errno, as documented (a CPU-wide trace has no children)
	run guest "$PERF record -c 1 -C 0 -o /tmp/record.data \
		-e htm/htm_core,coreindexonchip=1/ -- true 2>&1"
	echo "$output"
	[ "$status" -eq 255 ]
	# perf 6.1's words for EOPNOTSUPP from a sampling event's open
	grep -q "htm/htm_core,coreindexonchip=1/: PMU Hardware doesn't support sampling/overflow-interrupts" <<<"$output"
	run -0 ops
	[ "$output" = "" ]

	run -0 guest "$PERF record -i -c 1 -C 0 -o /tmp/record.data \
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

@test "perf record: a vpa_dtl event takes CPU 1's log and gives it back; inherit and frequency mode taken" {
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
	# perf's defaults: inherit, and frequency mode (4000 Hz: mainline's
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

@test "perf record: mainline's documented command line records (perf 6.1 cannot decode vpa_dtl; it records)" {
	# Documentation/arch/powerpc/vpa-dtl.rst: every CPU, a poll a second
	run -0 guest "echo '0 30' > $HVSIM/dtl_burst &&
		$PERF record -a -e vpa_dtl/dtl_all/ -c 1000000000 -o /tmp/all.data -- sleep 1 2>&1"
	echo "$output"
	grep -q "perf record: Captured and wrote" <<<"$output"
	# of our PMU's type, with the period asked for, inherit as perf asks
	local type line
	type=$(guest cat /sys/bus/event_source/devices/vpa_dtl/type)
	run -0 guest "$PERF evlist -v -i /tmp/all.data 2>&1"
	echo "$output"
	line=$(grep '^vpa_dtl/dtl_all/:' <<<"$output")
	[[ $line == "vpa_dtl/dtl_all/: type: $type, size: "*", config: 0x7, { sample_period, sample_freq }: 1000000000, "*", inherit: 1"* ]]
	# every CPU's log was given back
	run -0 guest "htmtest dtl-configure /dev/vpa_dtl all 7"
	[ "$output" = ok ]
	guest "htmtest dtl-deconfigure /dev/vpa_dtl"
	assert_no_splat
}
