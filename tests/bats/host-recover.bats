#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of what htmtrace does when a dump cannot finish, against the
# fake /dev/htmN and /dev/vpa_dtl (userspace/tests/fakehtm.c, fakedtl.c):
# a full disk (a file size limit, RLIMIT_FSIZE, everywhere; a small tmpfs
# where this user may mount one), a read error, Ctrl-C. A trace that was
# taken is never destroyed: the file keeps what was written, the HTM
# channel stays configured and stopped, and the commands printed to finish
# the job give the file byte for byte. Also the traces that end before
# their buffer (the hypervisor says where the data ends), an unknown
# buffer size, and a stop the hypervisor refuses.

bats_require_minimum_version 1.5.0
load dtlfile

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# Debian's interpreter: a python3 shim (pyenv, ...) costs 0.2 s a call.
	PY=python3
	[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
	export TOP PY
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 all fakehtm htmcheck >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export FAKEHTM="$TOP/build/host/fakehtm.so"
	export FAKEDTL="$TOP/build/host/fakedtl.so"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export DEV=$BATS_TEST_TMPDIR/htm0
	export FAKE_HTM_DEV=$DEV
	export FAKE_HTM_LOG=$BATS_TEST_TMPDIR/log
	export FAKE_HTM_STATE=$BATS_TEST_TMPDIR/state
	export DTLDEV=$BATS_TEST_TMPDIR/vpa_dtl
	export FAKE_DTL_DEV=$DTLDEV
	export FAKE_DTL_LOG=$BATS_TEST_TMPDIR/dtllog
	export FAKE_DTL_STREAM=$BATS_TEST_TMPDIR/served.bin
	export FAKE_LPARCFG=
}

TRACE=htm.bin.n0.p2.c5.t2
XLATE=translation.n0.p2.c5.t2
TARGET=(-t core -n 0 -p 2 -c 5)
CONFIGURED_STOPPED="3 1 2 0 2 5"
IDLE="0 0 0 0 0 0"

fhtm() {
	LD_PRELOAD=$FAKEHTM "$HTMTRACE" "$@"
}

htm() {
	"$HTMTRACE" "$@"
}

# The test helper that checks and generates the simulator's records.
hcheck() {
	"$TOP/build/host/htmcheck" "$@"
}

# htmtrace against the fakes, with files of at most $1 KiB (ulimit -f):
# a write past it fails with EFBIG, as a full disk fails with ENOSPC.
limited() {
	local kb=$1
	shift
	(
		ulimit -f "$kb"
		LD_PRELOAD=$FAKEHTM:$FAKEDTL exec "$HTMTRACE" "$@"
	)
}

ops() {
	grep -v '^OPEN$' "$FAKE_HTM_LOG" | paste -s -d ' '
}

# What the fake's trace holds: $1 = log2 of its size, $2 = records written.
expected_trace() {
	hcheck simgen "${TARGET[@]}" --log2 "$1" --written "$2" -o want.bin
}

# Run the commands the last `run --separate-stderr` printed to finish the
# job (the lines of its standard error that start with "  htmtrace "), as
# a user pastes them into a shell, against the fake; each must succeed.
resume() {
	local cmd
	grep '^  htmtrace ' <<<"$stderr" >resume.sh
	[ -s resume.sh ]
	while IFS= read -r cmd; do
		eval "LD_PRELOAD=\$FAKEHTM \"\$HTMTRACE\" ${cmd#  htmtrace }" >&2 ||
			{ echo "failed: $cmd" >&2; return 1; }
	done <resume.sh
}

# Start htmtrace against the fakes in the background, out.txt and err.txt.
start_bg() {
	LD_PRELOAD=$FAKEHTM:$FAKEDTL "$HTMTRACE" "$@" >out.txt 2>err.txt &
	BG=$!
}

# Wait until file $1 holds at least $2 bytes (at most 10 s).
wait_size() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.05
	done
	echo "$1 never reached $2 bytes" >&2
	return 1
}

# Wait until file $1 has a line $2 (at most 10 s).
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -qx -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "$1 never had a line $2" >&2
	return 1
}

