#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr, $stderr_lines: set by bats' run --separate-stderr
# The guest runner's process hygiene (tests/guest.py), without booting a
# guest: the keeper that QEMU runs under ends it when its owner goes, and
# `kill` signals nothing but a keeper it recorded. A stand-in command plays
# QEMU; the mechanism is the same.

bats_require_minimum_version 1.5.0

setup() {
	GUEST_PY=$BATS_TEST_DIRNAME/../guest.py
	PY=python3
	[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR" || return 1
	# The stand-in's name, unique to this test of this run ($$): another run
	# of this file on the machine (CI, a second checkout) has its own, and
	# neither sees nor kills the other's processes.
	FAKE=htmtrace-fake-qemu-$BATS_TEST_NUMBER-$$
	OWNER=
}

teardown() {
	chan_stop
	# nothing this file started may survive it (a failed test too: a
	# leftover owner would also hold bats' output open until it ends)
	[ -z "$OWNER" ] || kill -KILL "$OWNER" 2>/dev/null || true
	pkill -KILL -f "$FAKE( |\$)" 2>/dev/null || true
	pkill -KILL -f "keeper.*$BATS_TEST_TMPDIR" 2>/dev/null || true
}

start_time() {
	"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import guest; print(guest.proc_start(int(sys.argv[2])))' \
		"$BATS_TEST_DIRNAME/.." "$1"
}

# A process that stands in for QEMU: findable by its command line.
fake_qemu() {
	echo "exec -a $FAKE sleep 300"
}

up_within() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		pgrep -f "$2" >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

gone_within() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		pgrep -f "$2" >/dev/null || return 0
		sleep 0.05
	done
	return 1
}

@test "keeper: QEMU ends within seconds of its owner, even a SIGKILLed one" {
	sleep 300 &
	local owner=$!
	OWNER=$owner
	"$PY" "$GUEST_PY" keeper --owner $owner --owner-start "$(start_time $owner)" \
		--sock "$BATS_TEST_TMPDIR/s" --log "$BATS_TEST_TMPDIR/q.log" \
		-- bash -c "$(fake_qemu)" &
	local keeper=$!
	# up, and alive while the owner is
	up_within 5 "^$FAKE "
	sleep 1
	pgrep -f "^$FAKE "
	kill -KILL $owner
	gone_within 5 "^$FAKE "
	local rc=0
	wait $keeper || rc=$?
	[ "$rc" -eq 0 ]
}

@test "keeper: an owner whose pid was reused counts as gone" {
	sleep 300 &
	local owner=$!
	OWNER=$owner
	# the right pid with another start time is another process
	"$PY" "$GUEST_PY" keeper --owner $owner --owner-start 1 \
		--sock "$BATS_TEST_TMPDIR/s" --log "$BATS_TEST_TMPDIR/q.log" \
		-- bash -c "$(fake_qemu)" &
	local keeper=$!
	wait $keeper
	run pgrep -f "^$FAKE "
	[ "$status" -eq 1 ]
	kill $owner
}

@test "kill: a recorded pid that is not our keeper is never signalled" {
	# the arguments a keeper has, as separate words, and our marker
	"$PY" -c 'import time; time.sleep(300)' keeper --sock "$BATS_TEST_TMPDIR/s/ctl" \
		"$FAKE" &
	local victim=$!
	# state that names the victim's pid, with a socket it does not carry,
	# then with its socket but another start time
	for st in "pid $victim|start $(start_time $victim)|sock $BATS_TEST_TMPDIR/x/ctl" \
		  "pid $victim|start 1|sock $BATS_TEST_TMPDIR/s/ctl"; do
		tr '|' '\n' <<<"$st" > "$BATS_TEST_TMPDIR/state"
		run "$PY" - "$BATS_TEST_DIRNAME/.." "$BATS_TEST_TMPDIR/state" <<-'EOF'
		import sys
		sys.path.insert(0, sys.argv[1])
		import guest
		g = guest.Guest('release', 'host-guest-bats')
		g.state_file = sys.argv[2]
		g.kill()
		print('state removed' if not g.state() else 'state kept')
		EOF
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "state removed" ]
		kill -0 $victim
	done
	kill $victim
}

# --- the command channel: tests/guestrun.c (through guest.py) against
# tests/guest/cmdserver.c, built for the host and serving a pty, with a
# stand-in QEMU under the real keeper that carries the unix socket to the
# pty as QEMU's spapr-vty does.

