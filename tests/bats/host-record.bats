#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of htmtrace's device paths (record, dump, status, caps, setup,
# sysmem, sysproc and the channel commands) against a fake /dev/htmN:
# userspace/tests/fakehtm.c, preloaded with LD_PRELOAD, answers the ioctls
# of uapi/linux/htmtrace.h, serves simulator records through short read()s,
# logs every operation and fails the one it is told to. The assertions are
# on the order of operations (deconfigure on every error path), on what the
# tool writes and on its messages. The driver itself is tested in the guest.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# Debian's interpreter: a python3 shim (pyenv, ...) costs 0.2 s a call.
	PY=python3
	[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
	export TOP PY
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 all fakehtm htmcheck >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export FAKEHTM="$TOP/build/host/fakehtm.so"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export DEV=$BATS_TEST_TMPDIR/htm0
	export FAKE_HTM_DEV=$DEV
	export FAKE_HTM_LOG=$BATS_TEST_TMPDIR/log
	export FAKE_HTM_STATE=$BATS_TEST_TMPDIR/state
}

# htmtrace against the fake channel.
fhtm() {
	LD_PRELOAD=$FAKEHTM "$HTMTRACE" "$@"
}

# htmtrace without the fake.
htm() {
	"$HTMTRACE" "$@"
}

# The test helper that checks and generates the simulator's records.
hcheck() {
	"$TOP/build/host/htmcheck" "$@"
}

# The operations the fake saw, on one line.
ops() {
	grep -v '^OPEN$' "$FAKE_HTM_LOG" | paste -s -d ' '
}

# Preset the channel: state flags type node chip core.
channel() {
	echo "$*" >"$FAKE_HTM_STATE"
}

# Run the commands the last `run --separate-stderr` printed to finish a
# job (the indented "  htmtrace ..." lines of its standard error), against
# the fake; each must succeed.
resume() {
	local cmd
	grep '^  htmtrace ' <<<"$stderr" >resume.sh
	[ -s resume.sh ]
	while IFS= read -r cmd; do
		eval "LD_PRELOAD=\$FAKEHTM \"\$HTMTRACE\" ${cmd#  htmtrace }" >&2 ||
			{ echo "failed: $cmd" >&2; return 1; }
	done <resume.sh
}

# What the fake's trace holds after its default 40 records in 32 slots.
expected_trace() {
	hcheck simgen -t "$1" -n "$2" -p "$3" -c "$4" --log2 12 --written 40 -o "$5"
}

TRACE=htm.bin.n0.p2.c5.t2
XLATE=translation.n0.p2.c5.t2

@test "record: configure, start, stop, read, memory configuration, deconfigure" {
	run -0 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "traced core node 0 chip 2 core 5 on $DEV" ]
	[ "${lines[1]}" = "traced for 0 s" ]
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	[ "${lines[3]}" = "wrote 128 bytes of memory configuration (1 block, 3 entries) to $XLATE" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
	# The channel is idle again.
	[ "$(cat "$FAKE_HTM_STATE")" = "0 0 0 0 0 0" ]
	# The trace is the fake's buffer, byte for byte.
	run -0 hcheck verify -t core -n 0 -p 2 -c 5 "$TRACE"
	[ "${lines[3]}" = "written:       40" ]
	expected_trace core 0 2 5 want.bin
	cmp want.bin "$TRACE"
	# The translation file is the blocks as the driver stored them.
	run -0 htm sysmem -i "$XLATE"
	[ "${lines[0]}" = "$XLATE: 1 block, 3 entries, 128 bytes" ]
	[ "${lines[1]}" = "block 0: offset 0, 3 entries, next 0x0000000000000000" ]
}

@test "record: -o puts both files in a directory" {
	mkdir out
	run -0 fhtm record -d "$DEV" -t nest -n 1 -p 0 -c 0 -o out --duration 0
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to out/htm.bin.n1.p0.c0.t1" ]
	[ -f out/htm.bin.n1.p0.c0.t1 ]
	[ -f out/translation.n1.p0.c0.t1 ]
	[ "$(ls out | wc -l)" -eq 2 ]
}

