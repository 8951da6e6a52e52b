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

# lint_sample [NAME]: lint the sample on stdin (a .bats file, named NAME,
# sample.bats by default; "@TEST" for "@test", which bats would take for a
# test of this file); its findings, without the file's name
lint_sample() {
	local name=${1:-sample.bats}
	sed 's/^@TEST /@test /' > "$name"
	"$PY" "$LINT" "$name" | sed "s/^[^:]*$name://"
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
	[ "${lines[4]}" = '9: guest-script-pipe: a pipe in the guest'"'"'s script loses the status of a (set -o pipefail there, or take the output first): run guest "a | b" | tail -n 1' ]
	[ "${#lines[@]}" -eq 5 ]
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
		guest "[ -d /a ] && ls /b | cat; [ \"\$status\" -ne 0 ]"
		run guest 'ls a | grep b && [ -e c ]'
		run guest "x
			[ 1 ] && [ 2 ]
			cat y | wc -l"
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

@test "lint: a pipe in the guest's script fed by a command whose status is its verdict" {
	run -1 lint_sample <<-'EOF'
	devices() {
		guest 'htmtest list /dev | sort -n'
	}
	@TEST "x" {
		run guest "htmcheck verify /tmp/t | grep '^records valid'"
		guest 'echo 1 > /x && htmtest dtl-stats /dev/vpa_dtl | grep -q dropped && echo ok'
		run -0 guest "cd /tmp &&
			htmperf htm 0 -a 64 | sed 's/ .*//' | sort"
		n=$(guest_number "htmtrace dtl report /tmp/d | grep -c x") || return
		GUEST_TIMEOUT=2 run guest 'echo a; sleep 3 | cat'
		run guest htmtest stop /dev/htm0 "a|b"
		true
	}
	EOF
	echo "$output"
	local fix="(set -o pipefail there, or take the output first)"
	[ "${lines[0]}" = "2: guest-script-pipe: a pipe in the guest's script loses the status of htmtest $fix: guest 'htmtest list /dev | sort -n'" ]
	[ "${lines[1]}" = "5: guest-script-pipe: a pipe in the guest's script loses the status of htmcheck $fix: run guest \"htmcheck verify /tmp/t | grep '^records valid'\"" ]
	[ "${lines[2]}" = "6: guest-script-pipe: a pipe in the guest's script loses the status of htmtest $fix: guest 'echo 1 > /x && htmtest dtl-stats /dev/vpa_dtl | grep -q dropped && echo ok'" ]
	[ "${lines[3]}" = "7: guest-script-pipe: a pipe in the guest's script loses the status of htmperf $fix: run -0 guest \"cd /tmp &&" ]
	[ "${lines[4]}" = "9: guest-script-pipe: a pipe in the guest's script loses the status of htmtrace $fix: n=\$(guest_number \"htmtrace dtl report /tmp/d | grep -c x\") || return" ]
	[ "${lines[5]}" = "10: guest-script-pipe: a pipe in the guest's script loses the status of sleep $fix: GUEST_TIMEOUT=2 run guest 'echo a; sleep 3 | cat'" ]
	# the guest joins the words into one script for sh -c: a bar quoted on
	# the host is a pipe there
	[ "${lines[6]}" = "11: guest-script-pipe: a pipe in the guest's script loses the status of htmtest $fix: run guest htmtest stop /dev/htm0 \"a|b\"" ]
	[ "${#lines[@]}" -eq 7 ]
}

@test "lint: what the guest-script rule lets pass: pipefail, text tools, quoted and escaped bars, ||" {
	run -0 lint_sample <<-'EOF'
	@TEST "x" {
		run guest "set -o pipefail; htmcheck verify /tmp/t | grep '^records valid'"
		run guest "htmcheck verify /tmp/t > /tmp/v && cat /tmp/v | grep valid"
		run guest 'ls /dev | grep "^htm" | sort -n | sed s/htm//'
		run guest "dmesg | tail -n 3; printf '%s|' a b; echo 'htmtest x | y'"
		run guest "sed -n 's/^\(stop\|dump\) //p' /x; htmtest stop /dev/htm0 || echo failed"
		run guest "htmtest \"x | y\" && echo \$(cat /x | wc -l)"
		# guest "htmtest x | grep y" in a comment
		true
	}
	EOF
	echo "$output"
}

@test "lint: a branch on an alternative's value that no lane runs the file with" {
	# sample.bats: no lane takes a profile for it; its runs: the defaults
	run -1 lint_sample <<-'EOF'
	@TEST "x" {
		[ "$(alt stop_full)" = state ]
		[ "$(alt dump_end)" = written ]
		v=$(alt partial)
		[ "$v" != truncated ]
		case $(alt iter_end) in
		minus1) true ;;
		zero|never) false ;;
		esac
		[ "$(alt stop_full)" = success ]
		[ "$(alt iter_end)$(alt partial)" != minus1none ]
		for v in success state; do guest "echo $v > /x"; done
	}
	EOF
	echo "$output"
	local tail="no lane of make check runs this file with it (tests/check.sh htm_alt, helpers.bash alt()): what depends on it never runs"
	[ "${lines[0]}" = "2: alt-unset: stop_full=state: $tail: [ \"\$(alt stop_full)\" = state ]" ]
	[ "${lines[1]}" = "3: alt-unset: dump_end=written: $tail: [ \"\$(alt dump_end)\" = written ]" ]
	[ "${lines[2]}" = "5: alt-unset: partial=truncated: $tail: [ \"\$v\" != truncated ]" ]
	[ "${lines[3]}" = "8: alt-unset: iter_end=never: $tail: zero|never) false ;;" ]
	[ "${lines[4]}" = "8: alt-unset: iter_end=zero: $tail: zero|never) false ;;" ]
	[ "${#lines[@]}" -eq 5 ]
	# htm.bats: the 6.12 lanes run it with their profiles (dump_end=written,
	# partial=truncated, iter_end=zero); stop_full=state and never, no lane
	run -1 lint_sample htm.bats < sample.bats
	echo "$output"
	[ "${lines[0]}" = "2: alt-unset: stop_full=state: $tail: [ \"\$(alt stop_full)\" = state ]" ]
	[ "${lines[1]}" = "8: alt-unset: iter_end=never: $tail: zero|never) false ;;" ]
	[ "${#lines[@]}" -eq 2 ]
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
		. "$top/tests/skips.sh"
		eval "$(sed -n "/^run_bats() {/,/^}/p" "$top/tests/check.sh")"
		grep -qx "\. \"\$top/tests/skips.sh\"" "$top/tests/check.sh" || exit 1
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

