#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the driver W=1 against Debian's linux-source of the newest kernel
# trixie-backports lists, configured with Debian's ppc64el config, and print
# TAP: an API that kernel removed or changed is a red test here before any
# user's DKMS meets it, even on a day the archive lists a kernel whose
# ppc64el packages (headers, image) it does not serve yet.
#
#   tests/source.sh
#
# Through the cache's own apt (tests/debian.sh), nothing installed:
#   - linux-source-X.Y of the newest version listed (arch "all"): its
#     tarball is unpacked into $cache/source-VERSION/linux-source-X.Y;
#   - Debian's ppc64el config for it, config.ppc64el_none_powerpc64le out
#     of linux-config-X.Y (ppc64el) of that version; where that is not served
#     (the ppc64el packages come later than the source), the newest one that
#     is, said in the test's name (olddefconfig then gives the options new
#     since that version their defaults);
#   - the tree prepared with Debian 13's gcc-14 (tests/toolchain.sh):
#     olddefconfig, modules_prepare; and a Module.symvers of every symbol
#     the source exports for powerpc (tests/exports.py: no vmlinux is
#     built), so that modpost fails on a symbol no longer exported. Kept, keyed by the source's and the config's versions
#     (.prepared): a warm run only builds the modules (ccache, tests/kmake.sh).
#
# Status 3 with no test reported ("# unavailable: REASON"): apt lists no
# linux-source, or its newest version is not served, or no ppc64el config
# is: tests/check.sh counts the step as unavailable, never as passed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
suite=trixie-backports

echo "1..2"
bail() {
	echo "not ok $1 $2"
	shift 2
	[ $# -eq 0 ] || printf '# %s\n' "$@"
	exit 1
}
unavailable() {
	echo "# unavailable: $*"
	exit 3
}
what="Debian's newest linux-source ($suite), prepared with its ppc64el config"
"$top/tests/deps.sh" >&2 || bail 1 "$what" "deps.sh failed"
who() { echo source; }
# shellcheck source=tests/debian.sh
. "$top/tests/debian.sh"
foreign_apt || bail 1 "$what" "the cache's own apt could not be set up"
export DEB_SUITE=$suite
kcc=powerpc64le-linux-gnu-gcc-14
# gcc-14 for ppc64le and its binutils (tests/toolchain.sh) on PATH, once
toolchain() {
	[ -z "${toolchain:-}" ] || return 0
	toolchain=$("$top/tests/toolchain.sh") || return 1
	export PATH=$toolchain/usr/bin:$PATH
}

# newest REGEX ARCH: "VERSION PACKAGE" for each version of each package
# whose name REGEX matches that the suite lists for ARCH, the newest first
newest() {
	local p
	for p in $(apt-cache "${FAPT[@]}" search --names-only "$1" 2>/dev/null | awk '{ print $1 }'); do
		deb_versions "$p${2:+:$2}" "${FAPT[@]}" | sed "s/\$/ $p/"
	done | sort -u | sort -Vr -k1,1
}

read -r ver pkg < <(newest '^linux-source-[0-9]+\.[0-9]+$')
[ -n "${ver:-}" ] || unavailable "apt lists no linux-source-X.Y in $suite"
series=${pkg#linux-source-}
what="Debian's linux-source $ver (the newest $suite lists)"
mkdir -p "$cache"
dl=$(mktemp -d "$cache/.debs.XXXXXX")
trap 'rm -rf "$dl"' EXIT

# The ppc64el config: in linux-config-X.Y (config.ppc64el_none_powerpc64le.xz)
# or in the flavour's headers (linux-headers-ABI-powerpc64le, .config), of
# the source's version, else of the newest version served below it (the
# archive keeps one linux-config-X.Y a series, and serves a version's
# ppc64el packages later than its source).
# deb_file PACKAGE: the .deb of PACKAGE downloaded into $dl
deb_file() {
	compgen -G "$dl/${1}_*.deb" | head -n 1
}
# config_file PACKAGE: the config's path in PACKAGE
config_file() {
	case $1 in
	linux-config-*) echo "./usr/src/$1/config.ppc64el_none_powerpc64le.xz" ;;
	*) echo "./usr/src/$1/.config" ;;
	esac
}
cver='' cpkg=''
while read -r v p; do
	# (a tree prepared with it: no need to fetch it again)
	if [ -f "$cache/source-$ver-cfg-$v/.prepared" ]; then
		cver=$v cpkg=$p
		break
	fi
	deb_get "$dl" "$p:ppc64el" "$v" "${FAPT[@]}"
	case $? in
	0) cver=$v cpkg=$p; break ;;
	2) continue ;;
	*) bail 1 "$what" "downloading $p $v (ppc64el) failed (above)" ;;
	esac
done < <({ newest '^linux-config-[0-9]+\.[0-9]+$' ppc64el
	   newest '^linux-headers-[0-9.]+\+deb[0-9]+-powerpc64le$' ppc64el; } |
	sort -s -Vr -k1,1 | awk -v top="$ver" 'system("dpkg --compare-versions " $1 " le " top) == 0')