@test "record: short reads of any size give the same trace" {
	expected_trace core 0 2 5 want.bin
	for spec in 1000:1M 128:4096 333:1000 4096:7 100000:100 64:1; do
		export FAKE_HTM_CHUNK=${spec%%:*}
		rm -f "$FAKE_HTM_LOG" "$TRACE"
		run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0 --bs "${spec#*:}"
		cmp want.bin "$TRACE"
		grep -qx "READ EOF at 4096" "$FAKE_HTM_LOG"
	done
}

@test "record: a read interrupted by a signal (EINTR) is retried" {
	export FAKE_HTM_EINTR=1
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	grep -qx "READ EINTR" "$FAKE_HTM_LOG"
	expected_trace core 0 2 5 want.bin
	cmp want.bin "$TRACE"
}

@test "record is no-wrap by default; --wrap asks for a wrapping trace" {
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --wrap --duration 0
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x0 START STATUS state=2 STOP READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
}

@test "record --nowrap: the flag is passed; a trace that stopped itself is not stopped again" {
	export FAKE_HTM_SELFSTOP=1
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --nowrap --duration 0
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=3 READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
}

@test "record -- COMMAND: the workload runs between start and stop" {
	# the workload's status is the trace's, as perf record's
	run -3 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 -- \
		sh -c 'echo WORKLOAD >>"$FAKE_HTM_LOG"; exit 3'
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START WORKLOAD STATUS state=2 STOP READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
	[ "${lines[1]}" = "workload exited with status 3" ]
	[ -f "$TRACE" ]
}

@test "record -- COMMAND: the command's arguments are its own" {
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 \
		sh -c 'printf "%s|" "$@" >args' sh -t x --duration 1 -- y
	[ "$(cat args)" = "-t|x|--duration|1|--|y|" ]
}

@test "record -- COMMAND: a workload killed by a signal is reported, exit 128 + the signal" {
	run -137 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 -- sh -c 'kill -KILL $$'
	[ "${lines[1]}" = "workload killed by signal 9" ]
}

