#!/bin/sh
# deps-member-large.sh GPUAUDIT - issue 28 point 1: an archive member larger than
# the old 64 MiB memory cap (real wheels and .debs carry 0.15-2 GB libraries) is
# read COMPLETE with bounded memory: spooled to an unlinked file in TMPDIR, not
# held. Synthesized here: a small shared library with an sm_80 fatbin in
# .nv_fatbin (gcc), grown to ~80 MiB by objcopy with a non-loaded section of
# zeros, stored in a wheel. Checks: the verdict (PASS for cuda:12.4,sm_80, the
# sm_80 kernel found), peak RSS under 64 MiB (/usr/bin/time; not under a
# sanitizer, whose shadow memory is not ours), and that the optional cap
# --max-member-bytes still refuses it, INCOMPLETE, naming the flag.
set -u
GA=$1
for t in python3 gcc objcopy; do command -v $t >/dev/null || exit 77; done
[ -x /usr/bin/time ] || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 - <<'PY' || exit 1
import struct
# one fatbin container with one sm_80 cubin entry (layout: docs/deps.md, mkartifacts.py)
payload = b"\0" * 32
hdr = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x0101, 64, len(payload), 0, 0, 8, 1, 80, 0, 0, 0x11, 0, 0)
body = hdr + payload
blob = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body
with open("big.c", "w") as f:
    f.write('__attribute__((section(".nv_fatbin"), aligned(4096), used))\n'
            "const unsigned char devcode[] = {%s};\nint k(void) { return 0; }\n" % ",".join(map(str, blob)))
with open("payload.bin", "wb") as f:
    f.truncate(80 << 20)
PY
gcc -shared -fPIC -O1 -o small.so big.c || exit 1
objcopy --add-section .gpuaudit.payload=payload.bin --set-section-flags .gpuaudit.payload=noload,readonly \
	small.so libbig.so || exit 1
rm -f payload.bin small.so
python3 - <<'PY' || exit 1
import os, zipfile
with zipfile.ZipFile("big-1.0-py3-none-any.whl", "w", zipfile.ZIP_STORED) as z:
    z.write("libbig.so", "big/lib/libbig.so")
    z.writestr("big-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n")
print("member", os.path.getsize("libbig.so"), "bytes")
PY
rm -f libbig.so
fail=0
TMPDIR=$tmp timeout 60 /usr/bin/time -o rss -f '%M %e' "$GA" deps --target cuda:12.4,sm_80 big-1.0-py3-none-any.whl >out 2>err
rc=$?
set -- $(tail -1 rss)
echo "exit $rc, peak RSS ${1:-?} KiB, ${2:-?} s"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc, want 0 (PASS)"; cat out err; fail=1; }
grep -q '^result: PASS' out || { echo "FAIL: no PASS result line"; cat out; fail=1; }
grep -q 'sm_80' out || { echo "FAIL: the sm_80 kernel is not listed"; cat out; fail=1; }
if grep -q 'not read' out; then echo "FAIL: a gap"; cat out; fail=1; fi
if [ "${GA_SANITIZE:-OFF}" != OFF ] && [ -n "${GA_SANITIZE:-}" ]; then
	echo "peak RSS not asserted under GA_SANITIZE=$GA_SANITIZE"
elif [ "${1:-999999}" -ge 65536 ]; then
	echo "FAIL: peak RSS ${1:-?} KiB (want < 64 MiB for an 80 MiB member)"
	fail=1
fi
# the optional cap still refuses, and the INCOMPLETE result says which flag
TMPDIR=$tmp "$GA" deps --max-member-bytes 64M --target cuda:12.4,sm_80 big-1.0-py3-none-any.whl >out 2>err
rc=$?
[ $rc -eq 4 ] || { echo "FAIL: with --max-member-bytes 64M exit $rc, want 4"; cat out err; fail=1; }
grep -q 'libbig.so: member is [0-9]* bytes, more than --max-member-bytes 67108864: not read' out ||
	{ echo "FAIL: no --max-member-bytes gap"; cat out; fail=1; }
exit $fail
