#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run 'htmtrace dtl report' over damaged dispatch trace log captures.

  dtlfuzz.py HTMTRACE DIR [COUNT]

writes COUNT (default 40) captures into DIR, each a small valid capture
(4 CPUs, a LOST and CPU records among 96 entries) damaged one way, and
runs HTMTRACE dtl report over each as text, as SVG and in one of csv, json
and jsonl in turn. A quarter are damaged byte by byte (1 to 8 bytes set at
random: most then fail the record check), the others field by field with
the records kept whole:
an entry's timebase or waits, or the CLOCK record's frequency, timebase,
boottime or realtime, set to an extreme or a random 64-bit value (the
decoder must take these). Then the captures of SPECIAL, made by hand (a
second CLOCK record whose boottime is 2^62 ns on, whose entry's realtime on
the first clock is past what a long long holds). Deterministic: the same
COUNT gives the same files.

Every run must exit 0 or 1 (the tool's "could not do it") with nothing
from a sanitizer on standard error: build HTMTRACE with
-fsanitize=undefined,address -fno-sanitize-recover (make -C userspace
host-san) and any undefined behaviour or memory error fails the run (the
sanitizers are told to exit 86). Prints a line a failure and a summary;
exits 1 if anything failed.
"""
import os
import random
import struct
import subprocess
import sys

TB = 512000000
EXTREMES = (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 62,
            (1 << 64) - TB)


def capture(rnd):
    """A valid capture; the offsets of the CLOCK record and the entries."""
    out = bytearray(struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, TB,
                                1000 * TB, 995 * 10**9, 1000 * 10**9,
                                1764892800 * 10**9))
    entries = []
    t = 1000 * TB
    for n in range(96):
        c = n % 4
        if n == 30:
            out += struct.pack("<HHIIIQ", 3, 24, 1, 1, 0, 5)
        if n == 50:
            out += struct.pack("<HHIIi", 4, 16, 2, 2, 0)
        if n == 70:
            out += struct.pack("<HHIIi", 4, 16, 2, 1, 0)
        t += rnd.randrange(1, TB // 100)
        entries.append(len(out))
        out += struct.pack("<HHI", 2, 56, c)
        out += struct.pack(">BBHIIIQQQQ", rnd.randrange(12),
                           rnd.randrange(11), c, rnd.randrange(5000),
                           rnd.randrange(5000), rnd.randrange(5000), t, 0,
                           0xc000000000001000 + n, 0x8000000000001033)
    return out, 0, entries


def value(rnd, bits=64):
    return rnd.choice(EXTREMES) % (1 << bits) if rnd.random() < 0.5 \
        else rnd.getrandbits(bits)


def damage(rnd, i):
    out, clock, entries = capture(rnd)
    if i % 4 == 0:
        for _ in range(rnd.randrange(1, 9)):
            out[rnd.randrange(len(out))] = rnd.randrange(256)
        return bytes(out)
    for _ in range(rnd.randrange(1, 4)):
        what = rnd.randrange(6)
        if what < 3:
            # An entry's timebase (big endian, 16 bytes into the entry,
            # after the 8-byte record header), or its three waits.
            e = rnd.choice(entries) + 8
            if what < 2:
                struct.pack_into(">Q", out, e + 16, value(rnd))
            else:
                struct.pack_into(">III", out, e + 4, value(rnd, 32),
                                 value(rnd, 32), value(rnd, 32))
        else:
            # The clock: tb_freq (not 0: refused up front), timebase,
            # then boottime or realtime.
            field = rnd.choice((16, 24, 40, 48))
            v = value(rnd) or 1
            struct.pack_into("<Q", out, clock + field, v)
    return bytes(out)


def clock(boot, real):
    return struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, TB, 1000 * TB,
                       0, boot, real)


def entry(tb):
    return struct.pack("<HHI", 2, 56, 0) + \
        struct.pack(">BBHIIIQQQQ", 7, 4, 0, 512, 0, 0, tb, 0, 0, 0)


SPECIAL = [
    clock(0, (1 << 62) - 1) + entry(1000 * TB) +
    clock((1 << 62) - 1, 0) + entry(1001 * TB),
]


def main():
    tool, d = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    env = dict(os.environ,
               ASAN_OPTIONS="exitcode=86:detect_leaks=0",
               UBSAN_OPTIONS="exitcode=86:print_stacktrace=1")
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(42)
    failed, runs, status = 0, 0, {0: 0, 1: 0}
    for i in range(count + len(SPECIAL)):
        path = os.path.join(d, "fuzz%03d.bin" % i)
        with open(path, "wb") as f:
            f.write(damage(rnd, i) if i < count else SPECIAL[i - count])
        for fmt in ("text", "svg", ("csv", "json", "jsonl")[i % 3]):
            runs += 1
            r = subprocess.run([tool, "dtl", "report", path, "--format", fmt,
                                "-o", os.path.join(d, "out." + fmt)],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env)
            err = r.stderr.decode(errors="replace")
            if r.returncode not in (0, 1) or "Sanitizer" in err or \
                    "runtime error" in err:
                failed += 1
                print("%s --format %s: exit %d\n%s" % (path, fmt,
                                                       r.returncode, err))
            else:
                status[r.returncode] += 1
    print("dtlfuzz: %d captures, %d runs: %d exit 0, %d exit 1, %d failed"
          % (count + len(SPECIAL), runs, status[0], status[1], failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