@test "record: a command that cannot run: exit 1, stopped, deconfigured, no files" {
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 -- no-such-command-htm
	[ "${stderr_lines[0]}" = "htmtrace record: run 'no-such-command-htm': No such file or directory" ]
	[ "${stderr_lines[1]}" = "htmtrace record: removed the partial $TRACE and $XLATE" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STOP DECONFIGURE" ]
	[ ! -e "$TRACE" ]
	[ ! -e "$XLATE" ]
}

@test "record: a failed record leaves an earlier trace as it was (no device, CONFIGURE busy, a command that cannot run)" {
	echo "earlier trace" >"$TRACE"
	echo "earlier translation" >"$XLATE"
	cp "$TRACE" old.trace
	cp "$XLATE" old.xlate
	run -1 --separate-stderr htm record -d "$BATS_TEST_TMPDIR/none" -t core -n 0 -p 2 -c 5 --duration 0
	cmp old.trace "$TRACE"
	cmp old.xlate "$XLATE"
	FAKE_HTM_FAIL=configure:16 run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: configure $DEV: Device or resource busy" ]
	cmp old.trace "$TRACE"
	cmp old.xlate "$XLATE"
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 -- no-such-command-htm
	[ "${stderr_lines[0]}" = "htmtrace record: run 'no-such-command-htm': No such file or directory" ]
	[ "${stderr_lines[1]}" = "htmtrace record: no trace taken: $TRACE and $XLATE left as they were" ]
	cmp old.trace "$TRACE"
	cmp old.xlate "$XLATE"
	[ "$(find . -name '.htmtrace*' | wc -l)" -eq 0 ]
	# A good record replaces both.
	run -0 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	expected_trace core 0 2 5 want.bin
	cmp want.bin "$TRACE"
	run -1 cmp -s old.xlate "$XLATE"
	[ "$(find . -name '.htmtrace*' | wc -l)" -eq 0 ]
}

@test "record: a failed start: deconfigured, never stopped, no files" {
	export FAKE_HTM_FAIL=start:5
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 -- touch ran
	[ "${stderr_lines[0]}" = "htmtrace record: start $DEV: Input/output error" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START FAIL 5 DECONFIGURE" ]
	[ ! -e ran ]
	[ ! -e "$TRACE" ]
	[ ! -e "$XLATE" ]
}

@test "record: a busy target: exit 1 with a hint, nothing to deconfigure" {
	export FAKE_HTM_FAIL=configure:16
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: configure $DEV: Device or resource busy" ]
	[ "${stderr_lines[1]}" = "htmtrace record: the target is held by another channel or perf event, or the hypervisor stayed busy" ]
	[ "$(ops)" = "CONFIGURE FAIL 16" ]
	[ ! -e "$TRACE" ]
}

@test "record: a channel configured by someone else is left as it was" {
	channel 1 0 2 0 9 9
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: configure $DEV: File descriptor in bad state" ]
	[ "${stderr_lines[1]}" = "htmtrace record: the channel is not in a state where this applies (htmtrace status)" ]
	[ "$(ops)" = "CONFIGURE FAIL 77" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "1 0 2 0 9 9" ]
}

@test "record: missing permission gets a capability hint" {
	export FAKE_HTM_FAIL=configure:1
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: configure $DEV: Operation not permitted" ]
	[ "${stderr_lines[1]}" = "htmtrace record: this needs CAP_PERFMON or CAP_SYS_ADMIN" ]
}

@test "record: a failed stop (not refused by the hypervisor): exit 1, deconfigured, no files" {
	export FAKE_HTM_FAIL=stop:5
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: stop $DEV: Input/output error" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP FAIL 5 STATUS state=2 DECONFIGURE" ]
	[ ! -e "$TRACE" ]
	[ ! -e "$XLATE" ]
}

@test "record: a read error mid-dump: exit 1 at its offset, what was read kept, the channel kept, the resume resumes" {
	export FAKE_HTM_FAIL=read:5:2048
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: read $DEV at offset 3000: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace record: kept 3000 bytes of a buffer of 4096 in $TRACE: the dump is incomplete" ]
	[ "${stderr_lines[2]}" = "htmtrace record: $DEV still holds the whole trace, left configured and stopped; to finish, then release the channel:" ]
	[ "${stderr_lines[3]}" = "  htmtrace dump -d $DEV --offset 3000 -o $TRACE" ]
	[ "${stderr_lines[4]}" = "  htmtrace sysmem -d $DEV -o $XLATE" ]
	[ "${stderr_lines[5]}" = "  htmtrace deconfigure -d $DEV" ]
	[ "${#stderr_lines[@]}" -eq 6 ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP READ FAIL 5 STATUS state=3" ]
	[ "$(cat "$FAKE_HTM_STATE")" = "3 1 2 0 2 5" ]
	[ "$(stat -c %s "$TRACE")" -eq 3000 ]
	[ ! -e "$XLATE" ]
	# The hypervisor recovers: the three commands, as printed, finish.
	unset FAKE_HTM_FAIL
	resume
	expected_trace core 0 2 5 want.bin
	cmp want.bin "$TRACE"
	[ "$(stat -c %s "$XLATE")" -eq 128 ]
	[ "$(cat "$FAKE_HTM_STATE")" = "0 0 0 0 0 0" ]
}

@test "record: memory configuration larger than the first buffer is fetched whole" {
	export FAKE_HTM_BLOCKS=3 FAKE_HTM_ENTRIES=2043
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${lines[3]}" = "wrote 196224 bytes of memory configuration (3 blocks, 6129 entries) to $XLATE" ]
	grep -qx "SYSMEM size=65536 ENOSPC length=196224" "$FAKE_HTM_LOG"
	grep -qx "SYSMEM size=196224 length=196224" "$FAKE_HTM_LOG"
	[ "$(stat -c %s "$XLATE")" -eq 196224 ]
	run -0 htm sysmem -i "$XLATE"
	[ "${lines[0]}" = "$XLATE: 3 blocks, 6129 entries, 196224 bytes" ]
	[ "${lines[1]}" = "block 0: offset 0, 2043 entries, next 0x00000000000007fb" ]
	[ "${lines[3]}" = "block 2: offset 130816, 2043 entries, next 0x0000000000000000" ]
}

@test "record: a failed memory configuration: exit 1, the whole trace kept, deconfigured, the command that fetches it" {
	export FAKE_HTM_FAIL=sysmem:5
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: memory configuration $DEV: Input/output error" ]
	[ "${stderr_lines[1]}" = "htmtrace record: kept the whole trace in $TRACE: 4096 bytes of a buffer of 4096" ]
	[ "${stderr_lines[2]}" = "htmtrace record: the memory configuration is missing; to fetch it:" ]
	[ "${stderr_lines[3]}" = "  htmtrace sysmem -d $DEV -o $XLATE" ]
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	[ "${#lines[@]}" -eq 3 ]
	# The trace was whole on disk: the channel was released.
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP READ EOF at 4096 STATUS state=3 SYSMEM FAIL 5 DECONFIGURE" ]
	run -0 hcheck verify -t core -n 0 -p 2 -c 5 "$TRACE"
	[ ! -e "$XLATE" ]
	unset FAKE_HTM_FAIL
	resume
	[ "$(stat -c %s "$XLATE")" -eq 128 ]
}

@test "record: a failed deconfigure is an error, but the complete files stay" {
	export FAKE_HTM_FAIL=deconfigure:5
	run -1 --separate-stderr fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: deconfigure $DEV: Input/output error" ]
	[ "${lines[2]}" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	run -0 hcheck verify "$TRACE"
	[ "$(stat -c %s "$XLATE")" -eq 128 ]
}

@test "record without a workload traces until SIGINT" {
	LD_PRELOAD=$FAKEHTM "$HTMTRACE" record -d "$DEV" -t core -n 0 -p 2 -c 5 \
		>out.txt 2>err.txt &
	local pid=$! i rc=0
	# The prompt is printed once the signals are blocked for sigwait(): a
	# SIGINT from then on is taken, never lost or fatal.
	for ((i = 0; i < 400; i++)); do
		grep -q 'press Ctrl-C' err.txt 2>/dev/null && break
		sleep 0.05
	done
	kill -INT "$pid"
	# wait only works in the shell that started the job: not inside `run`,
	# whose subshell has no such child (status 127 or 255, not the tool's).
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(cat err.txt)" = "htmtrace record: tracing; press Ctrl-C to stop" ]
	[ "$(sed -n 2p out.txt)" = "traced until a signal" ]
	[ "$(sed -n 3p out.txt)" = "wrote 4096 bytes of a buffer of 4096 to $TRACE" ]
	[ "$(ops)" = "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x1 START STATUS state=2 STOP READ EOF at 4096 STATUS state=3 SYSMEM size=65536 length=128 DECONFIGURE" ]
}

@test "record --duration traces at least that long" {
	local t0 t1
	t0=$(date +%s%N)
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0.3
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -ge 300 ]
	[ "${lines[1]}" = "traced for 0.3 s" ]
}

@test "configure, start, status, stop, dump, deconfigure as separate commands" {
	run -0 --separate-stderr fhtm configure -d "$DEV" -t nest -n 1 -p 2 -c 3 --nowrap --wait
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	run -0 fhtm status -d "$DEV"
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = "device:      $DEV" ]
	[ "${lines[1]}" = "state:       configured" ]
	[ "${lines[2]}" = "target:      nest node 1 chip 2 core 3" ]
	[ "${lines[3]}" = "flags:       nowrap,wait" ]
	[ "${lines[4]}" = "buffer size: 4096 bytes (2^12)" ]
	run -0 fhtm start -d "$DEV"
	run -0 fhtm status -d "$DEV"
	[ "${lines[1]}" = "state:       tracing" ]
	run -0 fhtm stop -d "$DEV"
	run -0 fhtm status -d "$DEV"
	[ "${lines[1]}" = "state:       stopped" ]
	run -0 --separate-stderr fhtm dump -d "$DEV" -o t.bin
	[ "$output" = "wrote 4096 bytes of a buffer of 4096 from $DEV to t.bin" ]
	run -0 hcheck verify -t nest -n 1 -p 2 -c 3 t.bin
	run -0 fhtm deconfigure -d "$DEV"
	run -0 fhtm status -d "$DEV"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[1]}" = "state:       idle" ]
	[ "$(ops)" = "CONFIGURE type=1 node=1 chip=2 core=3 flags=0x3 STATUS state=1 START STATUS state=2 STOP STATUS state=3 READ EOF at 4096 STATUS state=3 DECONFIGURE STATUS state=0" ]
}

