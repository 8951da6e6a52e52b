#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# dkms.conf against the Makefile and Kbuild, without dkms and without kernel
# headers, in a second (the real dkms, against Debian's stock 6.12 headers,
# is tests/dkms.sh, run by make check after these): dkms.conf is sourced
# the way dkms reads it, with the variables dkms defines, and its MAKE
# command is run, as "dkms build" runs it, in a copy of the tree standing
# for dkms's build directory, against a stand-in kernel build directory
# whose Makefile evaluates our Kbuild and records what it was asked for.
# The KDIR mode's "all" is checked the same way, against a stand-in
# userspace/ Makefile.

bats_require_minimum_version 1.5.0

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export TOP
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	KV=6.12.0-test
	# dkms copies the source tree to its build directory and runs MAKE
	# there.
	BUILD=$BATS_TEST_TMPDIR/var/lib/dkms/htmtrace/0.1/build
	mkdir -p "$BUILD"
	cp -r "$TOP/Makefile" "$TOP/Kbuild" "$TOP/dkms.conf" "$TOP/module" \
		"$TOP/uapi" "$BUILD/"
	# The stand-in kernel build directory: kbuild reads $(M)/Kbuild with
	# src=$(M); so does this, then records the goals, M, HTMTRACE_TEST and
	# the modules Kbuild asks for.
	KD=$BATS_TEST_TMPDIR/kdir
	mkdir -p "$KD"
	{
		echo 'src := $(M)'
		echo 'include $(M)/Kbuild'
		echo '.PHONY: modules clean'
		echo 'modules clean:'
		printf '\t@echo %s >> $(KBUILD_LOG)\n' \
			"'goals=\$(MAKECMDGOALS) M=\$(M) HTMTRACE_TEST=\$(HTMTRACE_TEST) obj-m=\$(strip \$(obj-m))'"
	} >"$KD/Makefile"
	export KBUILD_LOG=$BATS_TEST_TMPDIR/kbuild.log
}

# Source dkms.conf as dkms does (its variables set first), in a subshell,
# and run the command given in it.
with_conf() {
	(
		# shellcheck disable=SC2034
		kernelver=$KV arch=ppc64le dkms_tree=$BATS_TEST_TMPDIR/var/lib/dkms
		# shellcheck disable=SC2034
		kernel_source_dir=${KSRC:-/lib/modules/$KV/build}
		# shellcheck disable=SC1091
		. "$TOP/dkms.conf"
		eval "$1"
	)
}

# What Kbuild puts in obj-m, with the given variables.
kbuild_obj_m() {
	printf 'src := .\ninclude Kbuild\nall: ; @echo $(strip $(obj-m))\n' |
		make --no-print-directory -C "$TOP" -f - "$@"
}

@test "dkms.conf: package, version, one module to /updates, autoinstall" {
	run -0 with_conf 'echo "$PACKAGE_NAME|$PACKAGE_VERSION|${#MAKE[@]}|${#BUILT_MODULE_NAME[@]}|${BUILT_MODULE_NAME[0]}|${BUILT_MODULE_LOCATION[0]-unset}|${#DEST_MODULE_LOCATION[@]}|${DEST_MODULE_LOCATION[0]}|$AUTOINSTALL"'
	[ "$output" = "htmtrace|0.1|1|1|htmtrace|unset|1|/updates|yes" ]
}

@test "dkms.conf: MAKE[0] is the KDIR mode's modules target on dkms's kernel_source_dir" {
	run -0 with_conf 'echo "${MAKE[0]}"'
	[ "$output" = "make KDIR=/lib/modules/$KV/build modules" ]
}

@test "dkms.conf: MAKE[0] asks kbuild for M=<build dir> modules without HTMTRACE_TEST" {
	# An HTMTRACE_TEST=y in the environment must not make a test build.
	cd "$BUILD"
	HTMTRACE_TEST=y KSRC=$KD run -0 with_conf '${MAKE[0]}'
	[ "$(cat "$KBUILD_LOG")" = "goals=modules M=$BUILD HTMTRACE_TEST= obj-m=htmtrace.o" ]
}

@test "BUILT_MODULE_NAME is what Kbuild builds in production, and only that" {
	run -0 kbuild_obj_m
	[ "$output" = "htmtrace.o" ]
	run -0 with_conf 'echo "${BUILT_MODULE_NAME[@]/%/.o}"'
	[ "$output" = "htmtrace.o" ]
	# In the top directory, where dkms looks with no BUILT_MODULE_LOCATION.
	[[ "$output" != */* ]]
	# The test build has more: the simulator, the stand-in for a kernel's
	# own vpa_dtl PMU, and KUnit where the kernel has it. None of them is
	# installed by DKMS.
	run -0 kbuild_obj_m HTMTRACE_TEST=y CONFIG_KUNIT=m
	[ "$output" = "htmtrace.o htmtrace_hvsim.o htmtrace_pmu_stub.o htmtrace_kunit.o" ]
}

@test "KDIR mode: all still builds the module and the tool, clean still cleans" {
	mkdir "$BUILD/userspace"
	printf 'all:\n\t@echo "userspace $(MAKEFLAGS) O=$(O) PKG_CONFIG=$(PKG_CONFIG)" >> %s\nclean:\n\t@echo "userspace clean O=$(O)" >> %s\n' \
		"$KBUILD_LOG" "$KBUILD_LOG" >"$BUILD/userspace/Makefile"
	run -0 make --no-print-directory -C "$BUILD" KDIR="$KD"
	[ "$(sed -n 1p "$KBUILD_LOG")" = "goals=modules M=$BUILD HTMTRACE_TEST= obj-m=htmtrace.o" ]
	[[ "$(sed -n 2p "$KBUILD_LOG")" == "userspace "*" O=$BUILD PKG_CONFIG=pkg-config" ]]
	[ "$(wc -l <"$KBUILD_LOG")" -eq 2 ]
	: >"$KBUILD_LOG"
	run -0 make --no-print-directory -C "$BUILD" KDIR="$KD" clean
	[ "$(sed -n 1p "$KBUILD_LOG")" = "goals=clean M=$BUILD HTMTRACE_TEST= obj-m=htmtrace.o" ]
	# and the tool, its objects and dependency files: userspace's clean,
	# as a plain make clean (host-install.bats checks what that removes)
	[ "$(sed -n 2p "$KBUILD_LOG")" = "userspace clean O=$BUILD" ]
	[ "$(wc -l <"$KBUILD_LOG")" -eq 2 ]
}

@test "make modules without KDIR says what it needs" {
	run -2 --separate-stderr make --no-print-directory -C "$BUILD" modules
	[ "${stderr_lines[0]}" = 'make modules builds against a kernel: make KDIR=/lib/modules/$(uname -r)/build modules' ]
}
