#!/usr/bin/env bash
# bench/check.sh - time `gpuaudit check` (the per-node cost of an NPD plugin or a
# Slurm health check) on a recorded fixture, without vendor libraries, and split
# it: collection (`discover --json`) against policy + analysis (`check --from`).
#
#   bench/check.sh [RUNS] [FIXTURE]     default 50 runs, dgx-a100
#
# Target: a few milliseconds for the check itself (NPD's default plugin timeout
# is 5 s, Slurm's health check limit 60 s). Writes bench/results/check-<host>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
fixture=${2:-dgx-a100}
bin=${GPUAUDIT:-build/gpuaudit}
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing (scripts/install-deps --bench)" >&2; exit 3; }
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
root=tests/fixtures/nodes/$fixture/root
policy=tests/fixtures/policies/fleet.yaml
"$bin" discover --root "$root" --no-vendor --json >"$tmp/node.json" || true
# exit 1 (violations) is a result, not a failure of the run
hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$tmp/r.json" --export-markdown "$tmp/r.md" \
	-n "check --root ($fixture): collect + policy + analysis" "$bin check --policy $policy --root $root --no-vendor" \
	-n "check --from snapshot: policy + analysis" "$bin check --policy $policy --from $tmp/node.json" \
	-n "discover --json --root ($fixture): collection alone" "$bin discover --json --root $root --no-vendor" \
	-n "gpuaudit --version: process start" "$bin --version" >/dev/null
mkdir -p bench/results
python3 - "$tmp/r.json" "$tmp/r.md" "bench/results/check-$(uname -n).md" "$runs" <<'PY'
import json, sys, os, datetime, platform
res = json.load(open(sys.argv[1]))["results"]
lines = [f"# check benchmark: {platform.node()} ({os.cpu_count()} CPUs), {datetime.date.today()}", "",
         f"`bench/check.sh {sys.argv[4]}`; medians.", "", "| command | median ms |", "|---|---:|"]
for r in res:
    lines.append(f"| {r['command']} | {r['median'] * 1000:.2f} |")
lines += ["", open(sys.argv[2]).read()]
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines[4:4 + 2 + len(res)]))
PY
