#!/bin/sh
# deps-member-memory.sh GPUAUDIT - issue 22 item 2, issue 28: a small zip whose
# members inflate to 1.25 GiB must not be held in memory, and is refused for what
# makes it a bomb. Generated here (streamed, ~6 MB): lib/libbig.so, an ELF start
# then 1 GiB of zeros, and data/zeros.bin, 256 MiB of zeros that is neither ELF
# nor archive. Members of any size are read (spooled to an unlinked file past
# 32 MiB), so the ELF is not refused for its size (issue 28: the old 64 MiB cap
# refused real libraries too); the zip inflates ~200 times its size, past the
# --max-ratio bound (100, past 256 MiB): a gap naming the flag, INCOMPLETE, the
# rest of the zip not read. Before issue 22 the ELF was inflated into memory:
# ~1 GB resident. Bounds: `timeout 30`, peak RSS under 100 MB (/usr/bin/time).
set -u
GA=$1
command -v python3 >/dev/null || exit 77
[ -x /usr/bin/time ] || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/big.zip" <<'PY' || exit 1
import sys, zipfile
zero = b"\0" * (1 << 20)
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    for name, head in (("lib/libbig.so", b"\x7fELF\x02\x01\x01" + b"\0" * 57), ("data/zeros.bin", b"")):
        with z.open(name, "w", force_zip64=True) as m:
            m.write(head)
            for _ in range(1024 if head else 256):
                m.write(zero)
PY
TMPDIR=$tmp timeout 30 /usr/bin/time -o "$tmp/rss" -f '%M %e' "$GA" deps "$tmp/big.zip" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -- $(tail -1 "$tmp/rss")
rss=${1:-0}
echo "exit $rc, peak RSS $rss KiB, ${2:-?} s"
fail=0
[ $rc -eq 4 ] || { echo "FAIL: exit $rc, want 4 (INCOMPLETE)"; tail -n 5 "$tmp/out" "$tmp/err"; fail=1; }
grep -q 'big.zip!/lib/libbig.so: archive inflates to more than 100 times its [0-9]* bytes on disk (--max-ratio): rest not read' "$tmp/out" ||
	{ echo "FAIL: no expansion gap on the ELF member"; cat "$tmp/out"; fail=1; }
if grep -q 'zeros.bin' "$tmp/out"; then echo "FAIL: the plain member is a gap"; cat "$tmp/out"; fail=1; fi
[ "$rss" -lt 102400 ] || { echo "FAIL: peak RSS $rss KiB (want < 100 MB)"; fail=1; }
exit $fail
