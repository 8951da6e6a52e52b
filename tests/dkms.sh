#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real DKMS run, against a stock Debian ppc64el kernel, and print TAP:
# Debian's own dkms script (package dkms, architecture "all") runs add,
# build, install, uninstall and remove with our dkms.conf, for the kernel
# tests/stock.sh SPEC --boot unpacked, cross-compiling (ARCH=powerpc,
# CROSS_COMPILE=powerpc64le-linux-gnu- in its environment, which dkms.conf's
# MAKE passes on to kbuild).
#
#   tests/dkms.sh [SPEC]            SPEC as tests/stock.sh (default 6.12-64k)
#   tests/dkms.sh [SPEC] --guest    one test: the module dkms installed loads
#                                   in the running stock guest (HTMTRACE_GUEST,
#                                   HTMTRACE_VARIANT, as tests/check.sh sets)
#
# Nothing of the host is touched: dkms is unpacked into the cache
# (dpkg-deb -x), never installed, so that no hook of it runs on the host's
# kernel updates. Every tree it knows is under build/stock-SPEC/dkms/root/:
#   --sourcetree  usr/src       (where "dkms add" copies the tree)
#   --dkmstree    var/lib/dkms  (its state, the builds, its signing key)
#   --installtree lib/modules   (where "dkms install" puts the module)
# --kernelsourcedir is the flavour's unpacked headers. What dkms would do to
# the host otherwise is done another way: depmod (dkms runs depmod -a KVER on
# /lib/modules; here --no-depmod, then depmod -b on the install tree),
# signing (the key and certificate dkms generates go into its dkms tree:
# mok_signing_key and mok_certificate in its environment; sign_file is the
# headers' scripts/sign-file, the path dkms itself falls back to), strip
# (the host's strip cannot read a ppc64le module: the cross one comes first
# in PATH as "strip"). dkms insists on root (id -u): as another user, a
# stand-in "id" in PATH answers 0, since nothing it then does needs root.
#
# The module dkms installed is copied to build/stock-SPEC/guest/htmtrace-dkms.ko
# (then packed into the stock guest's initramfs).
set -uo pipefail

spec=6.12-64k
guest=
for a in "$@"; do
	case $a in
	--guest) guest=1 ;;
	-*) echo "usage: $0 [SPEC] [--guest]" >&2; exit 2 ;;
	*) spec=$a ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
cross=powerpc64le-linux-gnu-
out=$top/build/stock-$spec
d=$out/dkms
ko=$out/guest/htmtrace-dkms.ko