# Send SIGINT to the background job $BG and wait for it: its exit status
# in RC, the milliseconds it took to end in MS.
interrupt_bg() {
	local t0
	t0=$(date +%s%N)
	kill -INT "$BG"
	RC=0
	wait "$BG" || RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
}

# Run bash script $2 in a mount namespace of its own, in a tmpfs of $1
# mounted on small/, where it starts; a function "grow" there gives the
# tmpfs room (1 MiB) and "finish" runs the commands err.txt printed to
# finish the job. Not root: in a user namespace of its own, where it may
# mount (unshare -r). Skips where neither can be had.
in_small_tmpfs() {
	local ns=(-m)
	[ "$(id -u)" -eq 0 ] || ns=(-r -m)
	unshare "${ns[@]}" mount -t tmpfs tmpfs /mnt 2>/dev/null ||
		skip "cannot mount a tmpfs here (unshare ${ns[*]})"
	mkdir -p small
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare "${ns[@]}" bash -c '
		set -u
		mount -t tmpfs -o size="$1" tmpfs small || exit 99
		cd small || exit 99
		grow() { mount -o remount,size=1m tmpfs . || echo "remount failed"; }
		finish() {
			local cmd
			grep "^  htmtrace " ../err.txt | sed "s/^  htmtrace //" >../finish.sh
			while IFS= read -r cmd; do
				eval "LD_PRELOAD=\$FAKEHTM \"\$HTMTRACE\" $cmd" >&2 ||
					echo "failed: $cmd"
			done <../finish.sh
		}
		eval "$2"' bash "$1" "$2"
}

# --- a full disk ----------------------------------------------------------------

@test "record: a full disk mid-dump: exit 1, what was written kept, the channel configured and stopped, the printed commands finish it byte for byte" {
	run -1 --separate-stderr limited 2 record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${lines[0]}" = "traced core node 0 chip 2 core 5 on $DEV" ]
	[ "${lines[1]}" = "traced for 0 s" ]
	[ "${#lines[@]}" -eq 2 ]
	local want=(
		"htmtrace record: write $TRACE: File too large"
		"htmtrace record: kept 2048 bytes of a buffer of 4096 in $TRACE: the dump is incomplete"
		"htmtrace record: $DEV still holds the whole trace, left configured and stopped; to finish once there is room, then release the channel:"
		"  htmtrace dump -d $DEV --offset 2048 -o $TRACE"
		"  htmtrace sysmem -d $DEV -o $XLATE"
		"  htmtrace deconfigure -d $DEV"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$stderr" ] || {
		diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "$stderr")
		false
	}
	# No deconfigure: the hypervisor still holds the trace.
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP STATUS state=3" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$CONFIGURED_STOPPED" ]
	[ "$(stat -c %s "$TRACE")" -eq 2048 ]
	[ ! -e "$XLATE" ]
	# What was kept is right, as far as it goes.
	run -0 hcheck verify --buffer-size 4096 "$TRACE"
	# Room again: the three commands, as printed.
	resume
	expected_trace 12 40
	cmp want.bin "$TRACE"
	[ "$(stat -c %s "$XLATE")" -eq 128 ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$IDLE" ]
}

@test "record: a full disk within a read, at an odd offset: every byte written is kept and resumed after" {
	# 1000-byte reads: the limit falls inside the third.
	export FAKE_HTM_LOG2=16 FAKE_HTM_WRITTEN=300
	run -1 --separate-stderr limited 3 record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${stderr_lines[1]}" = "htmtrace record: kept 3072 bytes of a buffer of 65536 in $TRACE: the dump is incomplete" ]
	[ "${stderr_lines[3]}" = "  htmtrace dump -d $DEV --offset 3072 -o $TRACE" ]
	resume
	expected_trace 16 300
	cmp want.bin "$TRACE"
}

