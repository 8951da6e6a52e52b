#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
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
	for st in "{\"pid\": $victim, \"start\": $(start_time $victim), \"sock\": \"$BATS_TEST_TMPDIR/x/ctl\"}" \
		  "{\"pid\": $victim, \"start\": 1, \"sock\": \"$BATS_TEST_TMPDIR/s/ctl\"}"; do
		echo "$st" > "$BATS_TEST_TMPDIR/state.json"
		run "$PY" - "$BATS_TEST_DIRNAME/.." "$BATS_TEST_TMPDIR/state.json" <<-'EOF'
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
