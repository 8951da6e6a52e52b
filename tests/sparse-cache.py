#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""sparse, its answers kept: kbuild's CHECK for tests/lint.sh's builds.

    make ... C=2 CHECK=tests/sparse-cache.py ...

Kbuild runs CHECK as "$(CHECK) $(CHECKFLAGS) $(c_flags) SOURCE" after the
compile, whose dependency list fixdep has by then written into the
object's .cmd file: the source and every header it read. sparse's output
depends on nothing else: its arguments, the sparse binary, and the
contents of those files. The key is a hash of all of them; a key seen
before replays sparse's stdout, stderr and exit status without running it
(each file costs sparse about 0.4 s of CPU: the kernel headers, parsed
whole), any change to a header or a flag runs sparse again.

Without a .cmd file to read (not under kbuild), sparse runs uncached.
The answers are kept in $HTMTRACE_CACHE/sparse (default
~/.cache/htmtrace/sparse), one small file per key. SPARSE names the binary
(default: sparse in PATH).
"""
import hashlib
import os
import shutil
import subprocess
import sys


def deps(args):
    """The files kbuild's .cmd file of this compile names, or None."""
    for a in args:
        if a.startswith('-Wp,-MMD,') and a.endswith('.d'):
            cmd = a[len('-Wp,-MMD,'):-len('.d')] + '.cmd'
            break
    else:
        return None
    try:
        with open(cmd) as f:
            text = f.read()
    except OSError:
        return None
    files = []
    on = False
    for line in text.splitlines():
        if line.startswith('source_'):
            files.append(line.split(':=', 1)[1].strip())
        elif line.startswith('deps_'):
            on = True
        elif on:
            word = line.strip().rstrip('\\').strip()
            if not word:
                break
            if not word.startswith('$(wildcard'):
                files.append(word)
    return files or None


def key(sparse, args, files):
    h = hashlib.sha256(b'sparse-cache 1\0')
    st = os.stat(sparse)
    h.update(f'{sparse}\0{st.st_size}\0{st.st_mtime_ns}\0'.encode())
    for a in args:
        h.update(a.encode() + b'\0')
    for path in files:
        h.update(path.encode() + b'\0')
        with open(path, 'rb') as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def main():
    args = sys.argv[1:]
    sparse = shutil.which(os.environ.get('SPARSE', 'sparse'))
    if not sparse:
        print('sparse-cache: no sparse in PATH', file=sys.stderr)
        return 127
    files = deps(args)
    k = None
    if files:
        try:
            k = key(sparse, args, files)
        except OSError:
            k = None
    if k is None:
        return subprocess.run([sparse] + args).returncode
    cache = os.path.join(os.environ.get('HTMTRACE_CACHE') or
                         os.path.expanduser('~/.cache/htmtrace'), 'sparse')
    entry = os.path.join(cache, k[:2], k)
    try:
        with open(entry, 'rb') as f:
            rc, out_len, data = f.read().split(b'\n', 2)
        out_len = int(out_len)
        sys.stdout.buffer.write(data[:out_len])
        sys.stdout.flush()
        sys.stderr.buffer.write(data[out_len:])
        return int(rc)
    except (OSError, ValueError):
        pass
    p = subprocess.run([sparse] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    sys.stdout.buffer.write(p.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(p.stderr)
    # written whole, then renamed: a reader sees a whole entry or none
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    tmp = f'{entry}.{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(b'%d\n%d\n' % (p.returncode, len(p.stdout)) + p.stdout + p.stderr)
    os.replace(tmp, entry)
    return p.returncode


if __name__ == '__main__':
    sys.exit(main())
