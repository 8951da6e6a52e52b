#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The examples of examples/ as a user takes them: small, the project's
# header their only one, built with the host's compiler and warnings as
# errors by their own Makefile, and pointed to from the README and
# htmtrace(4); their calls in order and every error path against the fake
# devices (userspace/tests/fakehtm.c, fakedtl.c: the target given back on
# every way out, each failure named with its errno). Their run against
# the simulator, poll() waiting for the stop included, is
# tests/bats/examples.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 fakehtm htmcheck >&2
	make -s -C "$TOP/examples" O="$TOP/build/host/examples" WERROR=1 >&2
	export EX="$TOP/build/host/examples"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export FAKE_HTM_DEV=$BATS_TEST_TMPDIR/htm0 FAKE_HTM_LOG=$BATS_TEST_TMPDIR/log
	export FAKE_HTM_STATE=$BATS_TEST_TMPDIR/state
	export FAKE_DTL_DEV=/dev/vpa_dtl FAKE_DTL_LOG=$BATS_TEST_TMPDIR/log
}

# The operations the fake saw, on one line.
ops() {
	grep -v '^OPEN$' "$FAKE_HTM_LOG" | paste -s -d ' '
}

htm_read() {
	LD_PRELOAD="$TOP/build/host/fakehtm.so" "$EX/htm-read" "$@"
}

@test "examples: each well under 150 lines, only system headers and <linux/htmtrace.h>" {
	local f n
	for f in htm-read dtl-read; do
		n=$(wc -l < "$TOP/examples/$f.c")
		echo "$f.c: $n lines"
		[ "$n" -le 140 ]
		# every #include is <...>, and the only one not of the C library
		# or POSIX is the ABI
		run -0 grep '^#include' "$TOP/examples/$f.c"
		[ -z "$(grep -v '^#include <' <<<"$output")" ]
		[ "$(grep -c '<linux/' <<<"$output")" -eq 1 ]
		grep -qx '#include <linux/htmtrace.h>' <<<"$output"
	done
}

@test "examples: their Makefile builds both with -Wall -Wextra -Werror (and O=, clean)" {
	run -0 make -C "$TOP/examples" O="$BATS_TEST_TMPDIR/ex" WERROR=1
	grep -q -- '-Wall -Wextra' <<<"$output"
	grep -q -- '-Werror' <<<"$output"
	[ -x "$BATS_TEST_TMPDIR/ex/htm-read" ]
	[ -x "$BATS_TEST_TMPDIR/ex/dtl-read" ]
	# usage errors: exit 2
	run -2 --separate-stderr "$BATS_TEST_TMPDIR/ex/htm-read" /dev/null 2:0:1
	[ "$stderr" = "usage: htm-read DEVICE TYPE:NODE:CHIP:CORE FILE [LOG2_SIZE]" ]
	# a device that does not answer the ABI: the call and its errno
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/ex/htm-read" /dev/null 2:0:1:2 "$BATS_TEST_TMPDIR/out"
	[ "$stderr" = "htm-read: CONFIGURE: Inappropriate ioctl for device" ]
	run -0 make -C "$TOP/examples" O="$BATS_TEST_TMPDIR/ex" clean
	[ ! -e "$BATS_TEST_TMPDIR/ex/htm-read" ]
}

@test "examples: the README and htmtrace(4) point to both" {
	local f
	for f in htm-read.c dtl-read.c; do
		grep -q "$f" "$TOP/README.md"
		grep -q "examples/$f" "$TOP/man/htmtrace.4"
	done
	grep -q '^examples/ ' "$TOP/README.md"
	grep -q '^\.SH EXAMPLES$' "$TOP/man/htmtrace.4"
}

@test "htm-read on the fake channel: SETUP, CONFIGURE (no-wrap, wait), START, read to the end, DECONFIGURE" {
	run -0 --separate-stderr htm_read "$FAKE_HTM_DEV" 2:0:1:2 out.bin 12
	[ "$output" = "wrote 4096 bytes to out.bin" ]
	[ "$stderr" = "htm-read: tracing until stopped (htmtrace stop -d $FAKE_HTM_DEV, or Ctrl-C)" ]
	# (the fake has no poll(): its read stops the trace)
	[ "$(ops)" = "SETUP type=2 node=0 chip=1 core=2 log2=12 CONFIGURE type=2 node=0 chip=1 core=2 flags=0x3 START STOP by read READ EOF at 4096 DECONFIGURE" ]
	run -0 "$TOP/build/host/htmcheck" verify -t core -n 0 -p 1 -c 2 out.bin
	[ "${lines[-1]}" = "mismatched:    0" ]
}