# chan_start: compile the server, start keeper + bridge + server, record
# the guest's state where chan_run's Guest finds it
chan_start() {
	gcc -O2 -Wall -Wextra -Werror -o cmdserver "$BATS_TEST_DIRNAME/../guest/cmdserver.c"
	cat > bridge.py <<-'EOF'
	import os, pty, select, signal, socket, subprocess, sys
	sock_path, server, pidfile = sys.argv[1:4]
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
	master, slave = pty.openpty()
	p = subprocess.Popen([server, os.ttyname(slave)], stdout=subprocess.PIPE)
	try:
	    with open(pidfile, 'w') as f:
	        f.write(f'{p.pid}\n')
	    p.stdout.readline()                 # "htmtrace-guest: ready ..."
	    os.close(slave)
	    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    srv.bind(sock_path)
	    srv.listen(1)
	    conn, parent = None, os.getppid()
	    while os.getppid() == parent and p.poll() is None:
	        r, _, _ = select.select([conn or srv, master], [], [], 0.5)
	        if srv in r:
	            conn, _ = srv.accept()
	        elif conn in r:
	            data = conn.recv(65536)
	            if data:
	                os.write(master, data)
	            else:
	                conn.close()
	                conn = None
	        if master in r and conn:    # else it waits in the pty
	            try:
	                conn.sendall(os.read(master, 65536))
	            except OSError:
	                conn.close()
	                conn = None
	finally:
	    p.kill()
	EOF
	sleep 300 &
	OWNER=$!
	"$PY" "$GUEST_PY" keeper --owner $OWNER --owner-start "$(start_time $OWNER)" \
		--sock "$BATS_TEST_TMPDIR/s" --log "$BATS_TEST_TMPDIR/q.log" \
		-- "$PY" bridge.py "$BATS_TEST_TMPDIR/s" "$PWD/cmdserver" server.pid &
	KEEPER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S s ] && break
		sleep 0.05
	done
	[ -S s ]
	printf 'pid %s\nstart %s\nsock %s\n' $KEEPER "$(start_time $KEEPER)" "$BATS_TEST_TMPDIR/s" \
		> state
}

# chan_run TEXT: guest.py's run of TEXT (timeout 20 s) through that channel:
# its stdout, stderr and status
chan_run() {
	"$PY" - "$BATS_TEST_DIRNAME/.." "$BATS_TEST_TMPDIR" "$1" <<-'EOF'
	import sys
	sys.path.insert(0, sys.argv[1])
	import guest
	g = guest.Guest('release', 'host-guest-bats')
	g.dir = sys.argv[2]
	g.state_file, g.wedged_file = g.dir + '/state', g.dir + '/wedged'
	out, err, rc = g.run(sys.argv[3], 20)
	sys.stdout.buffer.write(out)
	sys.stderr.buffer.write(err)
	sys.exit(rc)
	EOF
}

chan_stop() {
	[ -z "${KEEPER:-}" ] || kill -TERM "$KEEPER" 2>/dev/null || true
	[ ! -s server.pid ] || kill -KILL "$(cat server.pid)" 2>/dev/null || true
}

@test "channel: a request damaged on the way is found, sent again, and run exactly once" {
	chan_start
	HTMTRACE_GUEST_DAMAGE=request run --separate-stderr chan_run \
		"echo ran >> $BATS_TEST_TMPDIR/count; echo 'hello world'; echo err >&2; exit 3"
	chan_stop
	printf '%s\n' "$output" "${stderr_lines[@]}"
	[ "$status" -eq 3 ]
	[ "$output" = "hello world" ]
	[ "${stderr_lines[0]}" = "guest: damaging this request on purpose (HTMTRACE_GUEST_DAMAGE)" ]
	[ "${stderr_lines[1]}" = "guest: the guest found the request damaged (attempt 1 of 4): sending it again" ]
	[ "${stderr_lines[2]}" = err ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "$(cat count)" = ran ]
}

@test "channel: a reply damaged on the way is found and asked for again; the command ran once" {
	chan_start
	HTMTRACE_GUEST_DAMAGE=reply run --separate-stderr chan_run \
		"echo ran >> $BATS_TEST_TMPDIR/count; seq 1000"
	[ "$status" -eq 0 ]
	[ "$output" = "$(seq 1000)" ]
	[ "${stderr_lines[0]}" = "guest: damaging this reply on purpose (HTMTRACE_GUEST_DAMAGE)" ]
	[[ ${stderr_lines[1]} == "guest: stdout is damaged: 3893 bytes, CRC "*" for 3893 bytes, CRC "*" (attempt 1): asking for it again" ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "$(cat count)" = ran ]
	# an empty reply's damage is in its last line (the status)
	HTMTRACE_GUEST_DAMAGE=reply run --separate-stderr chan_run "exit 5"
	[ "$status" -eq 5 ]
	[ "$output" = "" ]
	[[ ${stderr_lines[1]} == "guest: the reply's last line is damaged: '@@HTMG-END "*" 6 0 00000000 0 00000000 "*"' (attempt 1): asking for it again" ]]
	chan_stop
}

@test "channel: a request damaged every time fails clearly after 4 sends and never runs" {
	chan_start
	HTMTRACE_GUEST_DAMAGE=request:9 run --separate-stderr chan_run \
		"echo ran >> $BATS_TEST_TMPDIR/count"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[-1]}" = "guest: the guest found the request damaged 4 times: giving up: echo ran >> $BATS_TEST_TMPDIR/count" ]
	[ "$(grep -c 'damaging this request' <<<"$stderr")" -eq 4 ]
	[ ! -e count ]
	# the channel is not wedged by it: the next command runs
	run -0 chan_run "echo alive"
	chan_stop
	[ "$output" = alive ]
}

