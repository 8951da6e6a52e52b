#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, build the debug variant (KASAN, lockdep,
# kmemleak), then run every test and end with one line "N passed, N failed"
# (", N skipped" when some were skipped). Exit status 0 only if nothing failed.
#
#   host-only bats suites     tests/bats/host-*.bats
#   guest bats suites         every other tests/bats/*.bats (but debug_skip),
#                             in QEMU pseries
#                             (the debug kernel owns a dispatch trace log
#                             per CPU: the stock kernels, none)
#   KUnit                     tests/kunit.sh (its cases count one by one)
#   stock 6.1 headers         tests/stock.sh 6.1: the modules build W=1 and
#                             modpost clean against Debian's 6.1 headers
#   stock 6.12 kernels        Debian's 6.12 ppc64el kernels, 64 KiB pages
#                             then 4 KiB pages (stock_boot below): the
#                             modules and the tool built against the
#                             headers (tests/stock.sh SPEC --boot), the
#                             kernel booted in QEMU pseries, the suites of
#                             stock_suites there (htm.bats under a profile
#                             of the simulator's alternatives, htm_alt, on
#                             each, strict on the first; perf.bats, with
#                             mainline perf packed in, on the second), and a
#                             post-mortem; on the first, a real DKMS run
#                             (tests/dkms.sh) whose module is loaded in that
#                             guest too
#   uapi header               <linux/htmtrace.h> compiles alone in strict C99
#
# Logs: build/<variant>/logs/ (check-*.tap, build.log, <suite>.console.log ...).
# HTMTRACE_CHECK_VARIANT=release runs the same on the release kernel. The
# release kernel is otherwise not built here (make demo and make bench use
# it): the stock kernels are the guests without a kernel-owned log.
#
# What could not run (a failed install, build or boot) is counted: the
# summary then reads "N passed, N failed, N not run" (KUnit by its cases).
# A skip is a failure unless tests/skips.allow expects it on that kernel
# (a KUnit case's too: tests/kunit.sh counts it so). Ctrl-C, SIGTERM or SIGHUP end the run
# at once: the running step and the guest are stopped, and nothing is left
# behind (the guest's keeper also ends QEMU if this script is SIGKILLed).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
variant=${HTMTRACE_CHECK_VARIANT:-debug}
logs=$top/build/$variant/logs
export HTMTRACE_VARIANT=$variant
# No single bats test may take longer than this (the guest has its own bounds).
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}
passed=0 failed=0 skipped=0 notrun=0 unavail=0
# Debian's stock kernels booted in QEMU (tests/stock.sh SPECs), and the
# guest suites run there. The stock kernels have no KUnit, KASAN or
# kmemleak: those stay with the debug test kernel.
stock_boot=(6.12-64k 6.12)
# Debian 13's kernels (trixie-backports), booted the same way: the newest
# 7.x whose packages are served (tests/stock.sh 7), built with Debian 13's
# gcc-14 (tests/toolchain.sh); the kernel's own vpa_dtl PMU is built in
# (ours then stays unregistered), and kernel-vpa.bats runs /dev/vpa_dtl
# beside it. The modules are also built W=1 against Debian's linux-source
# of the newest kernel listed (tests/source.sh), served or not as packages.
new_boot=(7)
# The suites each runs. The 64 KiB one runs htm.bats with every field only
# the simulator defines random (the driver must not read one; the debug
# guest runs it with the simulator's own choices) and dtl.bats in the mode
# where the kernel owns no log. The test kernels have 64 KiB pages: the
# PMU suite runs again on the 4 KiB one (AUX areas of many more pages),
# and the tool's suite, htmtrace record under that guest's alternatives.
# The harness's own suite knows no kernel: it runs there too, off the
# debug guest, whose suites are the longest path of a run; so does
# perf.bats, on the 4 KiB one (mainline perf as a client of our PMUs: what
# it checks is the format perf reads; the PMU's code runs under KASAN in
# the debug guest's pmu.bats), perf packed into its initramfs; and the
# tool's suites (tool.bats, which three stock guests run, and dtltop.bats,
# on the 64 KiB one): the driver paths they take run under KASAN in the
# debug guest's htm.bats and dtl.bats.
declare -A stock_suites=([6.12-64k]="harness.bats htm.bats dtl.bats dtltop.bats tool.bats"
	[6.12]="pmu.bats perf.bats htm.bats tool.bats"
	[7]="kernel-vpa.bats htm.bats dtl.bats tool.bats examples.bats")