@test "record: a full tmpfs (ENOSPC): the same, resumed once the file system has room" {
	export FAKE_HTM_LOG2=16 FAKE_HTM_WRITTEN=300
	run -0 --separate-stderr in_small_tmpfs 16k '
		LD_PRELOAD=$FAKEHTM "$HTMTRACE" record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0 >../out.txt 2>../err.txt
		echo "rc=$?"
		cat "$FAKE_HTM_STATE"
		stat -c %s '"$TRACE"'
		cp '"$TRACE"' ../kept.bin
		grow
		finish
		cp '"$TRACE $XLATE"' ..'
	cat err.txt
	[ "${lines[0]}" = "rc=1" ]
	[ "${lines[1]}" = "$CONFIGURED_STOPPED" ]
	kept=${lines[2]}
	[ "$kept" -gt 0 ]
	[ "$kept" -le 16384 ]
	[ "${#lines[@]}" -eq 3 ]
	grep -qx "htmtrace record: write $TRACE: No space left on device" err.txt
	grep -qx "htmtrace record: kept $kept bytes of a buffer of 65536 in $TRACE: the dump is incomplete" err.txt
	grep -qx "  htmtrace dump -d $DEV --offset $kept -o $TRACE" err.txt
	run -0 hcheck verify --buffer-size 64K kept.bin
	expected_trace 16 300
	cmp want.bin "$TRACE"
	[ "$(stat -c %s "$XLATE")" -eq 128 ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$IDLE" ]
}

@test "dump: a full tmpfs (ENOSPC): kept; the printed command resumes it byte for byte" {
	export FAKE_HTM_LOG2=16 FAKE_HTM_WRITTEN=300
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -0 --separate-stderr in_small_tmpfs 16k '
		LD_PRELOAD=$FAKEHTM "$HTMTRACE" dump -d "$DEV" -o t.bin 2>../err.txt
		echo "rc=$?"
		stat -c %s t.bin
		grow
		finish
		cp t.bin ..'
	cat err.txt
	[ "${lines[0]}" = "rc=1" ]
	kept=${lines[1]}
	[ "${#lines[@]}" -eq 2 ]
	grep -qx "htmtrace dump: write t.bin: No space left on device" err.txt
	grep -qx "htmtrace dump: kept $kept bytes of a buffer of 65536 in t.bin: the dump is incomplete" err.txt
	grep -qx "  htmtrace dump -d $DEV --offset $kept -o t.bin" err.txt
	expected_trace 16 300
	cmp want.bin t.bin
	[ "$(cat "$FAKE_HTM_STATE")" = "$CONFIGURED_STOPPED" ]
}

@test "record: a trace that is whole but whose memory configuration hits the full disk: deconfigured, the trace kept" {
	# 4096 bytes of trace fit in 4 KiB; the 6432 of the translation do not.
	export FAKE_HTM_ENTRIES=200
	run -1 --separate-stderr limited 4 record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: write $XLATE: File too large" ]
	[ "${stderr_lines[1]}" = "htmtrace record: kept the whole trace in $TRACE: 4096 bytes of a buffer of 4096" ]
	[ "${stderr_lines[3]}" = "  htmtrace sysmem -d $DEV -o $XLATE" ]
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$IDLE" ]
	[ ! -e "$XLATE" ]
	expected_trace 12 40
	cmp want.bin "$TRACE"
	resume
	[ "$(stat -c %s "$XLATE")" -eq 6432 ]
}

@test "dump: a full disk: the file keeps what was written; --offset resumes it byte for byte" {
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -1 --separate-stderr limited 1 dump -d "$DEV" -o t.bin
	[ "$output" = "" ]
	local want=(
		"htmtrace dump: write t.bin: File too large"
		"htmtrace dump: kept 1024 bytes of a buffer of 4096 in t.bin: the dump is incomplete"
		"htmtrace dump: $DEV still holds the trace; to resume the dump once there is room:"
		"  htmtrace dump -d $DEV --offset 1024 -o t.bin"
	)
	[ "$(printf '%s\n' "${want[@]}")" = "$stderr" ]
	[ "$(stat -c %s t.bin)" -eq 1024 ]
	# The resume fills the disk again at 2 KiB: resumed twice.
	run -1 --separate-stderr limited 2 dump -d "$DEV" --offset 1024 -o t.bin
	[ "${stderr_lines[1]}" = "htmtrace dump: kept 2048 bytes of a buffer of 4096 in t.bin: the dump is incomplete" ]
	[ "${stderr_lines[3]}" = "  htmtrace dump -d $DEV --offset 2048 -o t.bin" ]
	run -0 --separate-stderr fhtm dump -d "$DEV" --offset 2048 -o t.bin
	[ "$output" = "wrote 2048 bytes from offset 2048 of $DEV to t.bin, which holds 4096 bytes of a buffer of 4096" ]
	expected_trace 12 40
	cmp want.bin t.bin
	[ "$(cat "$FAKE_HTM_STATE")" = "$CONFIGURED_STOPPED" ]
}

@test "dump to standard output: a full disk; the resume appends" {
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -1 --separate-stderr bash -c 'ulimit -f 1; LD_PRELOAD=$FAKEHTM "$HTMTRACE" dump -d "$DEV" >t.bin'
	[ "${stderr_lines[0]}" = "htmtrace dump: write standard output: File too large" ]
	[ "${stderr_lines[1]}" = "htmtrace dump: wrote 1024 bytes to standard output: the dump is incomplete" ]
	[ "${stderr_lines[3]}" = "  htmtrace dump -d $DEV --offset 1024 >> FILE" ]
	fhtm dump -d "$DEV" --offset 1024 >>t.bin
	expected_trace 12 40
	cmp want.bin t.bin
}

@test "dump --offset: a file shorter than the offset, or missing, is refused; bytes past it are replaced" {
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	expected_trace 12 40
	head -c 1000 want.bin >t.bin
	run -1 --separate-stderr fhtm dump -d "$DEV" --offset 2000 -o t.bin
	[ "$stderr" = "htmtrace dump: t.bin holds 1000 bytes, fewer than the offset 2000 to resume at" ]
	[ "$(stat -c %s t.bin)" -eq 1000 ]
	run -1 --separate-stderr fhtm dump -d "$DEV" --offset 2000 -o none.bin
	[ "$stderr" = "htmtrace dump: open none.bin: No such file or directory" ]
	[ ! -e none.bin ]
	# A tail past the offset (a write cut short) is rewritten.
	head -c 1000 /dev/urandom >>t.bin
	run -0 fhtm dump -d "$DEV" --offset 1000 -o t.bin
	cmp want.bin t.bin
	# --offset 0 is a plain dump, into a new file too.
	run -0 fhtm dump -d "$DEV" --offset 0 -o new.bin
	cmp want.bin new.bin
	run -2 --separate-stderr fhtm dump -d "$DEV" --offset x -o t.bin
	[ "${stderr_lines[0]}" = "htmtrace dump: bad offset 'x': expected a byte count" ]
	# Names a shell would split are quoted in the printed command.
	run -1 --separate-stderr limited 1 dump -d "$DEV" -o "a b'c.bin"
	[ "${stderr_lines[3]}" = "  htmtrace dump -d $DEV --offset 1024 -o 'a b'\\''c.bin'" ]
	resume
	cmp want.bin "a b'c.bin"
}

@test "record and dump name /dev/htmN by its number in the printed commands" {
	# The fake answers any path: /dev/htm7 here never opens the real one.
	export FAKE_HTM_DEV=/dev/htm7
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -1 --separate-stderr limited 1 dump -d 7 -o t.bin
	[ "${stderr_lines[3]}" = "  htmtrace dump -d 7 --offset 1024 -o t.bin" ]
	echo "$IDLE" >"$FAKE_HTM_STATE"
	run -1 --separate-stderr limited 1 record -d 7 "${TARGET[@]}" --duration 0
	[ "${stderr_lines[3]}" = "  htmtrace dump -d 7 --offset 1024 -o $TRACE" ]
	[ "${stderr_lines[4]}" = "  htmtrace sysmem -d 7 -o $XLATE" ]
	[ "${stderr_lines[5]}" = "  htmtrace deconfigure -d 7" ]
}

# --- Ctrl-C ---------------------------------------------------------------------

# A 1 MiB trace read in 64 KiB chunks of 0.2 s each: 3.2 s in all.
slow_trace() {
	export FAKE_HTM_LOG2=20 FAKE_HTM_CHUNK=65536 FAKE_HTM_READ_US=200000
}

@test "record: Ctrl-C during the dump stops it within a second; kept, the channel configured and stopped, the commands finish it" {
	slow_trace
	start_bg record -d "$DEV" "${TARGET[@]}" --duration 0
	wait_size "$TRACE" 65536
	interrupt_bg
	cat err.txt
	[ "$RC" -eq 1 ]
	[ "$MS" -lt 1000 ]
	kept=$(stat -c %s "$TRACE")
	[ "$kept" -ge 65536 ]
	[ "$kept" -lt 1048576 ]
	[ "$((kept % 65536))" -eq 0 ]
	[ "$(sed -n 1p err.txt)" = "htmtrace record: interrupted: the dump stopped at offset $kept" ]
	[ "$(sed -n 2p err.txt)" = "htmtrace record: kept $kept bytes of a buffer of 1048576 in $TRACE: the dump is incomplete" ]
	[ "$(sed -n 4p err.txt)" = "  htmtrace dump -d $DEV --offset $kept -o $TRACE" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$CONFIGURED_STOPPED" ]
	run -1 grep -q DECONFIGURE "$FAKE_HTM_LOG"
	stderr=$(cat err.txt)
	export FAKE_HTM_READ_US=0
	resume
	expected_trace 20 40
	cmp want.bin "$TRACE"
	[ "$(cat "$FAKE_HTM_STATE")" = "$IDLE" ]
}

@test "dump: Ctrl-C stops it within a second; a second Ctrl-C right after ends it too" {
	slow_trace
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	start_bg dump -d "$DEV" -o t.bin
	wait_size t.bin 65536
	interrupt_bg
	[ "$RC" -eq 1 ]
	[ "$MS" -lt 1000 ]
	kept=$(stat -c %s t.bin)
	[ "$(sed -n 1p err.txt)" = "htmtrace dump: interrupted: the dump stopped at offset $kept" ]
	# No STATUS after Ctrl-C (no progress line asked for one before).
	[ "$(sed -n 2p err.txt)" = "htmtrace dump: kept $kept bytes in t.bin: the dump is incomplete" ]
	run -1 grep -q STATUS "$FAKE_HTM_LOG"
	[ "$(sed -n 4p err.txt)" = "  htmtrace dump -d $DEV --offset $kept -o t.bin" ]
	# Twice in a row: the tool ends at once, by the first or the second.
	start_bg dump -d "$DEV" -o u.bin
	wait_size u.bin 65536
	local t0
	t0=$(date +%s%N)
	kill -INT "$BG"
	sleep 0.05
	kill -INT "$BG" 2>/dev/null || true
	RC=0
	wait "$BG" || RC=$?
	[ $((($(date +%s%N) - t0) / 1000000)) -lt 1000 ]
	# 1 if the first stopped it before the second came, 130 if not.
	[[ "$RC" == 1 || "$RC" == 130 ]]
	[ "$(stat -c %s u.bin)" -ge 65536 ]
	# The channel never changed: a dump is a read.
	[ "$(cat "$FAKE_HTM_STATE")" = "$CONFIGURED_STOPPED" ]
	export FAKE_HTM_READ_US=0
	fhtm dump -d "$DEV" --offset "$kept" -o t.bin
	expected_trace 20 40
	cmp want.bin t.bin
}

# --- the end of the data, the buffer size, a refused stop ----------------------

@test "record: a trace that ends before its buffer is normal: exit 0, N bytes of a buffer of M; verify accepts it" {
	export FAKE_HTM_WRITTEN=10 FAKE_HTM_DATA_END=1280
	run -0 --separate-stderr fhtm record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "$stderr" = "" ]
	[ "${lines[2]}" = "wrote 1280 bytes of a buffer of 4096 to $TRACE: the trace ended before the buffer filled" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "$IDLE" ]
	run -0 hcheck verify "${TARGET[@]}" "$TRACE"
	[ "${lines[1]}" = "records:       10 of 128 bytes" ]
	[ "${lines[3]}" = "written:       10" ]
	run -0 hcheck verify --buffer-size 4096 "$TRACE"
	[ "${lines[2]}" = "buffer:        32 records" ]
	# dump says it too.
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -0 fhtm dump -d "$DEV" -o t.bin
	[ "$output" = "wrote 1280 bytes of a buffer of 4096 from $DEV to t.bin: the trace ended before the buffer filled" ]
	cmp t.bin "$TRACE"
}

@test "record and dump: a buffer of unknown size (the hypervisor's STATUS failed)" {
	export FAKE_HTM_STATUS_ERR=5
	run -0 --separate-stderr fhtm record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of unknown size to $TRACE" ]
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	run -0 fhtm dump -d "$DEV" -o t.bin
	[ "$output" = "wrote 4096 bytes of a buffer of unknown size from $DEV to t.bin" ]
	run -0 fhtm status -d "$DEV"
	[ "${lines[4]}" = "buffer size: unknown (the hypervisor's STATUS failed: Input/output error)" ]
	# And a full disk then: kept, of a buffer of unknown size.
	run -1 --separate-stderr limited 1 dump -d "$DEV" -o t.bin
	[ "${stderr_lines[1]}" = "htmtrace dump: kept 1024 bytes of a buffer of unknown size in t.bin: the dump is incomplete" ]
}

@test "record: a stop the hypervisor refuses: the read asks for it again, and it is said" {
	export FAKE_HTM_STOP_REFUSED=stopped
	run -0 --separate-stderr fhtm record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: stop $DEV: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace record: the hypervisor refused the stop: no data is read while the trace may run; the read asks for the stop again" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP refused FAIL 5 STATUS state=2 READ found it stopped READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
	expected_trace 12 40
	cmp want.bin "$TRACE"
	# The read fails too: there is no trace; cleaned up as before a trace.
	rm -f "$FAKE_HTM_LOG" "$TRACE" "$XLATE"
	export FAKE_HTM_STOP_REFUSED=dead
	run -1 --separate-stderr fhtm record -d "$DEV" "${TARGET[@]}" --duration 0
	[ "${stderr_lines[2]}" = "htmtrace record: read $DEV at offset 0: Input/output error" ]
	[ "${stderr_lines[3]}" = "htmtrace record: the hypervisor refused the stop and the read: no trace to keep" ]
	[ "${stderr_lines[4]}" = "htmtrace record: removed the partial $TRACE and $XLATE" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP refused FAIL 5 STATUS state=2 READ FAIL 5 DECONFIGURE" ]
	[ ! -e "$TRACE" ]
	# htmtrace stop says it too.
	echo "2 1 2 0 2 5" >"$FAKE_HTM_STATE"
	run -1 --separate-stderr fhtm stop -d "$DEV"
	[ "${stderr_lines[0]}" = "htmtrace stop: stop $DEV: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace stop: the hypervisor refused the stop: no data is read while the trace may run; 'htmtrace dump' asks for the stop again" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "2 1 2 0 2 5 refused 1" ]
}

@test "status: an unknown size, where the data ended, a refused stop" {
	echo "2 1 2 0 2 5 refused 1" >"$FAKE_HTM_STATE"
	run -0 --separate-stderr fhtm status -d "$DEV"
	[ "${lines[1]}" = "state:       tracing" ]
	[ "${lines[4]}" = "buffer size: 4096 bytes (2^12)" ]
	[ "${lines[5]}" = "stop:        refused by the hypervisor (not in a state to stop): the trace may still run; a read asks for the stop again, and reads only once it succeeds" ]
	[ "${#lines[@]}" -eq 6 ]
	echo "$CONFIGURED_STOPPED" >"$FAKE_HTM_STATE"
	FAKE_HTM_DATA_END=1280 run -0 fhtm status -d "$DEV"
	[ "${lines[5]}" = "data size:   1280 bytes (where the hypervisor said the trace ends)" ]
	[ "${#lines[@]}" -eq 6 ]
}

# --- verify of what a failure kept -------------------------------------------

@test "verify --buffer-size: a dump cut short, even inside a record, of a wrapped trace; damage is still found" {
	# 40 records in 32 slots: slots 0-7 hold records 32-39.
	expected_trace 12 40
	for n in 1 23 100 1000 1024 2048 4095 4096; do
		head -c "$n" want.bin >p.bin
		run -0 hcheck verify --buffer-size 4096 p.bin
		[ "${lines[3]}" = "target:        core node 0 chip 2 core 5" ] || [ "$n" -lt 128 ]
	done
	# Without it, a partial record is an error, as it was.
	head -c 1000 want.bin >p.bin
	run -1 --separate-stderr hcheck verify p.bin
	[ "$stderr" = "htmcheck verify: p.bin: size 1000 is not a multiple of 128: partial record at offset 896" ]
	# A wrong byte in the last, partial record.
	printf X | dd of=p.bin bs=1 seek=990 conv=notrunc 2>/dev/null
	run -1 hcheck verify --buffer-size 4096 p.bin
	# A wrong byte in a whole one.
	head -c 1000 want.bin >p.bin
	printf X | dd of=p.bin bs=1 seek=300 conv=notrunc 2>/dev/null
	run -1 hcheck verify --buffer-size 4096 p.bin
	# More than the buffer holds.
	run -1 --separate-stderr hcheck verify --buffer-size 2048 want.bin
	[ "$stderr" = "htmcheck verify: want.bin: 4096 bytes, more than the buffer of 2048" ]
	run -2 hcheck verify --buffer-size 100 want.bin
}

# --- dtl record -----------------------------------------------------------------

# traced_of SECS: out.txt's second line is "traced for T s of SECS s
# (interrupted)", T the time actually traced, less than SECS.
traced_of() {
	[[ "$(sed -n 2p out.txt)" =~ ^"traced for "([0-9]+)\.[0-9]{3}" s of $1 s (interrupted)"$ ]] || {
		sed -n 2p out.txt
		return 1
	}
	[ "${BASH_REMATCH[1]}" -lt "$1" ]
}

@test "record and dtl record --duration 30 ended by Ctrl-C: the time actually traced, not 30 s (issue 42 item 10)" {
	start_bg record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 30
	wait_line "$FAKE_HTM_LOG" START
	interrupt_bg
	[ "$RC" -eq 0 ]
	traced_of 30
	dtl_stream 2
	export FAKE_DTL_LIVE=56
	start_bg dtl record -d "$DTLDEV" -o dtl.bin --duration 30
	wait_line "$FAKE_DTL_LOG" "READ 56"
	interrupt_bg
	[ "$RC" -eq 0 ]
	traced_of 30
	cmp "$FAKE_DTL_STREAM" <(stream_of dtl.bin)
}

# A stream of a CLOCK record and $1 entries of CPU 0.
dtl_stream() {
	"$PY" -c '
import struct, sys
out = struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, 512000000, 0, 0, 0, 0)
for i in range(int(sys.argv[2])):
    out += struct.pack("<HHI", 2, 56, 0)
    out += struct.pack(">BBHIIIQQQQ", 0, 3, 2, 1, 2, 3, 1000 + i, 0, 0, 0)
open(sys.argv[1], "wb").write(out)
' "$FAKE_DTL_STREAM" "$1"
}

@test "dtl record: a full disk: whole records kept, the report reads them, deconfigured, exit 1" {
	# 56-byte records, 10 a read: 560-byte writes, the limit at 4096.
	dtl_stream 200
	export FAKE_DTL_CHUNK=560
	run -1 --separate-stderr limited 4 dtl record -d "$DTLDEV" -o dtl.bin --duration 0
	[ "${stderr_lines[0]}" = "htmtrace dtl record: write dtl.bin: File too large" ]
	# After the file header, the reads of 560 bytes that fit in 4096
	# bytes, not the next one: whole records only.
	local h n
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 0 ]
	n=$(((4096 - h) / 560))
	[ "$n" -ge 1 ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: kept $((h + n * 560)) bytes (a header of $h and $((n * 10)) records: $((n * 10 - 1)) entries, 0 lost) in dtl.bin: whole records, the capture cut short there" ]
	[ "${stderr_lines[2]}" = "htmtrace dtl record: the rest of the capture is lost: the dispatch trace log is a stream, read once" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "$(stat -c %s dtl.bin)" -eq $((h + n * 560)) ]
	cmp <(stream_of dtl.bin) <(head -c $((n * 560)) "$FAKE_DTL_STREAM")
	grep -qx DECONFIGURE "$FAKE_DTL_LOG"
	run -0 htm dtl report dtl.bin --format csv
	[ "$(grep -vc '^wait_' <<<"$output")" -eq $((n * 10 + 1)) ]
}

@test "dtl record: a full disk while the workload runs: stopped, kept, deconfigured" {
	dtl_stream 200
	export FAKE_DTL_CHUNK=560
	run -1 --separate-stderr limited 2 dtl record -d "$DTLDEV" -o dtl.bin -- sleep 0.2
	[ "${stderr_lines[0]}" = "htmtrace dtl record: write dtl.bin: File too large" ]
	local h n
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 0 ]
	n=$(((2048 - h) / 560))
	[ "$n" -ge 1 ]
	[ "${stderr_lines[1]}" = "htmtrace dtl record: kept $((h + n * 560)) bytes (a header of $h and $((n * 10)) records: $((n * 10 - 1)) entries, 0 lost) in dtl.bin: whole records, the capture cut short there" ]
	run -0 grep -c '^STOP$' "$FAKE_DTL_LOG"
	grep -qx DECONFIGURE "$FAKE_DTL_LOG"
	run -0 htm dtl report dtl.bin
}

