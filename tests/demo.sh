#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build the release variant, boot the QEMU pseries guest, load
# htmtrace and the H_HTM simulator, and show the main job: record a trace with
# the tool, then by hand `cat /dev/htm0 > htm.bin` and verify it byte for byte.
#
#   tests/demo.sh
#
# The steps are in demo_steps() below. Every step is shown as "guest# CMD"
# followed by its output; a failing step is reported and the demo goes on. The
# exit status is 0 only if every step and the guest post-mortem were fine.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
variant=release
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
failures=0

guest() { "$py" "$top/tests/guest.py" "$1" -V "$variant" -n demo "${@:2}"; }

# step CMD: run CMD in the guest (sh -c), show it and what it printed.
step() {
	local rc=0
	printf '\nguest# %s\n' "$*"
	guest run -t 300 -- "$*" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		echo "        ^ exit status $rc"
		failures=$((failures + 1))
	fi
}

# ---------------------------------------------------------------------------
# The demo itself. Adjust freely: each `step` is one shell command in the guest.
demo_steps() {
	local m=/lib/modules/htmtrace target='-t core -n 0 -p 1 -c 3'

	echo "--- load the driver; QEMU has no H_HTM, so the simulator stands in"
	step "insmod $m/htmtrace_hvsim.ko log2_size=20"
	step "insmod $m/htmtrace.ko backend=sim"
	step 'ls -l /dev/htm*'
	step 'dmesg | grep htmtrace'
	step 'cat /sys/kernel/debug/htmtrace/backend'
	step 'htmtrace --help'

	echo
	echo "--- the main job: record one core's trace, the files perf would write"
	step "mkdir -p /tmp/rec && htmtrace record $target -o /tmp/rec --duration 1"
	step 'ls -l /tmp/rec'
	step 'htmcheck verify /tmp/rec/htm.bin.*   # the test helper that knows the simulator'

	echo
	echo "--- the same by hand: configure, start, stop, then a plain cat"
	step "htmtrace configure $target -d /dev/htm0"
	step 'htmtrace start -d /dev/htm0 && sleep 1 && htmtrace stop -d /dev/htm0'
	step 'cat /dev/htm0 > /tmp/htm.bin; ls -l /tmp/htm.bin'
	step 'htmcheck verify /tmp/htm.bin'
	step 'htmtrace deconfigure -d /dev/htm0'

	echo
	echo "--- unload"
	step 'rmmod htmtrace && rmmod htmtrace_hvsim'
}
# ---------------------------------------------------------------------------

echo "=== build: tests/build.sh $variant"
"$top/tests/build.sh" "$variant"

echo "=== boot the QEMU pseries guest"
trap 'guest stop >/dev/null 2>&1 || true' EXIT
guest start

demo_steps

echo
echo "=== power off; post-mortem of the kernel log"
trap - EXIT
guest stop || failures=$((failures + 1))
echo "(console log: build/$variant/logs/demo.console.log)"
if [ $failures -ne 0 ]; then
	echo "demo: $failures step(s) failed"
	exit 1
fi
echo "demo: every step worked"
