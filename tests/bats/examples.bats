#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The two examples of examples/ (htm-read, dtl-read: what a user copies
# into a collector of their own), built as tests/guest-tools.sh builds them
# (ppc64le, -Wall -Wextra -Werror) and run in the QEMU pseries guest
# against the simulator, their output checked exactly: the HTM trace
# byte for byte by htmcheck verify, every DTL entry of the simulator's
# bursts by its CPU and reasons (module/hvsim/hvsim_record.h: event n of
# CPU c is a cede, preempt or fault as 1 << ((n + c) % 3), dispatch
# reason n % 11, enqueue-to-dispatch wait 1000 + n % 4000 ticks).
# make check runs this file on the 7.2 guest only: the examples take the
# driver paths htm.bats and dtl.bats take in every lane.

load helpers

HVSIM=/sys/kernel/debug/htmtrace_hvsim
TARGET='-t core -n 0 -p 1 -c 2'
IDLE='state 0 flags 0 size 0'
# A guest shell snippet: wait (bounded) until /dev/htm0 traces.
TRACING="i=0; until case \$(htmtest status /dev/htm0) in 'state 2 '*) true ;; *) false ;; esac; do
		i=\$((i + 1)); [ \$i -lt 400 ] || { echo 'never traced' >&2; exit 1; }; nap 0.05; done"

setup() {
	requires module htmtrace_hvsim
	requires guest-path /usr/bin/htm-read
	guest_mark "$(sim_load 'log2_size=18 rate=0' bounce_kb=64)"
}

teardown() {
	guest "rm -f /tmp/ex.*; $HTM_UNLOAD_ALL"
}

# verified RECORDS: htmcheck verify's report of /tmp/ex.bin, a dump of a
# 64 KiB buffer (htm-read's SETUP) that holds RECORDS of core 2, chip 1.
verified() {
	run guest htmcheck verify $TARGET /tmp/ex.bin
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "file:          /tmp/ex.bin
records:       512 of 128 bytes
target:        core node 0 chip 1 core 2
written:       $1
wrapped:       no
records valid: $1
zero-filled:   $((512 - $1))
mismatched:    0" ]
}

@test "htm-read: SETUP, CONFIGURE, START, poll() until htmtrace stop, read: the trace byte for byte; the target given back" {
	run guest "htm-read /dev/htm0 2:0:1:2 /tmp/ex.bin 16 >/tmp/ex.out 2>/tmp/ex.err & pid=\$!
		$TRACING
		htmtest status /dev/htm0
		echo 300 > $HVSIM/advance
		htmtrace stop -d 0 >/dev/null || exit 1
		wait \$pid; echo rc=\$?; cat /tmp/ex.out /tmp/ex.err; htmtest status /dev/htm0"
	echo "$output"
	[ "$status" -eq 0 ]
	# SETUP sized the buffer (2^16), CONFIGURE asked for no-wrap and wait
	[ "$output" = "state 2 flags 3 size 65536
rc=0
wrote 65536 bytes to /tmp/ex.bin
htm-read: tracing until stopped (htmtrace stop -d /dev/htm0, or Ctrl-C)
$IDLE" ]
	verified 300
	assert_no_splat
}

@test "htm-read: Ctrl-C sends the STOP, the trace is read; a held target: CONFIGURE's errno, exit 1" {
	run guest "htm-read /dev/htm0 2:0:1:2 /tmp/ex.bin 16 >/tmp/ex.out 2>/dev/null & pid=\$!
		$TRACING
		echo 100 > $HVSIM/advance
		kill -INT \$pid; wait \$pid; echo rc=\$?; cat /tmp/ex.out; htmtest status /dev/htm0"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "rc=0
wrote 65536 bytes to /tmp/ex.bin
$IDLE" ]
	verified 100
	# another channel holds the target: the error names the call and errno
	guest htmtrace configure -d 1 $TARGET
	run --separate-stderr guest htm-read /dev/htm0 2:0:1:2 /tmp/ex.bin
	[ "$status" -eq 1 ]
	[ "$stderr" = "htm-read: CONFIGURE: Device or resource busy" ]
	[ -z "$output" ]
	run -2 guest htm-read /dev/htm0 2:0:1 /tmp/ex.bin
	run -1 --separate-stderr guest htm-read /dev/htm9 2:0:1:2 /tmp/ex.bin
	[ "$stderr" = "htm-read: /dev/htm9: No such file or directory" ]
}

# entries CPU FROM COUNT TBFREQ: the lines dtl-read prints (without the
# time) for the simulator's events FROM..FROM+COUNT-1 of CPU, every event
# logged (mask 7)
entries() {
	local n type p w ns
	local d=(external_interrupt firmware_internal_event H_PROD decrementer_interrupt
		system_reset firmware_internal_event conferred_cycles time_slice
		virtual_memory_page_fault expropriated_adjunct priv_doorbell)
	for ((n = $2; n < $2 + $3; n++)); do
		type=$((1 << ((n + $1) % 3)))
		case $type in
		1) p=H_CEDE ;;
		2) if ((n & 1)); then p=time_slice; else p=H_CONFER; fi ;;
		4) p=virtual_memory_page_fault ;;
		esac
		w=$((1000 + n % 4000))
		ns=$((w * 1000000000 / $4))
		printf 'cpu %s dispatch %s preempt %s wait %d.%03d us\n' "$1" "${d[n % 11]}" "$p" \
			$((ns / 1000)) $((ns % 1000))
	done
}