@test "dump: to standard output, with any read size" {
	channel 3 0 2 0 2 5
	expected_trace core 0 2 5 want.bin
	for bs in 1M 100 1; do
		fhtm dump -d "$DEV" --bs "$bs" >out.bin
		cmp want.bin out.bin
	done
	fhtm dump -d "$DEV" -o - >out.bin
	cmp want.bin out.bin
}

@test "dump of an idle channel: exit 1 with ENODATA, no output file" {
	run -1 --separate-stderr fhtm dump -d "$DEV" -o x.bin
	[ "${stderr_lines[0]}" = "htmtrace dump: read $DEV at offset 0: No data available" ]
	[ "${stderr_lines[1]}" = "htmtrace dump: removed the empty x.bin" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ ! -e x.bin ]
}

@test "start on an unconfigured channel: EBADFD with a hint" {
	run -1 --separate-stderr fhtm start -d "$DEV"
	[ "${stderr_lines[0]}" = "htmtrace start: start $DEV: File descriptor in bad state" ]
	[ "${stderr_lines[1]}" = "htmtrace start: the channel is not in a state where this applies (htmtrace status)" ]
}

@test "caps: hex dump of the 128-byte block" {
	run -0 fhtm caps -d "$DEV"
	[ "${#lines[@]}" -eq 9 ]
	[ "${lines[0]}" = "HTM capabilities from $DEV (128 bytes):" ]
	[ "${lines[1]}" = "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|" ]
	[ "${lines[5]}" = "00000040  40 41 42 43 44 45 46 47  48 49 4a 4b 4c 4d 4e 4f  |@ABCDEFGHIJKLMNO|" ]
	[ "${lines[8]}" = "00000070  70 71 72 73 74 75 76 77  78 79 7a 7b 7c 7d 7e 7f  |pqrstuvwxyz{|}~.|" ]
}

