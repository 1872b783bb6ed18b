#!/usr/bin/env bash
# bench/discover.sh - time `gpuaudit discover --json` against the tools a user
# would otherwise run to learn the same things: `lspci -vmm` (PCI ids and
# names only) and `lstopo-no-graphics --of xml` (hwloc topology), with
# hyperfine, on this machine and on the largest recorded fixture.
#
#   bench/discover.sh [RUNS]      default 30 runs per command
#
# Writes bench/results/discover-<host>.md (hyperfine markdown + ratios) and
# prints the medians. Needs: hyperfine, pciutils, hwloc-nox, python3
# (scripts/install-deps --bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
bin=${GPUAUDIT:-build/gpuaudit}
out=bench/results
mkdir -p "$out"
for t in hyperfine lspci lstopo-no-graphics python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (make)" >&2; exit 3; }
host=$(uname -n)
json=$(mktemp)
trap 'rm -f "$json" "$json".*' EXIT

hyperfine --warmup 3 --runs "$runs" --export-json "$json.live" --export-markdown "$json.live.md" -N \
	-n "gpuaudit discover --json" "$bin discover --json" \
	-n "lspci -vmm" "lspci -vmm" \
	-n "lstopo-no-graphics --of xml" "lstopo-no-graphics --of xml -" >/dev/null

fixture=tests/fixtures/nodes/dgx-a100/root
hyperfine --warmup 3 --runs "$runs" --export-json "$json.fix" --export-markdown "$json.fix.md" -N \
	-n "gpuaudit discover --json (dgx-a100 fixture)" "$bin discover --json --root $fixture" \
	-n "gpuaudit discover --json (names from the 60-line test pci.ids)" \
	"env GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids $bin discover --json" >/dev/null

python3 - "$json.live" "$json.fix" "$out/discover-$host.md" "$json.live.md" "$json.fix.md" <<'PY'
import json, statistics, sys, platform, os, datetime
live, fix, dest, live_md, fix_md = sys.argv[1:6]
def med(path):
    r = json.load(open(path))["results"]
    return {x["command"]: statistics.median(x["times"]) for x in r}
m = med(live); m.update(med(fix))
ga = m["gpuaudit discover --json"]
lines = []
lines.append(f"# discover benchmark: {platform.node()} ({os.cpu_count()} CPUs), {datetime.date.today()}\n")
lines.append("Medians of hyperfine runs (`bench/discover.sh`); ratio = peer / gpuaudit (above 1: gpuaudit is faster).\n")
lines.append("| command | median ms | ratio |")
lines.append("|---|---:|---:|")
for k, v in m.items():
    lines.append(f"| `{k}` | {v*1000:.2f} | {v/ga:.2f} |")
lines.append("\n## hyperfine output\n")
lines.append(open(live_md).read())
lines.append(open(fix_md).read())
open(dest, "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:4 + len(m)]))
PY
echo "wrote $out/discover-$host.md"
