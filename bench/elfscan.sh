#!/usr/bin/env bash
# bench/elfscan.sh - the device-code census of the ELF library (ga_elf_inspect*)
# against reading every byte of the same files, warm cache:
#
#   bench/elfscan.sh [RUNS] [DIR]      default 10 runs, /usr/local/cuda/lib64
#
# Commands (hyperfine -N, 2 warm-ups): `xargs -a LIST cat` (stdout to /dev/null), the
# census through pread windows (elfscan_bench, the default), the census through
# the mapping only (elfscan_bench -m), and the NEEDED/RPATH-only listing
# (elfscan_bench -n). Target from issue 5: census <= 0.5x cat. Also records the
# census totals and the peak RSS. Writes bench/results/elfscan-<dir basename>-<host>.md.
# With BASE_REV=<commit>, the census of that commit (built in a temporary git
# worktree) is timed in the same hyperfine run: before/after under the same load.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
dir=${2:-/usr/local/cuda/lib64}
build=${BUILD:-build}
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing" >&2; exit 3; }
[ -f "$build/libgpuaudit.a" ] || { echo "bench: $build/libgpuaudit.a missing (build first)" >&2; exit 3; }
[ -d "$dir" ] || { echo "bench: $dir absent" >&2; exit 3; }
tmp=$(mktemp -d)
cleanup() {
	[ -z "${BASE_REV:-}" ] || git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
bin=$tmp/elfscan_bench
libs=$(pkg-config --libs jansson libfyaml libmd libelf libarchive libmicrohttpd libcurl)
# shellcheck disable=SC2086
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o "$bin" bench/elfscan_bench.c "$build/libgpuaudit.a" \
	$libs -lpthread -ldl -lm
base=()
if [ -n "${BASE_REV:-}" ]; then
	git worktree add --detach "$tmp/base" "$BASE_REV" >/dev/null 2>&1
	cmake -S "$tmp/base" -B "$tmp/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$tmp/base/build" --target gpuaudit -j2 >/dev/null
	# shellcheck disable=SC2086
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$tmp/base/include" -o "$tmp/elfscan_base" bench/elfscan_bench.c \
		"$tmp/base/build/libgpuaudit.a" $libs -lpthread -ldl -lm
	base=(-n "census of $BASE_REV (pread windows)" "$tmp/elfscan_base @$tmp/files")
fi
# regular files only, no names with spaces (xargs would split them)
find "$dir/" -type f ! -name '* *' | sort >"$tmp/files"
list=$tmp/files
bytes=$(xargs -a "$list" cat | wc -c)
"$bin" "@$list" >"$tmp/census.txt"
/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" "@$list" >/dev/null
# both sides get the list the same way: cat through one xargs (one cat process for
# a list that fits ARG_MAX), the census through @LIST
hyperfine -N --warmup 2 --runs "$runs" --export-json "$tmp/r.json" --export-markdown "$tmp/r.md" \
	-n "cat FILES (xargs)" "xargs -a $list cat" \
	-n "census (pread windows)" "$bin @$list" \
	"${base[@]}" \
	-n "census (mapping only)" "$bin -m @$list" \
	-n "NEEDED/RPATH only (-n)" "$bin -n @$list" >/dev/null
mkdir -p bench/results
python3 - "$tmp/r.json" "$tmp/r.md" "bench/results/elfscan-$(basename "$dir")-$(uname -n).md" "$runs" "$dir" "$bytes" \
	"$(cat "$tmp/census.txt")" "$(cat "$tmp/rss")" "$(wc -l <"$tmp/files")" <<'PY'
import json, sys, os, datetime, platform
res = json.load(open(sys.argv[1]))["results"]
runs, d, nbytes, census, rss, nfiles = sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7], sys.argv[8], sys.argv[9]
cat = next(r for r in res if r["command"].startswith("cat FILES"))
load = " ".join(f"{x:.1f}" for x in os.getloadavg())
lines = [f"# ELF census benchmark: {platform.node()} ({os.cpu_count()} CPUs), {datetime.date.today()}", "",
         f"`bench/elfscan.sh {runs} {d}`: {nfiles} files, {nbytes / 1e9:.2f} GB, warm cache; medians,",
         "user+sys CPU in ms (means), ratio = median / median of cat (CPU ratio: of the user+sys means);",
         f"load average at the end {load} (a shared 2-core VM: expect noise).", "",
         "| command | median ms | user+sys ms | ratio to cat | CPU ratio |", "|---|---:|---:|---:|---:|"]
cat_cpu = cat["user"] + cat["system"]
for r in res:
    cpu = (r["user"] + r["system"]) * 1000
    lines.append(f"| {r['command']} | {r['median'] * 1000:.1f} | {cpu:.1f} | {r['median'] / cat['median']:.2f} | "
                 f"{(r['user'] + r['system']) / cat_cpu:.2f} |")
lines += ["", f"census: `{census.strip()}`", f"peak RSS of the census: {rss} KiB", "", open(sys.argv[2]).read()]
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines[2:8 + len(res)]))
print(lines[-4]); print(lines[-3])
PY
