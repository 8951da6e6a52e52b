#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a 'htmtrace dtl report --format svg' picture, as XML and as
rendered to PNG by rsvg-convert. python3 only: the PNG is read with zlib.

  svgcheck.py structure SVG JSON
      well-formed, self-contained (no script, no foreignObject, no image,
      no reference but to the file itself), a lane per CPU of the JSON
      summary of 'dtl report --format json' with its entries, the counts
      and legend names of every reason equal to the JSON's
  svgcheck.py lanes SVG PNG
      every lane is drawn (its rows are coloured in most columns, somewhere
      in their height) and the space between lanes is white
  svgcheck.py colour SVG PNG CPU ROW FROM TO COLOUR MIN [MAX]
      the share of the pixel columns between FROM and TO seconds (since
      boot) where ROW (dispatch or preempt) of the CPU's lane has COLOUR
      (#rrggbb) at the lane's middle (the row's pixel next to the other
      row, where an aggregated bar starts) is at least MIN (and at most MAX)
  svgcheck.py fill SVG PNG CPU ROW FROM TO MIN MAX
      the share of ROW's pixels, over the columns between FROM and TO
      seconds, that are painted in a colour of ROW's legend (a reason of
      that row) is between MIN and MAX: how much of the row a person sees
      coloured
  svgcheck.py marker SVG PNG CPU AT COLOUR
      a pixel of COLOUR within 16 columns of AT seconds, just above or on
      the CPU's lane
"""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
import json

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    sys.exit("svgcheck: " + msg)


def png_rows(path, upto=None):
    """The RGBA rows of an 8-bit RGBA or RGB PNG, up to row `upto`."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or lace:
                fail("unexpected PNG format %d/%d/%d" % (depth, ctype, lace))
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h if upto is None else min(h, upto)):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return rows, bpp


def pixel(rows, bpp, x, y):
    p = rows[y][x * bpp:x * bpp + 3]
    return "#%02x%02x%02x" % (p[0], p[1], p[2])


def svg(path):
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg":
        fail("root is not an svg element")
    return root


def geometry(root):
    axis = root.find(".//" + NS + "g[@class='axis']")
    lanes = {int(g.get("data-cpu")): int(g.get("data-y"))
             for g in root.iter(NS + "g") if g.get("class") == "lane"}
    return (int(root.get("data-x0")), int(root.get("data-columns")),
            int(axis.get("data-t0-ns")), int(axis.get("data-t1-ns")), lanes)


def xcol(geo, secs):
    x0, cols, t0, t1, _ = geo
    return x0 + int((secs * 1e9 - t0) * cols / (t1 - t0))


def json_summary(jsonpath):
    """The "summary" member of a 'dtl report --format json' document, its
    last: read from the file's end, as a capture of a million entries
    gives a document of some 400 MB of which the summary is a few KiB."""
    with open(jsonpath, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - (1 << 20)))
        tail = f.read().decode()
    at = tail.rfind('"summary":')
    if at < 0:
        fail("no summary in the last MiB of " + jsonpath)
    at += len('"summary":')
    at += len(tail[at:]) - len(tail[at:].lstrip())
    summ, end = json.JSONDecoder().raw_decode(tail, at)
    if tail[end:].strip() != "}":
        fail("the summary is not the last member of " + jsonpath)
    return summ


def structure(svgpath, jsonpath):
    root = svg(svgpath)
    for el in root.iter():
        tag = el.tag.replace(NS, "")
        if tag in ("script", "foreignObject", "image", "iframe", "use"):
            fail("a %s element" % tag)
        for k, v in el.attrib.items():
            if k.startswith("on"):
                fail("an event handler attribute " + k)
            if "href" in k or "url(" in v:
                fail("a reference %s=%s" % (k, v))
    text = open(svgpath).read()
    if "http://" in text.replace('xmlns="http://www.w3.org/2000/svg"', ""):
        fail("an external address")
    summ = json_summary(jsonpath)
    lanes = [g for g in root.iter(NS + "g") if g.get("class") == "lane"]
    got = [(int(g.get("data-cpu")), int(g.get("data-entries")))
           for g in lanes]
    want = [(c["cpu"], c["entries"]) for c in summ["cpus"]]
    if got != want:
        fail("lanes (cpu, entries) %s, the report's %s" % (got, want))
    for kind in ("dispatch", "preempt"):
        counts = {int(t.get("data-code")): int(t.get("data-count"))
                  for t in root.iter(NS + "text")
                  if t.get("class") == "count" and
                  t.get("data-kind") == kind}
        want = {r["code"]: r["count"] for r in summ[kind]}
        if counts != want:
            fail("%s counts %s, the report's %s" % (kind, counts, want))
        names = sorted(t.text for t in root.iter(NS + "text")
                       if t.get("class") == "legend " + kind)
        want = sorted(r["name"] if r["name"] else str(r["code"])
                      for r in summ[kind])
        if names != want:
            fail("%s legend %s, the report's names %s" % (kind, names, want))
    print("structure ok: %d lanes, %s mode" % (len(lanes),
                                              root.get("data-mode")))


