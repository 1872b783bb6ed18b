#!/usr/bin/env bash
# bench/elfscan_check.sh - the census of this tree equals the census of an
# earlier commit, file by file, on real library directories:
#
#   bench/elfscan_check.sh [BASE_REV] [DIR...]
#       default BASE_REV main, DIRs /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu
#
# Builds libgpuaudit.a of BASE_REV in a temporary git worktree, links
# bench/elfscan_bench.c (this tree's) against both libraries, and diffs their
# `-j` dumps (every container, image, library name, marker and byte count of
# every file). The new build is dumped three ways: pread windows (the
# default), mapping only (-m), and without the SIMD scan (GA_ELFSCAN_NO_SIMD).
# Exit 0 when all dumps are identical, 1 with the first differences otherwise.
# The summary is also written to bench/results/elfscan-check-<host>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev=${1:-main}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(/usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu)
build=${BUILD:-build}
[ -f "$build/libgpuaudit.a" ] || { echo "check: $build/libgpuaudit.a missing (build first)" >&2; exit 3; }
tmp=$(mktemp -d)
# shellcheck disable=SC2317 # called through the trap
cleanup() {
	git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
git worktree add --detach "$tmp/base" "$base_rev" >/dev/null 2>&1
cmake -S "$tmp/base" -B "$tmp/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$tmp/base/build" --target gpuaudit -j2 >/dev/null
libs=$(pkg-config --libs jansson libfyaml libmd libelf libarchive libmicrohttpd libcurl)
# shellcheck disable=SC2086
cc -O2 -std=c11 -D_GNU_SOURCE -I"$tmp/base/include" -o "$tmp/old" bench/elfscan_bench.c \
	"$tmp/base/build/libgpuaudit.a" $libs -lpthread -ldl -lm
# shellcheck disable=SC2086
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o "$tmp/new" bench/elfscan_bench.c "$build/libgpuaudit.a" \
	$libs -lpthread -ldl -lm
status=0
mkdir -p bench/results
out=bench/results/elfscan-check-$(uname -n).txt
echo "bench/elfscan_check.sh $base_rev ${dirs[*]}: $(date -u +%Y-%m-%dT%H:%MZ), this tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib include || echo ' + uncommitted changes')" | tee "$out"
for d in "${dirs[@]}"; do
	[ -d "$d" ] || { echo "check: $d absent, skipped" | tee -a "$out"; continue; }
	find "$d/" -type f ! -name '* *' | sort >"$tmp/list"
	"$tmp/old" -j "@$tmp/list" | grep -v '^files ' >"$tmp/old.txt"
	"$tmp/new" -j "@$tmp/list" | grep -v '^files ' >"$tmp/new.txt"
	"$tmp/new" -m -j "@$tmp/list" | grep -v '^files ' >"$tmp/new-map.txt"
	GA_ELFSCAN_NO_SIMD=1 "$tmp/new" -j "@$tmp/list" | grep -v '^files ' >"$tmp/new-nosimd.txt"
	files=$(grep -c '^file ' "$tmp/old.txt" || true)
	conts=$(grep -c '^ c ' "$tmp/old.txt" || true)
	imgs=$(grep -c '^ i ' "$tmp/old.txt" || true)
	names=$(grep -c '^ dlopen ' "$tmp/old.txt" || true)
	for v in new new-map new-nosimd; do
		if cmp -s "$tmp/old.txt" "$tmp/$v.txt"; then
			echo "$d: $v identical to $base_rev ($files files, $conts containers, $imgs images, $names library names)" | tee -a "$out"
		else
			echo "$d: $v DIFFERS from $base_rev:" | tee -a "$out"
			diff "$tmp/old.txt" "$tmp/$v.txt" | head -20 | tee -a "$out"
			status=1
		fi
	done
done
exit $status