@test "htm-read: each failing call named with its errno, exit 1; the target given back once configured" {
	local spec
	for spec in "setup:1:SETUP: Operation not permitted:" \
		    "configure:16:CONFIGURE: Device or resource busy:" \
		    "start:5:START: Input/output error: DECONFIGURE" \
		    "read:5:read: Input/output error: DECONFIGURE"; do
		rm -f "$FAKE_HTM_LOG" "$FAKE_HTM_STATE" out.bin
		FAKE_HTM_FAIL=${spec%%:*}:$(cut -d: -f2 <<<"$spec") \
			run -1 --separate-stderr htm_read "$FAKE_HTM_DEV" 2:0:1:2 out.bin 12
		echo "$spec: $stderr"
		[ "${stderr_lines[-1]}" = "htm-read: $(cut -d: -f3,4 <<<"$spec")" ]
		[ "$output" = "" ]
		if [ -n "$(cut -d: -f5 <<<"$spec")" ]; then
			[ "$(ops | awk '{ print $NF }')" = DECONFIGURE ]
		else
			# nothing configured, and no output file made
			[[ "$(ops)" != *DECONFIGURE* ]]
			[ ! -e out.bin ]
		fi
	done
	# an output that cannot be made: named, the target given back
	rm -f "$FAKE_HTM_LOG"
	run -1 --separate-stderr htm_read "$FAKE_HTM_DEV" 2:0:1:2 nodir/out.bin
	[ "$stderr" = "htm-read: nodir/out.bin: No such file or directory" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=1 core=2 flags=0x3 DECONFIGURE" ]
	# the channel is idle again
	[ "$(cat "$FAKE_HTM_STATE")" = "0 0 0 0 0 0" ]
}

@test "dtl-read on the fake /dev/vpa_dtl: every record printed, STOP at the end of stdin, DECONFIGURE" {
	python3 "$TOP/tests/dtlgen.py" s.bin --cpus 2 --entries 10 --lost 1:1.0:7 --offline 0:0.5:1.2
	run -0 --separate-stderr env FAKE_DTL_STREAM="$PWD/s.bin" \
		LD_PRELOAD="$TOP/build/host/fakedtl.so" "$EX/dtl-read" </dev/null
	[ "$stderr" = "dtl-read: capturing every CPU; Enter stops" ]
	[ "$output" = "clock: 512000000 ticks per second
cpu 0 joined
cpu 1 joined
1000.460868 cpu 1 dispatch H_PROD preempt H_CONFER wait 37347.242 us
cpu 0 offline
1000.876854 cpu 1 dispatch time_slice preempt time_slice wait 59119.833 us
cpu 1 lost 7 entries (overwritten)
1001.198500 cpu 1 dispatch external_interrupt preempt H_CEDE wait 11334.882 us
cpu 0 joined
1001.244954 cpu 0 dispatch time_slice preempt time_slice wait 61122.107 us
1001.451306 cpu 1 dispatch H_PROD preempt H_CONFER wait 37489.541 us
1001.689055 cpu 0 dispatch external_interrupt preempt H_CEDE wait 11054.978 us
1001.873074 cpu 1 dispatch time_slice preempt time_slice wait 78989.380 us
1002.019819 cpu 0 dispatch H_PROD preempt H_CONFER wait 35683.488 us" ]
	[ "$(grep -v '^OPEN$' "$FAKE_DTL_LOG" | paste -s -d ' ')" = "CONFIGURE cpus=[] cpus_size=0 mask=0x7 ring_kb=0 flags=0x0 reserved=0,0 START READ 592 STOP READ EOF at 592 DECONFIGURE" ]
	# a failing call: named with its errno, exit 1
	FAKE_DTL_FAIL=configure:16 run -1 --separate-stderr env FAKE_DTL_STREAM="$PWD/s.bin" \
		LD_PRELOAD="$TOP/build/host/fakedtl.so" "$EX/dtl-read" </dev/null
	[ "$stderr" = "dtl-read: CONFIGURE: Device or resource busy" ]
	FAKE_DTL_FAIL=read:5 run -1 --separate-stderr env FAKE_DTL_STREAM="$PWD/s.bin" \
		LD_PRELOAD="$TOP/build/host/fakedtl.so" "$EX/dtl-read" </dev/null
	[ "${stderr_lines[-1]}" = "dtl-read: read: Input/output error" ]
}
