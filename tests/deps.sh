#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build and the tests need, from Debian's archive, when it is
# missing, without ever harming the host:
#
#   - host packages (amd64 or architecture "all") are installed with apt-get,
#     but only after a dry run shows that apt would remove or replace nothing;
#   - ppc64el packages are never installed: the guest's busybox and the guest
#     tool's libkmod (headers, libkmod.so and the libraries it needs) are
#     downloaded with `apt-get download` and unpacked with `dpkg-deb -x` into
#     the cache, $HTMTRACE_CACHE/ppc64el-<hash>/. A ppc64el busybox-static
#     installed on the host would replace /bin/busybox, which initramfs-tools
#     copies into the host's next initramfs.
#
#   tests/deps.sh            install and unpack what is missing
#   tests/deps.sh --sysroot  the same, then print the ppc64el folder
#   tests/deps.sh --perf     the same, and mainline perf as Debian sid
#                            builds it (linux-perf, ppc64el: 7.2 today, the
#                            first with a vpa_dtl decoder) with every library
#                            it loads, sid's own C library included, unpacked
#                            into a folder of its own in the cache (through
#                            the cache's own apt, tests/debian.sh); print
#                            that folder
#
# Idempotent and quiet when everything is present. Needs root only when
# something must be installed (`dpkg --add-architecture ppc64el` and apt-get).
#
# A check takes about 3 s of CPU (a dpkg-query a package, apt's cache for
# the ppc64el versions): make check runs it once and exports the folder it
# printed as HTMTRACE_DEPS_SYSROOT, and the scripts it runs (the builds,
# each guest's initramfs, the stock kernels) then take that folder without
# checking again.
set -euo pipefail

cache=${HTMTRACE_CACHE:-$HOME/.cache/htmtrace}
if [ -n "${HTMTRACE_DEPS_SYSROOT:-}" ] && [ -f "$HTMTRACE_DEPS_SYSROOT/.unpacked" ]; then
	case ${1:-} in
	'') exit 0 ;;
	--sysroot) echo "$HTMTRACE_DEPS_SYSROOT"; exit 0 ;;
	esac
fi

# kmod: depmod, which indexes the installed module of host-tool.bats' load
# tests (a real Debian system has it; a minimal container may not).
# dwarves: pahole, which kbuild runs on every module built against Debian's
# stock 6.12 headers (CONFIG_DEBUG_INFO_BTF_MODULES; tests/stock.sh).
# And the linter of host-completion.bats's check of the bash completion: shellcheck.
# librsvg2-bin: rsvg-convert, the real renderer host-dtlplot.bats draws
# dtl report's SVG with (and make dtl-picture).
# ccache: the module builds' compiles, shared by every clone (tests/kmake.sh).
# patchelf: Debian 13's compiler and kbuild tools, unpacked into the cache,
# made to run with Debian 13's own C library (tests/toolchain.sh).
host_pkgs=(make gcc libc6-dev gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	   qemu-system-ppc linux-source-6.12 bats flex bison bc libelf-dev
	   libssl-dev cpio xz-utils python3 perl sparse libkmod-dev pkg-config
	   kmod dwarves shellcheck librsvg2-bin ccache patchelf)
# Unpacked for the guest, never installed. libkmod2's dependencies are here
# because the guest tool loads them; libc comes from libc6-dev-ppc64el-cross.
ppc_pkgs=(busybox-static libkmod-dev libkmod2 liblzma5 libssl3 libzstd1)
# Mainline perf as Debian sid builds it, and every library it loads, for
# perf.bats: a perf client no one here wrote, whose `perf script` decodes
# vpa_dtl AUX data (tools/perf/util/powerpc-vpadtl.c, from 6.18), run in the
# debug guest from the folder mounted at /host. All from sid: its perf needs
# sid's C library. Kept by hand: a new dependency fails the closure check
# below, by name, not the guest. libpython is linked (perf script -s); its
# .so is enough to run perf, which starts Python only for a script.
perf_pkgs=(linux-perf libc6 libgcc-s1 libstdc++6 libopencsd1 zlib1g libelf1t64
	   libdw1t64 libdebuginfod1t64 libslang2 libpython3.14 liblzma5 libzstd1
	   libnuma1 libtraceevent1 libbz2-1.0 libexpat1 libjson-c5
	   libcurl4-gnutls libbrotli1 libnghttp2-14 libnghttp3-9 libngtcp2-16
	   libngtcp2-crypto-gnutls8 libpsl5t64 libssh2-1t64 libssl3t64 libidn2-0
	   libunistring5 libldap2 libsasl2-2 libgssapi-krb5-2 libkrb5-3
	   libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1 libgnutls30t64
	   libnettle8t64 libhogweed6t64 libgmp10 libp11-kit0 libffi8 libtasn1-6)

