#!/usr/bin/env python3
"""bench/census_sections.py - where the device code and library names of a library
directory lie (issue 28, item 6): could the census find its fatbins from the CUDA
runtime's registration wrappers instead of scanning .rodata / .lrodata / .data /
.ldata, and its library names from a few small reads?

For every ELF shared object of DIR (64-bit, little-endian):
  * the wrappers of .nvFatBinSegment (24 bytes each: magic 0x466243b1, version,
    pointer to the fatbin, pointer), the fatbin pointer taken from the
    R_X86_64_RELATIVE relocation at its address (addend) or as stored, turned
    into a file offset with the PT_LOAD program headers;
  * per section the census scans (its rules: PROGBITS, not code, not the skipped
    prefixes of lib/deps/elf-skip.def), the fatbin containers found the census's
    way (4-byte steps from the section start, version 1, header size 16..256,
    fits the section; payloads skipped) and how many of them a wrapper points at;
  * with JSON (the output of `gpuaudit deps --json DIR`): for every library name
    the census reported, the sections whose bytes hold it (every section with
    bytes in the file: .dynstr and the symbol tables too).

  bench/census_sections.py DIR [JSON]
"""
import json
import mmap
import os
import struct
import sys

MAGIC = b"\x50\xed\x55\xba"
WRAPPER_MAGIC = 0x466243B1
R_X86_64_RELATIVE = 8


def skip_prefixes():
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    with open(os.path.join(here, "..", "lib", "deps", "elf-skip.def")) as f:
        for line in f:
            if line.startswith("GA_ELF_SKIP(\""):
                out.append(line.split('"')[1])
    return out


SKIP = skip_prefixes()


def sections(m):
    shoff, = struct.unpack_from("<Q", m, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", m, 0x3C)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", m, shoff + i * 64)
        secs.append({"name": name, "type": typ, "flags": flags, "addr": addr, "off": off, "size": size})
    base = secs[shstrndx]["off"]
    for s in secs:
        start = base + s["name"]
        s["name"] = m[start:m.find(b"\0", start)].decode(errors="replace")
    return secs


def wrapper_targets(m, secs):
    phoff, = struct.unpack_from("<Q", m, 0x20)
    phnum, = struct.unpack_from("<H", m, 0x38)
    loads = []
    for i in range(phnum):
        typ, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", m, phoff + i * 56)
        if typ == 1:
            loads.append((vaddr, off, filesz))
    relative = {}
    for s in secs:
        if s["type"] == 4:  # SHT_RELA
            for k in range(s["size"] // 24):
                where, info, addend = struct.unpack_from("<QQq", m, s["off"] + k * 24)
                if info & 0xFFFFFFFF == R_X86_64_RELATIVE:
                    relative[where] = addend
    n, targets = 0, set()
    for s in secs:
        if s["name"] != ".nvFatBinSegment":
            continue
        for k in range(s["size"] // 24):
            magic, _, ptr, _ = struct.unpack_from("<IIQQ", m, s["off"] + k * 24)
            if magic != WRAPPER_MAGIC:
                continue
            n += 1
            ptr = relative.get(s["addr"] + k * 24 + 8, ptr)
            for vaddr, off, filesz in loads:
                if vaddr <= ptr < vaddr + filesz:
                    targets.add(off + ptr - vaddr)
    return n, targets


def containers(m, off, size):
    end, q, found, outside = off + size, off, [], 0
    gap = off
    while True:
        q = m.find(MAGIC, q, end)
        if q < 0:
            break
        if (q - off) % 4:
            q += 1
            continue
        version, hsize, fsize = struct.unpack_from("<HHQ", m, q + 4) if q + 16 <= end else (0, 0, 0)
        if version == 1 and 16 <= hsize <= 256 and q + hsize + fsize <= end:
            found.append(q)
            outside += q - gap
            gap = q + hsize + fsize
            q = off + ((gap - off + 3) & ~3)
        else:
            q += 4
    return found, outside + end - gap


def scanned(s):
    return (s["type"] == 1 and not s["flags"] & 4 and s["size"] and
            not any(s["name"].startswith(p) for p in SKIP))


def main():
    d = sys.argv[1]
    names = {}
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            for fe in json.load(f)["files"]:
                el = fe.get("elf") or {}
                if el.get("dlopen"):
                    names[os.path.realpath(fe["path"])] = el["dlopen"]
    total_outside = 0
    for fn in sorted(os.listdir(d)):
        path = os.path.join(d, fn)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            head = f.read(6)
            if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1 or os.path.getsize(path) < 64:
                continue
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        secs = sections(m)
        n_wrap, targets = wrapper_targets(m, secs)
        rows = []
        for s in secs:
            if not scanned(s):
                continue
            found, outside = containers(m, s["off"], s["size"])
            total_outside += outside
            if found or outside >= 1 << 20:
                hit = sum(1 for c in found if c in targets)
                rows.append("  %-16s %8.1f MiB  %6d containers, %6d reached by a wrapper, %7.1f MiB outside them"
                            % (s["name"], s["size"] / 2**20, len(found), hit, outside / 2**20))
        where = {}
        for nm in names.get(os.path.realpath(path), []):
            hold = [s["name"] for s in secs if s["type"] not in (0, 8) and m.find(nm.encode(), s["off"], s["off"] + s["size"]) >= 0]
            for h in hold or ["(none)"]:
                where[h] = where.get(h, 0) + 1
        if rows or where:
            print("%s: %d wrappers" % (fn, n_wrap))
            for r in rows:
                print(r)
            if where:
                print("  library names by section: " + ", ".join("%s %d" % kv for kv in sorted(where.items())))
        m.close()
    print("bytes outside containers in the scanned sections: %.1f MiB" % (total_outside / 2**20))


if __name__ == "__main__":
    main()
