#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# The guest post-mortem check (tests/guest.py check), on made-up kernel logs:
# splats fail a run, our kmemleak objects fail it, other objects do not.

bats_require_minimum_version 1.5.0

setup() {
	# Debian's interpreter: the first python3 on PATH may be a shim
	# (pyenv: 0.4 s a call)
	local py=python3
	[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
	check=("$py" "$BATS_TEST_DIRNAME/../guest.py" check)
	clean=$BATS_TEST_TMPDIR/clean.log
	cat > "$clean" <<-'EOF'
	Run /init as init process
	htmtrace-guest: ready after 1.35 s
	htmtrace: H_HTM returned H_FUNCTION: no /dev/htm devices created
	htmtrace-test: test 3: WARNING: in a test name is no splat
	kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
	EOF
}

@test "post-mortem: a clean log passes" {
	run "${check[@]}" "$clean"
	[ "$status" -eq 0 ]
}

@test "post-mortem: each kind of splat fails the run" {
	for splat in \
		'WARNING: CPU: 0 PID: 60 at module/hv.c:52 htm_hv_call+0x68/0x178 [htmtrace]' \
		'BUG: KASAN: slab-use-after-free in htm_chan_put+0x2c/0x90 [htmtrace]' \
		'BUG: sleeping function called from invalid context at mm/slub.c:4117' \
		'WARNING: possible circular locking dependency detected' \
		'WARNING: inconsistent lock state' \
		'INFO: task cat:81 blocked for more than 120 seconds.' \
		'Oops: Kernel access of bad area, sig: 11 [#1]' \
		'kernel BUG at module/htm_chan.c:120!' \
		'Kernel panic - not syncing: Fatal exception'; do
		{ cat "$clean"; echo "$splat"; } > "$BATS_TEST_TMPDIR/bad.log"
		run "${check[@]}" "$BATS_TEST_TMPDIR/bad.log"
		echo "$splat -> $status"
		[ "$status" -eq 1 ]
		[[ $output == *"bad.log:6: $splat"* ]]
	done
}

@test "post-mortem: a kernel log can come on stdin" {
	run "${check[@]}" - <<<'WARNING: CPU: 1 PID: 7 at kernel/x.c:1 f+0x0/0x4'
	[ "$status" -eq 1 ]
	run "${check[@]}" - < "$clean"
	[ "$status" -eq 0 ]
}

@test "post-mortem: HTMTRACE_POSTMORTEM_IGNORE skips matching lines" {
	{ cat "$clean"; echo 'WARNING: known TCG quirk'; } > "$BATS_TEST_TMPDIR/bad.log"
	HTMTRACE_POSTMORTEM_IGNORE='known TCG quirk' run "${check[@]}" "$BATS_TEST_TMPDIR/bad.log"
	[ "$status" -eq 0 ]
}

@test "post-mortem: kmemleak objects of htmtrace fail, others are ignored" {
	cat > "$BATS_TEST_TMPDIR/kmemleak" <<-'EOF'
	unreferenced object 0xc000000004a1c000 (size 32):
	  comm "swapper/0", pid 1, jiffies 4294937000
	  hex dump (first 32 bytes):
	    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
	  backtrace (crc 1a2b3c4d):
	    kmemleak_alloc+0x48/0x80
	    of_node_alloc+0x30/0x90
	EOF
	run --separate-stderr "${check[@]}" "$clean" "$BATS_TEST_TMPDIR/kmemleak"
	[ "$status" -eq 0 ]
	[[ $stderr == *"0 leak(s) from htmtrace, 1 unrelated"* ]]

	cat >> "$BATS_TEST_TMPDIR/kmemleak" <<-'EOF'
	unreferenced object 0xc000000004a1b000 (size 64):
	  comm "insmod", pid 123, jiffies 4294937296
	  backtrace (crc 1234abcd):
	    kmemleak_alloc+0x48/0x80
	    __kmalloc_noprof+0x1d0/0x4a0
	    htm_chan_alloc+0x44/0x100 [htmtrace]
	    do_one_initcall+0x60/0x2c0
	unreferenced object 0xc000000004a1d000 (size 128):
	  comm "rmmod", pid 140, jiffies 4294938000
	  backtrace (crc 5678abcd):
	    kmemleak_alloc+0x48/0x80
	    0xc008000000123456
	    do_one_initcall+0x60/0x2c0
	EOF
	run --separate-stderr "${check[@]}" "$clean" "$BATS_TEST_TMPDIR/kmemleak"
	[ "$status" -eq 1 ]
	[[ $stderr == *"2 leak(s) from htmtrace, 1 unrelated"* ]]
	[[ $stderr == *"0xc000000004a1b000 (size 64)"* ]]
	[[ $stderr == *"0xc000000004a1d000 (size 128)"* ]]
}

@test "post-mortem: a splat inside an expect-splat window is no finding" {
	{
		cat "$clean"
		echo 'htmtrace-test: expect-splat begin'
		echo 'WARNING: CPU: 0 PID: 61 at module/hvsim/hvsim.c:960 hvsim_warn_set+0x3c/0x70'
		echo 'htmtrace-test: expect-splat end'
	} > "$BATS_TEST_TMPDIR/win.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/win.log"
	[ "$status" -eq 0 ]
	# but the same splat after the window is one
	echo 'WARNING: CPU: 0 PID: 62 at kernel/x.c:1 f+0x0/0x4' >> "$BATS_TEST_TMPDIR/win.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/win.log"
	[ "$status" -eq 1 ]
	[[ $output == *"win.log:9: WARNING: CPU: 0 PID: 62"* ]]
}

@test "post-mortem: an expect-splat window without a splat, or never closed, fails" {
	{ cat "$clean"; echo 'htmtrace-test: expect-splat begin'
	  echo 'htmtrace-test: expect-splat end'; } > "$BATS_TEST_TMPDIR/empty.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/empty.log"
	[ "$status" -eq 1 ]
	[[ $output == *"empty.log:6: a splat was expected here and did not come"* ]]
	{ cat "$clean"; echo 'htmtrace-test: expect-splat begin'
	  echo 'WARNING: CPU: 0 PID: 62 at kernel/x.c:1 f+0x0/0x4'; } > "$BATS_TEST_TMPDIR/open.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/open.log"
	[ "$status" -eq 1 ]
	[[ $output == *"open.log:6: an expect-splat window was never closed"* ]]
}

@test "post-mortem: a stock kernel's taint for our unsigned out-of-tree module is no finding; a splat there is" {
	# As Debian's 6.12 kernel (MODULE_SIG without FORCE) logs an insmod of
	# the test modules and of the module DKMS built (tests/check.sh).
	{
		cat "$clean"
		echo '[    2.510059] htmtrace: loading out-of-tree module taints kernel.'
		echo '[    2.513237] htmtrace: module verification failed: signature and/or required key missing - tainting kernel'
		echo "[   69.266786] htmtrace: unknown parameter 'backend' ignored"
	} > "$BATS_TEST_TMPDIR/stock.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/stock.log"
	[ "$status" -eq 0 ]
	{
		echo '[   70.000001] WARNING: CPU: 1 PID: 95 at module/hv.c:52 htm_hv_call+0x68/0x178 [htmtrace]'
		echo '[   70.000002] CPU: 1 UID: 0 PID: 95 Comm: cat Tainted: G           OE      6.12.118+deb12-powerpc64le-64k #1  Debian 6.12.118-1~deb12u1'
	} >> "$BATS_TEST_TMPDIR/stock.log"
	run "${check[@]}" "$BATS_TEST_TMPDIR/stock.log"
	[ "$status" -eq 1 ]
	[[ $output == *"stock.log:9: [   70.000001] WARNING: CPU: 1 PID: 95"* ]]
}
