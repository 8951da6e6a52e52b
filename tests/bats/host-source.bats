#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # $stderr is bats' (run --separate-stderr)
# tests/source.sh (the modules built against Debian's newest linux-source)
# against a stand-in archive: what it cannot have today makes the step
# "unavailable" (status 3, no test reported), never a pass, and which
# config it takes when the newest one is not served.

bats_require_minimum_version 1.5.0

setup() {
	SOURCE=$BATS_TEST_DIRNAME/../source.sh
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin" "$BATS_TEST_TMPDIR/sysroot"
	touch "$BATS_TEST_TMPDIR/sysroot/.unpacked"
	# the archive: "PACKAGE VERSION ARCH" of trixie-backports, newest first
	export ARCHIVE=$BATS_TEST_TMPDIR/archive APT_LOG=$BATS_TEST_TMPDIR/apt.log
	export HTMTRACE_CACHE=$BATS_TEST_TMPDIR/cache HTMTRACE_APT_RETRY=""
	export HTMTRACE_DEPS_SYSROOT=$BATS_TEST_TMPDIR/sysroot
	export HTMTRACE_DEBIAN_MIRROR=http://mirror.example/debian
	cat > "$bin/apt-cache" <<-'EOF'
	#!/bin/bash
	while [ "${1#-}" != "$1" ]; do shift 2; done
	case $1 in
	search) awk '{ print $1 }' "$ARCHIVE" | sort -u | grep -E "$3" | sed 's/$/ - x/' ;;
	madison)
		p=${2%:*}
		awk -v p="$p" '$1 == p { printf "%10s | %10s | http://mirror.example/debian trixie-backports/main %s Packages\n", $1, $2, $3 }' "$ARCHIVE" ;;
	esac
	exit 0
	EOF
	# apt-get: downloads answer 404 for $NOT_SERVED (PKG=VERSION ...)
	cat > "$bin/apt-get" <<-'EOF'
	#!/bin/bash
	echo "apt-get $*" >> "$APT_LOG"
	# only a download fetches (into the current directory): never the
	# -o NAME=VALUE options of the other commands
	case " $* " in *" download "*) ;; *) exit 0 ;; esac
	for a in "$@"; do
		case $a in *::* | -*) continue ;; *=*) ;; *) continue ;; esac
		case " $(echo $NOT_SERVED) " in *" ${a%%:*}=${a#*=} "* | *" $a "*)
			echo "E: Failed to fetch http://mirror.example/debian/pool/main/l/linux/x.deb  404  Not Found"
			exit 100 ;;
		esac
		p=${a%%=*}
		touch "${p%%:*}_${a#*=}_x.deb"
	done
	exit 0
	EOF
	chmod +x "$bin"/*
	export PATH=$bin:$PATH
	cat > "$ARCHIVE" <<-'EOF'
	linux-source-7.3 7.3.4-1~bpo13+1 all
	linux-source-7.2 7.2.12-1~bpo13+1 all
	linux-config-7.3 7.3.4-1~bpo13+1 ppc64el
	linux-config-7.2 7.2.12-1~bpo13+1 ppc64el
	linux-headers-7.3.4+deb13-powerpc64le 7.3.4-1~bpo13+1 ppc64el
	linux-headers-7.2.12+deb13-powerpc64le 7.2.12-1~bpo13+1 ppc64el
	linux-headers-7.2.11+deb13-powerpc64le 7.2.11-1~bpo13+1 ppc64el
	EOF
}

@test "source: no linux-source listed: unavailable, with the reason" {
	sed -i '/^linux-source/d' "$ARCHIVE"
	run --separate-stderr bash "$SOURCE"
	echo "$stderr"
	[ "$status" -eq 3 ]
	[ "$output" = "1..2
# unavailable: apt lists no linux-source-X.Y in trixie-backports" ]
}

@test "source: the newest linux-source listed but not served (404): unavailable, no older source taken, nothing left in the cache" {
	NOT_SERVED="linux-source-7.3=7.3.4-1~bpo13+1" run --separate-stderr bash "$SOURCE"
	echo "$stderr"
	[ "$status" -eq 3 ]
	[ "$output" = "1..2
# unavailable: linux-source-7.3 7.3.4-1~bpo13+1 is listed but not served (404)" ]
	# the config was the source's own (7.3.4's linux-config, the first
	# tried); never 7.2's source
	grep -q '^apt-get .*download -q linux-config-7.3:ppc64el=7.3.4-1~bpo13+1$' "$APT_LOG"
	run -1 grep 'linux-source-7.2' "$APT_LOG"
	run -1 compgen -G "$HTMTRACE_CACHE/source-*"
}

@test "source: no ppc64el config served for the newest source or below: unavailable" {
	NOT_SERVED="linux-config-7.3=7.3.4-1~bpo13+1 linux-config-7.2=7.2.12-1~bpo13+1
		linux-headers-7.3.4+deb13-powerpc64le=7.3.4-1~bpo13+1
		linux-headers-7.2.12+deb13-powerpc64le=7.2.12-1~bpo13+1
		linux-headers-7.2.11+deb13-powerpc64le=7.2.11-1~bpo13+1" run --separate-stderr bash "$SOURCE"
	echo "$stderr"
	[ "$status" -eq 3 ]
	[ "$output" = "1..2
# unavailable: no ppc64el config of Debian's 7.3 or older is served today (linux-config-*, linux-headers-*-powerpc64le, trixie-backports)" ]
	# tried newest first, each once, and the source never fetched
	[ "$(grep -c 'download' "$APT_LOG")" -eq 5 ]
	run -1 grep 'linux-source' "$APT_LOG"
}

@test "source: the newest config served is taken when the source's own is not (today: 7.2.11's headers for 7.3.4)" {
	# the source "served" empty: the step fails after taking the config,
	# which is what this test looks at
	NOT_SERVED="linux-config-7.3=7.3.4-1~bpo13+1 linux-config-7.2=7.2.12-1~bpo13+1
		linux-headers-7.3.4+deb13-powerpc64le=7.3.4-1~bpo13+1
		linux-headers-7.2.12+deb13-powerpc64le=7.2.12-1~bpo13+1" run --separate-stderr bash "$SOURCE"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'download' "$APT_LOG")" -eq 6 ]
	grep -q 'download -q linux-headers-7.2.11+deb13-powerpc64le:ppc64el=7.2.11-1~bpo13+1$' "$APT_LOG"
	grep -q 'download -q linux-source-7.3=7.3.4-1~bpo13+1$' "$APT_LOG"
	[ "${lines[1]}" = "not ok 1 Debian's linux-source 7.3.4-1~bpo13+1 (the newest trixie-backports lists)" ]
}

@test "exports.py: the exports of a tree never built, as Module.symvers; pasted names expanded; other architectures left out" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/kernel" "$t/arch/powerpc/lib" "$t/arch/x86/lib" "$t/tools/lib"
	cat > "$t/kernel/params.c" <<-'EOF2'
	#define STANDARD_PARAM_DEF(name, type, format)		\
		int param_set_##name(const char *val)		\
		{ return 0; }					\
		EXPORT_SYMBOL(param_ops_##name)
	STANDARD_PARAM_DEF(uint,	unsigned int,	"%u");
	STANDARD_PARAM_DEF(ulong,	unsigned long,	"%lu");
	EXPORT_SYMBOL_GPL(plain_gpl);
	EXPORT_SYMBOL_NS_GPL(in_ns, "CRYPTO_INTERNAL");
	EXPORT_TRACEPOINT_SYMBOL_GPL(sched_switch);
	EXPORT_SYMBOL(plain_gpl);
	EOF2
	echo 'EXPORT_SYMBOL(plpar_hcall_norets)' > "$t/arch/powerpc/lib/h.S"
	echo 'EXPORT_SYMBOL(x86_only);' > "$t/arch/x86/lib/x.c"
	echo 'EXPORT_SYMBOL(tools_only);' > "$t/tools/lib/t.c"
	run -0 "${PY:-python3}" "$BATS_TEST_DIRNAME/../exports.py" "$t"
	echo "$output"
	[ "$output" = "$(printf '0x00000000\t%s\tvmlinux\t%s\t%s\n' \
		plpar_hcall_norets EXPORT_SYMBOL '' \
		param_ops_uint EXPORT_SYMBOL '' \
		param_ops_ulong EXPORT_SYMBOL '' \
		plain_gpl EXPORT_SYMBOL_GPL '' \
		in_ns EXPORT_SYMBOL_GPL CRYPTO_INTERNAL \
		__tracepoint_sched_switch EXPORT_SYMBOL_GPL '' \
		__traceiter_sched_switch EXPORT_SYMBOL_GPL '' \
		__SCK__tp_func_sched_switch EXPORT_SYMBOL_GPL '')" ]
}
