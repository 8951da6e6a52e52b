#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the ppc64le pseries test kernel and print its build directory.
#
#   tests/kernel.sh release|debug
#
# The source is Debian's linux-source-6.12, unpacked once into the cache. Each
# variant is built out of tree into $HTMTRACE_CACHE/kernel-<variant>-<hash>, where
# <hash> covers the source package version, the config fragments and the compiler,
# so a warm cache is reused and any change rebuilds.
set -euo pipefail

variant=${1:-debug}
here=$(cd "$(dirname "$0")" && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
cross=powerpc64le-linux-gnu-
# (not through ccache, were it on PATH: a kernel is built once per
# configuration, and its thousands of objects would only push the
# modules' and the tool's out of the cache)
kmake=(env CCACHE_DISABLE=1 make ARCH=powerpc CROSS_COMPILE=$cross -s)

case $variant in
release) frags=("$here/kernel.config") ;;
debug) frags=("$here/kernel.config" "$here/kernel-debug.config") ;;
*) echo "usage: $0 release|debug" >&2; exit 2 ;;
esac

"$here/deps.sh" >&2

tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "kernel.sh: linux-source-6.12 is not installed" >&2; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
src=$cache/src-$pkgver/linux-source-6.12
hash=$( { echo "$pkgver"; cat "${frags[@]}"; ${cross}gcc --version | head -n 1; } |
	sha256sum | cut -c1-12)
out=$cache/kernel-$variant-$hash

# A cached kernel needs no lock: a warm run never waits behind a build.
if [ -f "$out/.built" ]; then
	echo "$out"
	exit 0
fi

# One kernel build at a time: a second caller waits, then finds it built.
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$out/.built" ]; then
	echo "$out"
	exit 0
fi

# A Debian update of linux-source changes the version and so every key: keep
# only the newest: this source, and of this variant the kernel built now.
for d in "$cache"/src-* "$cache/kernel-$variant-"*; do
	[ -d "$d" ] || continue
	[ "$d" = "$cache/src-$pkgver" ] || [ "$d" = "$out" ] || rm -rf "$d"
done

if [ ! -f "$src/.unpacked" ]; then
	echo "kernel.sh: unpacking $tarball" >&2
	rm -rf "$cache/src-$pkgver"
	mkdir -p "$cache/src-$pkgver"
	tar -C "$cache/src-$pkgver" -xf "$tarball"
	touch "$src/.unpacked"
fi

echo "kernel.sh: building the $variant kernel in $out (a few minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
cat "${frags[@]}" > "$out/htmtrace.config"
"${kmake[@]}" -C "$src" O="$out" KCONFIG_ALLCONFIG="$out/htmtrace.config" allnoconfig >&2

# Kconfig silently drops what it cannot satisfy: insist on every line.
bad=0
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	name=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$name=" "$out/.config" && { echo "kernel.sh: $name is set" >&2; bad=1; }
	else
		grep -qx "$line" "$out/.config" || { echo "kernel.sh: $line did not take" >&2; bad=1; }
	fi
done < "$out/htmtrace.config"
[ $bad -eq 0 ] || exit 1

"${kmake[@]}" -C "$src" O="$out" -j"$(nproc)" vmlinux >&2
"${kmake[@]}" -C "$src" O="$out" -j"$(nproc)" modules >&2
touch "$out/.built"
echo "$out"
