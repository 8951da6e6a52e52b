#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the modules and the guest tool against the release or debug test kernel.
#
#   tests/build.sh release|debug    -> build/<variant>/{*.ko,htmtrace,kdir}
#
# The module sources are mirrored into build/<variant>/kmod so that the two
# variants never share object files; the source tree stays clean.
set -euo pipefail

variant=${1:-release}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/$variant
cross=powerpc64le-linux-gnu-

kdir=$("$top/tests/kernel.sh" "$variant")
# Objects built against another kernel tree (its config changed: a new
# cache key) are not rebuilt by kbuild, whose dependencies on the old
# tree's headers vanish with it: start the module build afresh.
if [ "$(readlink "$out/kdir" 2>/dev/null)" != "$kdir" ]; then
	rm -rf "$out/kmod"
fi
mkdir -p "$out/kmod"
ln -sfn "$kdir" "$out/kdir"

# Mirror the Kbuild inputs, keeping timestamps so rebuilds stay incremental.
cp -a --update "$top/Kbuild" "$out/kmod/"
for d in module uapi kunit; do
	mkdir -p "$out/kmod/$d"
	cp -a --update "$top/$d/." "$out/kmod/$d/"
done

make -s -j"$(nproc)" -C "$kdir" ARCH=powerpc CROSS_COMPILE=$cross M="$out/kmod" W=1 HTMTRACE_TEST=y \
	${HTMTRACE_SPARSE:+C=1} modules
cp "$out"/kmod/*.ko "$out/"

# libkmod for ppc64el is unpacked into the cache, never installed (deps.sh).
sysroot=$("$top/tests/deps.sh" --sysroot)
ppclib=$sysroot/usr/lib/powerpc64le-linux-gnu
# WERROR=1: make check keeps warnings errors (the tool's default CFLAGS do
# not, for packagers' newer compilers). htmcheck: the test helper that
# checks the simulator's records (tests/htmcheck.c), for the guest.
# The test helpers are linked statically: on the debug kernel under TCG the
# dynamic loader costs each exec about 0.1 s (a static exec: 0.02 s), and
# the guest suites run them some thousand times.
make -s -j"$(nproc)" -C "$top/userspace" O="$out" CC=${cross}gcc WERROR=1 CHECK_LDFLAGS=-static \
	PKG_CONFIG_LIBDIR="$ppclib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$sysroot" \
	LDFLAGS="-Wl,-rpath-link,$ppclib:$sysroot/lib/powerpc64le-linux-gnu" \
	all htmcheck

# Test helpers that run in the guest: every tests/guest/*.c but the command
# server (tests/initramfs.sh builds that one), as tests/stock.sh builds them.
mkdir -p "$out/guest-bin"
cp "$out/htmcheck" "$out/guest-bin/htmcheck"
for c in "$top"/tests/guest/*.c; do
	[ "${c##*/}" != cmdserver.c ] || continue
	${cross}gcc -O2 -static -Wall -Wextra -Werror -I"$top/uapi" \
		-o "$out/guest-bin/$(basename "$c" .c)" "$c"
done
