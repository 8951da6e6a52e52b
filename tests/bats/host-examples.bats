#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The examples of examples/ as a user takes them: small, the project's
# header their only one, built with the host's compiler and warnings as
# errors by their own Makefile, and pointed to from the README and
# htmtrace(4). Their run against the simulator is tests/bats/examples.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
}

@test "examples: each well under 150 lines, only system headers and <linux/htmtrace.h>" {
	local f n
	for f in htm-read dtl-read; do
		n=$(wc -l < "$TOP/examples/$f.c")
		echo "$f.c: $n lines"
		[ "$n" -le 140 ]
		# every #include is <...>, and the only one not of the C library
		# or POSIX is the ABI
		run -0 grep '^#include' "$TOP/examples/$f.c"
		[ -z "$(grep -v '^#include <' <<<"$output")" ]
		[ "$(grep -c '<linux/' <<<"$output")" -eq 1 ]
		grep -qx '#include <linux/htmtrace.h>' <<<"$output"
	done
}

@test "examples: their Makefile builds both with -Wall -Wextra -Werror (and O=, clean)" {
	run -0 make -C "$TOP/examples" O="$BATS_TEST_TMPDIR/ex" WERROR=1
	grep -q -- '-Wall -Wextra' <<<"$output"
	grep -q -- '-Werror' <<<"$output"
	[ -x "$BATS_TEST_TMPDIR/ex/htm-read" ]
	[ -x "$BATS_TEST_TMPDIR/ex/dtl-read" ]
	# usage errors: exit 2
	run -2 --separate-stderr "$BATS_TEST_TMPDIR/ex/htm-read" /dev/null 2:0:1
	[ "$stderr" = "usage: htm-read DEVICE TYPE:NODE:CHIP:CORE FILE [LOG2_SIZE]" ]
	# a device that does not answer the ABI: the call and its errno
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/ex/htm-read" /dev/null 2:0:1:2 "$BATS_TEST_TMPDIR/out"
	[ "$stderr" = "htm-read: CONFIGURE: Inappropriate ioctl for device" ]
	run -0 make -C "$TOP/examples" O="$BATS_TEST_TMPDIR/ex" clean
	[ ! -e "$BATS_TEST_TMPDIR/ex/htm-read" ]
}

@test "examples: the README and htmtrace(4) point to both" {
	local f
	for f in htm-read.c dtl-read.c; do
		grep -q "$f" "$TOP/README.md"
		grep -q "examples/$f" "$TOP/man/htmtrace.4"
	done
	grep -q '^examples/ ' "$TOP/README.md"
	grep -q '^\.SH EXAMPLES$' "$TOP/man/htmtrace.4"
}
