#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites of htmtrace_kunit.ko in the QEMU pseries guest and judge
# them with the kernel's own parser (tools/testing/kunit/kunit.py parse).
#
#   tests/kunit.sh release|debug
#   tests/kunit.sh --list          the suites htmtrace_kunit.ko must report
#   tests/kunit.sh --cases         "SUITE CASES" for each: its KUNIT_CASE
#                                  entries (a parameterised case counts once,
#                                  though a run counts each parameter)
#   tests/kunit.sh --names         "SUITE.CASE" for each KUNIT_CASE entry
#   tests/kunit.sh --judge VARIANT JSON
#                                  count kunit.py's JSON results as a run
#                                  on VARIANT does: "PASSED FAILED SKIPPED"
#
# Boots a guest, loads htmtrace.ko then htmtrace_kunit.ko (whose init runs the
# suites), reads each suite's KTAP from /sys/kernel/debug/kunit/<suite>/results
# (the kernel log if there is none), joins them into one KTAP document, parses
# it, and writes build/<variant>/logs/kunit.{ktap,json,counts}. kunit.counts is
# one line "passed N failed N skipped N notrun N" for tests/check.sh; a failed
# or crashed case, a broken run, or a splat/leak in the guest post-mortem
# counts as failed; so does a skipped case that tests/skips.allow does not
# expect on the variant (a line "VARIANT: kunit SUITE.CASE", ".PARAM" after
# it for one parameter: a two-CPU case that skips on a guest of one CPU
# would otherwise leave the run green); the cases of every suite of
# kunit/*.c that did not report count as not run (and fail the run). Exit
# status 0 only if nothing failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# The suite names, from the kunit_suite definitions in kunit/*.c.
expected_suites() {
	awk '/struct kunit_suite [a-z0-9_]+ = \{/ { s = 1; next }
	     s && match($0, /\.name = "[^"]+"/) { print substr($0, RSTART + 9, RLENGTH - 10); s = 0 }' \
		"$top"/kunit/*.c
}
# "SUITE CASES": the entries of the kunit_case array each suite names.
suite_cases() {
	awk '/^static struct kunit_case [a-z0-9_]+\[\] = \{/ {
		arr = $4; sub(/\[\]$/, "", arr); next }
	     arr && /KUNIT_CASE/ { n[arr]++ }
	     arr && /^\};/ { arr = "" }
	     /struct kunit_suite [a-z0-9_]+ = \{/ { s = 1; name = ""; cases = ""; next }
	     s && match($0, /\.name = "[^"]+"/) { name = substr($0, RSTART + 9, RLENGTH - 10) }
	     s && match($0, /\.test_cases = [a-z0-9_]+/) { cases = substr($0, RSTART + 14, RLENGTH - 14) }
	     s && /^\};/ { print name, n[cases] + 0; s = 0 }' "$top"/kunit/*.c
}
# "SUITE.CASE" for each KUNIT_CASE and KUNIT_CASE_PARAM entry.
case_names() {
	awk '/^static struct kunit_case [a-z0-9_]+\[\] = \{/ {
		arr = $4; sub(/\[\]$/, "", arr); next }
	     arr && match($0, /KUNIT_CASE(_PARAM)?\([a-z0-9_]+/) {
		k = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", k); cs[arr] = cs[arr] " " k }
	     arr && /^\};/ { arr = "" }
	     /struct kunit_suite [a-z0-9_]+ = \{/ { s = 1; name = ""; cases = ""; next }
	     s && match($0, /\.name = "[^"]+"/) { name = substr($0, RSTART + 9, RLENGTH - 10) }
	     s && match($0, /\.test_cases = [a-z0-9_]+/) { cases = substr($0, RSTART + 14, RLENGTH - 14) }
	     s && /^\};/ { n = split(cs[cases], c, " "); for (i = 1; i <= n; i++) print name "." c[i]; s = 0 }' \
		"$top"/kunit/*.c
}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
# shellcheck source=tests/skips.sh
. "$top/tests/skips.sh"

# judge VARIANT JSON: the cases of kunit.py's JSON results counted,
# "PASSED FAILED SKIPPED" on stdout. A skipped case that tests/skips.allow
# does not expect on VARIANT ("kunit SUITE.CASE", "kunit SUITE.CASE.PARAM"
# for a parameter) counts as failed, named on stderr.
judge() {
	local variant=$1 passed failed skipped name
	{
		read -r passed failed skipped || return 1
		while IFS= read -r name; do
			skip_allowed "$variant" "kunit $name" && continue
			echo "kunit: an unexpected skip on $variant (not in tests/skips.allow): kunit $name" >&2
			skipped=$((skipped - 1)) failed=$((failed + 1))
		done
	} < <("$py" - "$2" <<-'EOF'
		import json, sys
		count = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
		skips = []
		def walk(group, path):
		    for case in group['test_cases']:
		        status = case['status']
		        count['FAIL' if status not in count else status] += 1
		        if status == 'SKIP':
		            skips.append('.'.join(path + [case['name']]))
		    for sub in group['sub_groups']:
		        walk(sub, path + [sub['name']])
		walk(json.load(open(sys.argv[1])), [])
		print(count['PASS'], count['FAIL'], count['SKIP'])
		for name in skips:
		    print(name)
		EOF
	)
	echo "$passed $failed $skipped"
}

