#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# htmtrace translation against the fake /dev/htmN (userspace/tests/fakehtm.c,
# preloaded as in host-record.bats): IBM's perf HTM series writes
# htm.bin.nN.pP.cC in perf report's folder and translation.nN.pP.cC only
# from samples our PMU cannot emit; the command writes each missing file,
# named as that perf names it, holding the memory configuration blocks as
# "htmtrace sysmem -o" (and record) write them.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 all fakehtm >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export FAKEHTM="$TOP/build/host/fakehtm.so"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export DEV=$BATS_TEST_TMPDIR/htm0
	export FAKE_HTM_DEV=$DEV
	export FAKE_HTM_LOG=$BATS_TEST_TMPDIR/log
	export FAKE_HTM_STATE=$BATS_TEST_TMPDIR/state
	mkdir perf
}

fhtm() {
	LD_PRELOAD=$FAKEHTM "$HTMTRACE" "$@"
}

# The operations the fake saw, on one line.
ops() {
	grep -v '^OPEN$' "$FAKE_HTM_LOG" | paste -s -d ' '
}

@test "translation: a file per perf trace, named as perf names it, the memory configuration byte for byte" {
	export FAKE_HTM_BLOCKS=3 FAKE_HTM_ENTRIES=2
	# what perf report leaves: the AUX data of each htm event
	touch perf/htm.bin.n0.p1.c2 perf/htm.bin.n10.p0.c3 perf/htm.bin.n0.p0.c11
	# not perf's: htmtrace record's own (with .tT), leading zeros, a
	# suffix, a directory of that name
	touch perf/htm.bin.n0.p1.c2.t2 perf/htm.bin.n01.p0.c0 perf/htm.bin.n2.p0.c0x
	mkdir perf/htm.bin.n3.p3.c3
	run -0 --separate-stderr fhtm translation -d "$DEV" perf
	[ "$stderr" = "" ]
	[ "$output" = "wrote 288 bytes of memory configuration (3 blocks, 6 entries) to perf/translation.n0.p0.c11
wrote 288 bytes of memory configuration (3 blocks, 6 entries) to perf/translation.n0.p1.c2
wrote 288 bytes of memory configuration (3 blocks, 6 entries) to perf/translation.n10.p0.c3" ]
	# one query, of target 0, as perf's PMU asks
	[ "$(ops)" = "SYSMEM size=65536 length=288" ]
	run -0 fhtm sysmem -d "$DEV" -o want.bin
	for f in n0.p0.c11 n0.p1.c2 n10.p0.c3; do
		cmp want.bin "perf/translation.$f"
	done
	# nothing else was written (no temporary file left either)
	[ "$(ls -A perf | paste -s -d ' ')" = "htm.bin.n0.p0.c11 htm.bin.n0.p1.c2 htm.bin.n0.p1.c2.t2 htm.bin.n01.p0.c0 htm.bin.n10.p0.c3 htm.bin.n2.p0.c0x htm.bin.n3.p3.c3 translation.n0.p0.c11 translation.n0.p1.c2 translation.n10.p0.c3" ]
	# htmtrace sysmem decodes what it wrote
	run -0 fhtm sysmem -i perf/translation.n0.p1.c2
	[ "${lines[0]}" = "perf/translation.n0.p1.c2: 3 blocks, 6 entries, 288 bytes" ]
}

@test "translation: the current directory by default; a file there is replaced whole; --dry-run asks nothing" {
	cd perf
	touch htm.bin.n0.p1.c2
	echo old > translation.n0.p1.c2
	run -0 --separate-stderr fhtm translation -d "$DEV" --dry-run
	[ "$output" = translation.n0.p1.c2 ]
	[ ! -e "$FAKE_HTM_LOG" ]
	[ "$(cat translation.n0.p1.c2)" = old ]
	run -0 fhtm translation -d "$DEV"
	[ "$output" = "wrote 128 bytes of memory configuration (1 block, 3 entries) to translation.n0.p1.c2" ]
	run -0 fhtm sysmem -d "$DEV" -o ../want.bin
	cmp ../want.bin translation.n0.p1.c2
	# a trailing slash is not doubled
	run -0 fhtm translation -d "$DEV" --dry-run ./
	[ "$output" = ./translation.n0.p1.c2 ]
}

@test "translation: no perf trace, no folder, no device, a failed query: exit 1, said, nothing written" {
	run -1 --separate-stderr fhtm translation -d "$DEV" perf
	[ "$stderr" = "htmtrace translation: perf: no htm.bin.nN.pP.cC file (the trace files perf report writes)" ]
	[ ! -e "$FAKE_HTM_LOG" ]
	run -1 --separate-stderr fhtm translation -d "$DEV" nowhere
	[ "$stderr" = "htmtrace translation: open nowhere: No such file or directory" ]
	touch perf/htm.bin.n0.p1.c2
	echo old > perf/translation.n0.p1.c2
	run -1 --separate-stderr "$HTMTRACE" translation -d "$BATS_TEST_TMPDIR/htm7" perf
	[ "${stderr_lines[0]}" = "htmtrace translation: open $BATS_TEST_TMPDIR/htm7: No such file or directory" ]
	[ "$(cat perf/translation.n0.p1.c2)" = old ]
	export FAKE_HTM_FAIL=sysmem:5
	run -1 --separate-stderr fhtm translation -d "$DEV" perf
	[ "$stderr" = "htmtrace translation: memory configuration $DEV: Input/output error" ]
	[ "$output" = "" ]
	[ "$(cat perf/translation.n0.p1.c2)" = old ]
	[ "$(ls -A perf | paste -s -d ' ')" = "htm.bin.n0.p1.c2 translation.n0.p1.c2" ]
}

@test "translation: a file it cannot write (a directory of that name): each failure said, the others written, exit 1" {
	touch perf/htm.bin.n0.p1.c2 perf/htm.bin.n0.p1.c3 perf/htm.bin.n0.p1.c4
	mkdir perf/translation.n0.p1.c2 perf/translation.n0.p1.c4
	run -1 --separate-stderr fhtm translation -d "$DEV" perf
	[ "$output" = "wrote 128 bytes of memory configuration (1 block, 3 entries) to perf/translation.n0.p1.c3" ]
	[ "$stderr" = "htmtrace translation: create perf/translation.n0.p1.c2: Is a directory
htmtrace translation: create perf/translation.n0.p1.c4: Is a directory
htmtrace translation: 2 of 3 translation files not written" ]
	[ -f perf/translation.n0.p1.c3 ]
}

@test "translation: usage errors exit 2" {
	run -2 --separate-stderr fhtm translation a b
	[ "${stderr_lines[0]}" = "htmtrace translation: unexpected argument 'b'" ]
	run -2 --separate-stderr fhtm translation -t core
	[ "${stderr_lines[0]}" = "htmtrace translation: unknown option '-t'" ]
	run -2 --separate-stderr fhtm translation ''
	[ "${stderr_lines[0]}" = "htmtrace translation: empty DIR" ]
	[ ! -e "$FAKE_HTM_LOG" ]
}