@test "setup: the target and size reach the driver" {
	run -0 fhtm setup -d "$DEV" -t core -n 0 -p 1 -c 2 -s 20
	[ "$output" = "HTM buffer of core node 0 chip 1 core 2 set to 2^20 bytes; on PowerVM it may take effect only after a CEC reboot" ]
	[ "$(ops)" = "SETUP type=2 node=0 chip=1 core=2 log2=20" ]
}

@test "sysmem and sysproc from the device: summary, raw file, growth" {
	run -0 fhtm sysmem -d "$DEV"
	[ "${lines[0]}" = "$DEV: 1 block, 3 entries, 128 bytes" ]
	run -0 fhtm sysproc -d "$DEV"
	[ "${lines[0]}" = "$DEV: 1 block, 3 entries, 80 bytes" ]
	run -0 fhtm sysmem -d "$DEV" -o m.bin
	[ "$output" = "wrote 128 bytes (1 block, 3 entries) to m.bin" ]
	[ "$(stat -c %s m.bin)" -eq 128 ]
	export FAKE_HTM_BLOCKS=5 FAKE_HTM_ENTRIES=1000
	run -0 fhtm sysproc -d "$DEV" -o p.bin
	[ "$output" = "wrote 80160 bytes (5 blocks, 5000 entries) to p.bin" ]
	run -0 htm sysproc -i p.bin
	[ "${lines[5]}" = "block 4: offset 64128, 1000 entries, next 0x0000000000000000" ]
	export FAKE_HTM_FAIL=sysproc:5
	run -1 --separate-stderr fhtm sysproc -d "$DEV" -o q.bin
	[ "${stderr_lines[0]}" = "htmtrace sysproc: processor configuration $DEV: Input/output error" ]
	[ ! -e q.bin ]
}

@test "setup: EPERM names the capability setup needs" {
	export FAKE_HTM_FAIL=setup:1
	run -1 --separate-stderr fhtm setup -d "$DEV" -t core -n 0 -p 1 -c 2 -s 20
	[ "${stderr_lines[0]}" = "htmtrace setup: setup $DEV: Operation not permitted" ]
	[ "${stderr_lines[1]}" = "htmtrace setup: this needs CAP_SYS_ADMIN" ]
}

