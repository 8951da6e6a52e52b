#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the driver against a stock Debian ppc64el kernel's headers, as DKMS
# on a user's LPAR would, and print TAP. The headers (and the amd64 kbuild
# tools their scripts/ link to) are downloaded and unpacked into the cache,
# never installed.
#
#   tests/stock.sh SPEC [--boot]
#
#   SPEC     6.1        the newest linux-headers-6.1.0-*-powerpc64le
#            6.12       the newest 6.12 (6.12.N+debNN), 4 KiB pages
#            6.12-64k   the same, the powerpc64le-64k flavour (64 KiB pages)
#            7          the newest 7.x of Debian 13 (trixie-backports,
#                       7.X.N+deb13) whose packages are served: a version
#                       listed before its ppc64el packages are served
#                       gives way to the next one down
#            7.2        the same, of the 7.2 series only
#   --boot   also the kernel itself (vmlinux, out of linux-image-*: only its
#            /boot is unpacked) and the guest tool and helpers, for a QEMU
#            pseries guest of that kernel (tests/check.sh boots it)
#
# The production build and the test build (with the simulator; the stock
# kernels have no KUnit, so no KUnit module) must both build W=1 without a
# warning, modpost included: whatever that kernel lacks (an export, a
# function) shows up here, not as an unresolved symbol at insmod. The
# production build must be htmtrace.ko alone, exporting nothing the
# simulator could hook into.
#
# Into build/stock-SPEC/ (the cache holds only what came out of the .debs):
#   headers  -> the flavour's headers (kernel_source_dir for DKMS)
#   kver        the kernel release, e.g. 6.12.57+deb12-powerpc64le-64k
#   prod/ test/ the two module builds (kbuild's M=), prod.log test.log
#   guest/      with --boot: the test modules, the tool and the guest helpers
#               (HTMTRACE_BUILD_DIR of the stock guest)
#   vmlinux  -> with --boot: the stock kernel (HTMTRACE_KERNEL)
#   modules  -> with --boot: its /lib/modules/KVER: modules.order, .builtin,
#               .builtin.modinfo (none of the modules)
set -uo pipefail

spec=${1:-6.1}
boot=
[ "${2:-}" = --boot ] && boot=1
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}

# foreign: the suite of another Debian release the kernel comes from (the
# cache's own apt, tests/debian.sh), built with that release's compiler
# (tests/toolchain.sh); abi_re: the ABIs of the series taken.
foreign='' abi_re='(-[0-9]+|\+deb[0-9]+)'
case $spec in
6.1 | 6.12) series=$spec suffix=powerpc64le ;;
6.12-64k) series=6.12 suffix=powerpc64le-64k ;;
7 | 7.2) series=$spec suffix=powerpc64le foreign=trixie-backports abi_re='\+deb13' ;;
*) echo "usage: $0 6.1|6.12|6.12-64k|7|7.2 [--boot]" >&2; exit 2 ;;
esac

