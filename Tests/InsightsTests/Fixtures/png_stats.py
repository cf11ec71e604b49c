#!/usr/bin/env python3
"""Reads PNG files (8-bit RGB/RGBA/gray, not interlaced) with the standard library only and prints JSON:
width, height, and the number of pixels close to each colour given as RRGGBB; with --reference FILE also the
share of pixels that differ by more than 48 in any channel from the reference (same size required).

usage: png_stats.py IMAGE [--colour RRGGBB ...] [--reference PNG]"""
import json
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, interlace {interlace})")
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    pixels = []
    for line in rows:
        for x in range(width):
            px = line[x * channels:(x + 1) * channels]
            pixels.append((px[0], px[0], px[0]) if channels <= 2 else tuple(px[:3]))
    return width, height, pixels


def main(argv):
    path, colours, reference = argv[0], [], None
    i = 1
    while i < len(argv):
        if argv[i] == "--colour":
            colours.append(argv[i + 1])
        elif argv[i] == "--reference":
            reference = argv[i + 1]
        i += 2
    width, height, pixels = read(path)
    result = {"width": width, "height": height, "colours": {}}
    for hex_colour in colours:
        target = tuple(int(hex_colour[k:k + 2], 16) for k in (0, 2, 4))
        result["colours"][hex_colour] = sum(
            1 for p in pixels if all(abs(p[c] - target[c]) <= 24 for c in range(3)))
    if reference:
        rw, rh, reference_pixels = read(reference)
        if (rw, rh) != (width, height):
            result["difference"] = 1.0
        else:
            differing = sum(1 for a, b in zip(pixels, reference_pixels) if max(abs(a[c] - b[c]) for c in range(3)) > 48)
            result["difference"] = differing / len(pixels)
    print(json.dumps(result))


main(sys.argv[1:])