@test "--mode MASK:VALUE reaches CONFIGURE with HTMTRACE_CFG_MODE; a bad mode is a usage error" {
	run -0 fhtm record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0 --mode 0xff00:0x12
	grep -qx "CONFIGURE type=2 node=0 chip=2 core=5 flags=0x5 mode=0xff00:0x12" "$FAKE_HTM_LOG"
	: > "$FAKE_HTM_LOG"
	run -0 fhtm configure -d "$DEV" -t nest -n 1 -p 0 -c 0 --mode 3:0
	[ "$(ops)" = "CONFIGURE type=1 node=1 chip=0 core=0 flags=0x4 mode=0x3:0x0" ]
	for bad in 0xff 0xff: :1 0xff:0x1:2 0xzz:1 1:-1; do
		run -2 --separate-stderr fhtm configure -d "$DEV" -t core -n 0 -p 0 -c 0 --mode "$bad"
		[ "${stderr_lines[0]}" = "htmtrace configure: bad mode '$bad': expected MASK:VALUE, e.g. 0xff:0x1" ] ||
			{ echo "mode '$bad': $stderr"; false; }
	done
}

# --- the progress line of record and dump -----------------------------------

# Run htmtrace against the fake on a pseudo-terminal (script(1)): what the
# terminal showed, carriage returns and all, goes to tty.out, and the
# seconds the run took to $ELAPSED. A 1 MiB trace read in 64 KiB chunks of
# 50 ms each: 0.8 s.
on_tty() {
	local cmd t0 rc

	command -v script >/dev/null || skip "no script(1) (util-linux)"
	printf -v cmd '%q ' env LD_PRELOAD="$FAKEHTM" FAKE_HTM_LOG2=20 \
		FAKE_HTM_CHUNK=65536 FAKE_HTM_READ_US=50000 "$HTMTRACE" "$@"
	t0=$(date +%s%N)
	script -qec "$cmd" /dev/null >tty.out </dev/null
	rc=$?
	ELAPSED=$((($(date +%s%N) - t0) / 1000000))
	return $rc
}

# The terminal's output as lines: each rewrite of the progress line (after
# a carriage return) on a line of its own, without the padding.
tty_lines() {
	sed 's/\r$//' tty.out | tr '\r' '\n' | sed 's/ *$//' | grep -v '^$'
}

PROGRESS_RE='^[0-9.]+ (KiB|MiB) of 1\.0 MiB \([0-9]+%\), [0-9.]+ MB/s, [0-9]+:[0-9]{2} left$'
PROGRESS_END_RE='^1\.0 MiB of 1\.0 MiB \(100%\), [0-9.]+ MB/s, done in 0:0[0-9]$'

@test "dump on a terminal: progress of the known size, at most 4 updates a second" {
	channel 3 0 2 0 2 5
	on_tty dump -d "$DEV" -o t.bin
	tty_lines >lines.txt
	cat lines.txt
	# Updates, then the complete line, then the summary.
	n=$(grep -cE "$PROGRESS_RE" lines.txt)
	[ "$n" -ge 2 ]
	[ "$n" -le $((ELAPSED * 4 / 1000 + 1)) ]
	[ "$(grep -cvE "$PROGRESS_RE" lines.txt)" -eq 2 ]
	grep -qE "$PROGRESS_END_RE" <<<"$(tail -n 2 lines.txt | head -n 1)"
	[ "$(tail -n 1 lines.txt)" = "wrote 1048576 bytes of a buffer of 1048576 from $DEV to t.bin" ]
	# The size came from STATUS; the trace is whole.
	[ "$(ops)" = "STATUS state=3 READ EOF at 1048576 STATUS state=3" ]
	hcheck simgen -t core -n 0 -p 2 -c 5 --log2 20 --written 40 -o want.bin
	cmp want.bin t.bin
}

@test "record on a terminal: progress of the buffer's size" {
	on_tty record -d "$DEV" -t core -n 0 -p 2 -c 5 --duration 0
	tty_lines >lines.txt
	cat lines.txt
	[ "$(grep -cE "$PROGRESS_RE" lines.txt)" -ge 2 ]
	grep -qE "$PROGRESS_END_RE" lines.txt
	grep -qx "wrote 1048576 bytes of a buffer of 1048576 to $TRACE" lines.txt
}

