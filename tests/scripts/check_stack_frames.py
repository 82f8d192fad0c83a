#!/usr/bin/env python3
"""Fails when a kernel the given specs compile to keeps a stack frame (spilled registers or
local arrays), on NVIDIA targets, without a GPU.

    tests/scripts/check_stack_frames.py --driver build/fusiondriver [--arch sm_90] specs/perf/*.toml

Each spec is compiled (`fusiondriver compile --arch ARCH`) into a fresh disk cache; every cache
entry's payload is a cubin (ELF), whose .nv.info sections carry the frame size the assembler
gave each kernel (keyed by its symbol). A frame has cost the BN kernels 10% before (docs/PERF_NOTES.md v24,
v26): this makes one visible in CI instead of on the GPU. Prints each kernel with a frame and
its spec; exit status 1 if there is one (or no kernel's frame size was found at all), 2 if a
spec does not compile.
"""
import argparse
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

CACHE_MAGIC = b"HFKC"
CACHE_HEADER_BYTES = 48  # lib/runtime/disk_cache.cpp EntryHeader
# .nv.info attributes (EIATTR_*): format byte 0x04 = a 16-bit size and that many bytes follow.
EIATTR_FRAME_SIZE = 0x11
FORMAT_SIZED, FORMAT_U16, FORMAT_BYTE = 0x04, 0x03, 0x02


def frame_sizes(cubin):
    """{kernel name: frame bytes} from a cubin's .nv.info sections (attributes keyed by symbol)."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not a 64-bit ELF")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]

    def string(table, offset):
        start = sections[table][4] + offset
        return cubin[start:cubin.index(b"\0", start)].decode()

    symtab = next(s for s in sections if s[1] == 2)  # SHT_SYMTAB
    symbols = [string(symtab[6], struct.unpack_from("<I", cubin, symtab[4] + i * 24)[0])
               for i in range(symtab[5] // 24)]
    frames = {}
    for section in sections:
        if not string(shstrndx, section[0]).startswith(".nv.info"):
            continue
        at, end = section[4], section[4] + section[5]
        while at + 2 <= end:
            fmt, attr = cubin[at], cubin[at + 1]
            if fmt == FORMAT_SIZED:
                size, = struct.unpack_from("<H", cubin, at + 2)
                if attr == EIATTR_FRAME_SIZE and size >= 8:  # (symbol index, bytes)
                    symbol, frame = struct.unpack_from("<II", cubin, at + 4)
                    kernel = symbols[symbol] if symbol < len(symbols) else f"symbol {symbol}"
                    if not kernel.startswith("$"):  # the compiler's own subroutines (division slow paths) share the frame
                        frames[kernel] = frame
                at += 4 + size
            elif fmt == FORMAT_U16:
                at += 4
            elif fmt == FORMAT_BYTE:
                at += 3
            else:
                at += 2
    return frames


def cache_payload(path):
    data = path.read_bytes()
    if data[:4] != CACHE_MAGIC:
        raise ValueError(f"{path}: not a hipfuse cache entry")
    return data[CACHE_HEADER_BYTES:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driver", default="build/fusiondriver")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("specs", nargs="+")
    args = parser.parse_args(argv)
    found, kernels = [], 0
    for spec in args.specs:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, MIOPEN_CUSTOM_CACHE_DIR=cache)
            done = subprocess.run([args.driver, "compile", "--arch", args.arch, spec], env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"check_stack_frames: {spec} does not compile:\n{done.stdout}{done.stderr}")
                return 2
            for entry in sorted(pathlib.Path(cache).glob("*.hfkc")):
                for kernel, frame in frame_sizes(cache_payload(entry)).items():
                    kernels += 1
                    if frame > 0:
                        found.append((spec, kernel, frame))
    for spec, kernel, frame in found:
        print(f"check_stack_frames: {spec}: {kernel} has a {frame}-byte stack frame")
    print(f"check_stack_frames: {kernels} kernels of {len(args.specs)} spec files, {len(found)} with a stack frame")
    if kernels == 0:  # nothing compiled, or the cubins no longer read as this script expects
        print("check_stack_frames: no kernel's frame size found")
        return 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