# examples.bats (the two examples of examples/, built as a user builds
# them) runs on the 7.x guest only, whose lane is done long before the
# others (then takes host suites): its seconds there lengthen no path;
# the driver paths it takes run under KASAN in the debug guest's htm.bats
# and dtl.bats.
# (Not pmu.bats on 7.x: its event_init test opens a per-task vpa_dtl event,
# and mainline's vpa_dtl_event_init() oopses on one there, taking the guest
# down; its htm tests run on the 6.12 guests. README.md, "Kernels".)
stock_strict=6.12-64k
# htm.bats, pmu.bats and tool.bats under the simulator's alternatives, its
# answers where no public source says how PowerVM answers
# (module/hvsim/README.md). Every value of each runs in every lane, the
# debug guest's included: htm.bats's test about an alternative sets it to
# each value in turn, and one test runs the alternatives that meet in one
# dump against each answer of dump_end. stop_full is in no profile: under
# stop_full=state no no-wrap trace that fills is ever dumped (htm-perf.c's
# rule), which most tests make. The debug guest otherwise runs the
# defaults (each alternative's first answer), each stock guest a profile
# of the others, so that the tests that take the alternatives as they are
# run under other answers too.
declare -A htm_alt=(
	[6.12-64k]="dump_end=written status_size=nest_core iter_end=zero partial=more nest_unit=chip"
	[6.12]="dump_end=written status_size=wrong iter_end=not_available partial=truncated dump_span=not_available")
debug_skip=" harness.bats kernel-vpa.bats perf.bats tool.bats dtltop.bats examples.bats "
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