@test "dump on a terminal: an unknown size gives bytes and MB/s only" {
	channel 3 0 2 0 2 5
	# STATUS fails, or the hypervisor gives no size (buffer_size 0).
	for fail in FAKE_HTM_FAIL=status:5 FAKE_HTM_STATUS_ERR=5; do
		(export "${fail?}"; on_tty dump -d "$DEV" -o t.bin)
		tty_lines >lines.txt
		cat lines.txt
		grep -qE '^[0-9.]+ KiB, [0-9.]+ MB/s$' lines.txt
		grep -qE '^1\.0 MiB, [0-9.]+ MB/s, done in 0:0[0-9]$' lines.txt
		[ "$(tail -n 1 lines.txt)" = "wrote 1048576 bytes of a buffer of unknown size from $DEV to t.bin" ]
		run -1 grep -E ' of [0-9.]+ (KiB|MiB)' lines.txt
	done
}

@test "no progress when standard error is not a terminal, nor with --no-progress" {
	channel 3 0 2 0 2 5
	export FAKE_HTM_LOG2=20 FAKE_HTM_CHUNK=65536 FAKE_HTM_READ_US=50000
	run -0 --separate-stderr fhtm dump -d "$DEV" -o t.bin
	[ "$stderr" = "" ]
	[ "$output" = "wrote 1048576 bytes of a buffer of 1048576 from $DEV to t.bin" ]
	# No STATUS for the progress line: one after the read, for the size
	# and where the data ended.
	[ "$(ops)" = "READ EOF at 1048576 STATUS state=3" ]
	on_tty dump -d "$DEV" -o t.bin --no-progress
	[ "$(tty_lines)" = "wrote 1048576 bytes of a buffer of 1048576 from $DEV to t.bin" ]
	# --progress forces it.
	run -0 --separate-stderr fhtm dump -d "$DEV" -o t.bin --progress
	grep -qE "$PROGRESS_END_RE" <<<"$(tr '\r' '\n' <<<"$stderr" | sed 's/ *$//')"
}

@test "a short dump on a terminal shows no progress line" {
	channel 3 0 2 0 2 5
	command -v script >/dev/null || skip "no script(1) (util-linux)"
	script -qec "$(printf '%q ' env LD_PRELOAD="$FAKEHTM" "$HTMTRACE" dump -d "$DEV" -o t.bin)" \
		/dev/null >tty.out </dev/null
	[ "$(tty_lines)" = "wrote 4096 bytes of a buffer of 4096 from $DEV to t.bin" ]
}

@test "a read error under the progress line: the message starts a line of its own" {
	channel 3 0 2 0 2 5
	rc=0
	FAKE_HTM_FAIL=read:5:524288 on_tty dump -d "$DEV" -o t.bin || rc=$?
	[ "$rc" -eq 1 ]
	tty_lines >lines.txt
	cat lines.txt
	grep -qE "$PROGRESS_RE" lines.txt
	grep -qx "htmtrace dump: read $DEV at offset 524288: Input/output error" lines.txt
	grep -qx "htmtrace dump: kept 524288 bytes of a buffer of 1048576 in t.bin: the dump is incomplete" lines.txt
	grep -qx "  htmtrace dump -d $DEV --offset 524288 -o t.bin" lines.txt
}

# --- --json: status, caps, sysmem, sysproc ----------------------------------

# Check the JSON document on stdin with a Python expression over it, d:
# it must parse (json.load is strict: no trailing commas, no bare control
# characters) and the expression must hold.
json_check() {
	"$PY" -c 'import json, sys
d = json.load(sys.stdin)
if not eval("(" + sys.argv[1] + ")"):
	sys.exit("json_check failed on: %r" % (d,))' "$1"
}

