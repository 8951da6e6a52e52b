#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a simulated /dev/vpa_dtl capture (uapi/linux/htmtrace.h's stream).

Each CPU runs for a while, is taken off (by H_CEDE, H_CONFER or time_slice,
in turn, or by --preempt's reason inside its window), waits, and is
dispatched again: one entry per dispatch, at a 512 MHz timebase, in time
order across the CPUs. A LOST record (--lost) comes before the CPU's first
entry after its time; a CPU cycled offline (--offline) gets an OFFLINE
record after its last entry before the window and a JOINED record before
its first entry after it. --share sets the share of a CPU's time that it is
not dispatched (about 0.2 by default): a busy CPU (0.006), an idle one
(0.99). Deterministic: the same arguments give the same
bytes. Used by tests/bats/host-dtlplot.bats and 'make dtl-picture'.
"""
import argparse
import heapq
import random
import struct

TB = 512000000
CLOCK_BOOT = 1000 * 10**9           # 1000 s since boot ...
CLOCK_REAL = 1764892800 * 10**9     # ... is 2025-12-05T00:00:00Z

H_CEDE, H_CONFER, TIME_SLICE = 2, 3, 4
DISPATCH_FOR = {H_CEDE: 0, H_CONFER: 2, TIME_SLICE: 7}  # external_interrupt,
                                                        # H_PROD, time_slice


def triple(s, n):
    w = s.split(":")
    if len(w) != n:
        raise argparse.ArgumentTypeError("expected %d fields: %s" % (n, s))
    return [float(x) for x in w]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--entries", type=int, default=1000,
                    help="entries in all")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--preempt", type=lambda s: triple(s, 4),
                    action="append", default=[],
                    help="CPU:FROM:TO:REASON: only that preempt reason on "
                         "CPU between FROM and TO seconds")
    ap.add_argument("--lost", type=lambda s: triple(s, 3), action="append",
                    default=[], help="CPU:AT:COUNT")
    ap.add_argument("--offline", type=lambda s: triple(s, 3),
                    action="append", default=[], help="CPU:FROM:TO")
    ap.add_argument("--share", type=lambda s: triple(s, 2),
                    action="append", default=[],
                    help="CPU:NOTDISP: the share of the CPU's time not "
                         "dispatched, 0 to 1 (default about 0.2)")
    a = ap.parse_args()
    share = {int(c): f for c, f in a.share}

    rnd = random.Random(23)
    out = bytearray()
    out += struct.pack("<HHIIIQQQQQ", 1, 56, 0xffffffff, 1, 0, TB,
                       1000 * TB, CLOCK_BOOT - 5 * 10**9, CLOCK_BOOT,
                       CLOCK_REAL)
    per_cpu = max(1, a.entries // a.cpus)
    period = a.seconds / per_cpu
    for c in range(a.cpus):
        out += struct.pack("<HHIIi", 4, 16, c, 1, 0)

    def reason(c, n, t):
        for pc, lo, hi, r in a.preempt:
            if int(pc) == c and lo <= t < hi:
                return int(r)
        return (H_CEDE, H_CONFER, TIME_SLICE)[(n + c) % 3]

    # Each CPU's entries, generated lazily, merged in time order.
    def cpu_entries(c):
        t, n = 0.0, 0
        count = per_cpu + (1 if c < a.entries - per_cpu * a.cpus else 0)
        while n < count:
            # With --share, the same draws scaled: means of 1 - NOTDISP
            # and NOTDISP periods.
            run = period * rnd.uniform(0.5, 1.1)
            if c in share:
                run *= (1 - share[c]) / 0.8
            t += run
            r = reason(c, n, t)
            off = period * rnd.uniform(0.1, 0.3)
            if c in share:
                off *= share[c] / 0.2
            if r == H_CEDE:
                w2r, r2e, e2d = off * 0.8, off * 0.05, off * 0.15
            else:
                w2r, r2e, e2d = 0.0, off * 0.2, off * 0.8
            t += off
            yield t, c, n, r, w2r, r2e, e2d
            n += 1

    lost = {}
    for c, at, k in a.lost:
        lost.setdefault(int(c), []).append((at, int(k)))
    offline = {int(c): (lo, hi) for c, lo, hi in a.offline}
    state = {}
    for t, c, n, r, w2r, r2e, e2d in heapq.merge(
            *[cpu_entries(c) for c in range(a.cpus)]):
        if c in offline:
            lo, hi = offline[c]
            st = state.get(c, 0)
            if lo <= t < hi:
                if st == 0:
                    out += struct.pack("<HHIIi", 4, 16, c, 2, 0)
                    state[c] = 1
                continue
            if st == 1 and t >= hi:
                out += struct.pack("<HHIIi", 4, 16, c, 1, 0)
                state[c] = 2
        for i, (at, k) in enumerate(lost.get(c, [])):
            if at is not None and t >= at:
                out += struct.pack("<HHIIIQ", 3, 24, c, 1, 0, k)
                lost[c][i] = (None, k)
        tb = 1000 * TB + int(t * TB)
        ticks = [int(x * TB) for x in (e2d, r2e, w2r)]
        out += struct.pack("<HHI", 2, 56, c)
        out += struct.pack(">BBHIIIQQQQ", DISPATCH_FOR.get(r, 0), r, c,
                           ticks[0], ticks[1], ticks[2], tb, 0,
                           0xc000000000001000 + n, 0x8000000000001033)
    open(a.out, "wb").write(out)


if __name__ == "__main__":
    main()