# Each step's header says when it began (seconds since the start): the time
# breakdown of a run is in its log.
t0=$SECONDS
say() { printf '\n=== [%4ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { echo "check: FAILED: $*"; failed=$((failed + 1)); }

summary() {
	local line="$passed passed, $failed failed" ran='' off=''
	say "done"
	[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
	[ "$notrun" -eq 0 ] || line+=", $notrun not run"
	[ "$unavail" -eq 0 ] || line+=", $unavail unavailable"
	if [ -f "$logs/lanes" ]; then
		ran=$(awk '$2 == "ran" { printf "%s%s", n++ ? ", " : "", $1 }' "$logs/lanes")
		off=$(awk '$2 != "ran" { printf "%s%s", n++ ? "; " : "", $0 }' "$logs/lanes")
		echo
		cat "$logs/lanes"
	fi
	echo
	echo "$line${ran:+; kernels run: $ran}${off:+; not run: $off}"
	[ "$failed" -eq 0 ] && [ "$notrun" -eq 0 ] && exit 0
	exit 1
}

# Steps run in the background and are waited for, so that a signal is acted
# on at once rather than when the step ends.
step() {
	"$@" &
	wait $!
}

kill_tree() {
	local child
	for child in $(pgrep -P "$1"); do
		kill_tree "$child"
	done
	kill -TERM "$1" 2>/dev/null
}

interrupted() {
	trap '' INT TERM HUP
	echo
	echo "check: interrupted ($1): stopping the running step and the guest"
	for pid in $(pgrep -P $$); do
		kill_tree "$pid"
	done
	"$py" "$top/tests/guest.py" kill -V "$variant" -n check
	for spec in "${stock_boot[@]}" "${new_boot[@]}"; do
		"$py" "$top/tests/guest.py" kill -V "stock-$spec" -n check-stock
	done
	wait
	echo
	echo "$passed passed, $failed failed, interrupted"
	exit $((128 + $2))
}
trap 'interrupted SIGINT 2' INT
trap 'interrupted SIGTERM 15' TERM
trap 'interrupted SIGHUP 1' HUP

# not_run WHAT COUNT: COUNT tests that a failure before them kept from running.
not_run() {
	echo "check: not run: $1 ($2)"
	notrun=$((notrun + $2))
}

# skip_allowed VARIANT TEST: tests/skips.allow expects TEST to skip on
# VARIANT ("host" for the host suites)
# shellcheck source=tests/skips.sh
. "$top/tests/skips.sh"

# Run bats files, TAP to the terminal and to logs/check-NAME.tap, and count.
# A skip tests/skips.allow does not expect for the variant counts as failed.
# Each test's time: in the TAP ("# in N ms", which bats adds with a report
# formatter) and in logs/check-NAME.junit.xml (rank a run's tests with
# `sed -n 's/^ok \(.*\) # in \([0-9]*\) ms$/\2 \1/p' build/debug/logs/check-*.tap |
# sort -rn`).
run_bats() {
	local name=$1 tap=$logs/check-$1.tap rc plan seen ok notok skip test kv
	local junit=$logs/junit-$1
	shift
	say "bats: $*"
	rm -f "$tap.rc" "$logs/check-$name.junit.xml"
	rm -rf "$junit"
	mkdir -p "$junit"
	{ bats --tap --report-formatter junit --output "$junit" "$@" 2>&1; echo $? > "$tap.rc"; } |
		tee "$tap" &
	wait $!
	mv "$junit/report.xml" "$logs/check-$name.junit.xml" 2>/dev/null
	rm -rf "$junit"
	rc=$(cat "$tap.rc" 2>/dev/null || echo 1)
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
	kv=${HTMTRACE_VARIANT:-$variant}
	case $name in host | host-*) kv=host ;; esac
	while IFS= read -r test; do
		skip_allowed "$kv" "$test" && continue
		echo "check: $name: an unexpected skip on $kv (not in tests/skips.allow): $test"
		skip=$((skip - 1)) notok=$((notok + 1))
	done < <(sed -n 's/^ok [0-9]* \(.*\) # skip\( .*\)\{0,1\}$/\1/Ip' "$tap")
	passed=$((passed + ok)) failed=$((failed + notok)) skipped=$((skipped + skip))
}

# Run a command that prints TAP, and count it; false if a test failed.
# Status 3 with no test reported: what it needs cannot be had today (a
# kernel the archive does not serve, tests/stock.sh): nothing is counted,
# and the status is 3.
run_tap() {
	local name=$1 tap=$logs/check-$1.tap ok notok rc
	shift
	rm -f "$tap.rc"
	{ "$@" 2>&1; echo $? > "$tap.rc"; } | tee "$tap" &
	wait $!
	rc=$(cat "$tap.rc" 2>/dev/null || echo 1)
	ok=$(grep -cE '^ok [0-9]+' "$tap")
	notok=$(grep -cE '^not ok [0-9]+' "$tap")
	[ "$rc" -eq 3 ] && [ "$ok" -eq 0 ] && [ "$notok" -eq 0 ] && return 3
	[ "$rc" -eq 0 ] || [ "$notok" -gt 0 ] || notok=1
	passed=$((passed + ok)) failed=$((failed + notok))
	[ "$notok" -eq 0 ]
}

# lane SPEC ran|unavailable [REASON]: what became of a kernel's lane, for
# the summary (a file: the lanes run in subshells)
lane() {
	echo "$1 $2${3:+: $3}" >> "$logs/lanes"
}

# unavailable WHAT COUNT REASON: COUNT tests of a lane that could not run
# because what it needs cannot be had today; counted apart: they do not
# fail the check, and the summary names the lane and the reason
unavailable() {
	echo "check: not run, unavailable: $1 ($2): $3"
	unavail=$((unavail + $2))
}

# The KUnit cases htmtrace_kunit.ko must report (a parameterised case
# counts once here: its parameters are known only when it runs).
kunit_cases() {
	"$top/tests/kunit.sh" --cases | awk '{ n += $2 } END { print n + 0 }'
}

# count_tests FILE...: their @test lines (no bats needed)
count_tests() {
	cat "$@" | grep -c '^@test ' || true
}

# stock_guest SPEC [dkms]: build against Debian's SPEC kernel and boot it;
# with "dkms", a real DKMS run against it too, and its module loaded there.
stock_guest() {
	local spec=$1 dkms=${2:-} out=$top/build/stock-$1 f suites=() dkms_ok=
	# What the guest harness needs to know of a stock guest (tests/guest.py,
	# tests/bats/helpers.bash).
	local genv=(HTMTRACE_VARIANT="stock-$spec" HTMTRACE_BUILD_DIR="$out/guest"
		HTMTRACE_KERNEL="$out/vmlinux" HTMTRACE_GUEST=check-stock)
	# The tests a failure can keep from running: the suites, the
	# post-mortem, and dkms.sh's 6 and 1 in the guest.
	local nsuites ndkms=0
	for f in ${stock_suites[$spec]}; do
		suites+=("$top/tests/bats/$f")
	done
	nsuites=$(bats --count "${suites[@]}")
	[ -z "$dkms" ] || ndkms=7
	say "stock kernel: tests/stock.sh $spec --boot (Debian's $spec kernel: build, then boot)"
	run_tap "stock-$spec" "$top/tests/stock.sh" "$spec" --boot
	case $? in
	0) ;;
	3)
		local why
		why=$(sed -n 's/^# unavailable: //p' "$logs/check-stock-$spec.tap" | head -n 1)
		unavailable "the $spec stock guest: its build, ${stock_suites[$spec]}, post-mortem${dkms:+, dkms}" \
			$((5 + nsuites + 1 + ndkms)) "$why"
		lane "$spec" unavailable "$why"
		return
		;;
	*)
		not_run "the $spec stock guest: ${stock_suites[$spec]}, post-mortem${dkms:+, dkms}" \
			$((nsuites + 1 + ndkms))
		lane "$spec" failed "its build (above)"
		return
		;;
	esac
	if [ -n "$dkms" ]; then
		say "dkms: tests/dkms.sh $spec (Debian's dkms: add, build, install against the $spec headers)"
		run_tap "dkms-$spec" "$top/tests/dkms.sh" "$spec" && dkms_ok=1
		ndkms=1
	fi
	say "boot the $spec stock guest"
	# perf.bats's perf, in the initramfs (Debian's 9p is a module)
	local pack=()
	[ -z "$perf_root" ] || [[ " ${stock_suites[$spec]} " != *" perf.bats "* ]] ||
		pack=(--pack "$perf_root/guest")
	if ! step env "${genv[@]}" "$py" "$top/tests/guest.py" start -V "stock-$spec" \
		-n check-stock --owner $$ "${pack[@]}"; then
		fail "the $spec stock guest did not boot (see $out/logs/check-stock.console.log)"
		lane "$spec" failed "no boot"
		not_run "${stock_suites[$spec]}${dkms:+, the dkms module} on the $spec stock kernel" \
			$((nsuites + ndkms))
		return
	fi
	# (genv's assignments, as a function's environment)
	for f in "${suites[@]}"; do
		local name strict= alt=
		name=stock-$spec-$(basename "$f" .bats)
		if [ "$spec" = "$stock_strict" ] && [ "${f##*/}" = htm.bats ]; then
			strict=1 name+=-strict
		fi
		case ${f##*/} in
		htm.bats|pmu.bats|tool.bats)
			alt=${htm_alt[$spec]:-} name+=-alt
			echo "simulator alternatives: $alt"
			;;
		esac
		HTMTRACE_VARIANT="stock-$spec" HTMTRACE_BUILD_DIR="$out/guest" \
			HTMTRACE_KERNEL="$out/vmlinux" HTMTRACE_GUEST=check-stock \
			HTMTRACE_HVSIM_STRICT=$strict HTMTRACE_HVSIM_ALT=$alt \
			run_bats "$name" "$f"
	done
	if [ -n "$dkms_ok" ]; then
		say "the module dkms installed, in the $spec stock guest"
		HTMTRACE_VARIANT="stock-$spec" HTMTRACE_GUEST=check-stock \
			run_tap "dkms-guest-$spec" "$top/tests/dkms.sh" "$spec" --guest
	elif [ -n "$dkms" ]; then
		not_run "the dkms module in the $spec stock guest" 1
	fi
	lane "$spec" ran
	say "$spec stock guest post-mortem (an unsigned out-of-tree module's taint is expected)"
	if step env "${genv[@]}" "$py" "$top/tests/guest.py" stop -V "stock-$spec" -n check-stock; then
		echo "ok"
		passed=$((passed + 1))
	else
		fail "$spec stock guest post-mortem (see $out/logs/check-stock.console.log)"
	fi
}