@test "status --json: every field, null where an idle channel has none" {
	channel 1 3 2 0 2 5
	run -0 --separate-stderr fhtm status -d "$DEV" --json
	[ "$stderr" = "" ]
	json_check 'd == {"device": "'"$DEV"'", "state": "configured", "state_code": 1,
		"target": {"type": "core", "type_code": 2, "node": 0, "chip": 2, "core": 5},
		"flags": ["nowrap", "wait"], "flags_code": 3, "buffer_size": 4096,
		"data_size": None, "status_error": 0, "stop_refused": False,
		"hv_flags_code": 0}' <<<"$output"
	channel 2 0 7 1 0 0
	run -0 fhtm status -d "$DEV" --json
	json_check 'd["state"] == "tracing" and d["flags"] == [] and d["target"]["type"] is None and d["target"]["type_code"] == 7' <<<"$output"
	channel 0 0 0 0 0 0
	run -0 fhtm status -d "$DEV" --json
	json_check 'd == {"device": "'"$DEV"'", "state": "idle", "state_code": 0, "target": None,
		"flags": [], "flags_code": 0, "buffer_size": None, "data_size": None,
		"status_error": 0, "stop_refused": False, "hv_flags_code": 0}' <<<"$output"
	# What the driver knows when the hypervisor's STATUS failed, where the
	# data ended, and a refused stop.
	channel 3 1 2 0 2 5 refused 1
	FAKE_HTM_STATUS_ERR=5 FAKE_HTM_DATA_END=1280 run -0 fhtm status -d "$DEV" --json
	json_check 'd["buffer_size"] is None and d["data_size"] == 1280 and
		d["status_error"] == 5 and d["stop_refused"] is True and
		d["hv_flags_code"] == 3' <<<"$output"
}

@test "status --json: a device name with quotes, backslashes and a tab stays valid JSON" {
	export FAKE_HTM_DEV=$BATS_TEST_TMPDIR/$'h"t\\m\t0'
	channel 3 1 1 0 0 0
	run -0 fhtm status -d "$FAKE_HTM_DEV" --json
	[[ "$output" == *'/h\"t\\m\u00090",'* ]]
	DEVNAME=$FAKE_HTM_DEV json_check 'd["device"] == __import__("os").environ["DEVNAME"] and d["state"] == "stopped"' <<<"$output"
}

@test "status --json on a missing device: exit 1, nothing on stdout" {
	run -1 --separate-stderr htm status -d "$BATS_TEST_TMPDIR/nodev" --json
	[ "$output" = "" ]
	[[ "${stderr_lines[0]}" == "htmtrace status: open $BATS_TEST_TMPDIR/nodev: No such file or directory" ]]
}

@test "caps --json: the target asked for and the block as hex" {
	run -0 --separate-stderr fhtm caps -d "$DEV" -t nest -n 1 -p 2 -c 3 --json
	[ "$stderr" = "" ]
	json_check 'd["device"] == "'"$DEV"'" and d["length"] == 128 and
		bytes.fromhex(d["hex"]) == bytes(range(128)) and
		d["target"] == {"type": "nest", "type_code": 1, "node": 1, "chip": 2, "core": 3}' <<<"$output"
}

@test "sysmem and sysproc --json: every block, from the device and from a file; --hex adds the bytes" {
	export FAKE_HTM_BLOCKS=3 FAKE_HTM_ENTRIES=2
	run -0 --separate-stderr fhtm sysmem -d "$DEV" --json
	[ "$stderr" = "" ]
	json_check 'd["what"] == "sysmem" and d["source"] == "'"$DEV"'" and
		d["bytes"] == 288 and d["entries"] == 6 and d["entry_size"] == 32 and
		d["blocks"] == [{"offset": 0, "size": 96, "entries": 2, "next": 2},
				{"offset": 96, "size": 96, "entries": 2, "next": 4},
				{"offset": 192, "size": 96, "entries": 2, "next": 0}]' <<<"$output"
	run -0 fhtm sysproc -d "$DEV" -o p.bin
	run -0 htm sysproc -i p.bin --json --hex
	P=$BATS_TEST_TMPDIR/p.bin json_check 'd["what"] == "sysproc" and d["source"] == "p.bin" and
		len(d["blocks"]) == 3 and
		b"".join(bytes.fromhex(b["hex"]) for b in d["blocks"]) == open(__import__("os").environ["P"], "rb").read()' <<<"$output"
	# No blocks at all: an empty list.
	: >empty.bin
	run -0 htm sysmem -i empty.bin --json
	json_check 'd["blocks"] == [] and d["bytes"] == 0' <<<"$output"
	run -2 --separate-stderr fhtm sysmem -d "$DEV" -o m.bin --json
	[ "${stderr_lines[0]}" = "htmtrace sysmem: --json prints blocks: it takes no -o" ]
}