# --- in the guest ------------------------------------------------------------
if [ -n "$guest" ]; then
	py=python3
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	t="the module dkms installed loads in the stock kernel $(cat "$out/kver" 2>/dev/null): taint OE, no simulator backend, unloads"
	echo "1..1"
	run() { "$py" "$top/tests/guest.py" run -n "${HTMTRACE_GUEST:?}" -t 60 -- "$1"; }
	# The production module in QEMU: H_HTM answers H_FUNCTION, so no
	# /dev/htmN; the module loads all the same, unsigned for this kernel.
	# It has no backend parameter: given backend=sim with the test build's
	# simulator loaded, it ignores the parameter (the kernel says so) and
	# neither takes the simulator nor reads its symbol.
	# shellcheck disable=SC2016 # expanded by the guest's shell
	got=$(run 'set -e; echo "htmtrace-test: dkms module" > /dev/kmsg
		insmod /lib/modules/htmtrace/htmtrace_hvsim.ko
		insmod /lib/modules/htmtrace/htmtrace-dkms.ko backend=sim
		echo "taint $(cat /sys/module/htmtrace/taint)"
		echo "backend $(cat /sys/kernel/debug/htmtrace/backend)"
		echo "hvsim users $(cat /sys/module/htmtrace_hvsim/refcnt)"
		rmmod htmtrace
		rmmod htmtrace_hvsim
		echo "gone $([ -d /sys/module/htmtrace ] && echo no || echo yes)"
		dmesg | sed -n "/htmtrace-test: dkms module/,\$p" | grep -E "htmtrace|backend" || true' 2>&1)
	want="taint OE
backend pseries
hvsim users 0
gone yes"
	if [ "$(head -n 4 <<<"$got")" = "$want" ] &&
		"$py" "$top/tests/guest.py" check - <<<"$got" >/dev/null 2>&1; then
		echo "ok 1 $t"
		sed 's/^/# /' <<<"$got" | tail -n +5
	else
		echo "not ok 1 $t"
		sed 's/^/# /' <<<"$got"
		exit 1
	fi
	exit 0
fi

# --- dkms add, build, install, uninstall, remove ---------------------------
echo "1..6"
bail() {
	echo "not ok $1 $2"
	shift 2
	[ $# -eq 0 ] || printf '# %s\n' "$@"
	exit 1
}
show() { sed 's/^/# /' "$@" | tail -n 25; }

kver=$(cat "$out/kver" 2>/dev/null)
hdrs=$out/headers
[ -n "$kver" ] && [ -f "$hdrs/.config" ] && [ -f "$out/modules/modules.builtin" ] ||
	bail 1 "dkms unpacked into the cache" "no kernel $spec: run tests/stock.sh $spec --boot first"
ver=$(apt-cache policy dkms 2>/dev/null | sed -n 's/^  Candidate: //p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || bail 1 "dkms unpacked into the cache" "apt knows no dkms"
dk=$cache/dkms-$ver
if [ ! -f "$dk/.unpacked" ]; then
	dl=$(mktemp -d "$cache/.debs.XXXXXX")
	(cd "$dl" && apt-get download -q dkms >/dev/null 2>&1) || {
		rm -rf "$dl"
		bail 1 "dkms $ver unpacked into the cache" "apt-get download dkms failed"
	}
	rm -rf "$dk"
	dpkg-deb -x "$dl"/dkms_*.deb "$dk"
	rm -rf "$dl"
	[ -x "$dk/usr/sbin/dkms" ] || bail 1 "dkms $ver unpacked into the cache" "no usr/sbin/dkms in it"
	touch "$dk/.unpacked"
	find "$cache" -maxdepth 1 -name 'dkms-*' ! -path "$dk" -exec rm -rf {} +
fi
echo "ok 1 dkms $ver (Debian's, unpacked into the cache, not installed)"

# A fresh root for dkms's trees, and the package as a user has it: the
# files git knows (tracked, or new and not ignored), without build/.
rm -rf "$d"
mkdir -p "$d/bin" "$d/pkg" || exit 1
root=$d/root
# dkms.conf's MAKE compiles through ccache, as tests/kmake.sh's builds do:
# Debian's headers take ccache when DEBIAN_KERNEL_USE_CCACHE is set (their
# .kernelvariables), and dkms's trees are at the fixed path
# $cache/kbuild/dkms-SPEC (build/stock-SPEC/dkms/root links to it), held
# under a lock for the run: kbuild puts the build folder's absolute path on
# every compile's command line, and a folder in the clone differs from one
# clone to the next. (Not a symlink to the clone's folder, as kmake.sh
# has: dkms then takes an installed module for one it did not install.)
if command -v ccache >/dev/null; then
	mkdir -p "$cache/kbuild" || exit 1
	exec 9>"$cache/kbuild/dkms-$spec.lock"
	flock 9 || exit 1
	rm -rf "$cache/kbuild/dkms-$spec" && ln -s "$cache/kbuild/dkms-$spec" "$root" || exit 1
	root=$cache/kbuild/dkms-$spec
	export DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=$cache/ccache CCACHE_DEPEND=true
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
fi
mkdir -p "$root/usr/src" "$root/var/lib/dkms" "$root/lib/modules/$kver" || exit 1
# The kernel as its package installed it, modules aside.
cp "$out"/modules/modules.* "$root/lib/modules/$kver/"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		cpio -pdm0 --quiet "$d/pkg")
else
	(cd "$top" && tar -c --exclude=./build --exclude=./.git . | tar -x -C "$d/pkg")
fi
ln -s "$(command -v ${cross}strip)" "$d/bin/strip"
if [ "$(id -u)" -ne 0 ]; then
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' >"$d/bin/id"
	chmod +x "$d/bin/id"
fi
pkg_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$d/pkg/dkms.conf")

# dkms ACTION ARGS...: the unpacked dkms on our trees; its output to stdout
dkms() {
	env PATH="$d/bin:$PATH" ARCH=powerpc CROSS_COMPILE=$cross \
		sign_file="$hdrs/scripts/sign-file" \
		mok_signing_key="$root/var/lib/dkms/mok.key" \
		mok_certificate="$root/var/lib/dkms/mok.pub" \
		bash "$dk/usr/sbin/dkms" "$@" --dkmstree "$root/var/lib/dkms" \
		--sourcetree "$root/usr/src" --installtree "$root/lib/modules" \
		--no-depmod 2>&1
}
# step ACTION ARGS...: the same, its output into $d/dkms.log (one step's)
step() { dkms "$@" >"$d/dkms.log"; }
status() { dkms status htmtrace/"$pkg_ver"; }
mv=htmtrace/$pkg_ver
tree=$root/var/lib/dkms/htmtrace/$pkg_ver

if step add "$d/pkg" && [ -f "$root/usr/src/htmtrace-$pkg_ver/dkms.conf" ] &&
	[ "$(readlink "$tree/source")" = "$root/usr/src/htmtrace-$pkg_ver" ] &&
	[ "$(status)" = "htmtrace/$pkg_ver: added" ]; then
	echo "ok 2 dkms add: the tree copied to usr/src/htmtrace-$pkg_ver, htmtrace/$pkg_ver added"
else
	echo "not ok 2 dkms add: the tree copied to usr/src/htmtrace-$pkg_ver, htmtrace/$pkg_ver added"
	show "$d/dkms.log"
	exit 1
fi

# dkms runs dkms.conf's MAKE as it is (no W=1): any warning in its make.log
# still fails, and so does a module that is not where dkms.conf says.
built=$tree/$kver/ppc64le/module
if step build "$mv" -k "$kver" -a ppc64le --kernelsourcedir "$hdrs" -j 2 &&
	[ "$(cd "$built" && ls)" = htmtrace.ko ] &&
	! grep -qE 'warning:|error:|WARNING:|ERROR:' "$tree/$kver/ppc64le/log/make.log" &&
	[ "$(status)" = "htmtrace/$pkg_ver, $kver, ppc64le: built" ]; then
	echo "ok 3 dkms build for $kver against its stock headers: htmtrace.ko alone, make.log clean"
	grep -E '^Sign|^Signing|^Public' "$d/dkms.log" | sed 's/^/# /'
else
	echo "not ok 3 dkms build for $kver against its stock headers: htmtrace.ko alone, make.log clean"
	show "$d/dkms.log"
	[ ! -f "$tree/build/make.log" ] || show "$tree/build/make.log"
	[ ! -f "$tree/$kver/ppc64le/log/make.log" ] || show "$tree/$kver/ppc64le/log/make.log"
	exit 1
fi

# Installed where dkms.conf says (DEST_MODULE_LOCATION), as the dkms of the
# distribution running it reads that: Debian's and Ubuntu's put every module
# in updates/dkms/ whatever dkms.conf says, others honour it. Nothing else
# is installed. depmod (which dkms would run on the host's /lib/modules),
# on the install tree, finds every symbol the module needs in the kernel's
# Module.symvers.
dest=$(sed -n 's/^DEST_MODULE_LOCATION\[0\]="\/*\(.*\)"/\1/p' "$d/pkg/dkms.conf")
# shellcheck disable=SC1091 # the host's
case $(. /etc/os-release 2>/dev/null && echo "$ID") in
debian | ubuntu) dest=updates/dkms ;;
esac
lib=$root/lib/modules/$kver
m=$lib/$dest/htmtrace.ko
t="dkms install: lib/modules/$kver/$dest/htmtrace.ko and nothing else; depmod resolves every symbol"
if step install "$mv" -k "$kver" -a ppc64le --kernelsourcedir "$hdrs" &&
	[ "$(cd "$lib" && find . -type f ! -name 'modules.*')" = "./$dest/htmtrace.ko" ] &&
	[ "$(status)" = "htmtrace/$pkg_ver, $kver, ppc64le: installed" ] &&
	depmod -b "$root" -e -E "$hdrs/Module.symvers" "$kver" >"$d/depmod.log" 2>&1 &&
	[ ! -s "$d/depmod.log" ] && grep -q "^$dest/htmtrace.ko:" "$lib/modules.dep"; then
	echo "ok 4 $t"
else
	echo "not ok 4 $t"
	show "$d/dkms.log"
	echo "# installed: $(cd "$lib" 2>/dev/null && find . -type f | tr '\n' ' ')"
	[ ! -f "$d/depmod.log" ] || show "$d/depmod.log"
	exit 1
fi

# What was installed is the production module for this kernel: its
# vermagic, no simulator (no backend parameter, no symbol_get of the
# simulator's ops), and dkms's
# signature (with the key it generated into its own tree, as on an LPAR
# whose dkms signs with /var/lib/dkms/mok.key).
info() { modinfo -F "$1" "$m" 2>/dev/null; }
if [ "$(info vermagic | cut -d' ' -f1)" = "$kver" ] &&
	${cross}nm "$m" >"$d/nm.log" && grep -q ' __this_module$' "$d/nm.log" &&
	! grep -q htmtrace_hvsim "$d/nm.log" &&
	! grep -qa -e htmtrace_hvsim_ops -e parmtype=backend: "$m" &&
	[ "$(info signer)" = "DKMS module signing key" ] && [ -f "$root/var/lib/dkms/mok.pub" ] &&
	! ${cross}readelf -S "$m" | grep -q '\.debug_info'; then
	echo "ok 5 the installed module: vermagic $kver, production (no simulator backend), stripped, signed with dkms's key"
	cp "$m" "$ko"
else
	echo "not ok 5 the installed module: vermagic $kver, production (no simulator backend), stripped, signed with dkms's key"
	echo "# vermagic: $(info vermagic); signer: $(info signer)"
	grep -E 'ksymtab|hvsim' "$d/nm.log" | sed 's/^/# nm: /'
	${cross}readelf -S "$m" | grep -c '\.debug' | sed 's/^/# debug sections: /'
	exit 1
fi

# And out again: nothing of ours left in the install tree or dkms's.
if step uninstall "$mv" -k "$kver" -a ppc64le &&
	[ -z "$(cd "$lib" && find . -name 'htmtrace*')" ] &&
	step remove "$mv" --all && [ ! -e "$tree" ] && [ -z "$(status)" ]; then
	echo "ok 6 dkms uninstall and remove: nothing of htmtrace left in lib/modules/$kver or dkms's tree"
else
	echo "not ok 6 dkms uninstall and remove: nothing of htmtrace left in lib/modules/$kver or dkms's tree"
	show "$d/dkms.log"
	exit 1
fi
