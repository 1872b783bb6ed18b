#!/usr/bin/env bash
# bench/collect.sh - CPU time of one collection and resident memory of `gpuaudit serve` on a
# node with 8 GPUs, 8 InfiniBand rails (+2 RoCE) and NVLink: the dgx-a100-ib fixture
# (tests/fixtures/nodes/dgx-a100-ib) with the fake NVML (tests/fakes) for its 8 GPUs.
#
#   bench/collect.sh [SECONDS] [RUNS]     default 20 s of serve, 20 `serve --once` runs
#   GPUAUDIT_BASE=old/gpuaudit bench/collect.sh   also the steady state of an older binary
#                                         (one without the network collectors), and the ratio
#
# Two figures, both from the kernel's accounting (/proc/PID/stat utime+stime, with the
# vendor helper child's cutime+cstime; getrusage of waited children for --once):
#   per collection   a long-running `serve --interval 1s`: CPU ticks over the run divided by
#                    the collections it made (gpuaudit_collections_total): the steady state,
#                    sysfs walk + NVML helper + judging + rendering every output
#   per process      `serve --once` RUNS times: the median user+sys of a whole process
#                    (exec, dynamic loading, one collection, one exposition): an upper bound
# and serve's VmRSS / VmHWM at the end of the run. Targets (issue 18): < 50 ms CPU per
# collection, resident memory <= 10 MiB.
# NVLink: the fake NVML scenario is GA_BENCH_SCENARIO, else the first
# tests/fakes/scenarios/*nvlink*.json (NVLink error counters, when the fake has them),
# else healthy-8xa100.json (NVLink states only). Without the fake library: sysfs only.
# Writes bench/results/collect.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
runs=${2:-20}
bin=${GPUAUDIT:-build/gpuaudit}
fake=${GA_FAKE_NVML_DIR:-build/tests/fakes/nvml}
root=tests/fixtures/nodes/dgx-a100-ib/root
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "bench: python3 missing" >&2; exit 3; }
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
scen=${GA_BENCH_SCENARIO:-}
if [ -z "$scen" ]; then
	for f in tests/fakes/scenarios/*nvlink*.json; do [ -e "$f" ] && { scen=$f; break; }; done
fi
[ -n "$scen" ] || scen=tests/fakes/scenarios/healthy-8xa100.json
args=(--root "$root" --no-vendor)
what="dgx-a100-ib fixture, sysfs only (no fake NVML built)"
if [ -e "$fake/libnvidia-ml.so.1" ]; then
	export LD_LIBRARY_PATH=$PWD/$fake FAKE_NVML_SCENARIO=$PWD/$scen
	args=(--root "$root" --vendor --timeout 5)
	what="dgx-a100-ib fixture + fake NVML $(basename "$scen")"
fi
ports=$({ "$bin" discover "${args[@]}" --json || true; } | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["ib_ports"]), len(d["accelerators"]), sum(len((a.get("nvml") or {}).get("nvlinks") or []) for a in d["accelerators"]))')
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
hz=$(getconf CLK_TCK)

# 1. steady state: serve every second; sets per_col, ncol, rss, hwm
steady() {
	local b=$1 port c0 c1 t0 t1
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$b" serve "${args[@]}" --listen 127.0.0.1:"$port" --interval 1s 2>"$tmp/serve.err" &
	pid=$!
	for _ in $(seq 100); do metric "$port" gpuaudit_collections_total >/dev/null 2>&1 && break; sleep 0.1; done
	c0=$(metric "$port" gpuaudit_collections_total); t0=$(ticks)
	sleep "$secs"
	c1=$(metric "$port" gpuaudit_collections_total); t1=$(ticks)
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
	hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	ncol=$((c1 - c0))
	per_col=$(python3 -c "print('%.1f' % (($t1 - $t0) * 1000.0 / $hz / max($ncol, 1)))")
}
metric() { python3 - "$1" "$2" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
for line in body.splitlines():
    if line.startswith(sys.argv[2] + " "):
        print(int(float(line.split()[1])))
PY
}
ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat"; }
base_line=
if [ -n "${GPUAUDIT_BASE:-}" ]; then
	steady "$GPUAUDIT_BASE"
	base_col=$per_col base_rss=$rss
	base_line="before (GPUAUDIT_BASE=$GPUAUDIT_BASE, no network collection): $ncol collections, CPU $base_col ms per collection, VmRSS $((base_rss / 1024)).$(((base_rss % 1024) * 10 / 1024)) MiB"
fi
steady "$bin"

# 2. whole processes: serve --once
once=$(python3 - "$bin" "$runs" "${args[@]}" <<'PY'
import os, resource, statistics, subprocess, sys
binary, runs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ms = []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, "serve", "--once"] + args, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ms.append(((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000)
print("%.1f %.1f %.1f" % (statistics.median(ms), min(ms), max(ms)))
PY
)
read -r once_med once_min once_max <<<"$once"
mkdir -p bench/results
{
	echo "# bench/collect.sh $secs $runs  ($(date -u +%Y-%m-%dT%H:%MZ))"
	echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), shared with other jobs"
	echo "input:   $what"
	read -r np ng nl <<<"$ports"
	echo "node:    $ng GPUs, $np InfiniBand/RoCE ports, $nl NVLinks in the snapshot"
	echo "serve --interval 1s for ${secs}s: $ncol collections, CPU $per_col ms per collection (target < 50 ms)"
	echo "serve resident memory: VmRSS $((rss / 1024)).$(((rss % 1024) * 10 / 1024)) MiB, VmHWM $((hwm / 1024)).$(((hwm % 1024) * 10 / 1024)) MiB (target <= 10 MiB)"
	echo "serve --once x$runs: CPU median $once_med ms (min $once_min, max $once_max) per whole process"
	[ -z "$base_line" ] || echo "$base_line; ratio after/before $(python3 -c "print('%.2f' % ($per_col / max($base_col, 0.01)))")"
} | tee bench/results/collect.txt