# The host suites, the largest file first (for host_share); the guest suites.
mapfile -t host_suites < <(ls -S "$top"/tests/bats/host-*.bats 2>/dev/null)
guest_suites=()
for f in "$top"/tests/bats/*.bats; do
	case ${f##*/} in
	host-*) ;;
	*) [ ! -e "$f" ] || [[ $debug_skip == *" ${f##*/} "* ]] || guest_suites+=("$f") ;;
	esac
done

say "dependencies"
# Checked once: the scripts below take the sysroot without checking again.
unset HTMTRACE_DEPS_SYSROOT
if ! HTMTRACE_DEPS_SYSROOT=$(step "$top/tests/deps.sh" --sysroot); then
	fail "tests/deps.sh: nothing can be built or run"
	n=$(($(count_tests "${host_suites[@]}" "${guest_suites[@]}") + $(kunit_cases) + 1))
	for spec in "${stock_boot[@]}" "${new_boot[@]}"; do
		for f in ${stock_suites[$spec]}; do
			n=$((n + $(count_tests "$top/tests/bats/$f")))
		done
		n=$((n + 1))
	done
	not_run "every suite, KUnit, the post-mortems, the dkms run, lint, the uapi check, the newest source's build (and what tests/stock.sh checks)" \
		$((n + 7 + 4 + 1 + 2))
	summary
