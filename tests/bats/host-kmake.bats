#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tests/kmake.sh, the module builds' make, against stand-ins for make and
# ccache: with ccache, the compiles go through it and kbuild sees M as the
# same path from any clone (a symlink in the cache to the clone's folder);
# without, kbuild gets the folder itself. And tests/sparse-cache.py, lint's
# sparse, against a stand-in sparse.

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
	# a PATH without the host's ccache, if it has one, nor make check's
	# ccache settings (tests/check.sh)
	unset CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_MAXSIZE
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

# tests/sparse-cache.py, lint's CHECK: a stand-in sparse that counts its
# runs, a kbuild .cmd file naming the source and its headers.
sparse_setup() {
	SC=$BATS_TEST_DIRNAME/../sparse-cache.py
	cat > "$bin/sparse" <<-'EOF2'
	#!/bin/sh
	echo run >> "$BATS_TEST_TMPDIR/runs"
	echo "out: $*"
	echo "a.c:1:5: warning: symbol 'x' was not declared" >&2
	exit "${SPARSE_RC:-0}"
	EOF2
	chmod +x "$bin/sparse"
	o=$BATS_TEST_TMPDIR/o
	mkdir -p "$o/include"
	echo 'int x;' > "$o/a.c"
	echo '#define Y 1' > "$o/include/y.h"
	cat > "$o/.a.o.cmd" <<-EOF2
	savedcmd_$o/a.o := gcc -c a.c

	source_$o/a.o := $o/a.c

	deps_$o/a.o := \\
	  include/y.h \\
	    \$(wildcard include/config/FOO) \\

	$o/a.o: \$(deps_$o/a.o)
	EOF2
	cd "$o" || return 1
	export SPARSE_RC
}

runs() {
	wc -l < "$BATS_TEST_TMPDIR/runs"
}

@test "sparse-cache: an answer seen is replayed (stdout, stderr, status); a header, the source or a flag changed runs sparse again" {
	sparse_setup
	PATH=$bin:$PATH run -0 --separate-stderr "$SC" -D1 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$output" = "out: -D1 -Wp,-MMD,$o/.a.o.d a.c" ]
	[ "$stderr" = "a.c:1:5: warning: symbol 'x' was not declared" ]
	[ "$(runs)" -eq 1 ]
	PATH=$bin:$PATH run -0 --separate-stderr "$SC" -D1 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$output" = "out: -D1 -Wp,-MMD,$o/.a.o.d a.c" ]
	[ "$stderr" = "a.c:1:5: warning: symbol 'x' was not declared" ]
	[ "$(runs)" -eq 1 ]
	# the header the .cmd file names (relative: kbuild's folder), then the
	# source, then a flag
	echo '#define Y 2' > include/y.h
	PATH=$bin:$PATH run -0 "$SC" -D1 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 2 ]
	echo 'int z;' >> a.c
	PATH=$bin:$PATH run -0 "$SC" -D1 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 3 ]
	PATH=$bin:$PATH run -0 "$SC" -D2 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 4 ]
	PATH=$bin:$PATH run -0 "$SC" -D2 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 4 ]
	# a failing sparse's status is kept with its answer
	SPARSE_RC=3 PATH=$bin:$PATH run -3 "$SC" -D3 "-Wp,-MMD,$o/.a.o.d" a.c
	SPARSE_RC=0 PATH=$bin:$PATH run -3 "$SC" -D3 "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 5 ]
}

@test "sparse-cache: without kbuild's .cmd file (or a header it names), sparse runs every time" {
	sparse_setup
	PATH=$bin:$PATH run -0 "$SC" a.c
	PATH=$bin:$PATH run -0 "$SC" a.c
	[ "$(runs)" -eq 2 ]
	rm include/y.h
	PATH=$bin:$PATH run -0 "$SC" "-Wp,-MMD,$o/.a.o.d" a.c
	PATH=$bin:$PATH run -0 "$SC" "-Wp,-MMD,$o/.a.o.d" a.c
	[ "$(runs)" -eq 4 ]
	[ ! -e "$HTMTRACE_CACHE/sparse" ]
}
