#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# htmtrace dtl top in the QEMU pseries guest, against /dev/vpa_dtl and the
# simulator's dispatch trace log (module/hvsim/README.md, "Dispatch trace
# log"): at dtl_rate events a second on each online CPU, event n of a CPU
# is a cede, a preempt or a fault in turn, so dispatches come at the rate
# and cedes, preempts and faults at a third of it each; enqueue_to_dispatch
# is 1000 to 4999 ticks of the 512 MHz timebase (1.95 to 9.77 us). dtl top
# must show those rates within 10%; as text when its output is a file, with
# the screen redrawn when it is a terminal (the console, /dev/hvc0: the host
# reads it in the console log); a signal ends it with the device
# deconfigured. And a capture of the simulator drawn by dtl report --format
# svg has the entries dtl report counts.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
RATE=200

setup() {
	requires module htmtrace_hvsim
	requires tool
	guest_mark
}

teardown() {
	guest "echo 0 > $HVSIM/dtl_rate 2>/dev/null; rm -f /tmp/top.* /tmp/d.*
		$HTM_UNLOAD_ALL"
}

load_sim() {
	guest htmtrace load --sim hvsim.rate=0 >/dev/null
}

# The device is free again: no session to report counters of.
assert_released() {
	run guest htmtest dtl-stats /dev/vpa_dtl
	echo "$output"
	[ "$output" = ENODATA ]
}

@test "dtl top --json: the simulator's rates within 10%, its waits, no loss" {
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate && htmtrace dtl top -C 0-1 -i 1 -n 4 --json"
	echo "$output"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/top.json"
	run -0 python3 - "$RATE" "$BATS_TEST_TMPDIR/top.json" <<-'EOF'
	import json, sys
	rate = float(sys.argv[1])
	reports = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
	assert len(reports) == 4, reports
	assert all(r["tb_freq"] == 512000000 for r in reports)
	# The first interval holds the start: judge the other three.
	for r in reports[1:]:
	    cpus = {c["cpu"]: c for c in r["cpus"]}
	    assert sorted(cpus) == [0, 1], cpus
	    for c in cpus.values():
	        def near(key, want):
	            assert abs(c[key] - want) <= 0.1 * want, (key, c[key], want)
	        near("dispatches_per_s", rate)
	        near("cedes_per_s", rate / 3)
	        near("preempts_per_s", rate / 3)
	        near("faults_per_s", rate / 3)
	        assert 1.95 <= c["dispatch_wait_mean_us"] <= 9.77, c
	        assert 1.95 <= c["dispatch_wait_max_us"] <= 9.77, c
	        # At most 4999 + 1999 + 9999 ticks (33.2 us) an entry.
	        assert 0 < c["not_dispatched"] <= rate * 33.2e-6 * 1.1, c
	        assert c["lost"] == 0, c
	        assert not c["offline"], c
	EOF
	echo "$output"
	assert_released
	assert_no_splat
}

@test "dtl top not on a terminal: a block per interval; SIGINT ends it, deconfigured, exit 0" {
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate
		htmtrace dtl top -i 0.5 >/tmp/top.out 2>/tmp/top.err & pid=\$!
		sleep 2.2; kill -INT \$pid; wait \$pid; echo rc=\$?
		cat /tmp/top.out; cat /tmp/top.err"
	echo "$output"
	[ "${lines[0]}" = rc=0 ]
	n=$(grep -c '^ *cpu  *disp/s  *preempt/s  *cede/s  *fault/s  *notdisp%  *wait_avg_us  *wait_max_us  *lost$' <<<"$output")
	[ "$n" -ge 3 ]
	# Both CPUs of the guest, a line each in every block.
	[ "$(grep -cE '^ +[01] +[0-9]' <<<"$output")" -eq $((2 * n)) ]
	[[ $output != *$'\e'* ]]
	assert_released
	assert_no_splat
}

@test "dtl top on a terminal (the console): the screen redrawn; SIGINT ends it, deconfigured" {
	local log=$HTM_BUILD/logs/$HTM_GUEST.console.log before
	[ -f "$log" ]
	before=$(stat -c %s "$log")
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate
		htmtrace dtl top -C 0 -i 0.5 >/dev/hvc0 2>/tmp/top.err & pid=\$!
		sleep 2.2; kill -INT \$pid; wait \$pid; echo rc=\$?; cat /tmp/top.err"
	echo "$output"
	[ "$output" = rc=0 ]
	sleep 0.5
	run -0 python3 - "$log" "$before" <<-'EOF'
	import sys
	data = open(sys.argv[1], "rb").read()[int(sys.argv[2]):]
	n = data.count(b"\x1b[H\x1b[2J")
	print("redrawn", n, "times")
	assert n >= 3, data[-2000:]
	assert b"(Ctrl-C ends)" in data, data[-2000:]
	assert b"wait_max_us" in data
	EOF
	echo "$output"
	assert_released
	assert_no_splat
}

@test "dtl report --format svg of a capture of the simulator: a lane per CPU with dtl report's entries" {
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate && htmtrace dtl record -o /tmp/d.bin --duration 2 >/dev/null &&
		echo 0 > $HVSIM/dtl_rate && htmtrace dtl report /tmp/d.bin --format svg -o /tmp/d.svg &&
		htmtrace dtl report /tmp/d.bin | grep -E '^[01] ' ; grep -o '<g class=\"lane\" data-cpu=\"[0-9]*\" data-y=\"[0-9]*\" data-entries=\"[0-9]*\"' /tmp/d.svg; grep -c '<script' /tmp/d.svg || true"
	echo "$output"
	e0=$(awk '$1 == 0 { print $2 }' <<<"$output")
	e1=$(awk '$1 == 1 { print $2 }' <<<"$output")
	[ "$e0" -gt $((RATE * 3 / 2)) ]
	grep -q "data-cpu=\"0\" data-y=\"[0-9]*\" data-entries=\"$e0\"" <<<"$output"
	grep -q "data-cpu=\"1\" data-y=\"[0-9]*\" data-entries=\"$e1\"" <<<"$output"
	[ "$(grep -c '<g class="lane"' <<<"$output")" -eq 2 ]
	[ "${lines[-1]}" = 0 ]
	assert_released
	assert_no_splat
}
