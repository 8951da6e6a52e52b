# SPDX-License-Identifier: GPL-2.0
# bats helpers for the suites that run in the QEMU pseries guest.
#
# A guest suite starts with `load helpers`. The file then boots one guest of
# its own (setup_file, nothing loaded) and shuts it down in teardown_file,
# which unloads our modules and fails the file if the post-mortem check
# (tests/guest.py stop) finds a kernel splat or a kmemleak leak in htmtrace.
# A file that needs its own setup_file/teardown_file/setup must call
# guest_boot / guest_shutdown / guest_mark from it.
#
#   guest CMD...            run CMD in the guest (the words are joined with
#                           spaces and run by sh -c, so quote for the guest):
#                           stdout, stderr and exit status are CMD's, so
#                           `run guest ...` and `run --separate-stderr guest ...`
#                           work. GUEST_TIMEOUT=SECS (default 120) bounds it;
#                           a timeout gives status 124. CMD's shell has the
#                           function `nap SECS`: a sleep without a process,
#                           for polling loops (each process costs the debug
#                           guest about 0.1 s of host CPU: a sleep 0.05
#                           costs more than it waits)
#   guest_load MOD [ARG=VAL...]  insmod /lib/modules/htmtrace/MOD.ko ARG=VAL...
#   sim_load SIM_PARAMS [HTM_PARAMS]  the guest command that loads the
#                           simulator, then htmtrace backend=sim
#   guest_unload MOD        rmmod MOD
#   guest_unload_all        kill the background processes tests left,
#                           deconfigure every channel, and rmmod whichever
#                           of our modules are loaded
#   guest_mark [CMD]        the test's name into the kernel log, then CMD
#   guest_loaded MOD        true if MOD is loaded
#   guest_number CMD...     the number guest CMD prints, or fail
#   guest_dmesg             the kernel log since this test began
#   assert_no_splat         fail if guest_dmesg holds a BUG/WARNING/Oops/...
#   requires WHAT [ARG]     skip the test unless: module NAME (built),
#                           tool (built), guest-path PATH, host-cmd CMD
#
# HTMTRACE_VARIANT (release|debug, default release) picks the kernel and
# build/VARIANT/; logs go to build/VARIANT/logs/<file>.*.log. GUEST_SHARE=DIR
# (set before setup_file) mounts host folder DIR at /host in the guest.
# HTMTRACE_GUEST=NAME: use the running guest NAME instead of booting one per
# file (make check boots one for all suites and does the post-mortem itself);
# teardown_file then unloads our modules and checks the file's kernel log.

bats_require_minimum_version 1.5.0

