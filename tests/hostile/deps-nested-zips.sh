#!/bin/sh
# deps-nested-zips.sh GPUAUDIT - issue 22 item 2: archives nested in archives are
# bounded by one nesting counter whatever the kind (docs/deps.md: 8 levels).
# Generated here: 500 stored zips each holding the previous one as "self.zip" (a
# reader that opens members sees the zip contain itself, level after level: what a
# zip quine looks like to a scanner; 63 KB), and a chain alternating zip, tar,
# tar.gz and wheel (20 levels). Before the fix the zip chain overflowed the stack
# (6,000 levels: 12.6 GB resident, PASS). Each must end within `timeout 20`, under
# 200 MB resident, with exit 4 (INCOMPLETE) and the nesting gap at level 9.
set -u
GA=$1
command -v python3 >/dev/null || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY' || exit 1
import io, sys, tarfile, zipfile
d = sys.argv[1]
blob = b"\x7fELF\x02\x01\x01" + b"\0" * 57  # a 64-byte start of an ELF, the innermost member
inner = blob
name = "lib/libx.so"
for i in range(500):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr(name, inner)
    inner, name = b.getvalue(), "self.zip"
open(d + "/quine.zip", "wb").write(inner)
# mixed kinds: zip, tar, tar.gz, wheel, ...
inner, name = blob, "lib/libx.so"
for i in range(20):
    k = i % 4
    b = io.BytesIO()
    if k in (0, 3):
        with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(name, inner)
        nxt = "l%d.zip" % i if k == 0 else "l%d-1.0-py3-none-any.whl" % i
    else:
        with tarfile.open(fileobj=b, mode="w:gz" if k == 2 else "w") as t:
            ti = tarfile.TarInfo(name)
            ti.size = len(inner)
            t.addfile(ti, io.BytesIO(inner))
        nxt = "l%d.tar.gz" % i if k == 2 else "l%d.tar" % i
    inner, name = b.getvalue(), nxt
open(d + "/mixed.zip", "wb").write(inner)
PY
fail=0
have_time=false
[ -x /usr/bin/time ] && have_time=true
for f in quine.zip mixed.zip; do
	if $have_time; then
		timeout 20 /usr/bin/time -o "$tmp/rss" -f %M "$GA" deps "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
	else
		timeout 20 "$GA" deps "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
	fi
	rc=$?
	if [ $rc -ne 4 ]; then
		echo "FAIL $f: exit $rc (want 4, INCOMPLETE)"; tail -n 5 "$tmp/out" "$tmp/err"; fail=1; continue
	fi
	line=$(grep 'archive nested deeper than 8 levels: not opened' "$tmp/out" | head -1)
	if [ -z "$line" ]; then
		echo "FAIL $f: no nesting gap"; tail -n 5 "$tmp/out"; fail=1; continue
	fi
	# the refused member is the 9th level: 8 "!/" separators in its path
	seps=$(printf '%s\n' "$line" | grep -o '!/' | wc -l)
	if [ "$seps" -ne 8 ]; then
		echo "FAIL $f: the gap is at level $((seps + 1)), want 9: $line"; fail=1
	fi
	grep -q '^result: INCOMPLETE' "$tmp/out" || { echo "FAIL $f: result is not INCOMPLETE"; fail=1; }
	if $have_time; then
		rss=$(tail -1 "$tmp/rss")
		if [ "$rss" -gt 204800 ]; then echo "FAIL $f: peak RSS $rss KiB"; fail=1; fi
		echo "$f: exit $rc, peak RSS ${rss} KiB"
	fi
done
exit $fail
