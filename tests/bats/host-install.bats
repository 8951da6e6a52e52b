#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall, into a temporary root: exactly which files
# land where with which mode, for DESTDIR, PREFIX and KVER; the module only
# when it was built, never a test build; depmod only without DESTDIR (a
# stand-in depmod on PATH records its calls); uninstall removing exactly
# what install put there. The udev rule and the modules-load.d snippet are
# checked to enable nothing as shipped. Runs in a copy of the tree's
# install inputs, with the host tool as the built tool and a stand-in
# htmtrace.ko where a test needs a built module: no kernel is built.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
	make -s -C "$TOP/userspace" O="$TOP/build/host" all >&2
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/uapi/linux" "$SRC/userspace" bin
	cp "$TOP/Makefile" "$TOP/Kbuild" "$TOP/dkms.conf" "$SRC/"
	cp "$TOP/userspace/htmtrace.bash-completion" "$SRC/userspace/"
	cp "$TOP/uapi/linux/htmtrace.h" "$SRC/uapi/linux/"
	cp -r "$TOP/man" "$TOP/udev" "$SRC/"
	cp "$TOP/build/host/htmtrace" "$SRC/htmtrace"
	# A depmod that only says it ran.
	printf '#!/bin/sh\necho "$*" >> "%s/depmod.log"\n' "$BATS_TEST_TMPDIR" >bin/depmod
	chmod +x bin/depmod
	export PATH=$BATS_TEST_TMPDIR/bin:$PATH
	D=$BATS_TEST_TMPDIR/root
	KV=6.1.0-test
}

mk() {
	make --no-print-directory -C "$SRC" KVER="$KV" "$@"
}

# Every file and link under a directory: path and octal mode, sorted.
listing() {
	(cd "$1" && find . ! -type d -printf '%P %m\n' | LC_ALL=C sort)
}

# The files a default-PREFIX install puts under DESTDIR, without the module.
BASE="usr/local/bin/htmtrace 755
usr/local/include/linux/htmtrace.h 644
usr/local/lib/modules-load.d/htmtrace.conf 644
usr/local/lib/udev/rules.d/60-htmtrace.rules 644
usr/local/share/bash-completion/completions/htmtrace 644
usr/local/share/man/man1/htmtrace.1 644
usr/local/share/man/man4/htmtrace.4 644"

@test "install without a built module: tool, header, man pages, rule, snippet; module skipped" {
	run -0 mk install DESTDIR="$D"
	[ "${lines[-1]}" = "install: htmtrace.ko is not built here: module skipped (make KDIR=/lib/modules/$KV/build modules, or DKMS)" ]
	[ "$(listing "$D")" = "$BASE" ]
	cmp "$SRC/htmtrace" "$D/usr/local/bin/htmtrace"
	cmp "$TOP/uapi/linux/htmtrace.h" "$D/usr/local/include/linux/htmtrace.h"
	cmp "$TOP/man/htmtrace.1" "$D/usr/local/share/man/man1/htmtrace.1"
	cmp "$TOP/man/htmtrace.4" "$D/usr/local/share/man/man4/htmtrace.4"
	cmp "$TOP/udev/60-htmtrace.rules" "$D/usr/local/lib/udev/rules.d/60-htmtrace.rules"
	cmp "$TOP/udev/htmtrace.conf" "$D/usr/local/lib/modules-load.d/htmtrace.conf"
	cmp "$TOP/userspace/htmtrace.bash-completion" \
		"$D/usr/local/share/bash-completion/completions/htmtrace"
	[ ! -e depmod.log ]
}

