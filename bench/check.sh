#!/usr/bin/env bash
# bench/check.sh - time `gpuaudit check` (the per-node cost of an NPD plugin or a
# Slurm health check) on a recorded fixture, without vendor libraries.
#
#   bench/check.sh [RUNS] [FIXTURE]     default 50 runs, dgx-a100
#
# Prints the median; the target is a few milliseconds (NPD's default plugin
# timeout is 5 s, Slurm's health check limit 60 s). Needs hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
fixture=${2:-dgx-a100}
bin=${GPUAUDIT:-build/gpuaudit}
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing (scripts/install-deps --bench)" >&2; exit 3; }
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
json=$(mktemp)
trap 'rm -f "$json"' EXIT
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
cmd="$bin check --policy tests/fixtures/policies/fleet.yaml --root tests/fixtures/nodes/$fixture/root --no-vendor"
# exit 1 (violations) is a result, not a failure of the run
hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$json" -n "gpuaudit check ($fixture)" "$cmd" >/dev/null
python3 - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{r['command']}: median {r['median'] * 1000:.2f} ms (mean {r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f} ms, {len(r['times'])} runs)")
PY
