#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2154 # apt's $(FIELD) placeholders, bash -c scripts; $stderr is bats' (run --separate-stderr)
# tests/debian.sh takes the Debian archive the host's apt reads (a local
# mirror, a proxy's URI) for the cache's own apt (foreign_apt), never an
# address of its own. Run against a fake apt configuration (APT_CONFIG: its
# own sources and lists, read by the real apt-get) whose Debian archive is
# a mirror behind a proxy's port; only `apt-get update` is a stand-in (no
# network).

bats_require_minimum_version 1.5.0

MIRROR=http://apt-proxy.example:3142/debian

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	fake=$BATS_TEST_TMPDIR/apt
	mkdir -p "$fake/lists/partial" "$BATS_TEST_TMPDIR/bin"
	cat > "$fake/apt.conf" <<-EOF
	Dir::Etc::SourceList "$fake/sources.list";
	Dir::Etc::SourceParts "/dev/null";
	Dir::State::Lists "$fake/lists";
	EOF
	export APT_CONFIG=$fake/apt.conf
	# apt-get update: logged, never run; all else is the real apt-get
	cat > "$BATS_TEST_TMPDIR/bin/apt-get" <<-'EOF'
	#!/bin/sh
	case " $* " in
	*" update "*) echo "apt-get $*" >> "$APT_LOG"; exit 0 ;;
	esac
	exec /usr/bin/apt-get "$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/apt-get"
	export APT_LOG=$BATS_TEST_TMPDIR/apt.log PATH=$BATS_TEST_TMPDIR/bin:$PATH
	unset HTMTRACE_DEBIAN_MIRROR
	cache=$BATS_TEST_TMPDIR/cache
}

# archive URI SUITE ORIGIN LABEL: the fake host's apt reads SUITE from URI,
# and has its lists (a Release file that says ORIGIN and LABEL, an empty
# Packages index), as after an apt-get update
archive() {
	local uri=${1%/} f
	echo "deb $uri $2 main" >> "$fake/sources.list"
	f=$(sed -e 's#^[a-z]*://##' -e 's#/#_#g' <<<"$uri/dists/$2")
	printf 'Origin: %s\nLabel: %s\nSuite: %s\nCodename: %s\nArchitectures: amd64\nComponents: main\n' \
		"$3" "$4" "$2" "$2" > "$fake/lists/${f}_InRelease"
	: > "$fake/lists/${f}_main_binary-amd64_Packages"
}

# foreign: foreign_apt of tests/debian.sh in this cache; then the URIs the
# cache's own apt would fetch its indexes from (the real apt-get)
foreign() {
	bash -c '
		cache=$1; who() { echo t; }; . "$2/tests/debian.sh"
		foreign_apt || exit
		/usr/bin/apt-get "${FAPT[@]}" --print-uris update | sed -n "s/^.\([^ ]*\). .*/\1/p"' \
		_ "$cache" "$TOP"
}

@test "mirror: the host's Debian archive (a mirror behind a proxy) is the one the cache's apt reads" {
	archive http://apt-proxy.example:3142/debian-security bookworm-security Debian Debian-Security
	archive "$MIRROR/" bookworm Debian Debian
	archive http://apt-proxy.example:3142/debian bookworm-updates Debian Debian
	# the host's apt sees them (the real apt-get, the fake configuration)
	run -0 apt-get indextargets --format '$(LABEL) $(REPO_URI)'
	[[ $output == *"Debian $MIRROR/"* ]]
	run --separate-stderr foreign
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(cat "$cache/apt-foreign/sources.list")" = "deb [arch=amd64] $MIRROR trixie main
deb [arch=amd64,ppc64el] $MIRROR trixie-backports main
deb [arch=ppc64el] $MIRROR sid main" ]
	# every index the cache's apt fetches is the mirror's: 3 InRelease,
	# trixie's amd64 and binary-all, backports' 3, sid's 2
	[ "${#lines[@]}" -eq 10 ]
	[ "$(grep -vc "^$MIRROR/dists/\(trixie\|trixie-backports\|sid\)/" <<<"$output")" -eq 0 ]
	grep -qx "$MIRROR/dists/trixie-backports/main/binary-ppc64el/Packages.xz" <<<"$output"
	grep -qx "$MIRROR/dists/sid/InRelease" <<<"$output"
	# the update ran once, on the cache's own sources, and said from where
	[ "$(grep -c "update" "$APT_LOG")" -eq 1 ]
	grep -q -- "-o Dir::Etc::SourceList=$cache/apt-foreign/sources.list " "$APT_LOG"
	[[ $stderr == *"updating the lists of trixie, trixie-backports and sid from $MIRROR (the cache's own apt)"* ]]
}

@test "mirror: another mirror is taken at once (its lists fetched anew, not after the hour)" {
	archive "$MIRROR" bookworm Debian Debian
	run -0 foreign
	[ "$(grep -c update "$APT_LOG")" -eq 1 ]
	# unchanged: within the hour, no update
	run -0 foreign
	[ "$(grep -c update "$APT_LOG")" -eq 1 ]
	: > "$fake/sources.list"
	rm "$fake"/lists/*_*
	archive http://mirror.example/pub/debian bookworm Debian Debian
	run -0 --separate-stderr foreign
	echo "$output"
	[ "$(grep -c update "$APT_LOG")" -eq 2 ]
	[ "$(grep -vc '^http://mirror\.example/pub/debian/dists/' <<<"$output")" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
}

@test "mirror: HTMTRACE_DEBIAN_MIRROR is taken over the host's apt" {
	archive "$MIRROR" bookworm Debian Debian
	HTMTRACE_DEBIAN_MIRROR=http://local.example/debian/ run -0 --separate-stderr foreign
	echo "$output"
	[ "$(grep -vc '^http://local\.example/debian/dists/' <<<"$output")" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
}

@test "mirror: a host whose apt reads no Debian archive: an error that says what to do, nothing fetched" {
	archive http://apt-proxy.example:3142/debian-security bookworm-security Debian Debian-Security
	archive http://apt.example/repo stable Example Example
	run --separate-stderr foreign
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "t: the host's apt reads no Debian archive (apt-get indextargets names no index whose Release says Origin: Debian, Label: Debian): run apt-get update, or name a mirror in HTMTRACE_DEBIAN_MIRROR" ]
	[ ! -e "$cache/apt-foreign/sources.list" ]
	[ ! -e "$APT_LOG" ]
}

@test "mirror: no archive's address in the harness's code (tests/ but the .bats files, Makefile)" {
	run -1 grep -rnE 'https?://[A-Za-z0-9.-]+/debian' --exclude='*.bats' "$TOP/tests" "$TOP/Makefile"
	echo "$output"
	[ -z "$output" ]
}
