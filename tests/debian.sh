# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Debian's archive as it is on a bad day, for tests/deps.sh and
# tests/stock.sh (sourced; the caller sets $cache and defines who() to name
# itself in messages):
#
#   - an index a mirror serves mid-sync fails apt-get update, which then
#     exits 100 though every other index came: that is a warning, the
#     lists apt fetched are used, and a package found only in the broken
#     one fails later, by name (apt_update_tolerant);
#   - a version can be listed and not yet served (404): the next version
#     down is taken (deb_download);
#   - anything else that fails (a connection, a hash mid-sync) is tried
#     again after a short wait: HTMTRACE_APT_RETRY lists the waits in
#     seconds, "5 15" by default (two retries).
#
# Packages of another suite (Debian 13's kernels in trixie-backports, the
# cross compiler they were built with from trixie, mainline perf from sid)
# come through an apt of the cache's own, $cache/apt-foreign: its own
# sources, lists and state, the host's keyring. Nothing is ever installed
# from it: it only downloads (foreign_apt). Its sources name the Debian
# archive the host's own apt reads (debian_mirror): a local mirror or a
# proxy's URI there is the one used, and the rest of the host's apt
# configuration (Acquire::*::Proxy, say) applies as it is. No archive's
# address is written here.

# retry_delay TRY: the seconds to wait before try TRY + 1; false after the last
retry_delay() {
	local d
	read -r -a d <<<"${HTMTRACE_APT_RETRY-5 15}"
	[ "$1" -le ${#d[@]} ] || return 1
	echo "${d[$(($1 - 1))]}"
}

# apt_errors: apt's error and warning lines of its output on stdin, indented
# and named (the note that a download ran unsandboxed is no error)
apt_errors() {
	grep -E '^(E|W|Err):|  404  ' | grep -v 'performed unsandboxed' |
		sed "s/^/$(who):   /"
}

# apt_update_tolerant [APT-OPTION...]: apt-get update, tried again while it
# fails; what still fails after the last try is named and left out.
apt_update_tolerant() {
	local out try=1 delay
	while ! out=$(apt-get "$@" update -q 2>&1); do
		delay=$(retry_delay "$try") || break
		echo "$(who): apt-get update failed (try $try), again in $delay s:" >&2
		apt_errors <<<"$out" >&2
		sleep "$delay"
		try=$((try + 1))
	done
	if grep -qE '^(E|Err):' <<<"$out"; then
		echo "$(who): apt-get update: these indexes could not be fetched; going on with the lists apt has (what only they list fails below, by name):" >&2
		apt_errors <<<"$out" >&2
	elif [ "$try" -gt 1 ]; then
		echo "$(who): apt-get update: done on try $try" >&2
	fi
	return 0
}

# deb_versions PKG [APT-OPTION...]: the versions apt lists for PKG
# (NAME:ARCH), newest first; with DEB_SUITE set, only that suite's
deb_versions() {
	local pkg=$1
	shift
	apt-cache "$@" madison "$pkg" 2>/dev/null |
		awk -F ' [|] ' -v s="${DEB_SUITE:-}" 'NF >= 3 && (s == "" || $3 ~ (" " s "/")) {
			gsub(/^ +| +$/, "", $2)
			print $2
		}'
}

# deb_get DIR PKG VERSION [APT-OPTION...]: download PKG=VERSION into DIR,
# tried again on a failure other than 404. Status 0 done, 2 not served
# (404), 1 failed; apt's words on stderr.
deb_get() {
	local dir=$1 pkg=$2 v=$3 out try=1 delay
	shift 3
	while ! out=$(cd "$dir" && apt-get "$@" download -q "$pkg=$v" 2>&1); do
		if grep -q ' 404 ' <<<"$out"; then
			echo "$(who): $pkg $v is listed but not served (404)" >&2
			return 2
		fi
		if ! delay=$(retry_delay "$try"); then
			echo "$(who): apt-get download $pkg=$v failed:" >&2
			apt_errors <<<"$out" >&2
			return 1
		fi
		echo "$(who): apt-get download $pkg=$v failed (try $try), again in $delay s:" >&2
		apt_errors <<<"$out" >&2
		sleep "$delay"
		try=$((try + 1))
	done
	return 0
}

# deb_download DIR PKG [APT-OPTION...]: download into DIR the newest version
# of PKG (NAME:ARCH) the archive serves, print it. A version listed but not
# served gives way to the next one down. A package no list names, or of
# which no version is served, is an error that names it: status 2; any
# other failure, 1.
deb_download() {
	local dir=$1 pkg=$2 v rc vers
	shift 2
	vers=$(deb_versions "$pkg" "$@")
	if [ -z "$vers" ]; then
		echo "$(who): $pkg: no list apt has names it${APT_LOOKED_IN:+ (looked in: $APT_LOOKED_IN)}" >&2
		return 2
	fi
	for v in $vers; do
		deb_get "$dir" "$pkg" "$v" "$@"
		rc=$?
		[ $rc -eq 0 ] && { echo "$v"; return 0; }
		[ $rc -eq 2 ] || return 1
	done
	echo "$(who): $pkg: none of its listed versions is served ($(tr '\n' ' ' <<<"$vers"))" >&2
	return 2
}

# deb_unpack DIR ROOT: ROOT made anew from every .deb in DIR (dpkg-deb -x,
# nothing installed); an absolute link (libkmod.so -> /lib/...) would point
# into the host: it is made relative, so that it holds for the cross
# compiler and, shared, in the guest. Status 1 if a package did not unpack.
deb_unpack() {
	local dir=$1 root=$2 deb link
	rm -rf "$root"
	mkdir -p "$root" || return 1
	for deb in "$dir"/*.deb; do
		if ! dpkg-deb -x "$deb" "$root"; then
			echo "$(who): dpkg-deb -x $deb failed" >&2
			return 1
		fi
	done
	find "$root" -type l -lname '/*' | while read -r link; do
		ln -sfn --relative "$root$(readlink "$link")" "$link"
	done
}

# deb_download_all DIR PKG... [-- APT-OPTION...]: deb_download each PKG,
# the newest versions of all first in one apt-get (apt reads its lists
# once), then one by one what that did not bring.
deb_download_all() {
	local dir=$1 pkgs=() opts=() p v want=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pkgs+=("$1"); shift; done
	[ $# -eq 0 ] || { shift; opts=("$@"); }
	for p in "${pkgs[@]}"; do
		v=$(deb_versions "$p" "${opts[@]}" | head -n 1)
		[ -z "$v" ] || want+=("$p=$v")
	done
	(cd "$dir" && apt-get "${opts[@]}" download -q "${want[@]}" >/dev/null 2>&1)
	for p in "${pkgs[@]}"; do
		compgen -G "$dir/${p%%:*}_*.deb" >/dev/null && continue
		deb_download "$dir" "$p" "${opts[@]}" >/dev/null || return
	done
}

# deb_pool_get DIR SIBLING NAME ARCH [APT-OPTION...]: download NAME (ARCH)
# of the version and pool folder of SIBLING, a package of the same source
# that apt does list (the ppc64el kernel beside its headers' -common
# package, "all"): for a package whose own index is unusable today. The
# archive's answer is checked (the .deb's name, version and architecture),
# but no index vouches for its hash: said so.
deb_pool_get() {
	local dir=$1 sib=$2 name=$3 arch=$4 uri ver file out
	shift 4
	uri=$(apt-get "$@" download --print-uris -q "$sib" 2>/dev/null |
		sed -n "s/^'\([^']*\)' .*/\1/p" | head -n 1)
	ver=$(deb_versions "$sib" "$@" | head -n 1)
	if [ -z "$uri" ] || [ -z "$ver" ]; then
		echo "$(who): $name: no pool folder known ($sib is in no list)" >&2
		return 1
	fi
	# the archive's names as apt writes them in a URI (+ and ~ escaped)
	file=${name}_${ver#*:}_$arch.deb
	uri=${uri%/*}/$(sed 's/+/%2b/g; s/~/%7e/g' <<<"$file")
	if ! out=$("${APT_HELPER:-/usr/lib/apt/apt-helper}" download-file "$uri" "$dir/$file" 2>&1); then
		echo "$(who): $name: not served at its pool path either ($uri):" >&2
		apt_errors <<<"$out" >&2
		rm -f "$dir/$file"
		return 1
	fi
	if [ "$(dpkg-deb -f "$dir/$file" Package Version Architecture 2>/dev/null | tr '\n' ' ')" != \
		"Package: $name Version: $ver Architecture: $arch " ]; then
		echo "$(who): $name: what $uri served is not $name $ver ($arch)" >&2
		rm -f "$dir/$file"
		return 1
	fi
	echo "$(who): $name $ver taken by its pool path beside $sib (its own index is unusable; no index vouches for its hash)" >&2
	echo "$ver"
}

# debian_mirror: the URI of the Debian archive the host's apt reads, no
# trailing slash: the Repo-URI (apt-get indextargets) of the first index
# whose Release file says "Origin: Debian" and "Label: Debian" (not the
# security archive, not backports), whatever the host names it by (a local
# mirror, a proxy's URI). HTMTRACE_DEBIAN_MIRROR, when set, is taken
# instead. False, naming what to do, if the host's apt reads no such
# archive (or has never fetched its lists).
debian_mirror() {
	local uri
	if [ -n "${HTMTRACE_DEBIAN_MIRROR:-}" ]; then
		echo "${HTMTRACE_DEBIAN_MIRROR%/}"
		return 0
	fi
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
	uri=$(apt-get indextargets --format '$(ORIGIN)|$(LABEL)|$(TARGET_OF)|$(REPO_URI)' 2>/dev/null |
		awk -F '|' '$1 == "Debian" && $2 == "Debian" && $3 == "deb" && $4 != "" { print $4; exit }')
	if [ -z "$uri" ]; then
		echo "$(who): the host's apt reads no Debian archive (apt-get indextargets names no index whose Release says Origin: Debian, Label: Debian): run apt-get update, or name a mirror in HTMTRACE_DEBIAN_MIRROR" >&2
		return 1
	fi
	echo "${uri%/}"
}

# foreign_apt: set FAPT to the options of the cache's own apt for Debian 13
# (trixie: amd64; trixie-backports: ppc64el and amd64) and sid (ppc64el),
# from the archive the host's apt reads (debian_mirror), with a package
# cache of its own (the host's apt may keep none), and bring its lists up
# to date when they are older than an hour or name another archive (under
# a lock: both lanes of make check use it).
foreign_apt() {
	local root=${cache:?}/apt-foreign mirror
	mirror=$(debian_mirror) || return 1
	FAPT=(-o "Dir::Etc::SourceList=$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
	      -o "Dir::State=$root/state" -o "Dir::State::Lists=$root/lists"
	      -o "Dir::State::status=$root/state/status" -o "Dir::Cache=$root/cache"
	      -o APT::Architecture=amd64 -o APT::Architectures::=amd64
	      -o APT::Architectures::=ppc64el -o Acquire::Languages=none
	      -o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
	      -o Acquire::Retries=2)
	APT_LOOKED_IN="trixie (amd64), trixie-backports (ppc64el, amd64) and sid (ppc64el) of $mirror in $root"
	mkdir -p "$root/lists/partial" "$root/state" "$root/cache/archives/partial" || return 1
	touch "$root/state/status"
	cat > "$root/sources.list.new" <<-EOF
	deb [arch=amd64] $mirror trixie main
	deb [arch=amd64,ppc64el] $mirror trixie-backports main
	deb [arch=ppc64el] $mirror sid main
	EOF
	cmp -s "$root/sources.list.new" "$root/sources.list" ||
		{ mv "$root/sources.list.new" "$root/sources.list"; rm -f "$root/.updated"; }
	rm -f "$root/sources.list.new"
	(
		flock 9 || exit 1
		[ -n "$(find "$root/.updated" -mmin -60 2>/dev/null)" ] && exit 0
		echo "$(who): updating the lists of trixie, trixie-backports and sid from $mirror (the cache's own apt)" >&2
		apt_update_tolerant "${FAPT[@]}"
		touch "$root/.updated"
	) 9>"$root/lock"
}