die() { echo "deps: $*" >&2; exit 1; }
who() { echo deps; }
# shellcheck source=tests/debian.sh
. "$(dirname "$0")/debian.sh"
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'; }
as_root() { [ "$(id -u)" -eq 0 ] || die "$1 (run as root, or do it yourself)"; }
apt_updated=0
# perf_closure ROOT: "SONAME PATH" for each shared library ROOT/usr/bin/perf
# loads, directly or through another; PATH is empty if ROOT does not hold it
perf_closure() {
	local todo=("$1/usr/bin/perf") seen=" " f so d found
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]} todo=("${todo[@]:1}")
		for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $so "*) continue ;; esac
			seen+="$so "
			found=
			for d in lib/powerpc64le-linux-gnu usr/lib/powerpc64le-linux-gnu; do
				[ -e "$1/$d/$so" ] && found=$1/$d/$so && break
			done
			echo "$so $found"
			[ -z "$found" ] || todo+=("$found")
		done
	done
}
# apt_update: once, apt-get update as tests/debian.sh makes it: retried, and
# an index that still fails named and left out
apt_update() {
	[ $apt_updated -eq 1 ] && return
	apt_update_tolerant
	apt_updated=1
}

# apt_suites [ARCH]: the suites the host's apt reads (for ARCH), for messages
apt_suites() {
	apt-cache policy 2>/dev/null | awk -v a="${1:-}" '/ Packages$/ && (a == "" || $0 ~ " " a " ") {
		s = $3; sub(/\/.*/, "", s); if (!(s in seen)) { seen[s]; l = l (l ? ", " : "") s } }
		END { print l }'
}

# --- host packages ---------------------------------------------------------
need=()
for p in "${host_pkgs[@]}"; do
	installed "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	as_root "missing host packages: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt_update
	# A dry run first: apt may upgrade what the new packages depend on, but
	# it may neither remove a package ("Remv") nor bring in a foreign one
	# (apt names only a foreign-architecture package with its :ARCH).
	if ! plan=$(apt-get install -s -q --no-install-recommends "${need[@]}" 2>&1); then
		echo "deps: apt-get cannot install ${need[*]} from the lists it has:" >&2
		apt_errors <<<"$plan" >&2
		die "a package make check needs cannot be found (looked in: $(apt_suites))"
	fi
	bad=$(grep -E '^Remv |^Inst [^ ]+:[^ ]+ ' <<<"$plan" || true)
	if [ -n "$bad" ]; then
		echo "deps: installing ${need[*]} would remove or add foreign packages:" >&2
		sed 's/^/deps:   /' <<<"$bad" >&2
		die "refusing; install the packages yourself if that is what you want"
	fi
	echo "deps: installing ${need[*]}" >&2
	try=1
	while ! out=$(apt-get install -y -q -o Acquire::Retries=2 --no-install-recommends "${need[@]}" 2>&1); do
		delay=$(retry_delay "$try") || {
			apt_errors <<<"$out" >&2
			die "apt-get install ${need[*]} failed"
		}
		echo "deps: apt-get install failed (try $try), again in $delay s:" >&2
		apt_errors <<<"$out" >&2
		sleep "$delay"
		try=$((try + 1))
	done
fi

# --- ppc64el packages, unpacked into the cache -----------------------------
dpkg --print-foreign-architectures | grep -qx ppc64el || {
	as_root "apt does not know the ppc64el architecture"
	dpkg --add-architecture ppc64el
	apt_updated=0
}

