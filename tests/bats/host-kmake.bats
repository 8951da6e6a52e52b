#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tests/kmake.sh, the module builds' make, against stand-ins for make and
# ccache: with ccache, the compiles go through it and kbuild sees M as the
# same path from any clone (a symlink in the cache to the clone's folder);
# without, kbuild gets the folder itself.

bats_require_minimum_version 1.5.0

setup() {
	KMAKE=$BATS_TEST_DIRNAME/../kmake.sh
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin" "$BATS_TEST_TMPDIR/a/mod" "$BATS_TEST_TMPDIR/b/mod"
	# make: print its arguments, where M points, and CCACHE_DIR
	cat > "$bin/make" <<-'EOF2'
	#!/bin/bash
	for a in "$@"; do
		echo "arg $a"
		case $a in M=*) echo "resolves ${a#M=} -> $(cd "${a#M=}" && pwd -P)" ;; esac
	done
	echo "ccache_dir ${CCACHE_DIR:-none}"
	EOF2
	printf '#!/bin/sh\nexit 0\n' > "$bin/ccache"
	chmod +x "$bin"/*
	export HTMTRACE_CACHE=$BATS_TEST_TMPDIR/cache
}

@test "kmake: with ccache, two clones build through one fixed M, each its own folder" {
	local c=$HTMTRACE_CACHE
	PATH=$bin:$PATH run -0 bash "$KMAKE" stock-x-test /kdir "$BATS_TEST_TMPDIR/a/mod" W=1 modules
	echo "$output"
	[[ $output == *"arg CC=ccache powerpc64le-linux-gnu-gcc"* ]]
	[[ $output == *"arg M=$c/kbuild/stock-x-test"$'\n'* ]]
	[[ $output == *"resolves $c/kbuild/stock-x-test -> $BATS_TEST_TMPDIR/a/mod"* ]]
	[[ $output == *"arg -C"$'\n'"arg /kdir"* ]]
	[[ $output == *"arg W=1"$'\n'"arg modules"* ]]
	[[ $output == *"ccache_dir $c/ccache"* ]]
	PATH=$bin:$PATH run -0 bash "$KMAKE" stock-x-test /kdir "$BATS_TEST_TMPDIR/b/mod" modules
	[[ $output == *"arg M=$c/kbuild/stock-x-test"$'\n'* ]]
	[[ $output == *"resolves $c/kbuild/stock-x-test -> $BATS_TEST_TMPDIR/b/mod"* ]]
}

@test "kmake: without ccache, kbuild gets the folder itself and the cross compiler" {
	rm "$bin/ccache"
	# a PATH without the host's ccache, if it has one
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	for c in bash cat dirname flock ln mkdir nproc pwd; do
		ln -s "$(command -v "$c")" "$BATS_TEST_TMPDIR/sys/$c"
	done
	PATH=$bin:$BATS_TEST_TMPDIR/sys run -0 bash "$KMAKE" stock-x-test /kdir "$BATS_TEST_TMPDIR/a/mod" modules
	echo "$output"
	[[ $output == *"arg M=$BATS_TEST_TMPDIR/a/mod"$'\n'* ]]
	[[ $output != *"arg CC="* ]]
	[[ $output == *"arg CROSS_COMPILE=powerpc64le-linux-gnu-"* ]]
	[[ $output == *"ccache_dir none"* ]]
	[ ! -e "$HTMTRACE_CACHE/kbuild" ]
}

@test "kmake: usage" {
	run -2 bash "$KMAKE" name /kdir
	[[ $output == "usage: "* ]]
}
