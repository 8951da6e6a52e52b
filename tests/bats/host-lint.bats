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

@test "lint: lint.sh runs it (make check and make lint)" {
	grep -q 'lint-bats.py' "$BATS_TEST_DIRNAME/../lint.sh"
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
