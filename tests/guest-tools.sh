#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what a test guest runs of ours in user space, for ppc64el, and copy
# it into a guest's build folder: the htmtrace tool, htmcheck (the helper
# that checks the simulator's records, tests/htmcheck.c), the two examples
# (examples/, which tests/bats/examples.bats runs) and the guest helpers
# (every tests/guest/*.c but the command server, which tests/initramfs.sh
# builds).
#
#   tests/guest-tools.sh DEST
#
# gives DEST/htmtrace, DEST/htmcheck and DEST/guest-bin/. None of it depends
# on the kernel: one incremental build in build/ppc64el/ (under a lock:
# tests/build.sh and tests/stock.sh may run at once) serves the debug guest
# and each stock one. The helpers and htmcheck are linked statically: an
# exec through the dynamic loader costs the debug guest far more.
set -euo pipefail

dest=${1:?usage: $0 DEST}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/ppc64el
cross=powerpc64le-linux-gnu-

sysroot=$("$top/tests/deps.sh" --sysroot)
ppclib=$sysroot/usr/lib/powerpc64le-linux-gnu
mkdir -p "$out/guest-bin" "$dest/guest-bin"
exec 9>"$out/.lock"
flock 9

# WERROR=1: warnings stay errors here (the tool's default CFLAGS do not, for
# packagers' newer compilers).
make -s -j"$(nproc)" -C "$top/userspace" O="$out" CC=${cross}gcc WERROR=1 REQUIRE_KMOD=1 CHECK_LDFLAGS=-static \
	PKG_CONFIG_LIBDIR="$ppclib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$sysroot" \
	LDFLAGS="-Wl,-rpath-link,$ppclib:$sysroot/lib/powerpc64le-linux-gnu" \
	all htmcheck
cp "$out/htmtrace" "$dest/"
cp "$out/htmcheck" "$dest/guest-bin/"
# The examples as a user builds them, warnings as errors.
make -s -C "$top/examples" O="$out/examples" CC=${cross}gcc WERROR=1 LDFLAGS=-static
cp "$out/examples/htm-read" "$out/examples/dtl-read" "$dest/guest-bin/"
# A helper is built again when it or the uapi header is newer.
for c in "$top"/tests/guest/*.c; do
	[ "${c##*/}" != cmdserver.c ] || continue
	bin=$out/guest-bin/$(basename "$c" .c)
	if [ "$c" -nt "$bin" ] || [ "$top/uapi/linux/htmtrace.h" -nt "$bin" ]; then
		${cross}gcc -O2 -static -Wall -Wextra -Werror -I"$top/uapi" -o "$bin.tmp" "$c"
		mv "$bin.tmp" "$bin"
	fi
	cp "$bin" "$dest/guest-bin/"
done
