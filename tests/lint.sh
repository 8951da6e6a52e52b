#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Style gates, as TAP:
#   checkpatch.pl --strict, and W=1 builds with sparse (C=2) that must print
#   no warning: the test build (HTMTRACE_TEST=y: simulator, KUnit) and the
#   production build, which must have no way to take the simulator;
#   and tests/lint-bats.py on the bats suites: no assertion bats swallows
#   (a mid-test && list, a guest command piped, a -ne 0 status check).
#
#   tests/lint.sh [release|debug]
#   tests/lint.sh bats      the last alone (no kernel, no build), as test 1
set -uo pipefail

variant=${1:-release}
top=$(cd "$(dirname "$0")/.." && pwd)

# lint_bats N: tests/lint-bats.py over the suites, as TAP test N; its
# findings as comments; status 1 if it found any (or failed)
lint_bats() {
	local py=python3 log=$top/build/lint/lint-bats.log
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	mkdir -p "$top/build/lint" || return 1
	if "$py" "$top/tests/lint-bats.py" > "$log" 2>&1; then
		echo "ok $1 bats suites: no assertion bats swallows (tests/lint-bats.py)"
	else
		echo "not ok $1 bats suites: no assertion bats swallows (tests/lint-bats.py)"
		sed 's/^/# /' "$log"
		return 1
	fi
}

if [ "$variant" = bats ]; then
	echo "1..1"
	lint_bats 1
	exit
fi

kdir=$("$top/tests/kernel.sh" "$variant") || exit 1
ksrc=$(readlink -f "$kdir/source")
out=$top/build/lint
mkdir -p "$out"

cd "$top"
files=$(ls module/*.c module/*.h module/hvsim/*.c module/hvsim/*.h kunit/*.c \
	uapi/linux/htmtrace.h 2>/dev/null)

echo "1..4"
status=0

# checkpatch file by file, its answer for a file kept in the cache, keyed
# on the file's path and contents, the flags, and checkpatch.pl with the
# lists it reads: each file costs about 0.3 s of perl, all of ours 10 s,
# and a change touches a few. Its exit status is 0 (clean) or 1 (findings):
# anything else is checkpatch failing, and fails the test, uncached.
cp_flags="--no-tree --strict --terse --show-types"
cp_cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}/checkpatch
cp_tool=$(cat "$ksrc/scripts/checkpatch.pl" "$ksrc/scripts/spelling.txt" \
	"$ksrc/scripts/const_structs.checkpatch" | sha256sum) || exit 1
cp_failed=
mkdir -p "$cp_cache" || exit 1
: > "$out/checkpatch.log"
for f in $files; do
	k=$({ echo "$cp_tool $cp_flags $f"; cat "$f"; } | sha256sum)
	k=$cp_cache/${k%% *}
	if [ ! -f "$k" ]; then
		# shellcheck disable=SC2086
		perl "$ksrc/scripts/checkpatch.pl" $cp_flags -f "$f" > "$k.$$" 2>&1
		case $? in
		0 | 1) mv "$k.$$" "$k" ;;
		*) cp_failed+=" $f"; cat "$k.$$" >> "$out/checkpatch.log"; rm -f "$k.$$"; continue ;;
		esac
	fi
	cat "$k" >> "$out/checkpatch.log"
done
if [ -n "$cp_failed" ]; then
	echo "not ok 1 checkpatch --strict"
	status=1
	echo "# checkpatch.pl failed on:$cp_failed"
	sed 's/^/# /' "$out/checkpatch.log"
elif grep -qE '(ERROR|WARNING|CHECK):' "$out/checkpatch.log"; then
	echo "not ok 1 checkpatch --strict"
	status=1
	grep -E '(ERROR|WARNING|CHECK):' "$out/checkpatch.log" | sed 's/^/# /'
else
	echo "ok 1 checkpatch --strict"
fi

# build NAME MAKE-ARGS...: a W=1 + sparse build of our sources in $out/NAME
# (test or prod), through the fixed path tests/build.sh's build of the same
# flags uses: the compiles are ccache's replays of its own (tests/kmake.sh)
build() {
	local name=$1
	shift
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	cp -a Kbuild module uapi kunit "$out/$name/"
	tests/kmake.sh "$variant-$name" "$kdir" "$out/$name" W=1 C=2 \
		CHECK="$top/tests/sparse-cache.py" "$@" modules > "$out/$name.log" 2>&1 &&
		! grep -qE 'warning:|error:' "$out/$name.log"
}

if build test HTMTRACE_TEST=y; then
	echo "ok 2 W=1 and sparse build without warnings (test build)"
else
	echo "not ok 2 W=1 and sparse build without warnings (test build)"
	grep -E 'warning:|error:' "$out/test.log" | head -n 40 | sed 's/^/# /'
	status=1
fi

# The production build: the driver alone, which cannot take the simulator
# (no backend parameter, no symbol_get() of the simulator's ops) and
# exports nothing: its Module.symvers is empty, though the test kernel has
# KUnit (the suites' symbols are exported by the test build only).
t="production build: W=1 and sparse clean, no simulator backend, no export"
if ! build prod; then
	echo "not ok 3 $t"
	grep -E 'warning:|error:' "$out/prod.log" | head -n 40 | sed 's/^/# /'
	status=1
elif [ "$(ls "$out"/prod/*.ko | xargs -n1 basename)" != htmtrace.ko ] ||
	grep -qa -e htmtrace_hvsim -e parmtype=backend: "$out/prod/htmtrace.ko" ||
	[ -s "$out/prod/Module.symvers" ]; then
	echo "not ok 3 $t"
	echo "# built: $(ls "$out"/prod/*.ko | xargs -n1 basename | tr '\n' ' ')"
	grep -a -o -e 'htmtrace_hvsim[a-z_]*' -e 'parmtype=backend:[a-z]*' \
		"$out/prod/htmtrace.ko" | sed 's/^/# in htmtrace.ko: /'
	sed 's/^/# symvers: /' "$out/prod/Module.symvers"
	status=1
else
	echo "ok 3 $t"
fi

lint_bats 4 || status=1
exit $status