# This file is loaded for every test: no subshell, no dirname or basename
# (each process costs the host about 15 ms, a run a thousand of them).
# bats loads it by an absolute path (its suites' folder).
HTM_TOP=${BASH_SOURCE[0]%/tests/bats/helpers.bash}
[[ $HTM_TOP == /* ]] || HTM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HTM_VARIANT=${HTMTRACE_VARIANT:-release}
HTM_BUILD=${HTMTRACE_BUILD_DIR:-$HTM_TOP/build/$HTM_VARIANT}
HTM_FILE=${BATS_TEST_FILENAME##*/}
HTM_FILE=${HTM_FILE%.bats}
HTM_GUEST=${HTMTRACE_GUEST:-$HTM_FILE}
HTM_MODDIR=/lib/modules/htmtrace
# Debian's interpreter: a python3 shim (pyenv, ...) can cost 0.2 s per call.
HTM_PYTHON=python3
[ -x /usr/bin/python3 ] && HTM_PYTHON=/usr/bin/python3

# -S: no site module, which guest.py (the standard library only) does not
# need and which costs each of a run's thousands of calls a third of its
# host CPU time.
guest_py() {
	"$HTM_PYTHON" -S "$HTM_TOP/tests/guest.py" "$1" -V "$HTM_VARIANT" -n "$HTM_GUEST" "${@:2}"
}

# The guest lives as long as this bats file's process ($$), not longer.
guest_boot() {
	guest_py start --owner $$ ${GUEST_SHARE:+--share "$GUEST_SHARE"}
}

guest_shutdown() {
	local rc=0
	guest_unload_all || { echo "teardown: could not unload our modules" >&2; rc=1; }
	guest_py stop || rc=1
	return $rc
}

# A file that defines its own setup_file or teardown_file calls
# htm_setup_file or htm_teardown_file from it.
htm_setup_file() {
	if [ -n "${HTMTRACE_GUEST:-}" ]; then
		guest "echo 'htmtrace-test: file $HTM_FILE' > /dev/kmsg"
		return
	fi
	guest_boot
}

setup_file() {
	htm_setup_file
}

htm_teardown_file() {
	local log rc=0
	if [ -n "${HTMTRACE_GUEST:-}" ]; then
		# One round trip: unload, then this file's kernel log for the
		# check. A failed unload (or a guest that no longer answers) fails
		# the file: leftover modules would fail a later suite instead.
		log=$(guest "$HTM_CLEANUP || { echo 'teardown: could not unload our modules' >&2; exit 1; }
			htmtest log-since htmtrace-test: file $HTM_FILE") || rc=$?
		[ "$rc" -eq 0 ] || echo "teardown: the guest's unload and kernel log failed (status $rc)" >&2
		"$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check - <<<"$log" || rc=1
		return $rc
	fi
	guest_shutdown
}

teardown_file() {
	htm_teardown_file
}

setup() {
	guest_mark
}

# The channel's host end, build/guestrun (tests/guestrun.c), is called
# directly: each of a run's thousands of calls through guest.py cost the
# host 60 ms of Python. guest.py builds it when it is missing or stale.
# (nap: a read, with a timeout, of the FIFO /run/nap that tests/guest/init
# made and nobody writes)
guest() {
	local text=$* run=$HTM_TOP/build/guestrun
	[[ $text != *"nap "* ]] || text="nap() { read -t \"\$1\" _ <> /run/nap || :; }"$'\n'$text
	if [ ! "$run" -nt "$HTM_TOP/tests/guestrun.c" ] || [ ! "$run" -nt "$HTM_TOP/tests/guest/chan.h" ]; then
		guest_py client || return 125
	fi
	"$run" "$HTM_TOP/build/$HTM_VARIANT/guests/$HTM_GUEST" "${GUEST_TIMEOUT:-120}" "$text"
}

# Write the test's number and name to the kernel log: guest_dmesg starts
# there, and the console log shows which test a splat belongs to. CMD, if
# given, runs right after in the same round trip (a test's setup), and its
# status is guest_mark's.
# The mark is htmtest's (the name of plain words), and a CMD that is an
# htmtest command runs in that process ("htmtest mark ... ++ CMD"): one exec
# in the guest, no sh (tests/guest/cmdserver.c, exec_plain()).
guest_mark() {
	local name=${BATS_TEST_DESCRIPTION//[^A-Za-z0-9 _.,:=\/-]/_}
	local mark="htmtest mark htmtrace-test: test $BATS_TEST_NUMBER: $name"
	case ${1:-} in
	'') guest "$mark" ;;
	"htmtest "*) guest "$mark ++ ${1#htmtest }" ;;
	*) guest "$mark && $1" ;;
	esac
}

# (one exec in the guest, no sh: htmtest reads the log itself)
guest_dmesg() {
	guest "htmtest log-since htmtrace-test: test $BATS_TEST_NUMBER:"
}

# The log is taken first, its status checked (a wedged or vanished guest
# gives no log, and an empty log has no splat), then checked.
assert_no_splat() {
	local log rc=0
	log=$(guest_dmesg) || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "assert_no_splat: the guest's kernel log did not come (status $rc)" >&2
		return 1
	fi
	"$HTM_PYTHON" "$HTM_TOP/tests/guest.py" check - <<<"$log"
}

# guest_number CMD...: the number guest CMD printed (digits, one line), or
# fail, saying what came instead: a sed -n that matched nothing prints
# nothing with status 0, and arithmetic takes the empty answer for 0.
guest_number() {
	local out
	out=$(guest "$@") || return
	[[ $out =~ ^[0-9]+$ ]] || { echo "guest_number: not a number from $*: '$out'" >&2; return 1; }
	echo "$out"
}

guest_load() {
	guest insmod "$HTM_MODDIR/$1.ko" "${@:2}"
}

# sim_load SIM_PARAMS [HTM_PARAMS]: the guest command that loads the
# simulator with SIM_PARAMS, then htmtrace backend=sim with HTM_PARAMS, in
# one process (htmtest load: each process costs the debug guest about
# 0.05 s), plain words; a test's setup passes it to guest_mark.
sim_load() {
	echo "htmtest load $HTM_MODDIR/htmtrace_hvsim.ko $1 $HTM_MODDIR/htmtrace.ko backend=sim${2:+ $2}"
}

guest_unload() {
	guest rmmod "$1"
}

guest_loaded() {
	guest "[ -d /sys/module/$1 ]"
}

# Background processes a test left behind (orphans: their parent is PID 1,
# the command server) could hold a device open: htmtest cleanup clears the
# simulator's faults, kills them and deconfigures every channel; then it
# unloads our modules (rmmod's, in one process: each process costs the
# debug guest about 0.05 s). HTM_CLEANUP is plain words (no sh: a command
# of its own); HTM_UNLOAD_ALL is for a shell text.
HTM_CLEANUP='htmtest cleanup htmtrace_kunit htmtrace htmtrace_hvsim htmtrace_pmu_stub'
HTM_UNLOAD_ALL="$HTM_CLEANUP || exit 1"

