#!/usr/bin/env bash
# bench/record.sh [BUILD_DIR] - CPU time (user + system) per sample of
# `gpuaudit record` on this machine: `record --count 50 --interval 0.01`,
# total CPU seconds divided by 50 (51 reads, 50 lines; the sleeps cost none).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
n=50
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/time -f '%U+%S' -o "$tmp/time" "$build/gpuaudit" record --count $n --interval 0.01 >"$tmp/out.jsonl"
lines=$(wc -l <"$tmp/out.jsonl")
cpu=$(tail -1 "$tmp/time")
python3 - "$cpu" "$n" "$lines" <<'PY'
import sys
cpu = sum(float(x) for x in sys.argv[1].split("+"))
n, lines = int(sys.argv[2]), int(sys.argv[3])
print(f"record: {lines} lines, {cpu:.3f} s CPU, {cpu / n * 1000:.3f} ms CPU per sample")
PY