@test "channel: a reply damaged every time fails clearly after 3 asks; the command ran once" {
	chan_start
	HTMTRACE_GUEST_DAMAGE=reply:9 run --separate-stderr chan_run \
		"echo ran >> $BATS_TEST_TMPDIR/count; echo out"
	chan_stop
	[ "$status" -eq 125 ]
	[[ ${stderr_lines[-1]} == "guest: the reply came damaged 4 times: giving up (stdout is damaged: "*"): echo ran >> $BATS_TEST_TMPDIR/count; echo out" ]]
	[ "$(cat count)" = ran ]
}

@test "channel: a request that arrives twice (sent again) runs once; the empty command runs" {
	chan_start
	run -0 chan_run ""
	[ "$output" = "" ]
	# the same request twice in a row, as a resend after a lost
	# acknowledgement delivers it: the second is answered DUP, not run
	# (the request framed as cmdserver.c describes it)
	run "$PY" - "$BATS_TEST_TMPDIR" <<-'EOF'
	import base64, socket, sys, time, zlib
	text = f'echo ran >> {sys.argv[1]}/count'.encode()
	line = f'REQ dup1 20 {len(text)} {base64.b64encode(text).decode()}'
	req = f'\n{line} {zlib.crc32(line.encode()):08x}\n'.encode()
	with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
	    s.connect(sys.argv[1] + '/s')
	    s.sendall(req + req)
	    got, deadline = b'', time.time() + 20
	    while b'@@HTMG-DUP' not in got and time.time() < deadline:
	        s.settimeout(deadline - time.time())
	        got += s.recv(4096)
	print(' '.join(l.split()[0] for l in got.decode().splitlines()))
	EOF
	chan_stop
	[ "$status" -eq 0 ]
	[ "$output" = "@@HTMG-ACK @@HTMG-OUT @@HTMG-ERR @@HTMG-END @@HTMG-DUP" ]
	[ "$(cat count)" = ran ]
}

# --- the guest helpers (tests/bats/helpers.bash) when the guest does not
# answer: guest.py then gives status 125 and no output, and an empty kernel
# log has no splat, so a helper that pipes the guest's answer on would pass.

# helper_run FUNCTION: FUNCTION of helpers.bash, for a guest that is not
# running (as after a crash), in a shell of its own
helper_run() {
	HTM_HELPER=$1 bash -c '
		bats_require_minimum_version() { :; }
		BATS_TEST_FILENAME=$0/helpers-bats.bats
		source "$0/helpers.bash"
		HTM_GUEST=nowhere-$$ "$HTM_HELPER"' "$BATS_TEST_DIRNAME"
}

@test "helpers: assert_no_splat fails when the guest's kernel log does not come" {
	run helper_run assert_no_splat
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "assert_no_splat: the guest's kernel log did not come (status 125)" ]
}

# hv_run ANSWER [CHECKED]: hv_protocol_unload of helpers.bash, the guest's
# answer to its cleanup ANSWER; CHECKED sets HV_PROTOCOL_CHECKED (the test
# ran hv_protocol_check before it unloaded the simulator)
hv_run() {
	HV_ANSWER=$1 HV_CHECKED=${2:-} bash -c '
		bats_require_minimum_version() { :; }
		BATS_TEST_FILENAME=$0/helpers-bats.bats
		source "$0/helpers.bash"
		guest() { echo "$HV_ANSWER"; }
		HV_PROTOCOL_CHECKED=$HV_CHECKED
		hv_protocol_unload' "$BATS_TEST_DIRNAME"
}

@test "helpers: hv_protocol_unload fails on misuse, and when the simulator's counters cannot be read" {
	run -0 hv_run "misuse 0 0"
	[ "$output" = "" ]
	run -1 hv_run "misuse 2 0"
	[ "$output" = "DUMP_DATA while tracing, unaligned: 2 0" ]
	# no misuse line: the simulator is gone (or its debugfs renamed)
	run -1 hv_run ""
	[ "$output" = "teardown: the simulator's DUMP_DATA counters could not be read (unloaded, or its debugfs gone): hv_protocol_check before unloading it" ]
	# unless the test checked them before it unloaded the simulator
	run -0 hv_run "" 1
	[ "$output" = "" ]
}

@test "helpers: htm_teardown_file fails when the guest's unload does not answer" {
	HTMTRACE_GUEST=nowhere run helper_run htm_teardown_file
	echo "$output"
	[ "$status" -eq 125 ]
	[[ $output == *"teardown: the guest's unload and kernel log failed (status 125)"* ]]
}
