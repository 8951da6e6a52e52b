#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The compiler Debian 13's kernels are built with, runnable on this Debian 12
# host without installing anything: gcc-14 for ppc64le, its binutils and
# pahole, from trixie (amd64), with trixie's C library and every library
# they load, downloaded and unpacked into the cache. Each program's ELF
# interpreter and library path are rewritten (patchelf) to that folder's
# ld.so and libraries: they never see the host's older C library.
#
#   tests/toolchain.sh           print the folder; its usr/bin holds
#                                powerpc64le-linux-gnu-gcc-14, -ld, ... and
#                                pahole
#   tests/toolchain.sh --patch DIR
#                                rewrite the ELF programs under DIR the
#                                same way (the kbuild tools of Debian 13's
#                                linux-kbuild-*: modpost, fixdep, ...)
#
# Debian 13's headers name their compiler (CC = ...-gcc-14) and flags gcc 12
# does not know (-fmin-function-alignment): a module built for those kernels
# is built with that compiler, as DKMS on a user's machine would.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
who() { echo toolchain; }
# shellcheck source=tests/debian.sh
. "$top/tests/debian.sh"
die() { echo "toolchain: $*" >&2; exit 1; }

# The programs, and what they load (kept by hand: a new dependency fails
# the closure check below, not a build).
pkgs=(gcc-14-powerpc64le-linux-gnu cpp-14-powerpc64le-linux-gnu
      binutils-powerpc64le-linux-gnu pahole
      libc6 libgcc-s1 libstdc++6 libisl23 libmpc3 libmpfr6 libgmp10 libzstd1
      zlib1g libjansson4 libsframe1 libbpf1 libdw1t64 libelf1t64 libbz2-1.0
      liblzma5)

# patch_elfs ROOT DIR: the ELF programs under DIR run with ROOT's C library
patch_elfs() {
	local root=$1 f
	while IFS= read -r -d '' f; do
		readelf -l "$f" 2>/dev/null | grep -q 'program interpreter' || continue
		patchelf --set-interpreter "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
			--force-rpath --set-rpath "$root/usr/lib/x86_64-linux-gnu" "$f" ||
			return 1
	done < <(find "$2" -type f -perm -u+x -print0)
}

# closure ROOT: the sonames ROOT's programs need that ROOT does not hold
closure() {
	local root=$1 todo=() seen=" " f so
	mapfile -t todo < <(find "$root/usr/bin" "$root/usr/libexec" -type f -perm -u+x)
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]} todo=("${todo[@]:1}")
		for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $so "*) continue ;; esac
			seen+="$so "
			if [ -e "$root/usr/lib/x86_64-linux-gnu/$so" ]; then
				todo+=("$root/usr/lib/x86_64-linux-gnu/$so")
			else
				echo "$so"
			fi
		done
	done
}

foreign_apt || die "the cache's own apt could not be set up"
command -v patchelf >/dev/null || die "patchelf is missing (tests/deps.sh installs it)"

if [ "${1:-}" = --patch ]; then
	[ -d "${2:-}" ] || die "usage: $0 --patch DIR"
	root=$("$0") || exit 1
	patch_elfs "$root" "$2" || die "patchelf failed under $2"
	exit 0
fi

# Debian 13's own: the kernels of trixie-backports are built for it.
export DEB_SUITE=trixie
vers=$(apt-cache "${FAPT[@]}" madison "${pkgs[@]/%/:amd64}" 2>/dev/null | grep ' trixie/')
root=$cache/toolchain-gcc14-$(sha256sum <<<"$vers" | cut -c1-12)
if [ ! -f "$root/.done" ]; then
	mkdir -p "$cache"
	dl=$(mktemp -d "$cache/.debs.XXXXXX")
	trap 'rm -rf "$dl"' EXIT
	echo "toolchain: gcc-14, binutils and pahole for ppc64le from trixie into $root" >&2
	deb_download_all "$dl" "${pkgs[@]/%/:amd64}" -- "${FAPT[@]}" ||
		die "the toolchain's packages (trixie, amd64) cannot be had"
	deb_unpack "$dl" "$root" || die "the toolchain's packages did not unpack into $root"
	for d in usr/bin usr/libexec usr/powerpc64le-linux-gnu/bin; do
		patch_elfs "$root" "$root/$d" || die "patchelf failed under $root/$d"
	done
	missing=$(closure "$root" | tr '\n' ' ')
	[ -z "$missing" ] || die "the toolchain needs, not unpacked: $missing"
	echo 'int f(void) { return 0; }' > "$dl/t.c"
	"$root/usr/bin/powerpc64le-linux-gnu-gcc-14" -fmin-function-alignment=4 -c "$dl/t.c" \
		-o "$dl/t.o" || die "the unpacked gcc-14 does not compile"
	touch "$root/.done"
	find "$cache" -maxdepth 1 -name 'toolchain-gcc14-*' ! -path "$root" -exec rm -rf {} +
fi
echo "$root"
