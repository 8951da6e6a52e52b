#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion (userspace/htmtrace.bash-completion) cannot fall
# behind the tool: it must offer every command "htmtrace --help" lists and
# nothing else, every option "htmtrace help COMMAND" lists for each command,
# and for the options with a fixed set of values only values the tool
# accepts. Each test completes a command line as bash does: COMP_WORDS and
# COMP_CWORD set, the completion function called, COMPREPLY read. The
# completed binary is build/host/htmtrace, as the first word.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" all >&2
	export HTMTRACE="$TOP/build/host/htmtrace"
	export COMPLETION="$TOP/userspace/htmtrace.bash-completion"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# What bash would offer for the words "$@", the last one being completed
# (give '' to complete an empty word): one candidate per line, sorted.
complete_words() {
	bash -c 'source "$COMPLETION"
		COMP_WORDS=("$HTMTRACE" "$@")
		COMP_CWORD=$#
		COMP_LINE="${COMP_WORDS[*]}"
		_htmtrace
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@" | LC_ALL=C sort -u |
		grep -v '^$' || true
}

# The commands of "htmtrace --help", as host-man.bats reads them; the
# first word of each.
help_commands() {
	"$HTMTRACE" --help | awk '/[Cc]ommands:$/ { on = 1; next } /^$/ { on = 0 }
		on && /^  [a-z]/ { sub(/^  /, ""); sub(/  .*/, ""); print }'
}

# The options of "htmtrace help COMMAND", as host-man.bats reads them.
help_options() {
	# shellcheck disable=SC2086
	"$HTMTRACE" help $1 | perl -ne 'next unless /^  (?:(-\w), )?\s*(--[\w-]+)/;
		print "$1\n" if $1; print "$2\n"'
}

@test "completion: the file is registered for htmtrace" {
	run -0 bash -c 'source "$COMPLETION"; complete -p htmtrace'
	[ "$output" = "complete -F _htmtrace htmtrace" ]
}

@test "completion: the file is shellcheck-clean" {
	# tests/deps.sh installs shellcheck: a skip here fails make check
	command -v shellcheck >/dev/null || skip "no shellcheck (tests/deps.sh installs it)"
	shellcheck -s bash "$COMPLETION"
}

@test "completion: the first word offers exactly the commands of --help" {
	local want

	want=$(help_commands | awk '{ print $1 }' | LC_ALL=C sort -u)
	[ "$(echo "$want" | wc -l)" -ge 15 ]
	run -0 complete_words ''
	[ "$output" = "$want" ]
	run -0 complete_words de
	[ "$output" = "deconfigure" ]
	run -0 complete_words --
	[ "$output" = "--help
--version" ]
}

@test "completion: every option of every command of --help is offered" {
	local cmd got want diff missing=''

	while read -r cmd; do
		[ "$cmd" != help ] || continue
		# shellcheck disable=SC2086
		got=$(complete_words $cmd -)
		want=$(help_options "$cmd" | LC_ALL=C sort -u)
		# What the help lists and the completion lacks, and what the
		# completion offers and the help does not list.
		diff=$(LC_ALL=C comm -23 <(echo "$want") <(echo "$got") | sed "s/^/$cmd: /"
			LC_ALL=C comm -13 <(echo "$want") <(echo "$got") | sed "s/^/$cmd: extra /")
		[ -z "$diff" ] || missing+="$diff"$'\n'
	done < <(help_commands)
	[ "$missing" = "" ] || { echo "$missing"; false; }
	run -0 complete_words status --j
	[ "$output" = "--json" ]
	run -0 complete_words load --r
	[ "$output" = "--root" ]
	run -0 complete_words dump --no
	[ "$output" = "--no-progress" ]
}

@test "completion: dtl and help take their second words" {
	run -0 complete_words dtl ''
	[ "$output" = "--help
record
report
top" ]
	run -0 complete_words help ''
	[ "$output" = "$(help_commands | awk '{ print $1 }' | LC_ALL=C sort -u)" ]
	run -0 complete_words help dtl r
	[ "$output" = "record
report" ]
	run -0 complete_words dtl report --fo
	[ "$output" = "--format" ]
}

@test "completion: option values are ones the tool accepts" {
	local v htm_ok

	run -0 complete_words record -t ''
	[ "$output" = "core
global
llat
nest" ]
	for v in $output; do
		htm_ok=$("$HTMTRACE" record --dry-run -t "$v" -n 0 -p 0 -c 0)
		[ -n "$htm_ok" ]
	done
	run -0 complete_words caps --type = c
	[ "$output" = "core" ]
	run -0 complete_words dtl report --format ''
	[ "$output" = "csv
json
jsonl
svg
text" ]
	: >empty.bin
	for v in $output; do
		# Not a usage error (2): the empty file is decoded (0) in that format.
		run "$HTMTRACE" dtl report empty.bin --format "$v"
		[ "$status" -ne 2 ]
	done
	run -0 complete_words dtl record -e cede,p
	[ "$output" = "cede,preempt" ]
	run -0 complete_words dtl record -e ''
	for v in $output; do
		run "$HTMTRACE" dtl record -e "$v" -d "$BATS_TEST_TMPDIR/none" -o x --duration 0
		[ "$status" -eq 1 ]
	done
	# A value that is a number: nothing offered, no option either.
	run -0 complete_words record -n ''
	[ "$output" = "" ]
	run -0 complete_words dtl top -I ''
	[ "$output" = "" ]
	# dtl report -i is perf's input: a file
	touch cap.bin
	run -0 complete_words dtl report -i ca
	[ "$output" = "cap.bin" ]
	run -0 complete_words dtl top --input ca
	[ "$output" = "cap.bin" ]
	run -0 complete_words dtl record --lat
	[ "$output" = "--latency" ]
	run -0 complete_words dtl record --latency ''
	[ "$output" = "" ]
	run -0 complete_words dtl top -d /dev/vpa
	[ "$output" = "/dev/vpa_dtl" ]
	# The options of the tool itself, each one the tool takes.
	run -0 complete_words --v
	[ "$output" = "--version" ]
	"$HTMTRACE" --version >/dev/null
	"$HTMTRACE" -V >/dev/null
	run -0 complete_words dtl report --cpu ''
	[ "$output" = "" ]
}

@test "completion: files and directories where an option or operand names one" {
	mkdir adir
	touch afile
	run -0 complete_words load --dir a
	[ "$output" = "adir" ]
	run -0 complete_words record -o a
	[ "$output" = "adir" ]
	run -0 complete_words dump -o a
	[ "$output" = "adir
afile" ]
	run -0 complete_words dtl report a
	[ "$output" = "adir
afile" ]
	run -0 complete_words translation a
	[ "$output" = "adir" ]
	# The workload of record after --: a command.
	run -0 complete_words record -t core -- bas
	[[ $'\n'"$output"$'\n' == *$'\n'bash$'\n'* ]]
}
