#!/usr/bin/env python3
"""Extracts the uncompressed ELF vmlinux from a bzImage (as scripts/extract-vmlinux does).

Debian's 6.1 kernels compress the payload with XZ (Python's lzma), its 6.12 kernels with zstd (the `zstd` tool:
Python 3.11 has no zstd module). Booting the ELF through its PVH entry saves the in-guest decompression (about
6 s under TCG).
Usage: extract_vmlinux.py BZIMAGE OUT
"""
import lzma
import subprocess
import sys

data = open(sys.argv[1], 'rb').read()


def write(out):
    with open(sys.argv[2], 'wb') as f:
        f.write(out)
    sys.exit(0)


magic = b'\xfd7zXZ\x00'
position = data.find(magic)
while position >= 0:
    try:
        out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[position:])
        if out[:4] == b'\x7fELF':
            write(out)
    except lzma.LZMAError:
        pass
    position = data.find(magic, position + 1)

magic = b'\x28\xb5\x2f\xfd'
position = data.find(magic)
while position >= 0:
    # The payload is followed by the bzImage's trailer, which zstd reports as trailing garbage after a complete
    # frame: the output is still whole, so its ELF magic (not the exit status) decides.
    done = subprocess.run(['zstd', '-dc', '-q'], input=data[position:], capture_output=True)
    if done.stdout[:4] == b'\x7fELF':
        write(done.stdout)
    position = data.find(magic, position + 1)
sys.exit('extract_vmlinux: no XZ- or zstd-compressed ELF payload in ' + sys.argv[1])