if [ "${1:-}" = --list ]; then
	expected_suites
	exit 0
fi
if [ "${1:-}" = --cases ]; then
	suite_cases
	exit 0
fi
if [ "${1:-}" = --names ]; then
	case_names
	exit 0
fi
if [ "${1:-}" = --judge ]; then
	[ $# -eq 3 ] || { echo "usage: $0 --judge VARIANT JSON" >&2; exit 2; }
	judge "$2" "$3"
	exit
fi

variant=${1:-debug}
logs=$top/build/$variant/logs
mkdir -p "$logs"
ktap=$logs/kunit.ktap json=$logs/kunit.json counts=$logs/kunit.counts
rm -f "$ktap" "$json" "$counts"

# HTMTRACE_GUEST=NAME: run in that running guest; its owner stops it.
name=${HTMTRACE_GUEST:-kunit}
guest() { "$py" "$top/tests/guest.py" "$1" -V "$variant" -n "$name" "${@:2}"; }
fail() { echo "kunit: $*" >&2; broken=$((broken + 1)); }

broken=0 passed=0 failed=0 skipped=0 notrun=0 own_guest=0
finish() {
	local rc=$?
	# A guest this script booted never outlives it, whatever the exit path.
	[ $own_guest -eq 0 ] || guest kill || true
	[ $rc -eq 0 ] || [ $((failed + broken + notrun)) -gt 0 ] || broken=1
	echo "passed $passed failed $((failed + broken)) skipped $skipped notrun $notrun" > "$counts"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

kdir=$top/build/$variant/kdir
[ -d "$kdir" ] || kdir=$("$top/tests/kernel.sh" "$variant")
kunit_py=$(readlink -f "$kdir/source")/tools/testing/kunit/kunit.py
[ -f "$kunit_py" ] || { fail "no $kunit_py"; exit 1; }

if [ -z "${HTMTRACE_GUEST:-}" ]; then
	own_guest=1
	guest start --owner $$ || { fail "the guest did not boot"; exit 1; }
fi
m=/lib/modules/htmtrace
guest run -t 120 insmod $m/htmtrace.ko || fail "insmod htmtrace.ko failed"
guest run -t 1800 insmod $m/htmtrace_kunit.ko || fail "insmod htmtrace_kunit.ko failed"

suites=$(guest run ls /sys/kernel/debug/kunit 2>/dev/null || true)
n=$(echo "$suites" | grep -c . || true)
if [ "$n" -gt 0 ]; then
	# Each results file is a KTAP document with one test, the suite: drop
	# its two header lines and renumber it.
	{
		echo "KTAP version 1"
		echo "1..$n"
		i=0
		for s in $suites; do
			i=$((i + 1))
			guest run cat "/sys/kernel/debug/kunit/$s/results" |
				sed -e '1,2d' -e "\$s/^\(not ok\|ok\) 1 /\1 $i /"
		done
	} > "$ktap"
else
	fail "no suite in /sys/kernel/debug/kunit; parsing the kernel log instead"
	guest run dmesg > "$ktap" || true
fi
guest run -t 120 'rmmod htmtrace_kunit && rmmod htmtrace' || fail "rmmod failed"
if [ $own_guest -eq 1 ]; then
	own_guest=0
	guest stop || fail "guest post-mortem failed (see $logs/$name.console.log)"
fi

"$py" "$kunit_py" parse --json="$json" "$ktap" || true
[ -s "$json" ] || { fail "kunit.py parse wrote no results"; exit 1; }
read -r passed failed skipped < <(judge "$variant" "$json") ||
	{ fail "kunit.py's results could not be counted"; exit 1; }
[ $((passed + failed + skipped)) -gt 0 ] || fail "no test case ran"
while read -r s cases; do
	if ! grep -qE "^(not )?ok [0-9]+ $s( |\$)" "$ktap"; then
		echo "kunit: suite $s did not report: its $cases case(s) did not run" >&2
		notrun=$((notrun + cases))
	fi
done < <(suite_cases)
echo "kunit: $passed passed, $((failed + broken)) failed, $skipped skipped, $notrun case(s) not run" >&2
[ $((failed + broken + notrun)) -eq 0 ]
