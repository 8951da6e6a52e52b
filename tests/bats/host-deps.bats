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

# --- the archive on a bad day (tests/debian.sh) --------------------------------
# A stand-in apt that serves what $ARCHIVE lists ("PKG:ARCH VERSION SUITE", the
# newest first), with faults: $UPDATE_RC the exit statuses of successive
# apt-get updates (status 100 names a broken index, as apt does), $NOT_SERVED
# the PKG:ARCH=VERSION that answer 404, $FLAKY those whose first download
# fails as a connection does. dpkg and dpkg-deb stand in too: the ppc64el
# architecture is known, a .deb unpacks to a file named after its package.
archive_apt() {
	cat > "$bin/apt-get" <<-'EOF2'
	#!/bin/bash
	echo "apt-get $*" >> "$APT_LOG"
	case " $* " in
	*" update "*)
		n=$(grep -c '^apt-get .*update' "$APT_LOG")
		rc=$(echo $UPDATE_RC | cut -d' ' -f"$n")
		rc=${rc:-0}
		if [ "$rc" != 0 ]; then
			echo "Err:4 http://deb.debian.org/debian-security bookworm-security/main ppc64el Packages"
			echo "E: Failed to fetch http://deb.debian.org/debian-security/dists/bookworm-security/main/binary-ppc64el/Packages.xz  File has unexpected size (367892 != 368280). Mirror sync in progress? [IP: 203.0.113.80 80]"
			echo "E: Some index files failed to download. They have been ignored, or old ones used instead."
		fi
		exit "$rc" ;;
	*" -s "*) printf '%s\n' "$PLAN"; exit 0 ;;
	*" download "*)
		for a in "$@"; do
			case $a in -*|download) continue ;; esac
			case " $NOT_SERVED " in *" $a "*)
				echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/x/$a.deb  404  Not Found [IP: 203.0.113.80 80]"
				exit 100 ;;
			esac
			case " $FLAKY " in *" $a "*)
				if ! grep -qx "flaked $a" "$APT_LOG"; then
					echo "flaked $a" >> "$APT_LOG"
					echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/x/$a.deb  Could not connect to deb.debian.org:80 (203.0.113.80), connection timed out"
					exit 100
				fi ;;
			esac
			p=${a%%=*} v=${a#*=}
			touch "${p%%:*}_${v}_ppc64el.deb"
		done
		exit 0 ;;
	esac
	exit 0
	EOF2
	cat > "$bin/apt-cache" <<-'EOF2'
	#!/bin/bash
	case $1 in
	madison)
		shift
		for p in "$@"; do
			awk -v p="$p" '$1 == p { printf "%10s | %10s | http://deb.debian.org/debian %s/main ppc64el Packages\n", $1, $2, $3 }' "$ARCHIVE"
		done ;;
	policy)
		shift
		[ $# -gt 0 ] || { echo " 500 http://deb.debian.org/debian bookworm/main ppc64el Packages"; exit 0; }
		for p in "$@"; do
			v=$(awk -v p="$p" '$1 == p { print $2; exit }' "$ARCHIVE")
			[ -n "$v" ] || continue
			printf '%s:\n  Installed: (none)\n  Candidate: %s\n' "$p" "$v"
		done ;;
	esac
	exit 0
	EOF2
	cat > "$bin/dpkg" <<-'EOF2'
	#!/bin/sh
	[ "$1" = --print-foreign-architectures ] && echo ppc64el
	exit 0
	EOF2
	cat > "$bin/dpkg-deb" <<-'EOF2'
	#!/bin/sh
	# dpkg-deb -x DEB DIR
	echo "dpkg-deb $*" >> "$APT_LOG"
	mkdir -p "$3/bin"
	case ${2##*/} in busybox-static_*) printf '#!/bin/sh\n' > "$3/bin/busybox"; chmod +x "$3/bin/busybox" ;; esac
	exit 0
	EOF2
	chmod +x "$bin"/*
	export ARCHIVE=$BATS_TEST_TMPDIR/archive HTMTRACE_APT_RETRY="0 0"
	cat > "$ARCHIVE" <<-'EOF2'
	busybox-static:ppc64el 1:1.35.0-4+deb12u2 bookworm-security
	busybox-static:ppc64el 1:1.35.0-4+deb12u1+b1 bookworm
	libkmod-dev:ppc64el 30+20221128-1 bookworm
	libkmod2:ppc64el 30+20221128-1 bookworm
	liblzma5:ppc64el 5.4.1-1 bookworm
	libssl3:ppc64el 3.0.20-1~deb12u2 bookworm
	libzstd1:ppc64el 1.5.4+dfsg2-5 bookworm
	EOF2
}

@test "deps: an index that fails apt-get update is named, and the run goes on: installs and unpacks" {
	archive_apt
	UPDATE_RC="100 100 100" PATH=$bin:$PATH run --separate-stderr bash "$DEPS" --sysroot
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -x "$output/bin/busybox" ]
	# tried three times (two retries), then named the index and went on
	[ "$(grep -c '^apt-get .*update' "$APT_LOG")" -eq 3 ]
	[[ $stderr == *"these indexes could not be fetched; going on with the lists apt has"* ]]
	[[ $stderr == *"bookworm-security/main/binary-ppc64el/Packages.xz  File has unexpected size"* ]]
	grep -q '^apt-get install -y ' "$APT_LOG"
	grep -q '^apt-get download -q busybox-static:ppc64el=1:1.35.0-4+deb12u2$' "$APT_LOG"
}

@test "deps: a version listed but not served (404) gives way to the next one down" {
	archive_apt
	NOT_SERVED="busybox-static:ppc64el=1:1.35.0-4+deb12u2" PATH=$bin:$PATH \
		run --separate-stderr bash "$DEPS" --sysroot
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ $stderr == *"busybox-static:ppc64el 1:1.35.0-4+deb12u2 is listed but not served (404)"* ]]
	grep -q '^dpkg-deb -x .*/busybox-static_1:1.35.0-4+deb12u1+b1_ppc64el.deb ' "$APT_LOG"
	run grep -c '^dpkg-deb -x .*/busybox-static_' "$APT_LOG"
	[ "$output" = 1 ]
}

@test "deps: a package no list names fails, naming it and the suites looked in" {
	archive_apt
	sed -i '/^libzstd1:/d' "$ARCHIVE"
	PATH=$bin:$PATH run --separate-stderr bash "$DEPS" --sysroot
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ $stderr == *"deps: libzstd1:ppc64el: no list apt has names it (looked in: bookworm)"* ]]
	[[ $stderr == *"deps: libzstd1 (ppc64el) cannot be had"* ]]
	# nothing unpacked for the guest
	run grep -c '^dpkg-deb ' "$APT_LOG"
	[ "$output" = 0 ]
}

