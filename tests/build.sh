#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the modules and the guest tool against the release or debug test kernel.
#
#   tests/build.sh release|debug    -> build/<variant>/{*.ko,htmtrace,guest-bin,kdir}
#
# The module sources are mirrored into build/<variant>/kmod so that the two
# variants never share object files; the source tree stays clean.
set -euo pipefail

variant=${1:-release}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/$variant

kdir=$("$top/tests/kernel.sh" "$variant")
# Objects built against another kernel tree (its config changed: a new
# cache key) are not rebuilt by kbuild, whose dependencies on the old
# tree's headers vanish with it: start the module build afresh.
if [ "$(readlink "$out/kdir" 2>/dev/null)" != "$kdir" ]; then
	rm -rf "$out/kmod"
fi
mkdir -p "$out/kmod"
ln -sfn "$kdir" "$out/kdir"

# Mirror the Kbuild inputs, keeping timestamps so rebuilds stay incremental.
cp -a --update "$top/Kbuild" "$out/kmod/"
for d in module uapi kunit; do
	mkdir -p "$out/kmod/$d"
	cp -a --update "$top/$d/." "$out/kmod/$d/"
done

"$top/tests/kmake.sh" "$variant-test" "$kdir" "$out/kmod" W=1 HTMTRACE_TEST=y \
	${HTMTRACE_SPARSE:+C=1} modules
cp "$out"/kmod/*.ko "$out/"

# The tool, htmcheck and the guest helpers (libkmod for ppc64el is unpacked
# into the cache, never installed: deps.sh).
"$top/tests/guest-tools.sh" "$out"