fi
export HTMTRACE_DEPS_SYSROOT
# Every C compile of the run through ccache (tests/deps.sh installs it):
# the tool, the guests' programs and the examples are built a dozen times
# over (each stock kernel's guest, the host suites' builds, the sanitizer
# build), from scratch in each fresh clone: about 200 s of the host's CPU
# in a warm run before (sa(8), ci4). Compilers named by plain name
# (cc, gcc, the cross gcc) find ccache first on PATH. The clone's path is
# made relative (CCACHE_BASEDIR), and the compile's directory is left out
# of the hash (CCACHE_NOHASHDIR: it only names the directory in the debug
# information), so that a new clone's compiles match the last one's. A
# compile ccache replays gives its warnings again; a failed one is never
# cached. The kernel builds keep their own (tests/kmake.sh) or none
# (tests/kernel.sh).
if command -v ccache >/dev/null; then
	ccbin=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}/ccache-bin
	mkdir -p "$ccbin"
	for f in cc gcc powerpc64le-linux-gnu-gcc; do
		ln -sfn "$(command -v ccache)" "$ccbin/$f"
	done
	export PATH=$ccbin:$PATH CCACHE_DIR=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}/ccache
	export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
fi
# Mainline perf (sid's linux-perf), for perf.bats, is packed into the
# guests that run it: without it, perf.bats alone does not run.
if ! perf_root=$(step "$top/tests/deps.sh" --perf); then
	fail "tests/deps.sh --perf (sid's perf, for perf.bats)"
	perf_root=
	for spec in "${!stock_suites[@]}"; do
		stock_suites[$spec]=$(sed 's/ *perf\.bats//' <<<"${stock_suites[$spec]}")
	done
	for i in "${!guest_suites[@]}"; do
		[ "${guest_suites[$i]##*/}" != perf.bats ] || unset "guest_suites[$i]"
	done
	guest_suites=("${guest_suites[@]}")
	not_run "perf.bats: no mainline perf" "$(count_tests "$top/tests/bats/perf.bats")"
fi

mkdir -p "$logs"
rm -f "$logs/lanes"
# The stock kernels' work: a queue that the two background lanes take
# from (stock_lane), the longest first: each stock kernel's build, guest
# and suites (the first 6.12 one gets the DKMS run), then the two build-only
# steps. So whichever lane is free takes the next guest: with the guests
# tied to lanes, the lane with two (6.12-64k, then 6.12) ended the run
# alone (ci4: at 945 s; the 7.x lane was done with its guest at 474 s).
stock_items=()
for spec in "${new_boot[@]}" "${stock_boot[@]}"; do
	stock_items+=("guest $spec$([ "$spec" = "${stock_boot[0]}" ] && echo ' dkms')")