@test "deps: a transient failure is tried again once, then succeeds" {
	archive_apt
	UPDATE_RC="100 0" FLAKY="liblzma5:ppc64el=5.4.1-1" PATH=$bin:$PATH \
		run --separate-stderr bash "$DEPS" --sysroot
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^apt-get .*update' "$APT_LOG")" -eq 2 ]
	[[ $stderr == *"apt-get update failed (try 1), again in 0 s"* ]]
	[[ $stderr == *"apt-get update: done on try 2"* ]]
	[[ $stderr != *"could not be fetched"* ]]
	[ "$(grep -c '^apt-get download -q liblzma5:ppc64el=5.4.1-1$' "$APT_LOG")" -eq 2 ]
	[[ $stderr == *"apt-get download liblzma5:ppc64el=5.4.1-1 failed (try 1), again in 0 s"* ]]
	grep -q '^dpkg-deb -x .*/liblzma5_5.4.1-1_ppc64el.deb ' "$APT_LOG"
}

@test "stock: a kernel the lists do not name is unavailable: exit 3 with the reason, no test reported" {
	archive_apt
	local root=$BATS_TEST_TMPDIR/sysroot
	mkdir -p "$root"
	touch "$root/.unpacked"
	HTMTRACE_DEPS_SYSROOT=$root PATH=$bin:$PATH \
		run --separate-stderr bash "$BATS_TEST_DIRNAME/../stock.sh" 6.1
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$output" = "1..3
# unavailable: apt lists no linux-headers-6.1.*-common" ]
}

