#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# tests/deps.sh against stand-ins for dpkg-query, apt-get and id: it must
# refuse an install that apt says would remove a package or bring in a
# foreign one, and install nothing then.

bats_require_minimum_version 1.5.0

setup() {
	DEPS=$BATS_TEST_DIRNAME/../deps.sh
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	# every package is missing but "make"; we are root
	cat > "$bin/dpkg-query" <<-'EOF2'
	#!/bin/sh
	[ "$3" = make ] && echo 'install ok installed'
	exit 0
	EOF2
	cat > "$bin/id" <<-'EOF2'
	#!/bin/sh
	echo 0
	EOF2
	# apt-get: log the call; a dry run answers $PLAN
	cat > "$bin/apt-get" <<-'EOF2'
	#!/bin/sh
	echo "apt-get $*" >> "$APT_LOG"
	case "$*" in *" -s "*) printf '%s\n' "$PLAN" ;; esac
	exit 0
	EOF2
	chmod +x "$bin"/*
	export APT_LOG=$BATS_TEST_TMPDIR/apt.log
	export HTMTRACE_CACHE=$BATS_TEST_TMPDIR/cache
	# make check's own checked sysroot would skip the check under test
	unset HTMTRACE_DEPS_SYSROOT
}

@test "deps: an install that would remove a package is refused, nothing installed" {
	PLAN='Inst gcc-powerpc64le-linux-gnu (4:12.2.0-3 Debian:12)
Remv busybox [1:1.35.0-4+b3]' PATH=$bin:$PATH run --separate-stderr bash "$DEPS"
	[ "$status" -eq 1 ]
	[[ $stderr == *"would remove or add foreign packages:"* ]]
	[[ $stderr == *"deps:   Remv busybox [1:1.35.0-4+b3]"* ]]
	[[ $stderr == *"refusing"* ]]
	# a dry run only
	run grep -c -- '-y' "$APT_LOG"
	[ "$output" = 0 ]
}

@test "deps: a foreign-architecture package in the plan is refused" {
	PLAN='Inst busybox-static:ppc64el (1:1.35.0-4+deb12u1+b1 Debian:12 [ppc64el])' \
		PATH=$bin:$PATH run --separate-stderr bash "$DEPS"
	[ "$status" -eq 1 ]
	[[ $stderr == *"deps:   Inst busybox-static:ppc64el"* ]]
	run grep -c -- '-y' "$APT_LOG"
	[ "$output" = 0 ]
}

@test "deps: a package of any other foreign architecture is refused too" {
	PLAN='Inst make [4.3-4.1] (4.3-4.1+b1 Debian:12 [amd64])
Inst libc6:i386 (2.36-9+deb12u14 Debian:12 [i386])' \
		PATH=$bin:$PATH run --separate-stderr bash "$DEPS"
	[ "$status" -eq 1 ]
	[[ $stderr == *"deps:   Inst libc6:i386"* ]]
	[[ $stderr != *"Inst make"* ]]
	run grep -c -- '-y' "$APT_LOG"
	[ "$output" = 0 ]
}

@test "deps: the sysroot make check checked is taken as it is, no package looked at" {
	local root=$BATS_TEST_TMPDIR/sysroot
	mkdir -p "$root"
	touch "$root/.unpacked"
	cat > "$bin/dpkg-query" <<-'EOF2'
	#!/bin/sh
	echo "dpkg-query $*" >> "$APT_LOG"
	EOF2
	HTMTRACE_DEPS_SYSROOT=$root PATH=$bin:$PATH run --separate-stderr bash "$DEPS" --sysroot
	[ "$status" -eq 0 ]
	[ "$output" = "$root" ]
	HTMTRACE_DEPS_SYSROOT=$root PATH=$bin:$PATH run --separate-stderr bash "$DEPS"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$APT_LOG" ]
	# a folder never unpacked is no checked sysroot: the check runs
	rm "$root/.unpacked"
	PLAN='Remv busybox [1:1.35.0-4+b3]' HTMTRACE_DEPS_SYSROOT=$root PATH=$bin:$PATH \
		run --separate-stderr bash "$DEPS" --sysroot
	[ "$status" -eq 1 ]
	grep -q '^dpkg-query ' "$APT_LOG"
	[[ $stderr == *"refusing"* ]]
}