[ -n "$cver" ] || unavailable "no ppc64el config of Debian's $series or older is served today (linux-config-*, linux-headers-*-powerpc64le, $suite)"
cfgnote="Debian's $cver ppc64el config"
[ "$cver" = "$ver" ] || cfgnote+=", olddefconfig ($ver's is not served today)"

root=$cache/source-$ver-cfg-$cver
tree=$root/linux-source-$series
log=$top/build/source/prepare.log
mkdir -p "$top/build/source"
exec 8>"$cache/source.lock"
flock 8 || bail 1 "$what" "no lock on $cache/source.lock"
if [ ! -f "$root/.prepared" ]; then
	t0=$SECONDS
	rm -rf "$root"
	mkdir -p "$root"
	deb_get "$dl" "$pkg" "$ver" "${FAPT[@]}"
	case $? in
	0) ;;
	2) rm -rf "$root"; unavailable "$pkg $ver is listed but not served (404)" ;;
	*) rm -rf "$root"; bail 1 "$what" "downloading $pkg $ver failed (above)" ;;
	esac
	echo "source: unpacking $pkg $ver into $root" >&2
	if ! dpkg-deb --fsys-tarfile "$(deb_file "$pkg")" |
		tar -x -O "./usr/src/linux-source-$series.tar.xz" | tar -xJ -C "$root"; then
		rm -rf "$root"
		bail 1 "$what" "$pkg has no /usr/src/linux-source-$series.tar.xz, or it did not unpack"
	fi
	rm -f "$(deb_file "$pkg")"
	[ -f "$tree/Makefile" ] || { rm -rf "$root"; bail 1 "$what" "no $tree/Makefile"; }
	cfg=$(config_file "$cpkg")
	if ! dpkg-deb --fsys-tarfile "$(deb_file "$cpkg")" | tar -x -O "$cfg" |
		if [ "${cfg%.xz}" != "$cfg" ]; then xz -d; else cat; fi > "$tree/.config" ||
		[ ! -s "$tree/.config" ]; then
		rm -rf "$root"
		bail 1 "$what" "$cpkg $cver has no $cfg"
	fi
	echo "$cpkg $cver" > "$root/config.from"
	toolchain || { rm -rf "$root"; bail 1 "$what" "no gcc-14 (tests/toolchain.sh)"; }
	echo "source: olddefconfig and modules_prepare with $kcc ($cfgnote; log: $log)" >&2
	km=(make -C "$tree" ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu- CC="$kcc")
	if ! { "${km[@]}" olddefconfig && "${km[@]}" -j"$(nproc)" modules_prepare; } > "$log" 2>&1; then
		rm -rf "$root"
		bail 1 "$what" "olddefconfig or modules_prepare failed ($log):" "$(tail -n 15 "$log")"
	fi
	touch "$root/.prepared"
	echo "source: $tree prepared in $((SECONDS - t0)) s" >&2
	# Trees of other versions are of no further use.
	find "$cache" -maxdepth 1 -name 'source-*-cfg-*' ! -path "$root" -exec rm -rf {} +
fi
# Every symbol the source exports, as modpost reads Module.symvers (no
# vmlinux is built: tests/exports.py), made again when exports.py changes.
sv=$root/.symvers-$(sha256sum < "$top/tests/exports.py" | cut -c1-12)
if [ ! -f "$sv" ]; then
	py=python3
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	"$py" "$top/tests/exports.py" "$tree" > "$tree/Module.symvers.new" &&
		[ -s "$tree/Module.symvers.new" ] &&
		mv "$tree/Module.symvers.new" "$tree/Module.symvers" ||
		bail 1 "$what" "tests/exports.py could not list the source's exports"
	rm -f "$root"/.symvers-*
	touch "$sv"
fi
exec 8>&-
echo "ok 1 $what, prepared with $cfgnote ($(grep -c . "$tree/Module.symvers") exports)"

# build NAME MAKE-ARGS...: into build/source/NAME; true if nothing warned
out=$top/build/source
echo "$ver" > "$out/version"
build() {
	local name=$1
	shift
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	cp -a "$top/Kbuild" "$top/module" "$top/uapi" "$top/kunit" "$out/$name/"
	HTMTRACE_KCC=$kcc "$top/tests/kmake.sh" "source-$name" "$tree" "$out/$name" W=1 "$@" modules \
		> "$out/$name.log" 2>&1 &&
		! grep -qE 'warning:|error:|WARNING:|ERROR:' "$out/$name.log"
}
toolchain || bail 2 "production and test builds against linux-source $ver" "no gcc-14 (tests/toolchain.sh)"
if build prod && build test HTMTRACE_TEST=y; then
	echo "ok 2 production and test builds against linux-source $ver: W=1 and modpost clean"
else
	echo "not ok 2 production and test builds against linux-source $ver: W=1 and modpost clean"
	cat "$out"/prod.log "$out"/test.log 2>/dev/null |
		grep -E 'warning:|error:|WARNING:|ERROR:|\*\*\*|not found' | head -n 20 | sed 's/^/# /'
	exit 1
fi