done
stock_items+=("build 6.1" source)
stock_lane() {
	local item
	for item in "${stock_items[@]}"; do
		mkdir "$logs/claim-${item// /-}" 2>/dev/null || continue
		case $item in
		"guest "*)
			# shellcheck disable=SC2086 # SPEC [dkms]
			stock_guest ${item#guest }
			;;
		"build 6.1") stock_61 ;;
		source) newest_source ;;
		esac
	done
	host_share
}

# Debian 12's 6.1 headers: the modules build W=1, modpost clean.
stock_61() {
	say "stock kernel: tests/stock.sh 6.1 (Debian's 6.1 headers, build only)"
	run_tap stock-6.1 "$top/tests/stock.sh" 6.1
	case $? in
	0) lane 6.1-build ran ;;
	3)
		local why
		why=$(sed -n 's/^# unavailable: //p' "$logs/check-stock-6.1.tap" | head -n 1)
		unavailable "the 6.1 build" 3 "$why"
		lane 6.1-build unavailable "$why"
		;;
	*) lane 6.1-build failed "its build (above)" ;;
	esac
}

# The build against Debian's newest linux-source (tests/source.sh; cold,
# it fetches and prepares the tree).
newest_source() {
	local why
	say "newest source: tests/source.sh (Debian's newest linux-source, its ppc64el config: W=1 builds)"
	run_tap source "$top/tests/source.sh"
	case $? in
	0) lane "linux-source-$(cat "$top/build/source/version" 2>/dev/null)" ran ;;
	3)
		why=$(sed -n 's/^# unavailable: //p' "$logs/check-source.tap" | head -n 1)
		unavailable "the build against the newest linux-source" 2 "$why"
		lane newest-source unavailable "$why"
		;;
	*) lane newest-source failed "its build (above)" ;;
	esac
}

# host_share: the host suites that the other lane has not taken, one file
# at a time (mkdir claims a file: atomic), the longest first. Both lanes
# call it when their own work is done, so that neither core idles at the
# end of a run (the two lanes' own work differs by a minute or more from
# one machine to the next). The host suites run without bats' per-test
# timeout: bats 1.8.2 starts a watchdog "sleep" per test, and a test faster
# than the watchdog's own setup leaves that sleep orphaned, holding bats'
# output pipe for the whole timeout (seen: 900 s after a 10 ms test of
# host-dkms.bats).
host_share() {
	local f
	for f in "${host_suites[@]}"; do
		mkdir "$logs/taken-$(basename "$f" .bats)" 2>/dev/null || continue
		BATS_TEST_TIMEOUT='' run_bats "$(basename "$f" .bats)" "$f"
	done
}

# Three lanes: this shell's (the debug build, the debug guest's boot and
# suites, then the lint, which needs the debug build, beside the guest's
# post-mortem), and two that take the stock kernels' work in turn
# (stock_lane), which start first, their builds beside the debug build
# and boot. Then each lane takes host suites the others have not taken
# (host_share) until none is left. Three guests run at once for most of a
# run. Neither a limit of two at once (the third lane waiting, running
# host suites meanwhile) nor a lower priority for everything beside the
# debug guest shortened the runs that tried them (ci5, ci6: tests/README.md):
# the debug guest is slowed as much by anything else the host runs
# (modules.bats alone 35 s; beside one busy loop 62 s, beside two at nice
# 19 58 s), its two vCPUs waiting on each other. The host suites once ran in this lane,
# before the debug suites, which then waited for them (248 s).
# A background lane is a subshell whose output goes to logs/NAME.log and
# whose counts to logs/NAME.counts; lane_wait waits for it, prints its log
# and adds its counts. An interrupt stops it with the rest (interrupted:
# every child of this shell).
declare -A lane_pid
lane_start() {
	local name=$1 what=$2
	shift 2
	rm -f "$logs/$name.counts"
	say "$what: in the background (log: $logs/$name.log)"
	(
		passed=0 failed=0 skipped=0 notrun=0 unavail=0
		"$@"
		echo "$passed $failed $skipped $notrun $unavail" > "$logs/$name.counts"
	) > "$logs/$name.log" 2>&1 &
	lane_pid[$name]=$!
}