echo "1..$([ -n "$boot" ] && echo 5 || echo 3)"
bail() {
	echo "not ok $1 $2"
	shift 2
	[ $# -eq 0 ] || printf '# %s\n' "$@"
	exit 1
}
# unavailable REASON: no version of this kernel can be had today: not a
# failure of the driver, and no test ran (tests/check.sh reports the lane
# as not run, with REASON, without failing the check)
unavailable() {
	echo "# unavailable: $*"
	exit 3
}

what="Debian's $([ "$spec" = 7 ] && echo 7.x || echo "$spec") kernel headers${boot:+ and image}"
# (deps.sh takes seconds: once.)
"$top/tests/deps.sh" >&2 || bail 1 "$what" "deps.sh failed"
who() { echo "stock $spec"; }
# shellcheck source=tests/debian.sh
. "$top/tests/debian.sh"
apto=() toolchain=
if [ -n "$foreign" ]; then
	foreign_apt || bail 1 "$what" "the cache's own apt could not be set up"
	apto=("${FAPT[@]}")
	export DEB_SUITE=$foreign
	toolchain=$("$top/tests/toolchain.sh") ||
		bail 1 "$what" "no compiler for Debian 13's kernels (tests/toolchain.sh)"
	# Debian 13's headers name gcc-14 (and pahole 1.30): the unpacked ones
	export PATH=$toolchain/usr/bin:$PATH HTMTRACE_KCC=powerpc64le-linux-gnu-gcc-14
fi

dl=
# take NAME ARCH: download NAME (ARCH; "all" for the -common headers) into
# $dl, the newest version served; where no list names it (its index is
# unusable today), by its pool path beside the -common headers of $abi.
# 0: done; 2: not served; 1: failed.
take() {
	local pkg=$1 rc
	[ "$2" = all ] || pkg+=:$2
	deb_download "$dl" "$pkg" "${apto[@]}" >/dev/null
	rc=$?
	# listed (served or not), or failed otherwise: that is the answer
	if [ $rc -ne 2 ] || [ -n "$(deb_versions "$pkg" "${apto[@]}")" ]; then
		return $rc
	fi
	# named by no list: the index that would is unusable today
	deb_pool_get "$dl" "linux-headers-$abi-common" "$1" "$2" "${apto[@]}" >/dev/null || return 2
}

# fetch: the headers (and with --boot the kernel) of $kver into $root
fetch() {
	local deps common kbuild lm img
	rm -f "$dl"/*.deb
	if [ ! -f "$root/.unpacked" ]; then
		take "linux-headers-$kver" ppc64el || return
		# The -common headers and the kbuild tools (amd64: they run
		# here) are the ones the flavour's package depends on.
		deps=$(dpkg-deb -f "$dl"/linux-headers-"$kver"_*.deb Depends | tr ',' '\n')
		common=$(sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p' <<<"$deps" | head -n 1)
		kbuild=$(sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' <<<"$deps" | head -n 1)
		if [ -z "$common" ] || [ -z "$kbuild" ]; then
			bail 1 "$what ($kver)" "linux-headers-$kver names no -common or kbuild package"
		fi
		take "$common" all && take "${kbuild%:*}" amd64 || return
		rm -rf "$root"
		mkdir -p "$root"
		for deb in "$dl"/*.deb; do
			dpkg-deb -x "$deb" "$root"
		done
		rm -f "$dl"/*.deb
		# The flavour's Makefile names the common one, and (7.2) its
		# own folder, by their /usr/src paths.
		sed -i -E "s#^(include |KBUILD_OUTPUT=)/usr/src/#\1$root/usr/src/#" "$hdrs/Makefile"
		if [ -n "$toolchain" ]; then
			"$top/tests/toolchain.sh" --patch "$root/usr/lib" ||
				bail 1 "$what ($kver)" "the kbuild tools could not be made to run here"
		fi
		touch "$root/.unpacked"
	fi
	if [ -n "$boot" ] && [ ! -f "$root/.image" ]; then
		if [ -n "$foreign" ]; then
			# 7.2: the kernel is linux-binary-* (its vmlinuz is the
			# ELF vmlinux); its modules are never loaded.
			take "linux-binary-$kver" ppc64el || return
			img=./usr/lib/modules/$kver/vmlinuz
			mkdir -p "$root/boot"
			dpkg-deb --fsys-tarfile "$dl"/linux-binary-"$kver"_*.deb |
				tar -x -O "$img" > "$vmlinux" ||
				bail 1 "$what ($kver)" "linux-binary-$kver has no $img"
		else
			# The kernel alone: its modules (3900 files) are never
			# loaded, since the guest's initramfs has none of them.
			take "linux-image-$kver" ppc64el || return
			# And the kernel's module lists, which depmod reads on
			# the LPAR where DKMS installs (tests/dkms.sh).
			lm=./lib/modules/$kver
			dpkg-deb --fsys-tarfile "$dl"/linux-image-"$kver"_*.deb | tar -x -C "$root" ./boot/ \
				"$lm/modules.order" "$lm/modules.builtin" "$lm/modules.builtin.modinfo" ||
				bail 1 "$what ($kver)" "linux-image-$kver has no /boot or module lists"
		fi
		[ -s "$vmlinux" ] || bail 1 "$what ($kver)" "no /boot/vmlinux-$kver"
		touch "$root/.image"
	fi
}

# Every ABI of the series apt lists, newest first (6.1.0-57, 6.12.57+deb12,
# 7.2.11+deb13): the first one cached or served is taken; one listed but not
# served (404) gives way to the next.
abis=$(apt-cache "${apto[@]}" search --names-only "^linux-headers-${series//./\\.}\.[0-9.]+$abi_re-common\$" 2>/dev/null |
	sed -n 's/^linux-headers-\([^ ]*\)-common .*/\1/p' | sort -Vr)
[ -n "$abis" ] || unavailable "apt lists no linux-headers-$series.*-common${foreign:+ in $foreign}"
mkdir -p "$cache"
dl=$(mktemp -d "$cache/.debs.XXXXXX")
trap 'rm -rf "$dl"' EXIT
kver='' tried=''
for abi in $abis; do
	kver=$abi-$suffix
	root=$cache/stock-$kver
	hdrs=$root/usr/src/linux-headers-$kver
	vmlinux=$root/boot/vmlinux-$kver
	fetch && break
	[ $? -eq 2 ] || bail 1 "$what ($kver)" "downloading it failed (above)"
	echo "$(who): $kver is not served today; trying the next one down" >&2
	tried+=" $kver" kver=
done
[ -n "$kver" ] || unavailable "no $series kernel${foreign:+ of $foreign} is served today (tried:$tried)"
[ -z "$tried" ] || echo "# not served today:$tried; took $kver"
# Older ABIs of the same flavour are of no further use.
find "$cache" -maxdepth 1 -name "stock-$series.*-$suffix" ! -path "$root" -exec rm -rf {} +
out=$top/build/stock-$spec
mkdir -p "$out"
ln -sfn "$hdrs" "$out/headers"
echo "$kver" >"$out/kver"
if [ -n "$boot" ]; then
	ln -sfn "$vmlinux" "$out/vmlinux"
	[ -n "$foreign" ] || ln -sfn "$root/lib/modules/$kver" "$out/modules"
fi
echo "ok 1 $what ($kver), unpacked into the cache"

# build NAME MAKE-ARGS...: into $out/NAME; true if nothing warned
build() {
	local name=$1
	shift
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	cp -a "$top/Kbuild" "$top/module" "$top/uapi" "$top/kunit" "$out/$name/"
	"$top/tests/kmake.sh" "stock-$spec-$name" "$hdrs" "$out/$name" W=1 "$@" modules > "$out/$name.log" 2>&1 &&
		! grep -qE 'warning:|error:|WARNING:|ERROR:' "$out/$name.log"
}
if build prod && build test HTMTRACE_TEST=y; then
	echo "ok 2 production and test builds against $kver: W=1 and modpost clean"
else
	echo "not ok 2 production and test builds against $kver: W=1 and modpost clean"
	cat "$out"/prod.log "$out"/test.log 2>/dev/null |
		grep -E 'warning:|error:|WARNING:|ERROR:|\*\*\*|not found' | head -n 20 | sed 's/^/# /'
	exit 1
fi

# What each build made, and whether its htmtrace.ko can take the simulator
# (the backend parameter, and symbol_get() of the simulator's ops, which
# the simulator exports).
kos() { (cd "$out/$1" && ls -- *.ko 2>/dev/null | tr '\n' ' '); }
hook() {
	grep -qa -e htmtrace_hvsim_ops -e parmtype=backend: "$out/$1/htmtrace.ko" ||
		grep -qw htmtrace_hvsim_ops "$out/$1/Module.symvers"
}
if [ "$(kos prod)" = "htmtrace.ko " ] && ! hook prod &&
	[ "$(kos test)" = "htmtrace.ko htmtrace_hvsim.ko htmtrace_pmu_stub.ko " ] && hook test; then
	echo "ok 3 production build: htmtrace.ko alone, no simulator backend (the test build: with the simulator, and backend=sim)"
else
	echo "not ok 3 production build: htmtrace.ko alone, no simulator backend (the test build: with the simulator, and backend=sim)"
	echo "# production build: $(kos prod)$(hook prod && echo '(can take the simulator)')"
	echo "# test build: $(kos test)$(hook test || echo '(cannot take the simulator)')"
	exit 1
fi
[ -n "$boot" ] || exit 0

# What the test guest (tests/guest/init, tests/guest.py) needs of the kernel
# must be built in: the initramfs has none of the kernel's modules. Checked
# here, so that a Debian kernel that makes one of them a module fails with
# its name rather than as a boot that never ends. No forced signatures
# either: our modules are unsigned, or signed by DKMS's own key.
missing=
for opt in PPC_PSERIES HVC_CONSOLE BLK_DEV_INITRD DEVTMPFS TMPFS PROC_FS \
	SYSFS DEBUG_FS BINFMT_ELF BINFMT_SCRIPT MODULES MODULE_UNLOAD; do
	grep -qx "CONFIG_$opt=y" "$hdrs/.config" || missing+=" $opt"
done
grep -qx CONFIG_MODULE_SIG_FORCE=y "$hdrs/.config" && missing+=" (MODULE_SIG_FORCE is set)"
if [ -z "$missing" ]; then
	echo "ok 4 $kver has built in what the guest needs (pseries, hvc console, initramfs, devtmpfs, tmpfs, debugfs, module unload), no forced signatures"
else
	echo "not ok 4 $kver has built in what the guest needs (pseries, hvc console, initramfs, devtmpfs, tmpfs, debugfs, module unload), no forced signatures"
	echo "# not built in:$missing"
	exit 1
fi

# The guest's build folder, laid out as tests/build.sh lays out
# build/<variant>/ for tests/initramfs.sh: the test modules, and the tool
# and helpers, which do not depend on the kernel (tests/guest-tools.sh).
g=$out/guest
mkdir -p "$g"
rm -f "$g"/*.ko
cp "$out"/test/*.ko "$g/"
if "$top/tests/guest-tools.sh" "$g" >"$out/tool.log" 2>&1; then
	echo "ok 5 the guest of $kver: its vmlinux, the test modules, the tool and the guest helpers"
else
	echo "not ok 5 the guest of $kver: its vmlinux, the test modules, the tool and the guest helpers"
	sed 's/^/# /' "$out/tool.log" | tail -n 20
	exit 1
fi
