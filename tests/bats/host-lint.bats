#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # the samples' findings are literal text
# tests/lint-bats.py, the lint that keeps swallowed assertions out of the
# bats suites: each pattern it must catch, fed as a small bad sample, and
# what it must let pass.

bats_require_minimum_version 1.5.0

setup() {
	LINT=$BATS_TEST_DIRNAME/../lint-bats.py
	PY=python3
	[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
	cd "$BATS_TEST_TMPDIR" || return 1
}

# lint_sample: lint the sample on stdin (a .bats file; "@TEST" for
# "@test", which bats would take for a test of this file); its findings,
# without the file's name
lint_sample() {
	sed 's/^@TEST /@test /' > sample.bats
	"$PY" "$LINT" sample.bats | sed 's/^[^:]*sample\.bats://'
	return "${PIPESTATUS[0]}"
}

@test "lint: the suites as they are pass (htm.bats too)" {
	run -0 "$PY" "$LINT"
	[ "$output" = "" ]
}

@test "lint: an && list ending in an assertion, mid-test" {
	run -1 lint_sample <<-'EOF'
	@TEST "x" {
		[ "$a" -ge 6 ] && [ "$b" -ge 6 ]
		run guest true && [ "$output" = ok ]
		[[ $output != *htm* ]] &&
			[[ $output != *vpa_dtl* ]]
		true
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '2: and-list: an && list ending in an assertion, mid-test: [ "$a" -ge 6 ] && [ "$b" -ge 6 ]' ]
	[ "${lines[1]}" = '3: and-list: an && list ending in an assertion, mid-test: run guest true && [ "$output" = ok ]' ]
	[ "${lines[2]}" = '4: and-list: an && list ending in an assertion, mid-test: [[ $output != *htm* ]] &&' ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "lint: an && list mid-function (a helper), and in a loop" {
	run -1 lint_sample <<-'EOF'
	check() {
		[ "$1" -gt 0 ] && [ "$2" -gt 0 ]
		echo done
	}
	@TEST "x" {
		for i in 1 2; do
			[ "$i" -gt 0 ] && [ "$i" -lt 3 ]
		done
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '2: and-list: an && list ending in an assertion, mid-test: [ "$1" -gt 0 ] && [ "$2" -gt 0 ]' ]
	[ "${lines[1]}" = '7: and-list: an && list ending in an assertion, mid-test: [ "$i" -gt 0 ] && [ "$i" -lt 3 ]' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "lint: a guest command piped on the host, in a test, a helper, a substitution" {
	run -1 lint_sample <<-'EOF'
	assert_no_splat() {
		guest_dmesg | "$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check -
	}
	ops() {
		guest "sed -n p $HVSIM/op_calls" | tr '\n' ' '
	}
	@TEST "x" {
		[ "$(guest cat /tmp/r | md5sum)" = "$sum" ]
		run guest "a | b" | tail -n 1
		true
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '2: guest-pipe: a guest command piped: its status is lost: guest_dmesg | "$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check -' ]
	[ "${lines[1]}" = "5: guest-pipe: a guest command piped: its status is lost: guest \"sed -n p \$HVSIM/op_calls\" | tr '\\n' ' '" ]
	[ "${lines[2]}" = '8: guest-pipe: a guest command piped: its status is lost: [ "$(guest cat /tmp/r | md5sum)" = "$sum" ]' ]
	[ "${lines[3]}" = '9: guest-pipe: a guest command piped: its status is lost: run guest "a | b" | tail -n 1' ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "lint: a status check that accepts any failure, and a negation mid-test" {
	run -1 lint_sample <<-'EOF'
	@TEST "x" {
		run guest rmmod htmtrace
		[ "$status" -ne 0 ]
		[ $status != 0 ]
		! grep -q x file
		true
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '3: status-ne-0: expect the exact status: [ "$status" -ne 0 ]' ]
	[ "${lines[1]}" = '4: status-ne-0: expect the exact status: [ $status != 0 ]' ]
	[ "${lines[2]}" = '5: negation: a negated command fails nothing mid-test: ! grep -q x file' ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "lint: what it lets pass: the guest's own shell, conditions, last statements, pipefail, here-documents" {
	run -0 lint_sample <<-'EOF'
	wait_for() {
		for i in $(seq 10); do
			if [ -e /tmp/x ] && [ -s /tmp/x ]; then return 0; fi
			grep -q y /tmp/x && break
		done
		[ -e /tmp/x ] && [ -s /tmp/x ]
	}
	piped() {
		set -o pipefail
		guest cat /tmp/x | wc -l
	}
	@TEST "x" {
		guest "[ -d /a ] && [ -d /b ] | cat; [ \"\$status\" -ne 0 ]"
		run guest 'a | b && [ -e c ]'
		run guest "x
			[ 1 ] && [ 2 ]
			y | z"
		out=$(guest_dmesg) || return
		[ "${PIPESTATUS[0]}" -eq 0 ] || guest true | cat "${PIPESTATUS[0]}"
		"$PY" - <<-'PYEOF'
		a = 1 && 2
		guest | x
		PYEOF
		while [ -n "$a" ] && [ -n "$b" ]; do shift; done
		[ "$status" -eq 1 ]
		! grep -q x file
	}
	EOF
	echo "$output"
}

@test "lint: an && list ending in a negation, a status check above 0, run !" {
	run -1 lint_sample <<-'EOF'
	@TEST "x" {
		run -0 guest true && ! grep -q x file
		[ "$status" -gt 0 ]
		[ "${status}" -ge 1 ]
		run ! guest rmmod htmtrace
		run --separate-stderr ! guest true
		true
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '2: and-list: an && list ending in a negation, mid-test: run -0 guest true && ! grep -q x file' ]
	[ "${lines[1]}" = '3: status-ne-0: expect the exact status: [ "$status" -gt 0 ]' ]
	[ "${lines[2]}" = '4: status-ne-0: expect the exact status: [ "${status}" -ge 1 ]' ]
	[ "${lines[3]}" = "5: run-not: run ! accepts the harness's 124 and 125: run -N: run ! guest rmmod htmtrace" ]
	[ "${lines[4]}" = "6: run-not: run ! accepts the harness's 124 and 125: run -N: run --separate-stderr ! guest true" ]
	[ "${#lines[@]}" -eq 5 ]
}

@test "lint: a guest wrapper piped, in \$( ) ignoring its guest's failure, or tested for empty" {
	run -1 lint_sample <<-'EOF'
	htm_devices() {
		guest 'ls /dev | grep htm'
	}
	devices() {
		htm_devices
	}
	effective_mask() {
		local kmask
		kmask=$(guest "sed -n p /x")
		echo "$1 $kmask"
	}
	@TEST "x" {
		[ "$(htm_devices | wc -l)" -eq 4 ]
		devices | tail -n 1
		mask=$(effective_mask 7)
		[ -z "$(devices)" ]
		[[ -z $(guest ls /x) ]]
		run effective_mask 1
		[ "$status" -eq 0 ]
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '13: guest-pipe: a guest command piped: its status is lost: [ "$(htm_devices | wc -l)" -eq 4 ]' ]
	[ "${lines[1]}" = '14: guest-pipe: a guest command piped: its status is lost: devices | tail -n 1' ]
	[ "${lines[2]}" = '15: guest-subst: effective_mask runs without errexit here, and ignores a failure of its guest call (sample.bats:9, no || return): mask=$(effective_mask 7)' ]
	[ "${lines[3]}" = "16: guest-empty: a guest command's answer tested for empty: its status is lost: [ -z \"\$(devices)\" ]" ]
	[ "${lines[4]}" = "17: guest-empty: a guest command's answer tested for empty: its status is lost: [[ -z \$(guest ls /x) ]]" ]
	[ "${lines[5]}" = '18: guest-subst: effective_mask runs without errexit here, and ignores a failure of its guest call (sample.bats:9, no || return): run effective_mask 1' ]
	[ "${#lines[@]}" -eq 6 ]
}

@test "lint: arithmetic on a command's output nobody checked" {
	run -1 lint_sample <<-'EOF'
	written() {
		guest "sed -n 's/^w //p' /x"
	}
	@TEST "x" {
		local w0 w1 n
		w0=$(written 0)
		run guest "cat /a /b"
		w1=${output#* }
		[ $((w1 - w0)) -le 15 ]
		n=$(($(written 0) - 3))
		(( w0 > 1 ))
		true
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = "9: arith-unchecked: w0, w1: a command's output in arithmetic, no numeric check first: empty counts as 0: [ \$((w1 - w0)) -le 15 ]" ]
	[ "${lines[1]}" = "10: arith-unchecked: a command's output in arithmetic: empty counts as 0: n=\$((\$(written 0) - 3))" ]
	[ "${lines[2]}" = "11: arith-unchecked: w0: a command's output in arithmetic, no numeric check first: empty counts as 0: (( w0 > 1 ))" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "lint: run with no status check, followed only by negative assertions" {
	run -1 lint_sample <<-'EOF'
	@TEST "x" {
		run guest_dmesg
		[[ $output != *"left allocated"* ]]
		run guest cat /x
		echo "$output"
		[ -z "$output" ]
		[[ $output != *y* ]]
		run guest cat /y
		grep -v ok <<<"$output"
	}
	EOF
	echo "$output"
	[ "${lines[0]}" = '2: run-negative: run with no status check, then only negative assertions: a failed command passes them: run guest_dmesg' ]
	[ "${lines[1]}" = '4: run-negative: run with no status check, then only negative assertions: a failed command passes them: run guest cat /x' ]
	[ "${lines[2]}" = '8: run-negative: run with no status check, then only negative assertions: a failed command passes them: run guest cat /y' ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "lint: what the new rules let pass: checked numbers, guest_number, safe wrappers, status checked" {
	run -0 lint_sample <<-'EOF'
	written() {
		guest_number "sed -n 's/^w //p' /x"
	}
	effective_mask() {
		local kmask
		kmask=$(guest_number "sed -n p /x") || return
		echo $(($1 | kmask))
	}
	@TEST "x" {
		local w0 w1 n t0 mask
		t0=$(date +%s%N)
		w0=$(written 0)
		mask=$(effective_mask 7)
		run -0 guest "cat /a"
		w1=${output#* }
		[[ $w1 =~ ^[0-9]+$ ]]
		[ $((w1 - w0 + mask)) -le 15 ]
		n=$(($(date +%s%N) - t0))
		run guest_dmesg
		[ "$status" -eq 0 ]
		[[ $output != *"left allocated"* ]]
		run -0 guest true
		[ -z "$output" ]
		run guest cat /x
		[[ $output != *y* ]]
		[ "${lines[0]}" = x ]
		[ -z "$(echo)" ]
		run -1 guest false
	}
	EOF
	echo "$output"
}

@test "lint: lint.sh runs it, and fails on what it finds (make check and make lint)" {
	mkdir -p top/tests/bats
	cp "$BATS_TEST_DIRNAME/../lint.sh" "$BATS_TEST_DIRNAME/../lint-bats.py" top/tests/
	printf '@test "x" {\n\t[ 1 ] && [ 2 ]\n\ttrue\n}\n' > top/tests/bats/planted.bats
	run -1 top/tests/lint.sh bats
	echo "$output"
	[ "${lines[0]}" = "1..1" ]
	[ "${lines[1]}" = "not ok 1 bats suites: no assertion bats swallows (tests/lint-bats.py)" ]
	[ "${lines[2]}" = "# tests/bats/planted.bats:2: and-list: an && list ending in an assertion, mid-test: [ 1 ] && [ 2 ]" ]
	[ "${#lines[@]}" -eq 3 ]
	printf '@test "x" {\n\t[ 1 ]\n\t[ 2 ]\n}\n' > top/tests/bats/planted.bats
	run -0 top/tests/lint.sh bats
	[ "$output" = "1..1
ok 1 bats suites: no assertion bats swallows (tests/lint-bats.py)" ]
	# and the full run reports the same test, as its 4th
	grep -qx 'lint_bats 4 || status=1' top/tests/lint.sh
}

# check_counts VARIANT: run_bats of tests/check.sh on sample.bats as the
# suites of VARIANT ("host" for the host suites): its messages, then
# "passed N failed N skipped N"
check_counts() {
	bash -c '
		top=$1 logs=$2 variant=debug passed=0 failed=0 skipped=0
		say() { :; }
		eval "$(sed -n "/^skip_allowed() {/,/^}/p; /^run_bats() {/,/^}/p" "$top/tests/check.sh")"
		if [ "$3" = host ]; then
			run_bats host "$2/sample.bats" > /dev/null
		else
			HTMTRACE_VARIANT=$3 run_bats guest-sample "$2/sample.bats" > out.txt
			grep "^check:" out.txt
		fi
		echo "passed $passed failed $failed skipped $skipped"' \
		_ "$BATS_TEST_DIRNAME/../.." "$BATS_TEST_TMPDIR" "$1"
}

@test "check.sh: a skip tests/skips.allow expects counts as skipped, any other as failed" {
	sed 's/^@TEST /@test /' > sample.bats <<-'EOF'
	@TEST "a registration the hypervisor refuses: the CPU says so in the stream" { skip "expected on debug"; }
	@TEST "a test that stopped running" { skip "a regression"; }
	@TEST "a test that runs" { true; }
	EOF
	run -0 check_counts debug
	echo "$output"
	[ "${lines[0]}" = "check: guest-sample: an unexpected skip on debug (not in tests/skips.allow): a test that stopped running" ]
	[ "${lines[1]}" = "passed 1 failed 1 skipped 1" ]
	# the same expected skip on another kernel is a failure too
	run -0 check_counts stock-6.12
	echo "$output"
	[ "${lines[-1]}" = "passed 1 failed 2 skipped 0" ]
}

@test "skips.allow: every test it names exists" {
	local line name
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		name=${line#*: }
		grep -qF "@test \"$name\" {" "$BATS_TEST_DIRNAME"/*.bats ||
			{ echo "no such test: $name"; return 1; }
	done < "$BATS_TEST_DIRNAME/../skips.allow"
}