@test "dtl record: Ctrl-C while the rest of the stream is copied stops it within a second, the records copied kept" {
	# After --duration 0, the copy of the rest: 50 reads of 0.1 s.
	dtl_stream 500
	export FAKE_DTL_CHUNK=560 FAKE_DTL_READ_US=100000
	start_bg dtl record -d "$DTLDEV" -o dtl.bin --duration 0
	wait_size dtl.bin 1120
	interrupt_bg
	cat err.txt
	[ "$RC" -eq 1 ]
	[ "$MS" -lt 1000 ]
	kept=$(stat -c %s dtl.bin)
	[ "$kept" -lt 28056 ]
	[ "$(sed -n 1p err.txt)" = "htmtrace dtl record: interrupted while copying the rest of the stream: stopped after $kept bytes" ]
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 0 ]
	[ "$(sed -n 2p err.txt)" = "htmtrace dtl record: kept $kept bytes (a header of $h and $(((kept - h) / 56)) records: $(((kept - h) / 56 - 1)) entries, 0 lost) in dtl.bin: whole records, the capture cut short there" ]
	grep -qx DECONFIGURE "$FAKE_DTL_LOG"
	cmp <(stream_of dtl.bin) <(head -c "$((kept - h))" "$FAKE_DTL_STREAM")
	run -0 htm dtl report dtl.bin
}

