#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Host-only tests of the htmtrace tool: command line, file naming, argument
# errors, the simulator dump checker (tests/htmcheck.c: verify, simgen),
# block decoding and
# module-load planning. Needs no kernel module and no /dev/htmN: the binary
# is build/host/htmtrace, built by setup_file.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 all htmcheck >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

htm() {
	"$HTMTRACE" "$@"
}

# The test helper that checks and generates the simulator's records.
hcheck() {
	"$TOP/build/host/htmcheck" "$@"
}

# Flip every bit of the byte at an offset of a file.
flip_byte() {
	local file=$1 off=$2 b

	b=$(od -A n -t u1 -j "$off" -N 1 "$file" | tr -d ' ')
	[[ $b =~ ^[0-9]+$ ]] || { echo "flip_byte: no byte at $off of $file" >&2; return 1; }
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' $((b ^ 0xff)))" |
		dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

# N bytes at an offset of a file, as hex digits.
hex_at() {
	od -A n -t x1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

# Write a big-endian u64.
be64() {
	local v=$1 i out=''

	for i in 56 48 40 32 24 16 8 0; do
		out+=$(printf '\\%03o' $(((v >> i) & 0xff)))
	done
	# shellcheck disable=SC2059
	printf "$out"
}

# A block: 32-byte header (next at +8, count at +16), then count entries
# of entry_size bytes filled with a byte value.
block() {
	local next=$1 count=$2 entry_size=$3 fill=$4 i

	be64 0
	be64 "$next"
	be64 "$count"
	be64 0
	for ((i = 0; i < count * entry_size; i++)); do
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "$fill")"
	done
}

# --- command line -----------------------------------------------------------

@test "no arguments: usage on stderr, exit 2" {
	run -2 --separate-stderr htm
	[ "$output" = "" ]
	[[ "${stderr_lines[0]}" == "Usage: htmtrace COMMAND [OPTIONS]" ]]
}

@test "--help lists every command on stdout, exit 0" {
	run -0 --separate-stderr htm --help
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "Usage: htmtrace COMMAND [OPTIONS]" ]
	for c in record dump sysmem sysproc configure start stop deconfigure \
		 setup status caps load unload help; do
		grep -Eq "^  $c +[a-z]" <<<"$output" || {
			echo "missing $c" >&2
			return 1
		}
	done
}

@test "help CMD and CMD --help print the same usage, exit 0" {
	for c in record dump sysmem sysproc configure start stop deconfigure \
		 setup status caps load unload; do
		run -0 htm help "$c"
		[[ "${lines[0]}" == "Usage: htmtrace $c"* ]]
		local help=$output
		run -0 htm "$c" --help
		[ "$output" = "$help" ]
	done
}

@test "the tool has no simulator command: --help lists none, verify and simgen are unknown; htmcheck has them" {
	run -0 htm --help
	# load and unload are of the module; the simulator only with --sim
	grep -qx '  load         load htmtrace.ko (--sim: a test build and its simulator)' <<<"$output"
	grep -qx '  unload       unload htmtrace.ko (--sim: the simulator too)' <<<"$output"
	[[ "$output" != *verify* ]]
	[[ "$output" != *simgen* ]]
	[[ "$output" != *simulator\ would* ]]
	for c in verify simgen; do
		run -2 --separate-stderr htm "$c" x
		[ "${stderr_lines[0]}" = "htmtrace: unknown command '$c'" ]
		run -2 htm help "$c"
	done
	# nor does the binary carry the simulator's record magic or checker
	run -1 grep -c -e 'simulator would dump' -e 'records valid' "$HTMTRACE"
	# the test helper does
	run -0 hcheck verify --help
	[ "${lines[0]}" = "Usage: htmcheck verify [-t TYPE] [-n NODE] [-p CHIP] [-c CORE]" ]
	run -0 hcheck simgen --help
	[ "${lines[0]}" = "Usage: htmcheck simgen -t TYPE -n NODE [-p CHIP] [-c CORE] --log2 L" ]
	run -2 --separate-stderr hcheck frob
	[ "${stderr_lines[0]}" = "htmcheck: unknown command 'frob': expected verify or simgen" ]
}

@test "record: target lists and ranges give one file pair per target, perf's names (dry run); bad lists are usage errors" {
	run -0 --separate-stderr htm record -t core -n 0 -p 1 -c 0-2,5 -c 3 --dry-run
	[ "$stderr" = "" ]
	[ "$(paste -s -d ' ' <<<"$output")" = "htm.bin.n0.p1.c0.t2 translation.n0.p1.c0.t2 htm.bin.n0.p1.c1.t2 translation.n0.p1.c1.t2 htm.bin.n0.p1.c2.t2 translation.n0.p1.c2.t2 htm.bin.n0.p1.c5.t2 translation.n0.p1.c5.t2 htm.bin.n0.p1.c3.t2 translation.n0.p1.c3.t2" ]
	# every combination, the core fastest; a value given twice counts once
	run -0 htm record -t core,nest -n 0 -p 0-1 -c 7 -c 7 -o d --dry-run
	[ "$(paste -s -d ' ' <<<"$output")" = "d/htm.bin.n0.p0.c7.t2 d/translation.n0.p0.c7.t2 d/htm.bin.n0.p1.c7.t2 d/translation.n0.p1.c7.t2 d/htm.bin.n0.p0.c7.t1 d/translation.n0.p0.c7.t1 d/htm.bin.n0.p1.c7.t1 d/translation.n0.p1.c7.t1" ]
	# 64 targets at most
	run -0 htm record -t core -n 0-3 -p 0-3 -c 0-3 --dry-run
	[ "${#lines[@]}" -eq 128 ]
	run -2 --separate-stderr htm record -t core -n 0-4 -p 0-3 -c 0-3 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: too many targets: 80, at most 64" ]
	run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 3-1 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: bad core list '3-1': expected indices or ranges such as 0-7,9" ]
	run -2 --separate-stderr htm record -t core -n 0 -p 0, -c 1 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: bad chip list '0,': expected indices or ranges such as 0-7,9" ]
	run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 0-65536 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: core index in '0-65536' out of range 0..65535" ]
	run -2 --separate-stderr htm record -t core,frob -n 0 -p 0 -c 1 --dry-run
	[[ "${stderr_lines[0]}" == "htmtrace record: unknown HTM type 'frob'"* ]]
	run -2 --separate-stderr htm record -t core -n 0 -c 1 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: missing target: -p CHIP is required" ]
	# -d: once per target, each channel once
	run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 0-3 -d 0 -d 1 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: 4 targets need 4 channels: -d given 2 times (without -d, free channels are claimed)" ]
	run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 0-1 -d 0 -d /dev/htm0 --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: channel /dev/htm0 given twice" ]
	run -0 htm record -t core -n 0 -p 0 -c 0-1 -d 0 -d 5 --dry-run
	[ "${#lines[@]}" -eq 4 ]
}

