#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack the QEMU pseries guest's initramfs: busybox, /init (the command server,
# tests/guest/init), the modules and the htmtrace tool of one build variant.
#
#   tests/initramfs.sh release|debug OUT.cpio
#
# The archive is not compressed: the guest's kernel would inflate it under
# TCG (the debug kernel's inflate instrumented by KASAN too), which took
# 2.3 s of its 7 s boot; QEMU puts its 19 MB into guest memory as they are.
#
# Layout in the guest:
#   /init, /bin/busybox (+ /bin/sh; the other applet links are made at boot),
#   from busybox-static:ppc64el as tests/deps.sh unpacked it
#   /usr/bin/cmdserver             tests/guest/cmdserver.c, built here
#   /lib/modules/htmtrace/*.ko     from build/<variant>/
#   /usr/bin/htmtrace              the guest tool, with its shared libraries
#                                  (readelf NEEDED, recursively) and ld64.so.2
#   /usr/bin/*                     build/<variant>/guest-bin/* and the executable
#                                  files of tests/guest/
# Missing modules or tool are not an error here (a bare guest still boots);
# tests that need them fail or skip on their own. HTMTRACE_BUILD_DIR overrides
# build/<variant>.
set -euo pipefail

variant=${1:?usage: $0 release|debug OUT.cpio}
out=${2:?usage: $0 release|debug OUT.cpio}
top=$(cd "$(dirname "$0")/.." && pwd)
bdir=${HTMTRACE_BUILD_DIR:-$top/build/$variant}
readelf=powerpc64le-linux-gnu-readelf
# busybox and the ppc64el libraries the tool needs (libkmod2, ...) are unpacked
# into the cache by deps.sh, never installed; libc is the cross toolchain's.
sysroot=$("$top/tests/deps.sh" --sysroot)
busybox=$sysroot/bin/busybox
libdirs=("$sysroot/lib/powerpc64le-linux-gnu" "$sysroot/usr/lib/powerpc64le-linux-gnu"
	 /usr/powerpc64le-linux-gnu/lib)

is_elf() { [ "$(head -c 4 "$1" | tr -d '\177')" = ELF ]; }

if ! is_elf "$busybox" || ! $readelf -h "$busybox" | grep -q 'Machine:.*PowerPC64' ||
   $readelf -lW "$busybox" | grep -q 'program interpreter'; then
	echo "initramfs: $busybox is not a static ppc64le busybox (busybox-static:ppc64el)" >&2
	exit 1
fi

root=$(mktemp -d)
# mktemp makes it 0700: the guest root must be traversable by everyone.
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc,host} \
	 "$root/lib/modules/htmtrace"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$top/tests/guest/init" "$root/init"
# The command server /init becomes: part of every guest, built or not.
powerpc64le-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror \
	-o "$root/usr/bin/cmdserver" "$top/tests/guest/cmdserver.c"

# Copy one ppc64le ELF file and, recursively, the libraries it needs.
copy_elf() {
	local src=$1 dst=$2 interp lib dir found
	install -D -m 0755 "$src" "$root$dst"
	interp=$($readelf -lW "$src" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		found=
		for dir in "${libdirs[@]}"; do
			[ -e "$dir/${interp##*/}" ] && { found=$dir/${interp##*/}; break; }
		done
		[ -n "$found" ] || { echo "initramfs: no ${interp##*/} for $src" >&2; exit 1; }
		install -D -m 0755 "$(readlink -f "$found")" "$root$interp"
	fi
	for lib in $($readelf -dW "$src" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$root/lib/powerpc64le-linux-gnu/$lib" ] && continue
		found=
		for dir in "${libdirs[@]}"; do
			[ -e "$dir/$lib" ] && { found=$dir/$lib; break; }
		done
		[ -n "$found" ] || { echo "initramfs: $src needs $lib, not found" >&2; exit 1; }
		copy_elf "$(readlink -f "$found")" "/lib/powerpc64le-linux-gnu/$lib"
	done
}

# The modules without their DWARF, as a distribution installs them: built
# against a stock kernel's headers (CONFIG_DEBUG_INFO) htmtrace.ko is 5 MB,
# 0.17 MB stripped, and each of a run's hundreds of loads in the stock
# 64 KiB guest took 0.24 s rather than 0.14 s.
nmods=0
for ko in "$bdir"/*.ko; do
	[ -e "$ko" ] || continue
	powerpc64le-linux-gnu-strip --strip-debug -o "$root/lib/modules/htmtrace/${ko##*/}" "$ko"
	chmod 0644 "$root/lib/modules/htmtrace/${ko##*/}"
	nmods=$((nmods + 1))
done
[ -e "$bdir/htmtrace" ] && copy_elf "$bdir/htmtrace" /usr/bin/htmtrace
for f in "$bdir"/guest-bin/*; do
	[ -f "$f" ] || continue
	if is_elf "$f"; then
		copy_elf "$f" "/usr/bin/${f##*/}"
	else
		install -m 0755 "$f" "$root/usr/bin/"
	fi
done
# Executable helpers kept in tests/guest/ (sources there are built into guest-bin/).
for f in "$top"/tests/guest/*; do
	if [ "${f##*/}" != init ] && [ -f "$f" ] && [ -x "$f" ]; then
		install -m 0755 "$f" "$root/usr/bin/"
	fi
done

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($nmods modules, tool: $([ -e "$bdir/htmtrace" ] && echo yes || echo no))" >&2
