#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# htmtrace dtl top in the QEMU pseries guest, against /dev/vpa_dtl and the
# simulator's dispatch trace log (module/hvsim/README.md, "Dispatch trace
# log"): at dtl_rate events a second on each online CPU (under TCG a
# little fewer: its own count, dtl_cpus, says how many), event n of a CPU
# is a cede, a preempt or a fault in turn, so dispatches come at that rate
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
	# The simulator's own count of the events it logged on each CPU
	# (dtl_cpus), before and after, with the uptime: under TCG its timer
	# may log fewer than dtl_rate a second, and what it did log is the
	# rate dtl top must show.
	run -0 guest "echo $RATE > $HVSIM/dtl_rate && cat $HVSIM/dtl_cpus /proc/uptime &&
		htmtrace dtl top -C 0-1 -i 1 -n 4 --json && cat $HVSIM/dtl_cpus /proc/uptime"
	echo "$output"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/top.out"
	run -0 python3 - "$RATE" "$BATS_TEST_TMPDIR/top.out" <<-'EOF'
	import json, re, sys
	rate = float(sys.argv[1])
	lines = open(sys.argv[2]).read().splitlines()
	reports = [json.loads(l) for l in lines if l.startswith("{")]
	assert len(reports) == 4, reports
	assert all(r["tb_freq"] == 512000000 for r in reports)
	events, uptime = [], []
	for l in lines:
	    m = re.match(r"cpu (\d+) .*\bevents (\d+)", l)
	    if m:
	        if int(m.group(1)) == 0:
	            events.append({})
	        events[-1][int(m.group(1))] = int(m.group(2))
	    elif re.match(r"^[0-9.]+ [0-9.]+$", l):
	        uptime.append(float(l.split()[0]))
	assert len(events) == 2 and len(uptime) == 2, (events, uptime)
	for cpu in (0, 1):
	    sim = (events[1][cpu] - events[0][cpu]) / (uptime[1] - uptime[0])
	    print("cpu", cpu, "simulator", round(sim, 1), "a second; dtl_rate", rate)
	    # The simulator is near its rate (a sanity check, not the test).
	    assert 0.6 * rate <= sim <= 1.1 * rate, sim
	    # Every interval but the first (it holds the start).
	    for r in reports[1:]:
	        c = {c["cpu"]: c for c in r["cpus"]}[cpu]
	        assert sorted(x["cpu"] for x in r["cpus"]) == [0, 1], r
	        def near(key, want):
	            assert abs(c[key] - want) <= 0.1 * want, (key, c[key], want)
	        near("dispatches_per_s", sim)
	        near("cedes_per_s", sim / 3)
	        near("preempts_per_s", sim / 3)
	        near("faults_per_s", sim / 3)
	        assert 1.95 <= c["dispatch_wait_mean_us"] <= 9.77, c
	        assert 1.95 <= c["dispatch_wait_max_us"] <= 9.77, c
	        # At most 4999 + 1999 + 9999 ticks (33.2 us) an entry.
	        assert 0 < c["not_dispatched"] <= c["dispatches_per_s"] * 33.2e-6, c
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
	# Where tests/guest.py writes the console.
	local log=$HTM_TOP/build/$HTM_VARIANT/logs/$HTM_GUEST.console.log before
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
