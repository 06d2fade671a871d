#!/usr/bin/python3
"""Checks a browser screenshot: not blank, and the same size as its golden. Standard library only
(a PNG reader for 8-bit, non-interlaced images, what Chromium writes).

Usage: png_check.py [--min-ink SHARE] [--ratio R] [--write-text FILE] PNG [GOLDEN]

The background is the most common colour; "ink" is the share of pixels of any other colour.
  - PNG is blank unless its ink is at least --min-ink (default 0.02: 2 % of the pixels);
  - with GOLDEN: PNG must have exactly the golden's width and height in pixels (the page's laid-out
    size: screenshot.py shoots the whole page) and the same background colour, and its ink must
    be within a factor --ratio (default 1.5) of the golden's. Pixels are not compared one by one:
    anti-aliasing and font hinting differ across Chromium and FreeType versions, while a lost
    chart or an empty table changes the ink far more than 1.5 times.
GOLDEN is a PNG, or a .txt file holding what this script measures of one ("WIDTH HEIGHT
#background ink"), which --write-text FILE writes: the goldens the docs do not show are kept as
those few bytes rather than as images. Prints "WxH, N.N% ink" (and the golden's) on success; one line with the problem and exit 1 when a
check fails, exit 2 when a file cannot be read as PNG.
"""

import argparse
import struct
import sys
import zlib
from collections import Counter

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> bytes per pixel at 8 bits


class BadPng(Exception):
    pass


def _add_bytes(a, b, n):
    """Byte-wise (a + b) mod 256 of two n-byte strings, without a Python loop."""
    lo = int.from_bytes(b"\x7f" * n, "big")
    hi = int.from_bytes(b"\x80" * n, "big")
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    return (((x & lo) + (y & lo)) ^ ((x ^ y) & hi)).to_bytes(n, "big")


def read_png(path):
    """(width, height, bytes per pixel, rows): each row the raw pixel bytes, unfiltered."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BadPng(f"cannot read {path}: {e.strerror}")
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise BadPng(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise BadPng(f"{path}: no IHDR chunk")
    w, h, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in CHANNELS or interlace:
        raise BadPng(f"{path}: unsupported PNG (bit depth {depth}, colour type {ctype}, "
                     f"interlace {interlace})")
    bpp = CHANNELS[ctype]
    stride = w * bpp
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise BadPng(f"{path}: corrupt image data: {e}")
    if len(raw) != h * (stride + 1):
        raise BadPng(f"{path}: image data is {len(raw)} bytes, expected {h * (stride + 1)}")
    rows = []
    prev = bytes(stride)
    for y in range(h):
        start = y * (stride + 1)
        ftype = raw[start]
        line = raw[start + 1:start + 1 + stride]
        if ftype == 0:
            out = line
        elif ftype == 2:  # Up: the common case, one big-integer addition
            out = _add_bytes(line, prev, stride)
        elif ftype in (1, 3, 4):
            out = bytearray(line)
            for i in range(stride):
                a = out[i - bpp] if i >= bpp else 0
                if ftype == 1:
                    out[i] = (out[i] + a) & 255
                elif ftype == 3:
                    out[i] = (out[i] + ((a + prev[i]) >> 1)) & 255
                else:  # Paeth
                    b = prev[i]
                    c = prev[i - bpp] if i >= bpp else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            out = bytes(out)
        else:
            raise BadPng(f"{path}: row {y} has unknown filter {ftype}")
        rows.append(out)
        prev = out
    return w, h, bpp, rows


def ink(path):
    """(width, height, background colour as hex, share of pixels not of that colour)."""
    w, h, bpp, rows = read_png(path)
    if w == 0 or h == 0:
        raise BadPng(f"{path}: empty image ({w}x{h})")
    # The background: the most common colour over every 4th row (all of it for a short image).
    sample = Counter()
    for row in rows[::4]:
        sample.update(zip(*(row[c::bpp] for c in range(bpp))))
    bg = sample.most_common(1)[0][0]
    # Count background pixels exactly: per channel, map the background's value to 1 and any
    # other to 0, then AND the channels as big integers and count the bits.
    tables = [bytes(1 if v == bg[c] else 0 for v in range(256)) for c in range(bpp)]
    background = 0
    for row in rows:
        if row == bytes(bg) * w:
            background += w
            continue
        mask = -1
        for c in range(bpp):
            mask &= int.from_bytes(row[c::bpp].translate(tables[c]), "big")
        background += bin(mask).count("1")
    return w, h, "#" + "".join(f"{v:02x}" for v in bg), 1 - background / (w * h)


def main():
    ap = argparse.ArgumentParser(description="A screenshot is not blank and matches its golden.")
    ap.add_argument("--min-ink", type=float, default=0.02)
    ap.add_argument("--ratio", type=float, default=1.5)
    ap.add_argument("--write-text", metavar="FILE")
    ap.add_argument("png")
    ap.add_argument("golden", nargs="?")
    a = ap.parse_args()
    try:
        w, h, bg, share = ink(a.png)
        golden = None
        if a.golden and a.golden.endswith(".txt"):
            with open(a.golden, encoding="ascii") as f:
                gw, gh, gbg, gshare = f.read().split()
            golden = (int(gw), int(gh), gbg, float(gshare))
        elif a.golden:
            golden = ink(a.golden)
    except BadPng as e:
        print(e)
        return 2
    except (OSError, ValueError) as e:
        print(f"{a.golden}: not a golden ({e})")
        return 2
    if share == 0:
        print(f"blank: {w}x{h}, every pixel is {bg}")
        return 1
    if share < a.min_ink:
        print(f"blank: {w}x{h}, only {share:.2%} of the pixels differ from the background {bg} "
              f"(at least {a.min_ink:.0%} needed)")
        return 1
    summary = f"{w}x{h}, {share:.1%} ink on {bg}"
    if a.write_text:
        with open(a.write_text, "w", encoding="ascii") as f:
            f.write(f"{w} {h} {bg} {share:.6f}\n")
    if golden:
        gw, gh, gbg, gshare = golden
        summary += f" (golden {gw}x{gh}, {gshare:.1%} ink on {gbg})"
        if (w, h) != (gw, gh):
            print(f"size {w}x{h} differs from the golden's {gw}x{gh} ({a.golden})")
            return 1
        if bg != gbg:
            print(f"background {bg} differs from the golden's {gbg} ({a.golden})")
            return 1
        if not (gshare / a.ratio <= share <= gshare * a.ratio):
            print(f"{share:.1%} ink, the golden {gshare:.1%}: more than {a.ratio}x apart "
                  f"({a.golden})")
            return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