def lanes(svgpath, pngpath):
    geo = geometry(svg(svgpath))
    x0, cols, _, _, ys = geo
    rows, bpp = png_rows(pngpath, max(ys.values()) + 40)
    for cpu, y in sorted(ys.items()):
        # The time dispatched fills its row; the time not dispatched is
        # short, but drawn at least a pixel an entry.
        for row, need in ((0, cols // 2), (1, cols // 50)):
            ys_ = range(y + 1 + row * 14, y + 11 + row * 14)
            coloured = sum(any(pixel(rows, bpp, x, yy) != "#ffffff"
                               for yy in ys_)
                           for x in range(x0, x0 + cols))
            if coloured < need:
                fail("lane of cpu %d, row %d: %d of %d columns coloured"
                     % (cpu, row, coloured, cols))
        gap = y - 5
        if any(pixel(rows, bpp, x, gap) != "#ffffff"
               for x in range(x0 + 20, x0 + cols - 20, 7)) and cpu != min(ys):
            # Only LOST markers may reach into the gap.
            marks = sum(pixel(rows, bpp, x, gap) != "#ffffff"
                        for x in range(x0, x0 + cols))
            if marks > 40:
                fail("the gap above cpu %d's lane is drawn on (%d px)"
                     % (cpu, marks))
    print("lanes ok: %d" % len(ys))


def colour(svgpath, pngpath, cpu, row, frm, to, want, lo, hi=1.0):
    geo = geometry(svg(svgpath))
    y = geo[4][int(cpu)] + (14 if row == "preempt" else 11)
    rows, bpp = png_rows(pngpath, y + 1)
    xs = range(xcol(geo, float(frm)), xcol(geo, float(to)))
    hits = sum(pixel(rows, bpp, x, y) == want.lower() for x in xs)
    share = hits / max(1, len(xs))
    print("cpu %s %s %s..%s s: %s in %.3f of %d columns"
          % (cpu, row, frm, to, want, share, len(xs)))
    if share < float(lo) or share > float(hi):
        fail("share %.3f not in [%s, %s]" % (share, lo, hi))


def legend_colours(root, row):
    """The fills of the swatches of ROW's legend, each the rect before its
    text of class "legend dispatch" or "legend preempt"."""
    got, last = set(), None
    for el in root.iter():
        if el.tag == NS + "rect":
            last = el.get("fill")
        elif el.tag == NS + "text" and el.get("class") == "legend " + row:
            got.add(last.lower())
    return got


def fill(svgpath, pngpath, cpu, row, frm, to, lo, hi):
    root = svg(svgpath)
    geo = geometry(root)
    want = legend_colours(root, row)
    y = geo[4][int(cpu)] + (14 if row == "preempt" else 0)
    rows, bpp = png_rows(pngpath, y + 13)
    xs = range(xcol(geo, float(frm)), xcol(geo, float(to)))
    hits = sum(pixel(rows, bpp, x, yy) in want
               for x in xs for yy in range(y, y + 12))
    share = hits / max(1, 12 * len(xs))
    print("cpu %s %s %s..%s s: %.3f of the row in its reasons' colours"
          % (cpu, row, frm, to, share))
    if share < float(lo) or share > float(hi):
        fail("share %.3f not in [%s, %s]" % (share, lo, hi))


def marker(svgpath, pngpath, cpu, at, want):
    geo = geometry(svg(svgpath))
    y = geo[4][int(cpu)]
    rows, bpp = png_rows(pngpath, y + 30)
    x = xcol(geo, float(at))
    for yy in range(y - 9, y + 26):
        for xx in range(x - 16, x + 17):
            if pixel(rows, bpp, xx, yy) == want.lower():
                print("marker %s at %d,%d" % (want, xx, yy))
                return
    fail("no %s near cpu %s at %s s (x %d, y %d)" % (want, cpu, at, x, y))


if __name__ == "__main__":
    cmds = {"structure": structure, "lanes": lanes, "colour": colour,
            "fill": fill, "marker": marker}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail("usage: see the top of " + sys.argv[0])
    cmds[sys.argv[1]](*sys.argv[2:])
