#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build and the tests need, from Debian's archive, when it is missing.
# Idempotent and quiet when everything is present.
set -euo pipefail

need=()
host_pkgs=(make gcc libc6-dev gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross qemu-system-ppc linux-source-6.12 bats
	   flex bison bc libelf-dev libssl-dev cpio xz-utils python3 perl sparse
	   libkmod-dev pkg-config)
ppc_pkgs=(busybox-static:ppc64el libkmod-dev:ppc64el)

for p in "${host_pkgs[@]}" "${ppc_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		need+=("$p")
done
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${need[*]} (run as root or install them)" >&2
	exit 1
fi
echo "deps: installing ${need[*]}"
dpkg --print-foreign-architectures | grep -qx ppc64el || dpkg --add-architecture ppc64el
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