@test "install with a built module: into lib/modules/KVER/updates, no depmod under DESTDIR" {
	echo "not a real module" >"$SRC/htmtrace.ko"
	run -0 mk install DESTDIR="$D"
	[[ "$output" != *skipped* ]]
	[ "$(listing "$D")" = "lib/modules/$KV/updates/htmtrace.ko 644
$BASE" ]
	cmp "$SRC/htmtrace.ko" "$D/lib/modules/$KV/updates/htmtrace.ko"
	[ ! -e depmod.log ]
}

@test "PREFIX moves the tool, header, man pages, rule and snippet, not the module" {
	echo "not a real module" >"$SRC/htmtrace.ko"
	run -0 mk install DESTDIR="$D" PREFIX=/usr
	[ "$(listing "$D")" = "lib/modules/$KV/updates/htmtrace.ko 644
usr/bin/htmtrace 755
usr/include/linux/htmtrace.h 644
usr/lib/modules-load.d/htmtrace.conf 644
usr/lib/udev/rules.d/60-htmtrace.rules 644
usr/share/bash-completion/completions/htmtrace 644
usr/share/man/man1/htmtrace.1 644
usr/share/man/man4/htmtrace.4 644" ]
	run -0 mk uninstall DESTDIR="$D" PREFIX=/usr
	[ "$(listing "$D")" = "" ]
}

@test "the bash completion: named after the command, as bash-completion loads it; BASHCOMPDIR moves it" {
	run -0 mk install DESTDIR="$D" BASHCOMPDIR=/etc/bash_completion.d
	[ -f "$D/etc/bash_completion.d/htmtrace" ]
	[ ! -e "$D/usr/local/share/bash-completion" ]
	# bash-completion sources completions/NAME for command NAME.
	run -0 bash -c "source '$D/etc/bash_completion.d/htmtrace' && complete -p htmtrace"
	[ "$output" = "complete -F _htmtrace htmtrace" ]
	run -0 mk uninstall DESTDIR="$D" BASHCOMPDIR=/etc/bash_completion.d
	[ "$(listing "$D")" = "" ]
}

@test "uninstall removes exactly what install put there" {
	local others="lib/modules/$KV/updates/other.ko 644
usr/local/bin/other 755
usr/local/include/linux/other.h 644
usr/local/lib/udev/rules.d/99-other.rules 644"
	mkdir -p "$D/lib/modules/$KV/updates" "$D/usr/local/bin" \
		"$D/usr/local/include/linux" "$D/usr/local/lib/udev/rules.d"
	touch "$D/lib/modules/$KV/updates/other.ko" "$D/usr/local/include/linux/other.h" \
		"$D/usr/local/lib/udev/rules.d/99-other.rules"
	install -m 0755 /dev/null "$D/usr/local/bin/other"
	chmod 644 "$D/lib/modules/$KV/updates/other.ko" "$D/usr/local/include/linux/other.h" \
		"$D/usr/local/lib/udev/rules.d/99-other.rules"
	echo "not a real module" >"$SRC/htmtrace.ko"
	run -0 mk install DESTDIR="$D"
	[ "$(listing "$D" | wc -l)" -eq 12 ]
	run -0 mk uninstall DESTDIR="$D"
	[ "$(listing "$D")" = "$others" ]
	[ ! -e depmod.log ]
	# Again: nothing left to remove, and no error.
	run -0 mk uninstall DESTDIR="$D"
	[ "$(listing "$D")" = "$others" ]
}

@test "without DESTDIR, depmod -a KVER runs after the module is installed and removed" {
	echo "not a real module" >"$SRC/htmtrace.ko"
	run -0 mk install PREFIX="$D/usr/local" MODULEDIR="$D/lib/modules/$KV/updates"
	[ "$(listing "$D")" = "lib/modules/$KV/updates/htmtrace.ko 644
$BASE" ]
	[ "$(cat depmod.log)" = "-a $KV" ]
	run -0 mk uninstall PREFIX="$D/usr/local" MODULEDIR="$D/lib/modules/$KV/updates"
	[ "$(listing "$D")" = "" ]
	[ "$(cat depmod.log)" = "-a $KV
-a $KV" ]
	# No module, no depmod.
	rm "$SRC/htmtrace.ko" depmod.log
	run -0 mk install PREFIX="$D/usr/local" MODULEDIR="$D/lib/modules/$KV/updates"
	run -0 mk uninstall PREFIX="$D/usr/local" MODULEDIR="$D/lib/modules/$KV/updates"
	[ ! -e depmod.log ]
}

@test "KVER defaults to the running kernel" {
	echo "not a real module" >"$SRC/htmtrace.ko"
	run -0 make --no-print-directory -C "$SRC" install DESTDIR="$D"
	[ -f "$D/lib/modules/$(uname -r)/updates/htmtrace.ko" ]
}

@test "a test build (HTMTRACE_TEST=y) is refused and nothing is installed" {
	local m

	for m in htmtrace_hvsim.ko htmtrace_kunit.ko; do
		rm -f "$SRC"/*.ko
		echo "not a real module" >"$SRC/htmtrace.ko"
		echo "not a real module" >"$SRC/$m"
		run -2 --separate-stderr mk install DESTDIR="$D"
		[ "${stderr_lines[0]}" = "install: $m here: a test build (HTMTRACE_TEST=y) is never installed; rebuild with make KDIR=... clean modules" ]
		[ ! -e "$D" ]
	done
}

@test "the udev rule keeps the devices 0600 root; the group line is commented out" {
	local rule=$TOP/udev/60-htmtrace.rules pat p a m alts

	run -0 grep -vE '^[[:space:]]*(#|$)' "$rule"
	[ "$output" = 'KERNEL=="htm[0-9]*|vpa_dtl", SUBSYSTEM=="misc", OWNER="root", GROUP="root", MODE="0600"' ]
	run -0 grep -E '^#KERNEL==' "$rule"
	[ "$output" = '#KERNEL=="htm[0-9]*|vpa_dtl", SUBSYSTEM=="misc", OWNER="root", GROUP="htmtrace", MODE="0660"' ]
	# The match is the driver's device names: htm%u and vpa_dtl, misc
	# devices created 0600.
	grep -qF '"htm%u"' "$TOP/module/htm_cdev.c"
	grep -qF '.name = "vpa_dtl"' "$TOP/module/dtl_cdev.c"
	[ "$(cat "$TOP"/module/*_cdev.c | grep -c '\.mode = 0600')" -eq 2 ]
	# Both lines match the same names: every channel and the DTL device,
	# as udev reads the pattern (alternatives split at "|", each a glob).
	[ "$(grep -oE '^#?KERNEL=="[^"]*"' "$rule" | sed 's/^#//' | sort -u | wc -l)" -eq 1 ]
	pat=${output#*KERNEL==\"}
	pat=${pat%%\"*}
	IFS='|' read -ra alts <<<"$pat"
	for p in htm0 htm9 htm10 htm63 vpa_dtl nothtm0 vpa_dtl0 htm; do
		m=0
		for a in "${alts[@]}"; do
			# shellcheck disable=SC2053
			[[ $p == $a ]] && m=1
		done
		case $p in
		htm[0-9]*|vpa_dtl) [ "$m" -eq 1 ] ;;
		*) [ "$m" -eq 0 ] ;;
		esac
	done
}

@test "the modules-load.d snippet loads nothing until the admin uncomments it" {
	local conf=$TOP/udev/htmtrace.conf

	# systemd-modules-load ignores empty lines and lines starting # or ;.
	run -1 grep -vE '^[[:space:]]*([#;]|$)' "$conf"
	[ "$output" = "" ]
	run -0 grep -xF '#htmtrace' "$conf"
}

@test "the tool built in the tree (make htmtrace, make -C userspace): git ignores all it leaves, make clean removes it" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir "$t"
	cp -r "$TOP/Makefile" "$TOP/.gitignore" "$TOP/userspace" "$TOP/uapi" "$t/"
	rm -f "$t"/userspace/*.o "$t"/userspace/*.d "$t/userspace/htmtrace"
	git -C "$t" init -q
	git -C "$t" add -A
	git -C "$t" -c user.name=t -c user.email=t@t commit -q -m tree
	# -O0: the test is of what the build leaves, not of the code
	run -0 make -s -C "$t" htmtrace CFLAGS=-O0 NO_KMOD=1
	[ -x "$t/htmtrace" ]
	ls "$t"/*.d >/dev/null
	run -0 make -s -C "$t/userspace" CFLAGS=-O0 NO_KMOD=1
	[ -x "$t/userspace/htmtrace" ]
	# nothing untracked that git does not ignore
	run -0 git -C "$t" status --porcelain --untracked-files=all
	[ "$output" = "" ]
	# and make clean (at the top, without KDIR) leaves nothing ignored
	# at the top; make -C userspace clean the same there
	run -0 make -s -C "$t" clean
	run -0 make -s -C "$t/userspace" clean
	run -0 git -C "$t" status --porcelain --ignored --untracked-files=all
	[ "$output" = "" ]
}