@test "dtl record: a full tmpfs (ENOSPC): whole records kept, the report reads them" {
	dtl_stream 2000
	export FAKE_DTL_CHUNK=560
	run -0 --separate-stderr in_small_tmpfs 16k '
		LD_PRELOAD=$FAKEDTL "$HTMTRACE" dtl record -d "$DTLDEV" -o dtl.bin --duration 0 2>../err.txt
		echo "rc=$?"
		cp dtl.bin ..'
	cat err.txt
	[ "${lines[0]}" = "rc=1" ]
	kept=$(stat -c %s dtl.bin)
	[ "$kept" -gt 0 ]
	h=$(hdr_len dtl.bin)
	[ "$h" -gt 0 ]
	[ "$(((kept - h) % 560))" -eq 0 ]
	grep -qx "htmtrace dtl record: write dtl.bin: No space left on device" err.txt
	grep -qx "htmtrace dtl record: kept $kept bytes (a header of $h and $(((kept - h) / 56)) records: $(((kept - h) / 56 - 1)) entries, 0 lost) in dtl.bin: whole records, the capture cut short there" err.txt
	grep -qx DECONFIGURE "$FAKE_DTL_LOG"
	cmp <(stream_of dtl.bin) <(head -c "$((kept - h))" "$FAKE_DTL_STREAM")
	run -0 htm dtl report dtl.bin
}
