#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# htmtrace dtl top in the QEMU pseries guest, against /dev/vpa_dtl and the
# simulator's dispatch trace log (module/hvsim/README.md, "Dispatch trace
# log"). Event n of a CPU is a cede, a preempt or a fault in turn, with an
# enqueue_to_dispatch of 1000 to 4999 ticks of the 512 MHz timebase (1.95
# to 9.77 us). dtl top must count every entry of the simulator's bursts
# once, in the interval that read it, as a rate of that interval, with the
# waits in range; as text when its output is a file, with the screen
# redrawn when it is a terminal (the console, /dev/hvc0: the host reads it
# in the console log); a signal ends it with the device deconfigured. And a
# capture of the simulator drawn by dtl report --format svg has the entries
# dtl report counts. Nothing here compares a rate with the clock: under TCG
# the simulator's timer drifts, and CI machines are shared.

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

@test "dtl top --json: every entry of the simulator's bursts counted once, as a rate of its interval" {
	load_sim
	# Bursts, not the timer: under TCG the timer's rate drifts, and a
	# rate read off a drifting source can only be compared loosely. The
	# bursts come after the first report and end two reports before
	# SIGINT, so every entry is in some report (each flushes the logs),
	# as an entry or as a loss; 60 and 30 are whole cede, preempt, fault
	# cycles.
	run -0 guest "htmtrace dtl top -C 0-1 -i 0.5 --json >/tmp/top.out 2>/tmp/top.err & pid=\$!
		reports() { grep -c '^{' /tmp/top.out; }
		wait_reports() {
			i=0
			until [ \$(reports) -ge \$1 ]; do
				i=\$((i + 1)); [ \$i -lt 600 ] || { echo no report; exit 9; }
				nap 0.1
			done
		}
		wait_reports 1
		for b in 1 2 3 4 5; do
			echo '0 60' > $HVSIM/dtl_burst && echo '1 30' > $HVSIM/dtl_burst || exit 8
			nap 0.2
		done
		wait_reports \$((\$(reports) + 2))
		kill -INT \$pid; wait \$pid; echo rc=\$?
		cat /tmp/top.out /tmp/top.err"
	echo "$output"
	[ "${lines[0]}" = rc=0 ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/top.out"
	run -0 "$HTM_PYTHON" - "$BATS_TEST_TMPDIR/top.out" <<-'EOF'
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	reports = [json.loads(l) for l in lines if l.startswith("{")]
	assert len(reports) >= 3, reports
	want = {0: 300, 1: 150}
	got = {cpu: dict(dispatches=0, cedes=0, preempts=0, faults=0, lost=0)
	       for cpu in want}
	def count(c, key, secs):
	    # A rate is a whole count over the interval (printed to 3 places).
	    n = round(c[key] * secs)
	    assert abs(c[key] * secs - n) < 0.01, (key, c, secs)
	    return n
	for r in reports:
	    secs = r["interval_s"]
	    assert r["tb_freq"] == 512000000, r
	    assert secs > 0, r
	    assert sorted(c["cpu"] for c in r["cpus"]) == [0, 1], r
	    for c in r["cpus"]:
	        n = c["dispatches"]
	        assert count(c, "dispatches_per_s", secs) == n, (c, secs)
	        kinds = {k: count(c, k + "_per_s", secs)
	                 for k in ("cedes", "preempts", "faults")}
	        assert sum(kinds.values()) == n, (kinds, c)
	        if n:
	            # enqueue_to_dispatch is 1000 to 4999 ticks (1.95 to 9.77 us).
	            assert 1.95 <= c["dispatch_wait_mean_us"] <= 9.77, c
	            assert 1.95 <= c["dispatch_wait_max_us"] <= 9.77, c
	            # At most 4999 + 1999 + 9999 ticks (33.2 us) an entry.
	            assert 0 < c["not_dispatched"] <= n * 33.2e-6 / secs, c
	        else:
	            assert c["not_dispatched"] == 0, c
	        assert not c["offline"], c
	        g = got[c["cpu"]]
	        g["dispatches"] += n
	        g["lost"] += c["lost"]
	        for k, v in kinds.items():
	            g[k] += v
	for cpu, total in want.items():
	    g = got[cpu]
	    print("cpu", cpu, g)
	    # Every entry once: read, or counted lost.
	    assert g["dispatches"] + g["lost"] == total, (cpu, g)
	    if not g["lost"]:
	        assert g["cedes"] == g["preempts"] == g["faults"] == total // 3, g
	EOF
	echo "$output"
	assert_released
	assert_no_splat
}

@test "dtl top not on a terminal: a block per interval; SIGINT ends it, deconfigured, exit 0" {
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate
		htmtrace dtl top -i 0.5 >/tmp/top.out 2>/tmp/top.err & pid=\$!
		i=0
		until [ \$(grep -c '^ *cpu  *disp/s' /tmp/top.out) -ge 3 ]; do
			i=\$((i + 1)); [ \$i -lt 600 ] || break
			nap 0.1
		done
		kill -INT \$pid; wait \$pid; echo rc=\$?
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
	# top runs on in the guest while the host watches the console; its
	# status lands in /tmp/top.rc
	guest "echo $RATE > $HVSIM/dtl_rate && rm -f /tmp/top.rc /tmp/top.pid &&
		sh -c 'htmtrace dtl top -C 0 -i 0.5 >/dev/hvc0 2>/tmp/top.err & echo \$! > /tmp/top.pid
			wait \$!; echo rc=\$? > /tmp/top.rc' >/dev/null 2>&1 &"
	# Two screens drawn, waited for in the console log (bounded: the
	# bound is a deadline only), not counted over a time a slow guest
	# draws fewer screens in.
	run -0 "$HTM_PYTHON" - "$log" "$before" <<-'EOF'
	import sys, time
	for _ in range(1200):
	    data = open(sys.argv[1], "rb").read()[int(sys.argv[2]):]
	    n = data.count(b"\x1b[H\x1b[2J")
	    if n >= 2:
	        break
	    time.sleep(0.1)
	print("redrawn", n, "times")
	assert n >= 2, data[-2000:]
	assert b"(Ctrl-C ends)" in data, data[-2000:]
	assert b"wait_max_us" in data
	EOF
	echo "$output"
	run -0 guest "kill -INT \$(cat /tmp/top.pid) || exit 1
		i=0
		until [ -e /tmp/top.rc ]; do
			i=\$((i + 1)); [ \$i -lt 600 ] || exit 1
			nap 0.1
		done
		cat /tmp/top.rc /tmp/top.err"
	echo "$output"
	[ "$output" = rc=0 ]
	assert_released
	assert_no_splat
}

@test "dtl report --format svg of a capture of the simulator: a lane per CPU with dtl report's entries" {
	load_sim
	run -0 guest "echo $RATE > $HVSIM/dtl_rate && htmtrace dtl record -o /tmp/d.bin --duration 2 >/dev/null &&
		echo 0 > $HVSIM/dtl_rate && htmtrace dtl report /tmp/d.bin --format svg -o /tmp/d.svg &&
		htmtrace dtl report /tmp/d.bin > /tmp/d.txt || exit 1; grep -E '^[01] ' /tmp/d.txt; grep -o '<g class=\"lane\" data-cpu=\"[0-9]*\" data-y=\"[0-9]*\" data-entries=\"[0-9]*\"' /tmp/d.svg; grep -c '<script' /tmp/d.svg || true"
	echo "$output"
	e0=$(awk '$1 == 0 { print $2 }' <<<"$output")
	e1=$(awk '$1 == 1 { print $2 }' <<<"$output")
	[ "$e0" -gt 0 ]
	[ "$e1" -gt 0 ]
	grep -q "data-cpu=\"0\" data-y=\"[0-9]*\" data-entries=\"$e0\"" <<<"$output"
	grep -q "data-cpu=\"1\" data-y=\"[0-9]*\" data-entries=\"$e1\"" <<<"$output"
	[ "$(grep -c '<g class="lane"' <<<"$output")" -eq 2 ]
	[ "${lines[-1]}" = 0 ]
	assert_released
	assert_no_splat
}