# written CPU: events the simulator logged on CPU so far
written() {
	guest_number "sed -n 's/^cpu $1 .* written \([0-9]*\) .*/\1/p' $HVSIM/dtl_cpus"
}

@test "dtl-read: poll() and read() print every entry of the bursts with its CPU and reasons; EOF on stdin stops; released" {
	local w0 w1 tbf c out
	w0=$(written 0)
	w1=$(written 1)
	# stdin is a pipe that ends after the bursts: dtl-read stops, reads
	# the rest and exits
	run guest "rm -f /tmp/ex.err
		{ i=0; until grep -q capturing /tmp/ex.err 2>/dev/null; do
			i=\$((i + 1)); [ \$i -lt 400 ] || exit 1; nap 0.05; done
		  echo '0 60' > $HVSIM/dtl_burst; echo '1 40' > $HVSIM/dtl_burst; } |
		dtl-read >/tmp/ex.out 2>/tmp/ex.err; echo rc=\$?; cat /tmp/ex.err"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "rc=0
dtl-read: capturing every CPU; Enter stops" ]
	out=$(guest cat /tmp/ex.out)
	echo "$out"
	[ "$(head -n 1 <<<"$out")" = "clock: 512000000 ticks per second" ]
	tbf=512000000
	[ "$(written 0)" -eq $((w0 + 60)) ]
	[ "$(written 1)" -eq $((w1 + 40)) ]
	for c in 0 1; do
		local n=60 w=$w0
		[ "$c" -eq 0 ] || n=40 w=$w1
		# this CPU's records in order, the time taken off the entries
		[ "$(grep -E "^(cpu $c |[0-9]+\.[0-9]{6} cpu $c )" <<<"$out" | sed -E 's/^[0-9]+\.[0-9]{6} //')" = "cpu $c joined
$(entries $c "$w" $n $tbf)" ]
		# and their times never go back
		sort -c -s -n -k1,1 <<<"$(grep -E "^[0-9]+\.[0-9]{6} cpu $c " <<<"$out")"
	done
	# nothing else: the clock, two joined, 100 entries
	[ "$(wc -l <<<"$out")" -eq 103 ]
	# the session ended with DECONFIGURE
	run guest htmtest dtl-stats /dev/vpa_dtl
	[ "$output" = ENODATA ]
	assert_no_splat
}
