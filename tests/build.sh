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
mkdir -p "$out/kmod"
ln -sfn "$kdir" "$out/kdir"

# Mirror the Kbuild inputs, keeping timestamps so rebuilds stay incremental.
cp -a --update "$top/Kbuild" "$out/kmod/"
for d in module uapi kunit; do
	mkdir -p "$out/kmod/$d"
	cp -a --update "$top/$d/." "$out/kmod/$d/"
done

make -s -C "$kdir" ARCH=powerpc CROSS_COMPILE=$cross M="$out/kmod" W=1 \
	${HTMTRACE_SPARSE:+C=1} modules
cp "$out"/kmod/*.ko "$out/"

make -s -C "$top/userspace" O="$out" CC=${cross}gcc \
	PKG_CONFIG_LIBDIR=/usr/lib/powerpc64le-linux-gnu/pkgconfig

# Test helpers that run in the guest.
mkdir -p "$out/guest-bin"
${cross}gcc -O2 -Wall -Wextra -Werror -I"$top/uapi" \
	-o "$out/guest-bin/htmtest" "$top/tests/guest/htmtest.c"
