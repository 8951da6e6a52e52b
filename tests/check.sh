#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, build the debug variant (KASAN, lockdep,
# kmemleak), then run every test and end with one line "N passed, N failed"
# (", N skipped" when some were skipped). Exit status 0 only if nothing failed.
#
#   host-only bats suites     tests/bats/host-*.bats
#   guest bats suites         every other tests/bats/*.bats, in QEMU pseries
#   KUnit                     tests/kunit.sh (its cases count one by one)
#   uapi header               <linux/htmtrace.h> compiles alone in strict C99
#
# Logs: build/<variant>/logs/ (check-*.tap, build.log, <suite>.console.log ...).
# HTMTRACE_CHECK_VARIANT=release runs the same on the release kernel.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
variant=${HTMTRACE_CHECK_VARIANT:-debug}
logs=$top/build/$variant/logs
export HTMTRACE_VARIANT=$variant
# No single bats test may take longer than this (the guest has its own bounds).
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}
passed=0 failed=0 skipped=0
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

say() { printf '\n=== %s\n' "$*"; }
fail() { echo "check: FAILED: $*"; failed=$((failed + 1)); }

summary() {
	local line="$passed passed, $failed failed"
	[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
	echo
	echo "$line"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

# Run bats files, TAP to the terminal and to logs/check-NAME.tap, and count.
run_bats() {
	local name=$1 tap=$logs/check-$1.tap rc plan seen ok notok skip
	shift
	say "bats: $*"
	bats --tap "$@" 2>&1 | tee "$tap"
	rc=${PIPESTATUS[0]}
	skip=$(grep -ciE '^ok [0-9]+ .*# skip' "$tap")
	ok=$(($(grep -cE '^ok [0-9]+' "$tap") - skip))
	notok=$(grep -cE '^not ok [0-9]+' "$tap")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | head -n 1)
	seen=$((ok + skip + notok))
	# Tests bats announced but never reported, or bats failing on its own.
	if [ "${plan:-0}" -gt "$seen" ]; then
		echo "check: $name: $((plan - seen)) test(s) never ran"
		notok=$((notok + plan - seen))
	fi
	if [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
		echo "check: $name: bats failed (status $rc)"
		notok=1
	fi
	passed=$((passed + ok)) failed=$((failed + notok)) skipped=$((skipped + skip))
}

# Run a command that prints TAP, and count it.
run_tap() {
	local name=$1 tap=$logs/check-$1.tap ok notok rc
	shift
	"$@" 2>&1 | tee "$tap"
	rc=${PIPESTATUS[0]}
	ok=$(grep -cE '^ok [0-9]+' "$tap")
	notok=$(grep -cE '^not ok [0-9]+' "$tap")
	[ "$rc" -eq 0 ] || [ "$notok" -gt 0 ] || notok=1
	passed=$((passed + ok)) failed=$((failed + notok))
}

say "dependencies"
if ! "$top/tests/deps.sh"; then
	fail "tests/deps.sh"
	summary
fi

mkdir -p "$logs"
say "build ($variant): tests/build.sh $variant"
built=1
if ! "$top/tests/build.sh" "$variant" 2>&1 | tee "$logs/build.log"; then
	fail "tests/build.sh $variant (log: $logs/build.log)"
	built=0
fi
for f in htmtrace.ko htmtrace_hvsim.ko htmtrace_kunit.ko htmtrace; do
	[ "$built" -eq 0 ] || [ -e "$top/build/$variant/$f" ] ||
		{ fail "build/$variant/$f was not built"; built=0; }
done

host_suites=() guest_suites=()
for f in "$top"/tests/bats/*.bats; do
	[ -e "$f" ] || continue
	case ${f##*/} in
	host-*) host_suites+=("$f") ;;
	*) guest_suites+=("$f") ;;
	esac
done
[ ${#host_suites[@]} -eq 0 ] || run_bats host "${host_suites[@]}"

if [ "$built" -eq 1 ]; then
	# One guest serves every guest suite and KUnit: a boot and a kmemleak
	# scan cost a minute or two on the debug kernel under TCG.
	export HTMTRACE_GUEST=check
	guest=("$py" "$top/tests/guest.py")
	say "boot the $variant guest"
	if "${guest[@]}" start -V "$variant" -n check; then
		[ ${#guest_suites[@]} -eq 0 ] || run_bats guest "${guest_suites[@]}"

		say "KUnit: tests/kunit.sh $variant"
		"$top/tests/kunit.sh" "$variant"
		if read -r _ p _ f _ s < "$logs/kunit.counts"; then
			passed=$((passed + p)) failed=$((failed + f))
			skipped=$((skipped + s))
		else
			fail "tests/kunit.sh left no counts"
		fi

		say "guest post-mortem: kernel log and kmemleak"
		if "${guest[@]}" stop -V "$variant" -n check; then
			echo "ok"
			passed=$((passed + 1))
		else
			fail "guest post-mortem (see $logs/check.console.log)"
		fi
	else
		fail "the $variant guest did not boot (see $logs/check.console.log)"
	fi
	unset HTMTRACE_GUEST

	say "lint: tests/lint.sh $variant"
	run_tap lint "$top/tests/lint.sh" "$variant"
else
	echo "check: the build failed: guest suites and KUnit not run"
fi

say "uapi: <linux/htmtrace.h> in strict C99"
if printf '#include <linux/htmtrace.h>\n' |
	gcc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$top/uapi" -x c -; then
	echo "ok"
	passed=$((passed + 1))
else
	fail "uapi/linux/htmtrace.h does not compile on its own"
fi

summary