# unpack PREFIX PKG...: unpack the ppc64el packages PKG... into
# $cache/PREFIX-<hash of their names and versions>/ (unless done), remove
# older unpackings with the same PREFIX, and set $root to the folder.
# (One apt-cache run for them all: it loads the package cache each time.)
versions() {
	apt-cache policy "${@/%/:ppc64el}" 2>/dev/null |
		awk -v want="$*" '/^[^ ].*:ppc64el:$/ { p = substr($0, 1, length($0) - 9) }
			/^  Candidate: / { v[p] = $2 }
			END { n = split(want, w, " ")
			      for (i = 1; i <= n; i++) print (w[i] in v) ? v[w[i]] : "(none)" }'
}
dl=
trap '[ -z "$dl" ] || rm -rf "$dl"' EXIT
unpack() {
	local prefix=$1 vers p
	shift
	vers=$(versions "$@")
	if grep -qx '(none)' <<<"$vers" || [ "$(grep -c . <<<"$vers")" -ne $# ]; then
		as_root "apt has no ppc64el package lists yet"
		apt_update
		vers=$(versions "$@")
	fi
	root=$cache/$prefix-$(printf '%s\n' "$@" "$vers" | sha256sum | cut -c1-12)
	[ -f "$root/.unpacked" ] && return
	mkdir -p "$cache"
	dl=$(mktemp -d "$cache/.debs.XXXXXX")
	echo "deps: unpacking $* (ppc64el) into $root" >&2
	for p in "$@"; do
		APT_LOOKED_IN=$(apt_suites ppc64el) deb_download "$dl" "$p:ppc64el" >/dev/null ||
			die "$p (ppc64el) cannot be had: nothing can be built for the guest"
	done
	deb_unpack "$dl" "$root" || die "the ppc64el packages did not unpack into $root"
	rm -rf "$dl"
	dl=
	touch "$root/.unpacked"
	find "$cache" -maxdepth 1 -name "$prefix-*" ! -path "$root" -exec rm -rf {} +
}

# unpack_perf: sid's perf_pkgs (ppc64el) into $cache/perf-sid-<hash of the
# versions sid lists>/ (unless done), through the cache's own apt; older
# unpackings removed; $root set to the folder. The newest version sid
# serves of each (one listed but not served gives way to the next).
unpack_perf() {
	local vers
	foreign_apt || die "the cache's own apt (for sid's perf) could not be set up"
	vers=$(apt-cache "${FAPT[@]}" madison "${perf_pkgs[@]/%/:ppc64el}" 2>/dev/null | grep ' sid/')
	root=$cache/perf-sid-$(sha256sum <<<"$vers" | cut -c1-12)
	[ -f "$root/.unpacked" ] && return
	mkdir -p "$cache"
	dl=$(mktemp -d "$cache/.debs.XXXXXX")
	echo "deps: unpacking sid's perf and the libraries it loads (ppc64el) into $root" >&2
	DEB_SUITE=sid deb_download_all "$dl" "${perf_pkgs[@]/%/:ppc64el}" -- "${FAPT[@]}" ||
		die "sid's perf (ppc64el) or a library it loads cannot be had: perf.bats cannot run"
	deb_unpack "$dl" "$root" || die "sid's perf did not unpack into $root"
	dpkg-deb -f "$dl"/linux-perf_*.deb Version > "$root/linux-perf.version"
	rm -rf "$dl"
	dl=
	touch "$root/.unpacked"
	find "$cache" -maxdepth 1 \( -name 'perf-sid-*' -o -name 'perf-ppc64el-*' \) ! -path "$root" -exec rm -rf {} +
}

unpack ppc64el "${ppc_pkgs[@]}"
[ -x "$root/bin/busybox" ] || die "busybox-static:ppc64el has no /bin/busybox"

case ${1:-} in
--sysroot)
	echo "$root"
	;;
--perf)
	unpack_perf
	# What the guest copies to its tmpfs (perf loads from there in a
	# sixth of the time it takes over 9p): perf, and every library it
	# loads under its soname.
	if [ ! -f "$root/guest/.done" ]; then
		rm -rf "$root/guest"
		mkdir "$root/guest"
		cp "$root/usr/bin/perf" "$root/linux-perf.version" "$root/guest/"
		missing=
		while read -r so path; do
			if [ -n "$path" ]; then
				cp -L "$path" "$root/guest/$so"
			else
				missing+=" $so"
			fi
		done < <(perf_closure "$root")
		[ -z "$missing" ] || die "sid's perf needs, not unpacked (add its package to perf_pkgs):$missing"
		touch "$root/guest/.done"
	fi
	echo "$root"
	;;
esac
exit 0
