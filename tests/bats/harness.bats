#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# The test harness itself: the guest boots, and commands round-trip exactly
# (output bytes, stderr, exit status, timeouts). Needs no module.

load helpers

@test "guest: the kernel and the file systems are up" {
	run guest 'uname -m; grep -c " debugfs " /proc/mounts; grep -c " /tmp tmpfs" /proc/mounts'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ppc64le ]
	[ "${lines[1]}" = 1 ]
	[ "${lines[2]}" = 1 ]
}

@test "guest: stdout, stderr and the exit status come back apart" {
	run --separate-stderr guest 'echo out; echo err >&2; exit 7'
	[ "$status" -eq 7 ]
	[ "$output" = out ]
	[ "$stderr" = err ]
}

@test "guest: quotes and shell metacharacters survive" {
	run guest "printf '%s|' \"it's\" 'a \"b\"' '\$HOME' '\\\\' '*'"
	[ "$status" -eq 0 ]
	[ "$output" = "it's|a \"b\"|\$HOME|\\\\|*|" ]
}

@test "guest: binary output comes back byte for byte" {
	local host
	host=$(printf '\000\001\r\n\377end' | od -An -tx1)
	run guest "printf '\\000\\001\\r\\n\\377end' | od -An -tx1"
	[ "$output" = "$host" ]
	# and a larger binary stream, through stdout itself
	run guest 'head -c 65536 /dev/urandom > /tmp/r; md5sum < /tmp/r'
	sum=${output%% *}
	guest cat /tmp/r > "$BATS_TEST_TMPDIR/r"
	[ "$(md5sum < "$BATS_TEST_TMPDIR/r" | cut -d' ' -f1)" = "$sum" ]
}

@test "guest: a request and a reply damaged on the way are sent again; the command runs once" {
	# (tests/bats/host-guest.bats tests each case of the channel's checks
	# against the same server on a host pty; this is the guest's hvc1)
	HTMTRACE_GUEST_DAMAGE=request,reply run --separate-stderr guest \
		'echo ran >> /tmp/channel-count; echo "hello world"; seq 100'
	printf '%s\n' "${stderr_lines[@]}"
	[ "$status" -eq 0 ]
	[ "$output" = "hello world
$(seq 100)" ]
	[ "${stderr_lines[1]}" = "guest: the guest found the request damaged (attempt 1 of 4): sending it again" ]
	[[ ${stderr_lines[3]} == "guest: stdout is damaged: 304 bytes, CRC "*" (attempt 1): asking for it again" ]]
	[ "${#stderr_lines[@]}" -eq 4 ]
	run -0 guest cat /tmp/channel-count
	[ "$output" = ran ]
}

@test "guest: plain words run without sh, as sh runs them; a builtin or an unknown name, by sh" {
	local plain
	# exec'd by the command server itself: sh would have raised SHLVL
	run -0 guest env
	plain=$(sed -n 's/^SHLVL=//p' <<<"$output")
	[[ $plain =~ ^[0-9]+$ ]]
	run -0 guest 'env;'
	[ "$(sed -n 's/^SHLVL=//p' <<<"$output")" -eq $((plain + 1)) ]
	# the same stdout, stderr and status either way
	run --separate-stderr guest ls / /no-such-dir
	[ "$status" -eq 1 ]
	local out=$output err=$stderr
	run --separate-stderr guest 'ls / /no-such-dir;'
	[ "$status" -eq 1 ]
	[ "$output" = "$out" ]
	[ "$stderr" = "$err" ]
	[[ $err == *no-such-dir* ]]
	# what no program on PATH is: sh's builtin, sh's message
	run -3 guest exit 3
	run -127 --separate-stderr guest no-such-program x
	[ "$stderr" = "sh: no-such-program: not found" ]
}

@test "guest: a missing trailing newline is kept" {
	guest printf abc > "$BATS_TEST_TMPDIR/abc"
	[ "$(od -An -c < "$BATS_TEST_TMPDIR/abc" | tr -d ' ')" = abc ]
}

@test "guest: a command that times out is killed, its whole process group too" {
	# a pipeline and a background job: all of it must go at the timeout
	GUEST_TIMEOUT=2 run --separate-stderr guest 'set -o pipefail; echo before
		sleep 301 < /dev/zero & sleep 302 | cat; echo after'
	[ "$status" -eq 124 ]
	[ "$output" = before ]
	[ "$stderr" = "htmtrace-guest: killed after the 2 s timeout" ]
	run guest 'ps -o args | grep -c "^sleep 30[12]"'
	[ "$output" = 0 ]
	run guest echo alive
	[ "$output" = alive ]
}

@test "guest: a command that exits while orphans exit is seen to end" {
	# PID 1 reaps orphans too; the command's own exit must never be taken
	# for an orphan's (it then ran until its timeout, seen in CI). Each
	# command leaves 32 orphans and exits at the moment they do.
	local i
	for i in $(seq 20); do
		GUEST_TIMEOUT=10 run guest htmtest orphans 32
		echo "$i: $status $output"
		[ "$status" -eq 0 ]
		[ "$output" = ok ]
	done
}

@test "guest: guest_dmesg shows this test's kernel messages only" {
	guest 'echo htmtrace-harness-probe > /dev/kmsg'
	run guest_dmesg
	[ "$status" -eq 0 ]
	[[ $output == *htmtrace-harness-probe* ]]
	[[ $output != *"htmtrace-test: test"* ]]
	assert_no_splat
}

@test "guest: a real kernel WARNING fails the post-mortem; one expected on purpose does not" {
	requires module htmtrace_hvsim
	guest "insmod $HTM_MODDIR/htmtrace_hvsim.ko && insmod $HTM_MODDIR/htmtrace.ko backend=sim &&
	       echo 'htmtrace-test: expect-splat begin' > /dev/kmsg &&
	       echo 1 > /sys/kernel/debug/htmtrace_hvsim/warn &&
	       echo 'htmtrace-test: expect-splat end' > /dev/kmsg"
	run guest_dmesg
	[ "$status" -eq 0 ]
	local log=$output
	# without the brackets, the check the whole run ends with goes red
	run "$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check - \
		< <(grep -v 'htmtrace-test: expect-splat' <<<"$log")
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"WARNING: CPU: "*" at "*"hvsim_warn_set"* ]]
	# with them, the splat is expected and required
	run "$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check - <<<"$log"
	echo "$output"
	[ "$status" -eq 0 ]
	guest_unload_all
}
