#!/bin/sh
# deps-truncated-elf.sh GPUAUDIT - issue 22 item 6: a shared library cut short
# (program headers, section headers, the dynamic section beyond the end) is a gap
# on that file and the scan INCOMPLETE (exit 4), never an ELF with no SONAME and no
# NEEDED that passes. Cuts a real shared library (libm, else the libc gpuaudit
# itself links) at lengths from 64 bytes to all but one byte, each scanned alone,
# on disk and inside a zip (the archive reader path), and a large one (over 8 MiB,
# when the system has one) cut at 5 MiB in a directory (the threaded census).
set -u
GA=$1
lib=
for c in /usr/lib/x86_64-linux-gnu/libm.so.6 /lib/x86_64-linux-gnu/libm.so.6 /usr/lib64/libm.so.6 \
	/usr/lib/aarch64-linux-gnu/libm.so.6; do
	[ -f "$c" ] && { lib=$c; break; }
done
[ -n "$lib" ] || lib=$(ldd "$GA" 2>/dev/null | awk '/libc\.so/ {print $3; exit}')
[ -n "$lib" ] && [ -f "$lib" ] || exit 77
command -v python3 >/dev/null || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
size=$(wc -c <"$lib")
# the whole library first: no gap (the cuts below are the only damage)
"$GA" deps "$lib" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: the whole $lib: exit $rc"; cat "$tmp/out"; exit 1; }
fail=0 n=0
for len in 64 100 200 500 1000 2000 3000 5000 20000 $((size / 2)) $((size - 1)); do
	head -c "$len" "$lib" >"$tmp/cut$len.so"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").write(sys.argv[2], "lib/cut.so")' \
		"$tmp/cut$len.zip" "$tmp/cut$len.so" || exit 1
	for f in "cut$len.so" "cut$len.zip"; do
		n=$((n + 1))
		timeout 10 "$GA" deps "$tmp/$f" >"$tmp/out" 2>&1
		rc=$?
		if [ $rc -ne 4 ] || ! grep -q 'truncated' "$tmp/out" || ! grep -q '^result: INCOMPLETE' "$tmp/out"; then
			echo "FAIL: $f ($len of $size bytes): exit $rc"
			cat "$tmp/out"
			fail=1
		fi
	done
done
# a large library cut, in a directory: censused ahead of the walk by the worker threads
big=$(find /usr/lib /usr/lib64 -name 'lib*.so*' -type f -size +8M 2>/dev/null | head -n 1)
if [ -n "$big" ]; then
	mkdir -p "$tmp/tree/lib"
	head -c $((5 << 20)) "$big" >"$tmp/tree/lib/libbig.so"
	n=$((n + 1))
	timeout 10 "$GA" deps "$tmp/tree" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne 4 ] || ! grep -q 'libbig.so: truncated' "$tmp/out"; then
		echo "FAIL: $big cut at 5 MiB in a directory: exit $rc"
		cat "$tmp/out"
		fail=1
	fi
fi
echo "$n cuts of $lib: $([ $fail -eq 0 ] && echo 'every one a gap, exit 4' || echo 'some passed')"
exit $fail
