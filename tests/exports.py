#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a Module.symvers for a kernel source tree that was never built:
every symbol its sources export for ARCH, as modpost reads the file (CRC,
symbol, module, export type, namespace), so that modpost can check an
out-of-tree module against the tree without a vmlinux (tests/source.sh).

  tests/exports.py TREE [ARCH]      (ARCH: powerpc by default)

Read: EXPORT_SYMBOL, _GPL, _NS, _NS_GPL (and the per-CPU, tracepoint and
static-call forms, with the names they export), in the *.c, *.h and *.S
files outside tools/, Documentation/, scripts/, samples/ and the other
architectures' arch/ folders. An export whose name a macro pastes
together (`EXPORT_SYMBOL(param_ops_##name)` in a `#define`) is expanded
for each call of that macro in the same file
(`STANDARD_PARAM_DEF(uint, ...)`: param_ops_uint). What a CONFIG option
leaves out of a real build is exported here all the same: the check is
that a symbol is still exported somewhere, not that Debian's build has it.
"""

import os
import re
import sys

KINDS = (r'SYMBOL|SYMBOL_GPL|SYMBOL_NS|SYMBOL_NS_GPL|PER_CPU_SYMBOL|PER_CPU_SYMBOL_GPL|'
         r'TRACEPOINT_SYMBOL|TRACEPOINT_SYMBOL_GPL|STATIC_CALL|STATIC_CALL_GPL|'
         r'STATIC_CALL_TRAMP|STATIC_CALL_TRAMP_GPL')
EXPORT = re.compile(r'\bEXPORT_(' + KINDS + r')\s*\(\s*([A-Za-z_][\w\s#]*?)\s*'
                    r'(?:,\s*"?([\w.:-]*)"?\s*)?\)')
DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)(.*)$', re.M)


def names(kind, sym):
    """The symbols an export of KIND of SYM makes."""
    if kind.startswith('TRACEPOINT'):
        return ['__tracepoint_' + sym, '__traceiter_' + sym, '__SCK__tp_func_' + sym]
    if kind.startswith('STATIC_CALL_TRAMP'):
        return ['__SCT__' + sym]
    if kind.startswith('STATIC_CALL'):
        return ['__SCK__' + sym, '__SCT__' + sym]
    return [sym]


def exports(text):
    """(kind, symbol, namespace) of each export in the text of a file."""
    text = re.sub(r'\\\n', ' ', text)
    out = []
    defined = set()
    for m in DEFINE.finditer(text):
        params = [p.strip() for p in m.group(2).split(',')]
        for e in EXPORT.finditer(m.group(3)):
            if '##' not in e.group(2):
                continue
            defined.add(e.start() + m.start(3))
            # each call of the macro in this file, outside #define lines
            call = re.compile(r'^(?![ \t]*#)[^\n]*?\b' + re.escape(m.group(1)) +
                              r'\s*\(([^()\n]*)\)', re.M)
            for c in call.finditer(text):
                args = [a.strip() for a in c.group(1).split(',')]
                if len(args) != len(params):
                    continue
                sym = e.group(2)
                for p, a in zip(params, args):
                    sym = re.sub(r'\b' + re.escape(p) + r'\b', a, sym)
                sym = re.sub(r'\s*##\s*', '', sym)
                if re.fullmatch(r'[A-Za-z_]\w*', sym):
                    out.append((e.group(1), sym, e.group(3) or ''))
    for e in EXPORT.finditer(text):
        if re.fullmatch(r'[A-Za-z_]\w*', e.group(2)):
            out.append((e.group(1), e.group(2), e.group(3) or ''))
    return out


def main():
    tree = sys.argv[1]
    arch = sys.argv[2] if len(sys.argv) > 2 else 'powerpc'
    seen = set()
    for root, dirs, files in os.walk(tree):
        rel = os.path.relpath(root, tree)
        if rel == '.':
            dirs[:] = [d for d in dirs if d not in ('tools', 'Documentation', 'scripts',
                                                    'samples', '.git')]
        elif rel == 'arch':
            dirs[:] = [d for d in dirs if d == arch]
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(('.c', '.h', '.S')):
                continue
            with open(os.path.join(root, name), errors='replace') as f:
                text = f.read()
            if 'EXPORT_' not in text:
                continue
            for kind, sym, ns in exports(text):
                for n in names(kind, sym):
                    if n in seen:
                        continue
                    seen.add(n)
                    t = 'EXPORT_SYMBOL_GPL' if 'GPL' in kind else 'EXPORT_SYMBOL'
                    print(f'0x00000000\t{n}\tvmlinux\t{t}\t{ns if "_NS" in kind else ""}')


if __name__ == '__main__':
    main()
