#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build our modules against a kernel tree for the ppc64le guests: make -s -j
# -C KDIR M=DIR ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu- ARGS...,
# each compile through ccache when the host has it (tests/deps.sh installs
# it), its cache in $HTMTRACE_CACHE/ccache.
#
#   [HTMTRACE_KCC=COMPILER] tests/kmake.sh NAME KDIR DIR [MAKE-ARGS...]
#
# make check builds the modules nine times here (the debug build, lint's
# two, two against each of Debian's three kernels; DKMS's own build takes
# ccache in tests/dkms.sh), each from scratch in a fresh clone: before ccache, about
# a quarter of a warm run's host CPU time outside the guests. A compile
# whose source, headers and flags ccache has seen is replayed with its
# warnings, so the builds' "no warning" checks hold; a change recompiles
# only the files it touches, in each build.
#
# Kbuild puts M's absolute path on every compile's command line (-I, the
# object, the source), and ccache hashes that line: M differs from one
# clone to the next, so the compiles would never match. Kbuild takes M as
# given (no symlink resolved): it builds through the fixed path
# $HTMTRACE_CACHE/kbuild/NAME, a symlink to DIR, held under a lock for the
# build, so that two runs at once (two clones) never share it.
set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 NAME KDIR DIR [MAKE-ARGS...]" >&2; exit 2; }
name=$1 kdir=$2 dir=$3
shift 3
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
cross=powerpc64le-linux-gnu-
# the compiler the kernel names, where it is not ${cross}gcc (Debian 13's
# headers: ${cross}gcc-14, on PATH from tests/toolchain.sh)
kcc=${HTMTRACE_KCC:-${cross}gcc}
cc=()
[ -z "${HTMTRACE_KCC:-}" ] || cc=(CC="$kcc")

if command -v ccache >/dev/null; then
	fixed=$cache/kbuild/$name
	mkdir -p "$cache/kbuild" || exit 1
	exec 9>"$fixed.lock"
	flock 9 || exit 1
	ln -sfn "$(cd "$dir" && pwd)" "$fixed" || exit 1
	dir=$fixed
	# depend mode: the compiler's own dependency output (kbuild asks for
	# one) names the headers, so a miss runs the preprocessor once, not twice.
	export CCACHE_DIR=$cache/ccache CCACHE_DEPEND=true
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
	cc=(CC="ccache $kcc")
fi
make -s -j"$(nproc)" -C "$kdir" ARCH=powerpc CROSS_COMPILE=$cross "${cc[@]}" M="$dir" "$@"
