#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the driver against a stock Debian ppc64el kernel's headers, as DKMS
# on a user's LPAR would, and print TAP. The headers (and the amd64 kbuild
# tools their scripts/ link to) are downloaded and unpacked into the cache,
# never installed.
#
#   tests/stock.sh 6.1     the newest linux-headers-6.1.0-*-powerpc64le
#
# The production build and the test build (with the simulator) must both
# build W=1 without a warning, modpost included: whatever that kernel lacks
# (an export, a function) shows up here, not as an unresolved symbol at
# insmod.
set -uo pipefail

series=${1:-6.1}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
cross=powerpc64le-linux-gnu-

echo "1..2"
bail() {
	echo "not ok $1 $2"
	shift 2
	[ $# -eq 0 ] || printf '# %s\n' "$@"
	exit 1
}

"$top/tests/deps.sh" >/dev/null || bail 1 "headers of Debian's $series kernel" "deps.sh failed"
# The newest ABI of the series that apt knows, e.g. 6.1.0-57.
abi=$(apt-cache search --names-only "^linux-headers-${series//./\\.}\.[0-9]+-[0-9]+-common\$" 2>/dev/null |
	sed -n 's/^linux-headers-\([0-9.]*-[0-9]*\)-common .*/\1/p' | sort -V | tail -n 1)
[ -n "$abi" ] || bail 1 "headers of Debian's $series kernel" "apt knows no linux-headers-$series"
flavour=$abi-powerpc64le
root=$cache/stock-$flavour
hdrs=$root/usr/src/linux-headers-$flavour
if [ ! -f "$root/.unpacked" ]; then
	dl=$(mktemp -d)
	trap 'rm -rf "$dl"' EXIT
	kbuild=linux-kbuild-$series
	(cd "$dl" && apt-get download -q "linux-headers-$flavour:ppc64el" \
		"linux-headers-$abi-common" "$kbuild:amd64" >/dev/null 2>&1) ||
		bail 1 "headers of Debian's $series kernel ($flavour)" "apt-get download failed"
	rm -rf "$root"
	mkdir -p "$root"
	for deb in "$dl"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	# The flavour's Makefile includes the common one by its /usr/src path.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$hdrs/Makefile"
	touch "$root/.unpacked"
	find "$cache" -maxdepth 1 -name "stock-$series.*" ! -path "$root" -exec rm -rf {} +
fi
echo "ok 1 headers of Debian's $series kernel ($flavour), unpacked into the cache"

# build NAME MAKE-ARGS...: into $out/NAME; true if nothing warned
out=$top/build/stock-$flavour
build() {
	local name=$1
	shift
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	cp -a "$top/Kbuild" "$top/module" "$top/uapi" "$top/kunit" "$out/$name/"
	make -s -C "$hdrs" ARCH=powerpc CROSS_COMPILE=$cross M="$out/$name" W=1 \
		"$@" modules > "$out/$name.log" 2>&1 &&
		! grep -qE 'warning:|error:|WARNING:|ERROR:' "$out/$name.log"
}
if build prod && build test HTMTRACE_TEST=y; then
	echo "ok 2 production and test builds against $flavour: W=1 and modpost clean"
else
	echo "not ok 2 production and test builds against $flavour: W=1 and modpost clean"
	cat "$out"/*.log | grep -E 'warning:|error:|WARNING:|ERROR:' | head -n 20 | sed 's/^/# /'
	exit 1
fi
