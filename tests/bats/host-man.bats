#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The man pages cannot drift from what they document: man/htmtrace.1 must
# have a section for every command that "htmtrace --help" lists and, in
# that section, every option that "htmtrace help COMMAND" lists, and the
# exit statuses the usage names; man/htmtrace.4 must name every constant
# (ioctls, stream records, flags, states) and every errno of
# uapi/linux/htmtrace.h, and every module parameter of module/. The other
# way round, neither page may document a command, an option or an ioctl
# the tool or the header no longer has. Each checker is also run on a page
# with an item removed (or renamed), to show it fails.
# The pages must render without a warning (man, else groff; skipped when
# neither is installed).

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" all >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export PAGE1="$TOP/man/htmtrace.1" PAGE4="$TOP/man/htmtrace.4"
	export UAPI="$TOP/uapi/linux/htmtrace.h"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# The roff source as text to search: no comments, no font or size escapes,
# "\-" as "-", "\(dq" as '"'.
plain() {
	perl -ne 'next if /^\.\\"/; s/\\-/-/g; s/\\\(dq/"/g; s/\\f[BIRP]//g;
		s/\\&//g; print' "$1"
}

# has_line TEXT LINE: TEXT has the line LINE (grep -xF, without a process:
# the checks below ask a few hundred times).
has_line() {
	[[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]
}

# has_word TEXT WORD: TEXT has WORD as a word (grep -wF, the same way).
has_word() {
	[[ $1 =~ (^|[^A-Za-z0-9_])"$2"([^A-Za-z0-9_]|$) ]]
}

# The lines of one section of plain text $1 (a page as plain prints it):
# from the line $2 (exact) to the next .SS or .SH.
section() {
	awk -v h="$2" '$0 == h { on = 1; next }
		on && /^\.S[SH]( |$)/ { exit } on' <<<"$1"
}

# The commands of "htmtrace --help": the indented names under "Commands:"
# and "Developer commands:".
commands() {
	"$HTMTRACE" --help | awk '/[Cc]ommands:$/ { on = 1; next } /^$/ { on = 0 }
		on && /^  [a-z]/ { sub(/^  /, ""); sub(/  .*/, ""); print }'
}

# The options of "htmtrace help COMMAND", one per line: -x and --long, but
# not -h/--help (the page says once that every command takes them).
# "help" has no options, and "htmtrace help help" is a usage error.
options() {
	[ "$1" != help ] || return 0
	# shellcheck disable=SC2086
	"$HTMTRACE" help $1 | perl -ne 'next unless /^  (?:(-\w), )?\s*(--[\w-]+)/;
		next if $2 eq "--help"; print "$1\n" if $1; print "$2\n"'
}

# What man/htmtrace.1 ($1) lacks, one item per line.
missing1() {
	local text cmd opt sec st

	text=$(plain "$1")
	while read -r cmd; do
		if ! has_line "$text" ".SS $cmd"; then
			echo "command '$cmd'"
			continue
		fi
		sec=$(section "$text" ".SS $cmd")
		while read -r opt; do
			# (a line's start or end is a newline in $sec)
			[[ $sec =~ (^|[^a-zA-Z0-9-])"$opt"([^a-zA-Z0-9-]|$) ]] ||
				echo "$cmd: option $opt"
		done < <(options "$cmd")
	done < <(commands)
	sec=$(section "$text" ".SH EXIT STATUS")
	for st in $("$HTMTRACE" --help | sed -n 's/^Exit status: //p' |
		    grep -oE '[0-9]+'); do
		has_line "$sec" ".B $st" || echo "exit status $st"
	done
}

# What man/htmtrace.1 ($1) documents that the tool does not have, one item
# per line: a command section no longer in --help, an option heading (the
# term of a .TP in the section) no longer in the command's help, a uapi
# name the header no longer defines.
stale1() {
	local text cmds names cmd opt opts= n

	# each list taken once: the tool runs for each
	text=$(plain "$1")
	cmds=$(commands)
	names=$(uapi_names)
	# "COMMAND<tab>" for each section, then "COMMAND<tab>OPTION" for each
	# option heading in it, in page order (one awk: a few hundred lines)
	while IFS=$'\t' read -r cmd opt; do
		if [ -z "$opt" ]; then
			opts=
			if has_line "$cmds" "$cmd"; then
				opts=$(options "$cmd")
			else
				echo "command '$cmd'"
			fi
		elif has_line "$cmds" "$cmd" && ! has_line "$opts" "$opt"; then
			echo "$cmd: option $opt"
		fi
	done < <(awk '/^\.SH( |$)/ { cmd = ""; next }
		/^\.SS / { cmd = substr($0, 5); print cmd "\t"; prev = ""; next }
		cmd != "" && prev == ".TP" {
			line = $0
			while (match(line, /(^|[ "])--?[a-zA-Z][a-zA-Z0-9-]*/)) {
				o = substr(line, RSTART, RLENGTH)
				sub(/^[ "]/, "", o)
				if (o != "-h" && o != "--help")
					print cmd "\t" o
				line = substr(line, RSTART + RLENGTH)
			}
		}
		{ prev = $0 }' <<<"$text")
	while read -r n; do
		has_line "$names" "$n" || echo "uapi name $n"
	done < <(grep -oE 'HTMTRACE_[A-Z0-9_]*[A-Z0-9]' <<<"$text" | sort -u)
}

# The constants of the uapi header, the errnos its comments name, and the
# module parameters.
uapi_names() {
	grep -oE '^#define HTMTRACE_[A-Z0-9_]+' "$UAPI" | awk '{ print $2 }'
}
uapi_ioctls() {
	grep -E '^#define HTMTRACE_IOC_[A-Z_]+[[:space:]]+_IO' "$UAPI" |
		awk '{ print $2 }'
}
uapi_errnos() {
	grep -oE -- '-E[A-Z]+' "$UAPI" | sed 's/^-//' | sort -u
}
module_params() {
	grep -hoE 'module_param(_cb|_named|_array)?\([a-z_0-9]+' "$TOP"/module/*.c \
		"$TOP"/module/*.h | sed 's/.*(//' | sort -u
}

# What man/htmtrace.4 ($1) documents under a heading (a line ".B NAME")
# that the uapi header does not define.
stale4() {
	local n names

	names=$(uapi_names)
	while read -r n; do
		has_line "$names" "$n" || echo "constant $n"
	done < <(plain "$1" | sed -n 's/^\.B \(HTMTRACE_[A-Z0-9_]*\)$/\1/p')
}

# What man/htmtrace.4 ($1) lacks, one item per line.
missing4() {
	local page=$1 text n sec

	text=$(plain "$page")
	while read -r n; do
		has_word "$text" "$n" || echo "constant $n"
	done < <(uapi_names)
	while read -r n; do
		has_line "$text" ".B $n" || echo "ioctl $n"
	done < <(uapi_ioctls)
	while read -r n; do
		has_word "$text" "$n" || echo "errno $n"
	done < <(uapi_errnos)
	sec=$(section "$text" ".SH MODULE PARAMETERS")
	while read -r n; do
		has_line "$sec" ".B $n" || echo "module parameter $n"
	done < <(module_params)
}

@test "man: what the drift checks read is there to read" {
	run -0 commands
	[ "${#lines[@]}" -ge 16 ]
	[[ " ${lines[*]} " == *" dtl record dtl report "* ]]
	[[ " ${lines[*]} " == *" record "* ]]
	[[ " ${lines[*]} " == *" setup "* ]]
	run -0 options "dtl record"
	[ "$(paste -s -d ' ' <<<"$output")" = "-C --cpus --cpu -e --events --ring-kb --latency -d --device -o --output --duration" ]
	run -0 uapi_ioctls
	[ "${#lines[@]}" -eq 15 ]
	[ "${lines[0]}" = HTMTRACE_IOC_CAPS ]
	[ "${lines[14]}" = HTMTRACE_IOC_DTL_FLUSH ]
	run -0 uapi_errnos
	[[ " ${lines[*]} " == *" ESTALE "* ]]
	[[ " ${lines[*]} " == *" ENOSPC "* ]]
	run -0 module_params
	[ "$(paste -s -d ' ' <<<"$output")" = "backend bounce_kb channels dtl_period_us dtl_pmu init_hold long_busy_cap_ms" ]
}

@test "htmtrace(1) has every command, every option of each, every exit status" {
	run -0 missing1 "$PAGE1"
	[ "$output" = "" ]
}

@test "htmtrace(1) check fails on a missing command or option" {
	grep -vxF '.SS dtl report' "$PAGE1" | grep -vF 'ring\-kb' >page.1
	run -0 missing1 page.1
	[ "$output" = "$(printf '%s\n' "dtl record: option --ring-kb" "command 'dtl report'")" ]
}

@test "htmtrace(1) documents no command, option or uapi name the tool lacks" {
	run -0 stale1 "$PAGE1"
	[ "$output" = "" ]
}

@test "htmtrace(1) stale check fails on a command, an option or an ioctl that is gone" {
	# A section for a command --help does not list, an option heading in
	# a real command's section, an ioctl the header does not define.
	sed -e 's/^\.SS unload$/.SS frobnicate/' \
	    -e 's/^\.B \\-\\-dry\\-run$/.B \\-\\-dry\\-runs/' \
	    -e 's/HTMTRACE_IOC_STATUS/HTMTRACE_IOC_STATE/' "$PAGE1" >page.1
	run -0 stale1 page.1
	[ "${lines[0]}" = "record: option --dry-runs" ]
	[ "${lines[1]}" = "translation: option --dry-runs" ]
	[ "${lines[2]}" = "load: option --dry-runs" ]
	[ "${lines[3]}" = "command 'frobnicate'" ]
	[ "${lines[4]}" = "uapi name HTMTRACE_IOC_STATE" ]
	[ "${#lines[@]}" -eq 5 ]
	# And the other direction too: unload's section is gone.
	run -0 missing1 page.1
	[[ "$output" == *"command 'unload'"* ]]
}

@test "htmtrace(4) documents no ioctl or constant the header lacks" {
	run -0 stale4 "$PAGE4"
	[ "$output" = "" ]
	sed 's/^\.B HTMTRACE_IOC_DTL_STATS$/.B HTMTRACE_IOC_DTL_STATISTICS/' "$PAGE4" >page.4
	run -0 stale4 page.4
	[ "$output" = "constant HTMTRACE_IOC_DTL_STATISTICS" ]
}

@test "htmtrace(4) has every ioctl, constant, errno and module parameter" {
	run -0 missing4 "$PAGE4"
	[ "$output" = "" ]
}

@test "htmtrace(4) check fails on a missing ioctl, errno or parameter" {
	grep -vxF '.B HTMTRACE_IOC_DTL_STATS' "$PAGE4" | grep -vxF '.B ENXIO' |
		grep -vxF '.B dtl_period_us' >page.4
	run -0 missing4 page.4
	[ "${lines[0]}" = "constant HTMTRACE_IOC_DTL_STATS" ]
	[ "${lines[1]}" = "ioctl HTMTRACE_IOC_DTL_STATS" ]
	[ "${lines[2]}" = "errno ENXIO" ]
	[ "${lines[3]}" = "module parameter dtl_period_us" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "man pages render without warnings" {
	local p

	if command -v man >/dev/null; then
		for p in "$PAGE1" "$PAGE4"; do
			run --separate-stderr env MANWIDTH=80 MAN_KEEP_FORMATTING= \
				man --warnings -l "$p"
			[ "$status" -eq 0 ]
			[ "$stderr" = "" ]
			[[ "$output" == *"NAME"* ]]
		done
	elif command -v groff >/dev/null; then
		for p in "$PAGE1" "$PAGE4"; do
			run --separate-stderr groff -man -ww -z "$p"
			[ "$status" -eq 0 ]
			[ "$stderr" = "" ]
		done
	else
		skip "neither man nor groff is installed"
	fi
}

@test "README: the prerequisites name libkmod's package of every distribution the tool's messages name; the workstation build and the test flow shown" {
	local pkgs p sec
	# the packages of the tool's "install ..." messages (userspace/Makefile,
	# the same text in userspace/cmd_kmod.c)
	pkgs=$(sed -n 's/^KMOD_PACKAGES := //p' "$TOP/userspace/Makefile")
	grep -qF "\"$pkgs\"" "$TOP/userspace/cmd_kmod.c"
	sec=$(awk '/^## / { on = ($0 == "## Prerequisites") } on' "$TOP/README.md")
	for p in $(grep -oE '[a-z-]*kmod-dev[a-z]*' <<<"$pkgs"); do
		echo "$p"
		[[ $sec == *" $p "* ]]
	done
	[ "$(grep -oE '[a-z-]*kmod-dev[a-z]*' <<<"$pkgs" | wc -l)" -eq 3 ]
	[[ $sec == *'`make -C userspace`'* ]]
	[[ $sec == *htmdecode*IBM* ]]
	grep -q 'make demo' "$TOP/README.md"
	grep -q 'make check' "$TOP/README.md"
}