@test "the tool's structure: no -Werror by default (WERROR=1 adds it), no include circle, htmtrace.c only dispatches, the block layout from the uapi header" {
	local u=$TOP/userspace h inc
	# a packager's newer compiler must not fail the build on a warning
	run -0 make -s -n -B -C "$u" O="$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/o/parse.o"
	[[ "$output" == *" -Wall "* ]]
	[[ "$output" != *-Werror* ]]
	run -0 make -s -n -B -C "$u" O="$BATS_TEST_TMPDIR/o" WERROR=1 "$BATS_TEST_TMPDIR/o/parse.o"
	[[ "$output" == *" -Werror"* ]]
	# one header per responsibility, none including a header that
	# includes it back (the tool's headers include only parse.h or
	# compiler.h, leaves)
	[ ! -e "$u/htmtrace.h" ]
	for h in "$u"/*.h; do
		for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$h"); do
			[ "$inc" = parse.h ] || [ "$inc" = compiler.h ] || { echo "$h includes $inc" >&2; return 1; }
		done
	done
	for h in parse.h compiler.h; do
		run -0 sed -n 's/^#include "\(.*\)"/\1/p' "$u/$h"
		[ "$output" = "" ]
	done
	# and no circle through the sources: util.c stands on parse.c (names
	# of types and devices), so parse.c, pure, includes no util.h
	run -0 sed -n 's/^#include "\(.*\)"/\1/p' "$u/parse.c"
	[ "$output" = "$(printf 'compiler.h\nparse.h')" ]
	# htmtrace.c: the command table and main(), no option parsing
	run -1 grep -c -e getopt_long -e 'next_option(' "$u/htmtrace.c"
	# the information-block layout: the uapi header's, not the tool's own
	run -1 grep -rlE '#define (HVBLOCK_|SYSMEM_ENTRY_SIZE|SYSPROC_ENTRY_SIZE)' "$u"
	grep -q 'HTMTRACE_BLOCK_NR_ENTRIES' "$u/hvblock.c"
	# and the module takes its names for it from the uapi header
	for n in HDR_SIZE:32 NEXT:0x08 NR_ENTRIES:0x10; do
		grep -qE "^#define HTMTRACE_BLOCK_${n%%:*}[[:space:]]+${n#*:}\$" "$TOP/uapi/linux/htmtrace.h"
		grep -qE "^#define HTM_BLOCK_${n%%:*}[[:space:]]+HTMTRACE_BLOCK_${n%%:*}\$" "$TOP/module/htmtrace_hv.h"
	done
}

@test "unknown command: exit 2 with a message" {
	run -2 --separate-stderr htm frobnicate
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "htmtrace: unknown command 'frobnicate'" ]
	[ "${stderr_lines[1]}" = "Try 'htmtrace --help' for more information." ]
}

@test "unknown top-level option and help of an unknown command: exit 2" {
	run -2 --separate-stderr htm --frob
	[ "${stderr_lines[0]}" = "htmtrace: unknown option '--frob'" ]
	run -2 --separate-stderr htm help frobnicate
	[ "${stderr_lines[0]}" = "htmtrace: unknown command 'frobnicate'" ]
}

@test "unknown options and missing option arguments: exit 2" {
	run -2 --separate-stderr htm status -x
	[ "${stderr_lines[0]}" = "htmtrace status: unknown option '-x'" ]
	[ "${stderr_lines[1]}" = "Try 'htmtrace help status' for more information." ]
	run -2 --separate-stderr htm record --bogus -t core -n 0 -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: unknown option '--bogus'" ]
	run -2 --separate-stderr htm status -d
	[ "${stderr_lines[0]}" = "htmtrace status: option '-d' needs an argument" ]
	run -2 --separate-stderr htm record -t core -n 0 -p 0 --duration
	[ "${stderr_lines[0]}" = "htmtrace record: option '--duration' needs an argument" ]
	run -2 --separate-stderr htm status extra
	[ "${stderr_lines[0]}" = "htmtrace status: unexpected argument 'extra'" ]
}

# --- output file names ------------------------------------------------------

@test "record --dry-run prints perf's file names" {
	run -0 --separate-stderr htm record --dry-run -t core -n 0 -p 2 -c 5 -o out
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "out/htm.bin.n0.p2.c5.t2" ]
	[ "${lines[1]}" = "out/translation.n0.p2.c5.t2" ]
	# Nothing is created by a dry run.
	[ ! -e out ]
}

@test "record --dry-run: type names and numbers" {
	local t want
	for t in nest:1 core:2 llat:3 global:255 NEST:1 Core:2 7:7 0x2:2 0:0 255:255; do
		want=${t#*:}
		run -0 htm record --dry-run -t "${t%%:*}" -n 1 -p 2 -c 3
		[ "${lines[0]}" = "htm.bin.n1.p2.c3.t$want" ]
		[ "${lines[1]}" = "translation.n1.p2.c3.t$want" ]
	done
}

@test "record --dry-run: indices decimal or hex, 0..65535, no octal" {
	run -0 htm record --dry-run -t nest -n 65535 -p 0xffff -c 0X10
	[ "${lines[0]}" = "htm.bin.n65535.p65535.c16.t1" ]
	run -0 htm record --dry-run -t nest -n 010 -p 0 -c 0
	[ "${lines[0]}" = "htm.bin.n10.p0.c0.t1" ]
	run -0 htm record --dry-run --type core --node 3 --chip 4 --core 5
	[ "${lines[0]}" = "htm.bin.n3.p4.c5.t2" ]
}

@test "record --dry-run: directory forms" {
	run -0 htm record --dry-run -t core -n 0 -p 0 -c 1 -o /tmp/x/
	[ "${lines[0]}" = "/tmp/x/htm.bin.n0.p0.c1.t2" ]
	run -0 htm record --dry-run -t core -n 0 -p 0 -c 1 --output a/b
	[ "${lines[1]}" = "a/b/translation.n0.p0.c1.t2" ]
}

@test "record --dry-run accepts --nowrap, -d, --bs, --duration and a command" {
	run -0 htm record --dry-run --nowrap -d 3 --bs 64K --duration 0.5 \
		-t llat -n 0 -p 1 -c 2
	[ "${lines[0]}" = "htm.bin.n0.p1.c2.t3" ]
	run -0 htm record --dry-run -t llat -n 0 -p 1 -c 2 -- sleep 1
	[ "${lines[0]}" = "htm.bin.n0.p1.c2.t3" ]
	# Options after the command belong to the command.
	run -0 htm record --dry-run -t llat -n 0 -p 1 -c 2 ls -t foo
	[ "${lines[0]}" = "htm.bin.n0.p1.c2.t3" ]
}

# --- argument errors --------------------------------------------------------

@test "unknown type: exit 2 with a message" {
	run -2 --separate-stderr htm record --dry-run -t foo -n 0 -p 0 -c 0
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "htmtrace record: unknown HTM type 'foo': expected nest, core, llat, global or a number 0..255" ]
	[ "${stderr_lines[1]}" = "Try 'htmtrace help record' for more information." ]
	run -2 --separate-stderr htm record --dry-run -t 256 -n 0 -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: HTM type '256' out of range 0..255" ]
	run -2 htm record --dry-run -t '' -n 0 -p 0 -c 0
	run -2 htm record --dry-run -t 0x -n 0 -p 0 -c 0
	run -2 htm configure -t cores -n 0 -p 0 -c 0
}

@test "node, chip, core outside 0..65535: exit 2" {
	run -2 --separate-stderr htm record --dry-run -t core -n 65536 -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: node index '65536' out of range 0..65535" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 0 -p 70000 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: chip index '70000' out of range 0..65535" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 0 -p 0 -c 0x10000
	[ "${stderr_lines[0]}" = "htmtrace record: core index '0x10000' out of range 0..65535" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 99999999999999999999999 -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: node index '99999999999999999999999' out of range 0..65535" ]
	run -2 --separate-stderr htm setup -t core -n -1 -p 0 -c 0 -s 20
	[ "${stderr_lines[0]}" = "htmtrace setup: node index '-1' is not a number" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 0 -p 0 -c 1a
	[ "${stderr_lines[0]}" = "htmtrace record: core index '1a' is not a number" ]
	run -2 --separate-stderr htm record --dry-run -t core -n ' 1' -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: node index ' 1' is not a number" ]
}

@test "missing target fields: exit 2 naming the first missing option" {
	run -2 --separate-stderr htm record --dry-run
	[ "${stderr_lines[0]}" = "htmtrace record: missing target: -t TYPE is required" ]
	run -2 --separate-stderr htm record --dry-run -t core -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: missing target: -n NODE is required" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace record: missing target: -p CHIP is required" ]
	run -2 --separate-stderr htm record --dry-run -t core -n 0 -p 0
	[ "${stderr_lines[0]}" = "htmtrace record: missing target: -c CORE is required" ]
	run -2 --separate-stderr htm setup -n 0 -p 0 -c 0 -s 20
	[ "${stderr_lines[0]}" = "htmtrace setup: missing target: -t TYPE is required" ]
	run -2 --separate-stderr htm configure -t nest -n 0 -p 0
	[ "${stderr_lines[0]}" = "htmtrace configure: missing target: -c CORE is required" ]
}

@test "record: duration, command and read size errors: exit 2" {
	run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 0 --duration 1 -- true
	[ "${stderr_lines[0]}" = "htmtrace record: --duration and a COMMAND exclude each other" ]
	for d in x -1 1e3 1..2 '' 99999999; do
		run -2 htm record -t core -n 0 -p 0 -c 0 --duration "$d"
	done
	for bs in 0 2G x 1T; do
		run -2 --separate-stderr htm record -t core -n 0 -p 0 -c 0 --bs "$bs"
		[ "${stderr_lines[0]}" = "htmtrace record: bad read size '$bs': expected 1 byte to 1G" ]
	done
	run -2 htm dump --bs 0
}

@test "setup: buffer size must be given and within 1..62" {
	run -2 --separate-stderr htm setup -t core -n 0 -p 0 -c 0
	[ "${stderr_lines[0]}" = "htmtrace setup: missing buffer size: -s LOG2 is required" ]
	for s in 0 63 64 x -1; do
		run -2 --separate-stderr htm setup -t core -n 0 -p 0 -c 0 -s "$s"
		[ "${stderr_lines[0]}" = "htmtrace setup: bad buffer size '$s': expected a power of two 1..62" ]
	done
}

# --- device errors (there is no driver on the host) ----------------------------

@test "a missing device: exit 1 with the errno string" {
	run -1 --separate-stderr htm status -d "$BATS_TEST_TMPDIR/nohtm"
	[ "${stderr_lines[0]}" = "htmtrace status: open $BATS_TEST_TMPDIR/nohtm: No such file or directory" ]
}

@test "-d N means /dev/htmN" {
	[ ! -e /dev/htm4093 ] || skip "/dev/htm4093 exists"
	run -1 --separate-stderr htm status -d 4093
	[ "${stderr_lines[0]}" = "htmtrace status: open /dev/htm4093: No such file or directory" ]
	[ "${stderr_lines[1]}" = "htmtrace status: is the htmtrace module loaded? (htmtrace load)" ]
	run -2 htm status -d 99999999999
}

@test "a device that is no channel: every ioctl command exits 1 with ENOTTY" {
	local c
	for c in status caps start stop deconfigure sysmem sysproc \
		 "configure -t core -n 0 -p 0 -c 0" \
		 "setup -t core -n 0 -p 0 -c 0 -s 20"; do
		# shellcheck disable=SC2086
		run -1 --separate-stderr htm $c -d /dev/null
		[[ "${stderr_lines[0]}" == "htmtrace ${c%% *}: "*" /dev/null: Inappropriate ioctl for device" ]]
		[ "${stderr_lines[1]}" = "htmtrace ${c%% *}: /dev/null is not an htmtrace channel" ]
	done
}

@test "record: a failed configure leaves no output files" {
	mkdir out
	run -1 --separate-stderr htm record -t core -n 0 -p 2 -c 5 -d /dev/null -o out --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: configure /dev/null: Inappropriate ioctl for device" ]
	[ "${stderr_lines[2]}" = "htmtrace record: removed the partial out/htm.bin.n0.p2.c5.t2 and out/translation.n0.p2.c5.t2" ]
	[ -z "$(ls out)" ]
	# Same with a workload, which must not have run.
	run -1 htm record -t core -n 0 -p 2 -c 5 -d /dev/null -o out -- touch ran
	[ ! -e ran ]
	[ -z "$(ls out)" ]
}

@test "record: an output directory that does not exist: exit 1" {
	run -1 --separate-stderr htm record -t core -n 0 -p 0 -c 0 -d /dev/null -o nodir --duration 0
	[ "${stderr_lines[0]}" = "htmtrace record: create nodir/htm.bin.n0.p0.c0.t2: No such file or directory" ]
}

# --- simgen and verify ------------------------------------------------------

@test "simgen writes the simulator's record layout" {
	run -0 hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 20 -o a.bin
	[ "$(stat -c %s a.bin)" -eq 4096 ]
	# Word 0: "HTMSIM01"; word 1: node<<48 | chip<<32 | core<<16 | type.
	[ "$(hex_at a.bin 0 8)" = 48544d53494d3031 ]
	[ "$(hex_at a.bin 8 8)" = 0001000200030002 ]
	# Word 2: the sequence number; slot 19 holds seq 19.
	[ "$(hex_at a.bin $((19 * 128 + 16)) 8)" = 0000000000000013 ]
	# Slots 20..31 were never written.
	[ "$(hex_at a.bin $((20 * 128)) 16)" = 00000000000000000000000000000000 ]
	[ "$(hex_at a.bin 4088 8)" = 0000000000000000 ]
	# After 100 records in 32 slots, slot 0 holds seq 96, slot 3 seq 99
	# and slot 4 seq 68.
	run -0 hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 100 -o b.bin
	[ "$(hex_at b.bin 16 8)" = 0000000000000060 ]
	[ "$(hex_at b.bin $((3 * 128 + 16)) 8)" = 0000000000000063 ]
	[ "$(hex_at b.bin $((4 * 128 + 16)) 8)" = 0000000000000044 ]
}

@test "simgen is deterministic and writes to standard output with -o -" {
	hcheck simgen -t nest -n 0 --log2 10 --written 5 -o x.bin
	hcheck simgen -t nest -n 0 --log2 10 --written 5 -o - >y.bin
	cmp x.bin y.bin
	hcheck simgen -t nest -n 0 --log2 10 --written 6 -o z.bin
	! cmp -s x.bin z.bin
}

@test "simgen argument errors: exit 2" {
	run -2 --separate-stderr hcheck simgen -t core -n 0 --log2 6 --written 1 -o f
	[ "${stderr_lines[0]}" = "htmcheck simgen: bad buffer size '6': expected a power of two 7..32" ]
	run -2 hcheck simgen -t core -n 0 --log2 33 --written 1 -o f
	run -2 --separate-stderr hcheck simgen -t core -n 0 --log2 12 -o f
	[ "${stderr_lines[0]}" = "htmcheck simgen: missing record count: --written W is required" ]
	run -2 --separate-stderr hcheck simgen -t core -n 0 --written 1 -o f
	[ "${stderr_lines[0]}" = "htmcheck simgen: missing buffer size: --log2 L is required" ]
	run -2 --separate-stderr hcheck simgen -t core -n 0 --log2 12 --written 1
	[ "${stderr_lines[0]}" = "htmcheck simgen: missing output: -o FILE is required" ]
	run -2 --separate-stderr hcheck simgen -t core --log2 12 --written 1 -o f
	[ "${stderr_lines[0]}" = "htmcheck simgen: missing target: -n NODE is required" ]
	run -2 hcheck simgen -t core -n 0 --log2 12 --written -1 -o f
	[ ! -e f ]
}

@test "verify: a buffer that did not wrap" {
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 20 -o a.bin
	run -0 --separate-stderr hcheck verify a.bin
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "file:          a.bin" ]
	[ "${lines[1]}" = "records:       32 of 128 bytes" ]
	[ "${lines[2]}" = "target:        core node 1 chip 2 core 3" ]
	[ "${lines[3]}" = "written:       20" ]
	[ "${lines[4]}" = "wrapped:       no" ]
	[ "${lines[5]}" = "records valid: 20" ]
	[ "${lines[6]}" = "zero-filled:   12" ]
	[ "${lines[7]}" = "mismatched:    0" ]
}

@test "verify: a buffer that wrapped" {
	hcheck simgen -t nest -n 0 -p 7 --log2 12 --written 100 -o b.bin
	run -0 hcheck verify b.bin
	[ "${lines[2]}" = "target:        nest node 0 chip 7 core 0" ]
	[ "${lines[3]}" = "written:       100" ]
	[ "${lines[4]}" = "wrapped:       yes" ]
	[ "${lines[5]}" = "records valid: 32" ]
	[ "${lines[6]}" = "zero-filled:   0" ]
}

@test "verify: a buffer written exactly full has not wrapped" {
	hcheck simgen -t llat -n 2 -p 0 -c 9 --log2 12 --written 32 -o c.bin
	run -0 hcheck verify c.bin
	[ "${lines[3]}" = "written:       32" ]
	[ "${lines[4]}" = "wrapped:       no" ]
	[ "${lines[5]}" = "records valid: 32" ]
	hcheck simgen -t llat -n 2 -p 0 -c 9 --log2 12 --written 33 -o d.bin
	run -0 hcheck verify d.bin
	[ "${lines[4]}" = "wrapped:       yes" ]
}

@test "verify: an all-zero dump is valid, unless --min-records asks for records" {
	hcheck simgen -t core -n 0 --log2 12 --written 0 -o z.bin
	run -0 hcheck verify z.bin
	[ "${lines[2]}" = "target:        none (no records)" ]
	[ "${lines[5]}" = "records valid: 0" ]
	[ "${lines[6]}" = "zero-filled:   32" ]
	run -1 --separate-stderr hcheck verify --min-records 1 z.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: z.bin: 0 valid records, fewer than 1" ]
	hcheck simgen -t core -n 0 --log2 12 --written 5 -o f.bin
	run -0 hcheck verify --min-records 5 f.bin
	run -1 hcheck verify --min-records 6 f.bin
}

@test "verify: one flipped byte fails at exactly that record" {
	local slot byte off
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 100 -o good.bin
	# magic, target, seq (high and low byte), payload, first and last
	# records; slot 4 holds the oldest record (seq 68).
	for spot in 5:0 5:8 5:16 5:23 5:100 0:0 0:127 31:64 31:127 4:30; do
		slot=${spot%%:*}
		byte=${spot#*:}
		off=$((slot * 128 + byte))
		cp good.bin bad.bin
		flip_byte bad.bin "$off"
		run -1 --separate-stderr hcheck verify bad.bin
		[[ "${stderr_lines[0]}" == "htmcheck verify: bad.bin: mismatch at offset $((slot * 128)) (slot $slot, first wrong byte at offset $off): expected "* ]]
		[ "${lines[3]}" = "written:       100" ]
		[ "${lines[5]}" = "records valid: 31" ]
		[ "${lines[7]}" = "mismatched:    1" ]
	done
}

@test "verify: a damaged newest record fails at its offset" {
	# After 100 records in 32 slots, slot 3 holds the newest (seq 99).
	# Damaged, it no longer counts: the dump reads as 99 records written,
	# and slot 3 should then hold seq 67.
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 100 -o good.bin
	for byte in 20 127; do
		cp good.bin bad.bin
		flip_byte bad.bin $((3 * 128 + byte))
		run -1 --separate-stderr hcheck verify bad.bin
		[[ "${stderr_lines[0]}" == "htmcheck verify: bad.bin: mismatch at offset 384 (slot 3, first wrong byte at offset "*"): expected seq 67 of core node 1 chip 2 core 3, found a damaged record "* ]]
		[ "${lines[3]}" = "written:       99" ]
		[ "${lines[5]}" = "records valid: 31" ]
		[ "${lines[7]}" = "mismatched:    1" ]
	done
}

@test "verify: the message names what was expected and found" {
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 100 -o good.bin
	cp good.bin bad.bin
	flip_byte bad.bin $((5 * 128 + 100))
	run -1 --separate-stderr hcheck verify bad.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: bad.bin: mismatch at offset 640 (slot 5, first wrong byte at offset 740): expected seq 69 of core node 1 chip 2 core 3, found a damaged record (claims seq 69 of core node 1 chip 2 core 3)" ]
	cp good.bin bad.bin
	flip_byte bad.bin $((7 * 128))
	run -1 --separate-stderr hcheck verify bad.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: bad.bin: mismatch at offset 896 (slot 7, first wrong byte at offset 896): expected seq 71 of core node 1 chip 2 core 3, found no simulator record (bad magic)" ]
}

@test "verify: data in a slot never written fails there" {
	hcheck simgen -t core -n 0 -p 0 -c 0 --log2 12 --written 20 -o a.bin
	flip_byte a.bin $((25 * 128 + 9))
	run -1 --separate-stderr hcheck verify a.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: a.bin: mismatch at offset 3200 (slot 25, first wrong byte at offset 3209): expected zeros, found no simulator record (bad magic)" ]
	[ "${lines[6]}" = "zero-filled:   11" ]
}

@test "verify: two records swapped fail at the first of them" {
	hcheck simgen -t core -n 0 -p 0 -c 1 --log2 12 --written 32 -o a.bin
	dd if=a.bin of=s.bin bs=128 count=2 status=none
	dd if=a.bin bs=128 skip=3 count=1 status=none >>s.bin
	dd if=a.bin bs=128 skip=2 count=1 status=none >>s.bin
	dd if=a.bin bs=128 skip=4 status=none >>s.bin
	[ "$(stat -c %s s.bin)" -eq 4096 ]
	run -1 --separate-stderr hcheck verify s.bin
	[[ "${stderr_lines[0]}" == "htmcheck verify: s.bin: mismatch at offset 256 (slot 2, first wrong byte at offset 279): "* ]]
	[ "${lines[7]}" = "mismatched:    2" ]
}

@test "verify: a record of another target fails at its offset" {
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 32 -o core.bin
	hcheck simgen -t nest -n 1 -p 2 -c 3 --log2 12 --written 32 -o nest.bin
	cp core.bin mixed.bin
	dd if=nest.bin of=mixed.bin bs=128 skip=5 seek=5 count=1 conv=notrunc status=none
	run -1 --separate-stderr hcheck verify mixed.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: mixed.bin: mismatch at offset 640 (slot 5, first wrong byte at offset 655): expected seq 5 of core node 1 chip 2 core 3, found seq 5 of nest node 1 chip 2 core 3" ]
	[ "${lines[2]}" = "target:        core node 1 chip 2 core 3" ]
	[ "${lines[7]}" = "mismatched:    1" ]
}

@test "verify: a forced target must match" {
	hcheck simgen -t core -n 1 -p 2 -c 3 --log2 12 --written 40 -o a.bin
	run -0 hcheck verify -t core -n 1 -p 2 -c 3 a.bin
	run -0 hcheck verify -p 2 a.bin
	[ "${lines[2]}" = "target:        core node 1 chip 2 core 3" ]
	run -1 --separate-stderr hcheck verify -t nest a.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: a.bin: mismatch at offset 0 (slot 0, first wrong byte at offset 0): expected zeros, found seq 32 of core node 1 chip 2 core 3, not the requested target" ]
	run -1 --separate-stderr hcheck verify -t core -n 1 -p 2 -c 4 a.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: a.bin: mismatch at offset 0 (slot 0, first wrong byte at offset 0): expected zeros, found seq 32 of core node 1 chip 2 core 3, not the requested target" ]
	[ "${lines[7]}" = "mismatched:    32" ]
	run -2 hcheck verify -t bogus a.bin
}

@test "verify: a size that is not a whole number of records fails" {
	hcheck simgen -t core -n 0 --log2 12 --written 40 -o a.bin
	head -c 1000 a.bin >p.bin
	run -1 --separate-stderr hcheck verify p.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: p.bin: size 1000 is not a multiple of 128: partial record at offset 896" ]
	: >e.bin
	run -1 --separate-stderr hcheck verify e.bin
	[ "${stderr_lines[0]}" = "htmcheck verify: e.bin: empty dump" ]
}

@test "verify: a larger dump, corrupted deep inside" {
	hcheck simgen -t core -n 3 -p 1 -c 7 --log2 20 --written 10000 -o big.bin
	run -0 hcheck verify big.bin
	[ "${lines[1]}" = "records:       8192 of 128 bytes" ]
	[ "${lines[3]}" = "written:       10000" ]
	flip_byte big.bin $((4000 * 128 + 50))
	run -1 --separate-stderr hcheck verify big.bin
	[[ "${stderr_lines[0]}" == "htmcheck verify: big.bin: mismatch at offset 512000 (slot 4000, first wrong byte at offset 512050): "* ]]
}

@test "verify: file and argument errors" {
	run -1 --separate-stderr hcheck verify nofile
	[ "${stderr_lines[0]}" = "htmcheck verify: read nofile: No such file or directory" ]
	run -1 --separate-stderr hcheck verify .
	[ "${stderr_lines[0]}" = "htmcheck verify: read .: Is a directory" ]
	run -2 --separate-stderr hcheck verify
	[ "${stderr_lines[0]}" = "htmcheck verify: missing FILE" ]
	run -2 --separate-stderr hcheck verify a b
	[ "${stderr_lines[0]}" = "htmcheck verify: unexpected argument 'b'" ]
}

# --- configuration blocks ---------------------------------------------------

@test "sysmem -i decodes block headers" {
	{
		block 2 2 32 17
		block 0xffffffffffffffff 1 32 34
	} >mem.bin
	[ "$(stat -c %s mem.bin)" -eq 160 ]
	run -0 --separate-stderr htm sysmem -i mem.bin
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "mem.bin: 2 blocks, 3 entries, 160 bytes" ]
	[ "${lines[1]}" = "block 0: offset 0, 2 entries, next 0x0000000000000002" ]
	[ "${lines[2]}" = "block 1: offset 96, 1 entry, next 0xffffffffffffffff" ]
	run -0 htm sysmem -i mem.bin --hex
	[ "${lines[2]}" = "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 02  |................|" ]
	[ "${lines[4]}" = "00000020  11 11 11 11 11 11 11 11  11 11 11 11 11 11 11 11  |................|" ]
}

@test "sysproc -i uses 16-byte entries" {
	{
		block 1 3 16 65
		block 0 0 16 0
	} >proc.bin
	run -0 htm sysproc -i proc.bin
	[ "${lines[0]}" = "proc.bin: 2 blocks, 3 entries, 112 bytes" ]
	[ "${lines[2]}" = "block 1: offset 80, 0 entries, next 0x0000000000000000" ]
	# Read as memory configuration (32-byte entries) it does not add up.
	run -1 --separate-stderr htm sysmem -i proc.bin
	[ "${stderr_lines[0]}" = "htmtrace sysmem: proc.bin: malformed block at offset 0 of 112 bytes" ]
}

@test "sysmem -i: truncated blocks and empty files" {
	{
		block 2 2 32 17
		block 0 1 32 34
	} >mem.bin
	head -c 100 mem.bin >cut.bin
	run -1 --separate-stderr htm sysmem -i cut.bin
	[ "${stderr_lines[0]}" = "htmtrace sysmem: cut.bin: malformed block at offset 96 of 100 bytes" ]
	head -c 20 mem.bin >short.bin
	run -1 --separate-stderr htm sysmem -i short.bin
	[ "${stderr_lines[0]}" = "htmtrace sysmem: short.bin: malformed block at offset 0 of 20 bytes" ]
	: >empty.bin
	run -0 htm sysmem -i empty.bin
	[ "${lines[0]}" = "empty.bin: 0 blocks, 0 entries, 0 bytes" ]
	# A huge entry count must not wrap around.
	{
		be64 0
		be64 0
		be64 0x0800000000000000
		be64 0
	} >huge.bin
	run -1 htm sysmem -i huge.bin
}

@test "sysmem: -i excludes -o, -d and a target" {
	: >empty.bin
	run -2 --separate-stderr htm sysmem -i empty.bin -o x
	[ "${stderr_lines[0]}" = "htmtrace sysmem: -i FILE decodes a file: it takes no -o, -d or target" ]
	run -2 htm sysmem -i empty.bin -d 0
	run -2 htm sysproc -i empty.bin -t core
	run -2 htm sysmem -o x --hex
}

# --- module loading (dry runs only: the host kernel is not touched) ----------

@test "load --dry-run routes parameters to their module" {
	mkdir mods
	touch mods/htmtrace.ko mods/htmtrace_hvsim.ko
	run -0 --separate-stderr htm load --dry-run --dir mods
	[ "$output" = "insmod mods/htmtrace.ko" ]
	run -0 htm load --dry-run --dir mods --sim rate=5 htmtrace.debug=1 \
		hvsim.record_rate=10 htmtrace_hvsim.busy_every=3 'hvsim.name=a b'
	# the simulator first, then htmtrace.ko, which takes it (backend=sim)
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = 'insmod mods/htmtrace_hvsim.ko record_rate=10 busy_every=3 name="a b"' ]
	[ "${lines[1]}" = "insmod mods/htmtrace.ko backend=sim rate=5 debug=1" ]
}

@test "load: parameter errors exit 2" {
	mkdir mods
	touch mods/htmtrace.ko mods/htmtrace_hvsim.ko
	run -2 --separate-stderr htm load --dry-run --dir mods hvsim.rate=10
	[ "${stderr_lines[0]}" = "htmtrace load: 'hvsim.rate=10' is a simulator parameter: add --sim" ]
	for p in foo =1 'a b=1' 'x="y"' hvsim.=1; do
		run -2 --separate-stderr htm load --dry-run --sim --dir mods "$p"
		[ "${stderr_lines[0]}" = "htmtrace load: bad module parameter '$p': expected NAME=VALUE" ]
	done
}

@test "load: a missing module file exits 1" {
	mkdir mods
	touch mods/htmtrace.ko
	run -1 --separate-stderr htm load --dry-run --dir mods --sim
	[ "${stderr_lines[0]}" = "htmtrace load: mods/htmtrace_hvsim.ko: No such file or directory" ]
	run -1 --separate-stderr htm load --dry-run --dir nomods
	[ "${stderr_lines[0]}" = "htmtrace load: nomods/htmtrace.ko: No such file or directory" ]
}

# A root with htmtrace installed as make install and DKMS install it:
# ROOT/lib/modules/KVER/updates/htmtrace.ko (a relocatable object with a
# .modinfo section: all depmod needs), indexed by depmod -b, and an empty
# modprobe.d.
installed_root() {
	local kv

	kv=$(uname -r)
	PATH=$PATH:/usr/sbin:/sbin command -v depmod >/dev/null ||
		skip "no depmod (Debian package kmod; tests/deps.sh installs it)"
	mkdir -p "$1/lib/modules/$kv/updates" "$1/etc/modprobe.d"
	printf '%s\n' 'static const char info[] __attribute__((section(".modinfo"), used)) = "license=GPL";' >modinfo.c
	cc -c modinfo.c -o "$1/lib/modules/$kv/updates/htmtrace.ko"
	PATH=$PATH:/usr/sbin:/sbin depmod -b "$1" "$kv" 2>/dev/null
	grep -qx 'updates/htmtrace.ko:' "$1/lib/modules/$kv/modules.dep"
	INSTALLED=$(cd "$1" && pwd -P)/lib/modules/$kv/updates/htmtrace.ko
}

@test "load by name: the installed module, modprobe.d options before the command line's" {
	installed_root root
	printf 'options htmtrace channels=8 poll_ms=5\noptions other x=1\n' \
		>root/etc/modprobe.d/htmtrace.conf
	mkdir -p root/lib/modprobe.d
	echo 'options htmtrace bounce_kb=128' >root/lib/modprobe.d/vendor.conf
	run -0 --separate-stderr htm load --root root --dry-run bounce_kb=64 'htmtrace.x=a b'
	[ "$stderr" = "" ]
	[ "$output" = "insmod $INSTALLED channels=8 poll_ms=5 bounce_kb=128 bounce_kb=64 x=\"a b\"" ]
	# Without options anywhere, the file alone.
	rm root/etc/modprobe.d/htmtrace.conf root/lib/modprobe.d/vendor.conf
	run -0 htm load --root root --dry-run
	[ "$output" = "insmod $INSTALLED" ]
}

@test "load by name: a blacklist entry in modprobe.d is honoured, exit 1" {
	installed_root root
	mkdir -p root/usr/lib/modprobe.d
	echo 'blacklist htmtrace' >root/usr/lib/modprobe.d/local.conf
	run -1 --separate-stderr htm load --root root --dry-run
	[ "$output" = "" ]
	[[ "${stderr_lines[0]}" == "htmtrace load: module htmtrace is blacklisted by the modprobe configuration ('blacklist htmtrace' in root/etc/modprobe.d, "*"root/usr/lib/modprobe.d"*"): not loaded" ]]
	[ "${stderr_lines[1]}" = "htmtrace load: remove that entry to load it by name, or give --dir DIR to load a file" ]
	# Another module's entry is not ours.
	echo 'blacklist htmtrace_other' >root/usr/lib/modprobe.d/local.conf
	run -0 htm load --root root --dry-run
	[ "$output" = "insmod $INSTALLED" ]
}

@test "load by name: an install command of modprobe.d is what would run" {
	installed_root root
	echo 'install htmtrace /bin/echo custom' >root/etc/modprobe.d/htmtrace.conf
	run -0 --separate-stderr htm load --root root --dry-run channels=2
	[ "$output" = "install /bin/echo custom channels=2" ]
}

@test "load: --dir comes first, then the installed module, then the binary's directory" {
	installed_root root
	mkdir mods bin
	touch mods/htmtrace.ko
	cp "$HTMTRACE" bin/htmtrace
	touch bin/htmtrace.ko
	run -0 bin/htmtrace load --root root --dir mods --dry-run
	[ "$output" = "insmod mods/htmtrace.ko" ]
	run -0 bin/htmtrace load --root root --dry-run
	[ "$output" = "insmod $INSTALLED" ]
	# Not installed: /lib/modules/htmtrace of the root, else next to the
	# binary.
	mkdir -p empty/lib/modules/htmtrace
	run -0 bin/htmtrace load --root empty --dry-run
	[ "$output" = "insmod $(cd bin && pwd -P)/htmtrace.ko" ]
	touch empty/lib/modules/htmtrace/htmtrace.ko
	run -0 bin/htmtrace load --root empty --dry-run
	[ "$output" = "insmod empty/lib/modules/htmtrace/htmtrace.ko" ]
}

@test "load --sim: a test build, from a directory, never the installed module" {
	installed_root root
	mkdir bin
	cp "$HTMTRACE" bin/htmtrace
	touch bin/htmtrace.ko bin/htmtrace_hvsim.ko
	run -0 bin/htmtrace load --root root --sim --dry-run hvsim.rate=0
	[ "$output" = "insmod $(cd bin && pwd -P)/htmtrace_hvsim.ko rate=0
insmod $(cd bin && pwd -P)/htmtrace.ko backend=sim" ]
}

@test "load: not found by name nor in a directory says where it looked, exit 1" {
	mkdir -p empty bin
	cp "$HTMTRACE" bin/htmtrace
	run -1 --separate-stderr bin/htmtrace load --root empty --dry-run
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "htmtrace load: module htmtrace not found: not installed for this kernel (no htmtrace in empty/lib/modules/$(uname -r)/modules.dep), no htmtrace.ko in empty/lib/modules/htmtrace nor next to the htmtrace binary ($(cd bin && pwd -P))" ]
	[ "${stderr_lines[1]}" = "htmtrace load: install the module (make install or DKMS, see htmtrace(1)), or give --dir DIR" ]
	# --sim does not look by name, and says so.
	run -1 --separate-stderr bin/htmtrace load --root empty --sim --dry-run
	[ "${stderr_lines[0]}" = "htmtrace load: no htmtrace.ko in empty/lib/modules/htmtrace nor next to the htmtrace binary ($(cd bin && pwd -P))" ]
	run -2 --separate-stderr htm load --root ''
	[ "${stderr_lines[0]}" = "htmtrace load: bad root ''" ]
}

@test "unload: extra arguments exit 2" {
	run -2 --separate-stderr htm unload now
	[ "${stderr_lines[0]}" = "htmtrace unload: unexpected argument 'now'" ]
}

# --- version and a build without libkmod ---------------------------------------

@test "--version and -V: the tool's version and the loaded module's, from /sys/module/htmtrace/version" {
	make -s -C "$TOP/userspace" O="$TOP/build/host" WERROR=1 fakehtm >&2
	local fake=$TOP/build/host/fakedtl.so
	# The one version: dkms.conf's, the module's and the tool's.
	local v
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
	[ -n "$v" ]
	grep -qxF "MODULE_VERSION(\"$v\");" "$TOP/module/main.c"
	FAKE_SYSFS_MODULE= LD_PRELOAD=$fake run -0 --separate-stderr "$HTMTRACE" --version
	[ "$output" = "htmtrace $v
module htmtrace not loaded (htmtrace load)" ]
	[ "$stderr" = "" ]
	mkdir mod
	echo "$v" >mod/version
	FAKE_SYSFS_MODULE=$PWD/mod LD_PRELOAD=$fake run -0 --separate-stderr "$HTMTRACE" -V
	[ "$output" = "htmtrace $v
module htmtrace $v" ]
	[ "$stderr" = "" ]
	echo 0.0.1 >mod/version
	FAKE_SYSFS_MODULE=$PWD/mod LD_PRELOAD=$fake run -0 --separate-stderr "$HTMTRACE" -V
	[ "${lines[1]}" = "module htmtrace 0.0.1" ]
	[ "$stderr" = "htmtrace: the loaded module is version 0.0.1, this tool $v: a command the module lacks fails with ENOTTY" ]
	rm mod/version
	FAKE_SYSFS_MODULE=$PWD/mod LD_PRELOAD=$fake run -0 --separate-stderr "$HTMTRACE" -V
	[ "${lines[1]}" = "module htmtrace loaded, version unknown (no /sys/module/htmtrace/version: a module older than 0.1)" ]
	run -2 --separate-stderr "$HTMTRACE" --version x
	[ "${stderr_lines[0]}" = "htmtrace: --version takes no argument" ]
}

@test "build without libkmod: reports work, load and unload say why they cannot" {
	local o
	for o in "NO_KMOD=1" "PKG_CONFIG=false"; do
		rm -rf nk
		run -0 --separate-stderr make -s -C "$TOP/userspace" O="$PWD/nk" WERROR=1 "$o"
		if [ "$o" = PKG_CONFIG=false ]; then
			[[ "$stderr" == *"libkmod not found by false: building htmtrace without load and unload (install libkmod-dev (Debian, Ubuntu), kmod-devel (RHEL, Fedora) or libkmod-devel (SLES, openSUSE) for them)"* ]]
		fi
		run -1 --separate-stderr nk/htmtrace load --sim
		[ "$stderr" = "htmtrace load: this htmtrace was built without libkmod (install libkmod-dev (Debian, Ubuntu), kmod-devel (RHEL, Fedora) or libkmod-devel (SLES, openSUSE) and rebuild); load the modules with modprobe or insmod instead" ]
		run -1 --separate-stderr nk/htmtrace unload
		[ "$stderr" = "htmtrace unload: this htmtrace was built without libkmod (install libkmod-dev (Debian, Ubuntu), kmod-devel (RHEL, Fedora) or libkmod-devel (SLES, openSUSE) and rebuild); load the modules with modprobe or insmod instead" ]
		run -0 nk/htmtrace dtl report --help
		run -1 grep -q kmod <(ldd nk/htmtrace)
	done
	run -2 --separate-stderr make -s -C "$TOP/userspace" O="$PWD/nk2" PKG_CONFIG=false REQUIRE_KMOD=1
	[[ "$stderr" == *"libkmod not found by false: install libkmod-dev (Debian, Ubuntu), kmod-devel (RHEL, Fedora) or libkmod-devel (SLES, openSUSE) (for the guest: tests/deps.sh --sysroot)"* ]]
}