# alt NAME: the choice this run makes for the simulator's alternative NAME
# (HTMTRACE_HVSIM_ALT="NAME=CHOICE ...", see module/hvsim/README.md,
# "Alternatives"; the default is the first choice listed there).
alt() {
	local a
	for a in ${HTMTRACE_HVSIM_ALT:-}; do
		[ "${a%%=*}" != "$1" ] || { echo "${a#*=}"; return; }
	done
	case $1 in
	stop_full) echo success ;;
	dump_end) echo buffer ;;
	status_size) echo all ;;
	iter_end) echo minus1 ;;
	partial) echo none ;;
	stop_running) echo success ;;
	xfer_long) echo p5 ;;
	nest_unit) echo core ;;
	dump_span) echo inside ;;
	*) echo "alt: unknown alternative $1" >&2; return 1 ;;
	esac
}

# dump_size RECORDS [SIZE] [GRAIN] [DUMP_END]: the bytes a dump of a trace
# of RECORDS in a buffer of SIZE (the suite's $SIZE) gives, read in chunks
# of GRAIN (the suite's $CHUNK; a page where the driver knows no size: an
# llat target, a STATUS that failed): the whole buffer, or, where the
# simulator ends the data at the records written (DUMP_END, default this
# run's dump_end, is written) and the trace never wrapped, the chunks up
# to that end (the chunk holding the end is served whole, zeros after the
# records: H_HTM tells no byte count).
dump_size() {
	local size=${2:-$SIZE} grain=${3:-$CHUNK} end=${4:-$(alt dump_end)}
	if [ "$end" = written ] && [ $(($1 * 128)) -lt "$size" ]; then
		echo $((($1 * 128 + grain - 1) / grain * grain))
	else
		echo "$size"
	fi
}

# hv_protocol_unload: unload our modules, and fail if, while the simulator
# was loaded, a DUMP_DATA went to a running trace or asked for other than
# whole pages at a page-aligned address (its counters since load; what no
# public caller of H_HTM does). One round trip: the counters, then the unload.
# Counters that cannot be read (the simulator unloaded, its debugfs gone)
# fail it too, unless the test checked them with hv_protocol_check before
# it unloaded the simulator itself (or was skipped): the check must not
# turn itself off.
hv_protocol_unload() {
	local out misuse
	out=$(guest "${HTM_CLEANUP/cleanup/cleanup --misuse}") ||
		{ echo "teardown: could not unload our modules" >&2; return 1; }
	if [[ $'\n'$out != *$'\nmisuse '* ]]; then
		# (a skipped test may never have loaded it)
		[ -z "${HV_PROTOCOL_CHECKED:-}${BATS_TEST_SKIPPED:-}" ] || return 0
		echo "teardown: the simulator's DUMP_DATA counters could not be read (unloaded, or its debugfs gone): hv_protocol_check before unloading it" >&2
		return 1
	fi
	misuse=${out#*misuse }
	misuse=${misuse%%$'\n'*}
	[ "$misuse" = "0 0" ] || { echo "DUMP_DATA while tracing, unaligned: $misuse" >&2; return 1; }
}

# hv_protocol_check: hv_protocol_unload's check of the simulator's counters
# now, for a test that is about to unload (or reload) the simulator itself;
# the teardown then accepts counters it cannot read.
hv_protocol_check() {
	local out d=/sys/kernel/debug/htmtrace_hvsim
	out=$(guest "cat $d/dump_tracing $d/dump_unaligned") ||
		{ echo "hv_protocol_check: the simulator's DUMP_DATA counters could not be read" >&2; return 1; }
	[ "${out//$'\n'/ }" = "0 0" ] ||
		{ echo "DUMP_DATA while tracing, unaligned: ${out//$'\n'/ }" >&2; return 1; }
	HV_PROTOCOL_CHECKED=1
}

guest_unload_all() {
	guest "$HTM_CLEANUP"
}

requires() {
	case $1 in
	module) [ -e "$HTM_BUILD/$2.ko" ] || skip "$2.ko is not built" ;;
	tool) [ -e "$HTM_BUILD/htmtrace" ] || skip "the htmtrace tool is not built" ;;
	guest-path) guest "[ -e '$2' ]" || skip "the guest has no $2" ;;
	host-cmd) command -v "$2" >/dev/null || skip "the host has no $2" ;;
	*) echo "requires: unknown requirement '$1'" >&2; return 1 ;;
	esac
}