# pool_env: a package whose own index is unusable (no list names it) and
# its sibling of the same source that the lists do name
pool_env() {
	archive_apt
	echo 'linux-headers-6.12.99+deb12-common 6.12.99-1~deb12u1 bookworm-security' >> "$ARCHIVE"
	cat > "$bin/apt-get" <<-'EOF2'
	#!/bin/sh
	echo "apt-get $*" >> "$APT_LOG"
	case "$*" in *--print-uris*)
		echo "'http://deb.debian.org/debian-security/pool/updates/main/l/linux-6.12/linux-headers-6.12.99%2bdeb12-common_6.12.99-1%7edeb12u1_all.deb' linux-headers-6.12.99+deb12-common_6.12.99-1~deb12u1_all.deb 11127280 SHA256:00" ;;
	esac
	exit 0
	EOF2
	cat > "$bin/apt-helper" <<-'EOF2'
	#!/bin/sh
	echo "apt-helper $*" >> "$APT_LOG"
	[ "$1" = download-file ] && printf '%s' "$SERVED" > "$3"
	exit 0
	EOF2
	cat > "$bin/dpkg-deb" <<-'EOF2'
	#!/bin/sh
	# dpkg-deb -f DEB FIELD...: the stand-in .deb holds its answer
	cat "$2"
	EOF2
	chmod +x "$bin"/*
	export APT_HELPER=$bin/apt-helper
	dl=$BATS_TEST_TMPDIR/dl
	mkdir -p "$dl"
}

# pool_get VERSION: deb_pool_get of the image beside its -common headers,
# the pool serving a .deb that says it is that image of VERSION; run's
# results
pool_get() {
	SERVED=$'Package: linux-image-6.12.99+deb12-powerpc64le\nVersion: '"$1"$'\nArchitecture: ppc64el\n' \
		PATH=$bin:$PATH run --separate-stderr bash -c '
		cache=$1; who() { echo t; }; . "$2"
		deb_pool_get "$3" linux-headers-6.12.99+deb12-common linux-image-6.12.99+deb12-powerpc64le ppc64el' \
		_ "$BATS_TEST_TMPDIR" "$BATS_TEST_DIRNAME/../debian.sh" "$dl"
}

@test "debian.sh: a package no list names comes by its pool path beside its sibling, checked, and said so" {
	pool_env
	pool_get 6.12.99-1~deb12u1
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "6.12.99-1~deb12u1" ]
	grep -qx 'apt-helper download-file http://deb.debian.org/debian-security/pool/updates/main/l/linux-6.12/linux-image-6.12.99%2bdeb12-powerpc64le_6.12.99-1%7edeb12u1_ppc64el.deb '"$dl"'/linux-image-6.12.99+deb12-powerpc64le_6.12.99-1~deb12u1_ppc64el.deb' "$APT_LOG"
	[ -f "$dl/linux-image-6.12.99+deb12-powerpc64le_6.12.99-1~deb12u1_ppc64el.deb" ]
	[[ $stderr == *"taken by its pool path beside linux-headers-6.12.99+deb12-common (its own index is unusable; no index vouches for its hash)"* ]]
}

@test "debian.sh: what a pool path serves that is not the package asked for is refused, and removed" {
	pool_env
	pool_get 6.12.98-1
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ $stderr == *"is not linux-image-6.12.99+deb12-powerpc64le 6.12.99-1~deb12u1 (ppc64el)"* ]]
	[ -z "$(ls "$dl")" ]
}

@test "debian.sh: a version is taken without the padding apt-cache madison aligns it with" {
	archive_apt
	echo 'linux-headers-6.1.0-57-common 6.1.192-3 bookworm-security' >> "$ARCHIVE"
	# the stand-in pads as apt does (right-aligned in ten columns)
	run -0 env PATH="$bin:$PATH" apt-cache madison linux-headers-6.1.0-57-common
	[[ $output == *"|  6.1.192-3 |"* ]]
	PATH=$bin:$PATH run --separate-stderr bash -c '
		cache=$1; who() { echo t; }; . "$2"
		deb_versions linux-headers-6.1.0-57-common' \
		_ "$BATS_TEST_TMPDIR" "$BATS_TEST_DIRNAME/../debian.sh"
	[ "$status" -eq 0 ]
	[ "$output" = "6.1.192-3" ]
}
