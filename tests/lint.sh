#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style gates on our kernel sources, as TAP:
#   checkpatch.pl --strict, and a W=1 build with sparse (C=2) that must print
#   no warning.
#
#   tests/lint.sh [release|debug]
set -uo pipefail

variant=${1:-release}
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$("$top/tests/kernel.sh" "$variant") || exit 1
ksrc=$(readlink -f "$kdir/source")
out=$top/build/lint
mkdir -p "$out"

cd "$top"
files=$(ls module/*.c module/*.h module/hvsim/*.c module/hvsim/*.h kunit/*.c \
	uapi/linux/htmtrace.h 2>/dev/null)

echo "1..2"
status=0

# shellcheck disable=SC2086
perl "$ksrc/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	-f $files > "$out/checkpatch.log" 2>&1
if grep -qE '(ERROR|WARNING|CHECK):' "$out/checkpatch.log"; then
	echo "not ok 1 checkpatch --strict"
	status=1
	grep -E '(ERROR|WARNING|CHECK):' "$out/checkpatch.log" | sed 's/^/# /'
else
	echo "ok 1 checkpatch --strict"
fi

rm -rf "$out/kmod"
mkdir -p "$out/kmod"
cp -a Kbuild module uapi kunit "$out/kmod/"
if make -s -C "$kdir" ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu- \
	M="$out/kmod" W=1 C=2 modules > "$out/build.log" 2>&1 &&
	! grep -qE 'warning:|error:' "$out/build.log"; then
	echo "ok 2 W=1 and sparse build without warnings"
else
	echo "not ok 2 W=1 and sparse build without warnings"
	grep -E 'warning:|error:' "$out/build.log" | head -n 40 | sed 's/^/# /'
	status=1
fi
exit $status