lane_wait() {
	local name=$1 what=$2 p f s n u
	say "$what: wait for them"
	wait "${lane_pid[$name]}"
	cat "$logs/$name.log"
	if read -r p f s n u < "$logs/$name.counts"; then
		passed=$((passed + p)) failed=$((failed + f))
		skipped=$((skipped + s)) notrun=$((notrun + n))
		unavail=$((unavail + u))
	else
		fail "the $name lane left no counts (see $logs/$name.log)"
	fi
}

# The stock lanes need nothing of the debug build: they start first.
rm -rf "$logs"/taken-* "$logs"/claim-*
lane_start stock "stock kernels (a lane of two), host suites" stock_lane
lane_start new "stock kernels (the other lane), host suites" stock_lane
say "build ($variant): tests/build.sh $variant"
built=1
step bash -c 'set -o pipefail; "$1" "$2" 2>&1 | tee "$3"' _ \
	"$top/tests/build.sh" "$variant" "$logs/build.log"
if [ $? -ne 0 ]; then
	fail "tests/build.sh $variant (log: $logs/build.log)"
	built=0
fi
for f in htmtrace.ko htmtrace_hvsim.ko htmtrace_kunit.ko htmtrace; do
	[ "$built" -eq 0 ] || [ -e "$top/build/$variant/$f" ] ||
		{ fail "build/$variant/$f was not built"; built=0; }
done

guest=("$py" "$top/tests/guest.py")
postmortem_pid=
if [ "$built" -eq 1 ]; then
	# One guest serves every guest suite and KUnit: a boot and a kmemleak
	# scan are the slow parts on the debug kernel under TCG.
	say "boot the $variant guest"
	if step "${guest[@]}" start -V "$variant" -n check --owner $$; then
		export HTMTRACE_GUEST=check
		lane "$variant-6.12" ran
		# One bats run per file: the step headers then time each suite.
		for f in "${guest_suites[@]}"; do
			run_bats "guest-$(basename "$f" .bats)" "$f"
		done
		say "KUnit: tests/kunit.sh $variant"
		step "$top/tests/kunit.sh" "$variant"
		if read -r _ p _ f _ s _ n < "$logs/kunit.counts"; then
			passed=$((passed + p)) failed=$((failed + f))
			skipped=$((skipped + s)) notrun=$((notrun + n))
		else
			fail "tests/kunit.sh left no counts"
		fi

		# The post-mortem runs beside the lint: most of it is the wait
		# between kmemleak's two scans, with the guest idle.
		say "guest post-mortem: kernel log and kmemleak (beside the lint: result below)"
		"${guest[@]}" stop -V "$variant" -n check > "$logs/postmortem.out" 2>&1 &
		postmortem_pid=$!
	else
		fail "the $variant guest did not boot (see $logs/check.console.log)"
		lane "$variant-6.12" failed "no boot"
		not_run "guest bats suites" "$(bats --count "${guest_suites[@]}")"
		not_run "KUnit cases" "$(kunit_cases)"
		not_run "guest post-mortem" 1
	fi
	unset HTMTRACE_GUEST
else
	echo "check: the build failed"
	not_run "guest bats suites" "$(bats --count "${guest_suites[@]}")"
	not_run "KUnit cases" "$(kunit_cases)"
	not_run "post-mortem" 1
fi
if [ "$built" -eq 1 ]; then
	say "lint: tests/lint.sh $variant"
	run_tap lint "$top/tests/lint.sh" "$variant"
else
	not_run "lint: nothing was built to lint" 4
fi
if [ -n "$postmortem_pid" ]; then
	say "guest post-mortem: kernel log and kmemleak (the result)"
	wait "$postmortem_pid"
	rc=$?
	cat "$logs/postmortem.out"
	if [ "$rc" -eq 0 ]; then
		echo "ok"
		passed=$((passed + 1))
	else
		fail "guest post-mortem (see $logs/check.console.log)"
	fi
fi
# then the host suites the stock lane has not taken yet
host_share

lane_wait stock "stock kernels (a lane of two), host suites"
lane_wait new "stock kernels (the other lane), host suites"

say "uapi: <linux/htmtrace.h> in strict C99"
if printf '#include <linux/htmtrace.h>\n' |
	gcc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$top/uapi" -x c -; then
	echo "ok"
	passed=$((passed + 1))
else
	fail "uapi/linux/htmtrace.h does not compile on its own"
fi

summary
