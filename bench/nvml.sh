#!/usr/bin/env bash
# bench/nvml.sh - cost of an NVML collection per GPU, and the overhead of the
# deadline helper (posix_spawn + JSON over a pipe) against an in-process call.
#
#   bench/nvml.sh [RUNS]           with the fake libnvidia-ml (8xA100 scenario)
#   NVML_REAL=1 bench/nvml.sh      with the machine's real libnvidia-ml (GPU nodes)
#
# Also times `discover --json` with and without vendor libraries (hyperfine).
# Writes bench/results/nvml-<host>.md. Target: helper overhead under 5 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
build=${BUILD:-build}
bin=$build/gpuaudit
out=bench/results
mkdir -p "$out"
[ -x "$bin" ] && [ -x "$build/nvml_bench" ] || { echo "bench: build first (make)" >&2; exit 3; }
if [ "${NVML_REAL:-0}" != 1 ]; then
	export LD_LIBRARY_PATH=$PWD/$build/tests/fakes/nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export FAKE_NVML_SCENARIO=$PWD/tests/fakes/scenarios/healthy-8xa100.json
	root=(--root tests/fixtures/nodes/dgx-a100/root --vendor)
	what="fake libnvidia-ml, healthy 8xA100 scenario, dgx-a100 fixture"
else
	root=()
	what="real libnvidia-ml"
fi
host=$(uname -n)
res=$("$build/nvml_bench" "$PWD/$bin" "$runs")
echo "$res"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp".md' EXIT
if command -v hyperfine >/dev/null; then
	hyperfine --warmup 3 --runs "$runs" -N --export-markdown "$tmp.md" \
		-n "discover --json (with NVML)" "$bin discover --json ${root[*]}" \
		-n "discover --json --no-vendor" "$bin discover --json ${root[*]} --no-vendor" \
		-n "/bin/true (this machine's bare process start)" "/bin/true" >/dev/null 2>&1 || true
fi
{
	echo "# NVML collection: $host ($(nproc) CPUs), $(date +%F)"
	echo
	echo "Source: $what; \`bench/nvml.sh $runs\` (medians of $runs runs)."
	echo
	echo "| measure | value |"
	echo "|---|---:|"
	echo "$res" | while read -r k v; do echo "| $k | $v |"; done
	echo
	[ -f "$tmp.md" ] && cat "$tmp.md"
} >"$out/nvml-$host.md"
echo "wrote $out/nvml-$host.md"