@test "skips.allow: every test it names exists (a bats test, or a KUnit case)" {
	local line name cases
	cases=$("$BATS_TEST_DIRNAME/../kunit.sh" --names) || return 1
	[ -n "$cases" ]
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		name=${line#*: }
		case $name in
		"kunit "*)
			# SUITE.CASE, or SUITE.CASE.PARAM
			grep -qxF -e "${name#kunit }" -e "$(cut -d. -f1,2 <<<"${name#kunit }")" <<<"$cases" ||
				{ echo "no such KUnit case: $name"; return 1; }
			;;
		*)
			grep -qF "@test \"$name\" {" "$BATS_TEST_DIRNAME"/*.bats ||
				{ echo "no such test: $name"; return 1; }
			;;
		esac
	done < "$BATS_TEST_DIRNAME/../skips.allow"
}

# kunit_results: kunit.py's JSON (kunit_json.py's layout: a group per
# suite, a parameterised case a group of its parameters) of a run where
# htmtrace_dtl's two-CPU case and one parameter of htmtrace_hv's skipped
kunit_results() {
	cat > results.json <<-'EOF'
	{"name": "KUnit Test Group", "sub_groups": [
	  {"name": "htmtrace_dtl", "sub_groups": [], "test_cases": [
	    {"name": "dtl_end_once", "status": "PASS"},
	    {"name": "dtl_read_cpus_in_turn", "status": "SKIP"},
	    {"name": "dtl_spans", "status": "FAIL"}]},
	  {"name": "htmtrace_hv", "test_cases": [
	    {"name": "hv_ok", "status": "PASS"}], "sub_groups": [
	    {"name": "hv_long_busy_bounded", "sub_groups": [], "test_cases": [
	      {"name": "default", "status": "PASS"},
	      {"name": "teardown", "status": "SKIP"},
	      {"name": "crashed", "status": "ERROR"}]}]}],
	 "test_cases": []}
	EOF
}

@test "kunit.sh: a skipped KUnit case counts as failed unless skips.allow expects it on that kernel" {
	kunit_results
	# the project's skips.allow expects no KUnit skip
	run -0 --separate-stderr "$BATS_TEST_DIRNAME/../kunit.sh" --judge debug results.json
	echo "$stderr"
	[ "$output" = "3 4 0" ]
	[ "$stderr" = "kunit: an unexpected skip on debug (not in tests/skips.allow): kunit htmtrace_dtl.dtl_read_cpus_in_turn
kunit: an unexpected skip on debug (not in tests/skips.allow): kunit htmtrace_hv.hv_long_busy_bounded.teardown" ]
	# one that expects them on debug (a case, a parameter): skipped there,
	# failed on release
	mkdir -p top/tests
	cp "$BATS_TEST_DIRNAME/../kunit.sh" "$BATS_TEST_DIRNAME/../skips.sh" top/tests/
	printf '# x\n%s\n' "debug: kunit htmtrace_dtl.dtl_read_cpus_in_turn" \
		"deb*: kunit htmtrace_hv.hv_long_busy_bounded.teardown" > top/tests/skips.allow
	run -0 --separate-stderr top/tests/kunit.sh --judge debug "$BATS_TEST_TMPDIR/results.json"
	echo "$stderr"
	[ "$output" = "3 2 2" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr top/tests/kunit.sh --judge release "$BATS_TEST_TMPDIR/results.json"
	[ "$output" = "3 4 0" ]
	[ "$(grep -c 'unexpected skip on release' <<<"$stderr")" -eq 2 ]
}

@test "kunit.sh: its run counts with judge, and check.sh adds kunit.counts' failed to its own" {
	# kunit.sh's run path takes its counts from judge (no count of its own)
	grep -qx 'read -r passed failed skipped < <(judge "$variant" "$json") ||' \
		"$BATS_TEST_DIRNAME/../kunit.sh"
	grep -q 'passed=$((passed + p)) failed=$((failed + f))' "$BATS_TEST_DIRNAME/../check.sh"
}
