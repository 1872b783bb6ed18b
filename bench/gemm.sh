#!/usr/bin/env bash
# bench/gemm.sh - how much does gpuaudit's harness cost? `gpuaudit bench gemm`
# on the cblas backend (OpenBLAS through dlopen, the harness's timing loop)
# against bench/gemm_direct.c, a minimal program calling OpenBLAS's
# cblas_sgemm directly with the same rules (warm-up, then timed calls, median).
# Alternates the two ROUNDS times so drift on a shared machine hits both, and
# reports the median of the per-round medians, the overhead in percent
# (target: < 2%), the CPU's theoretical peak (cores x clock x FLOP/cycle from
# /proc/cpuinfo, as gpuaudit computes it) and the fraction of it reached.
#
#   bench/gemm.sh [N] [REPS] [ROUNDS]     default 1024 10 7
#
# Writes bench/results/gemm-<host>.md. Needs: cc, libopenblas (libopenblas0 + the
# libopenblas.so link), python3, build/gpuaudit.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1024}
reps=${2:-10}
rounds=${3:-7}
bin=${GPUAUDIT:-build/gpuaudit}
out=bench/results
mkdir -p "$out"
[ -x "$bin" ] || { echo "bench: $bin missing (make)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib=$(ls /usr/lib/*/libopenblas.so.0 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "bench: libopenblas.so.0 missing" >&2; exit 3; }
cc -O2 -o "$tmp/gemm_direct" bench/gemm_direct.c "$lib" -Wl,-rpath,"$(dirname "$lib")"
host=$(uname -n)
# The backend comparison on the same CPU: OpenBLAS, CLBlast and the built-in OpenCL kernel (PoCL).
"$bin" bench gemm --backends cblas,clblast,opencl --dtype fp32 --sizes 256,512 --reps "$reps" --json >"$tmp/cliff.json" || true
for r in $(seq "$rounds"); do
	"$tmp/gemm_direct" "$n" "$reps" >>"$tmp/direct.txt"
	"$bin" bench gemm --backends cblas --dtype fp32 --sizes "$n" --reps "$reps" --json >"$tmp/ga.$r.json"
done
python3 - "$tmp" "$rounds" "$n" "$reps" "$out/gemm-$host.md" <<'PY'
import json, statistics, sys, platform, datetime
tmp, rounds, n, reps, dest = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
direct = [float(l.split()[1]) for l in open(f"{tmp}/direct.txt")]
direct_best = max(float(l.split()[3]) for l in open(f"{tmp}/direct.txt"))
ga, ga_best, peak, impl = [], 0.0, None, None
for r in range(1, rounds + 1):
    d = json.load(open(f"{tmp}/ga.{r}.json"))
    res = d["results"][0]
    assert res["status"] == "ok", res
    ga.append(res["median"] / 1e9)
    ga_best = max(ga_best, res["best"] / 1e9)
    peak, impl = d["host"]["cpu_peak_fp32_flops"], res["impl"]
md, mg = statistics.median(direct), statistics.median(ga)
over = 100.0 * (md - mg) / md
paired = statistics.median(100.0 * (d - g) / d for d, g in zip(direct, ga))
over_best = 100.0 * (direct_best - ga_best) / direct_best
info = {}
for line in open("/proc/cpuinfo"):
    k, _, v = line.partition(":")
    info.setdefault(k.strip(), v.strip())
cores = sum(1 for l in open("/proc/cpuinfo") if l.startswith("processor"))
flags = set(info.get("flags", "").split())
vec = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "sse"
lines = [
    f"# GEMM harness overhead: `gpuaudit bench gemm` vs direct cblas_sgemm ({host if False else platform.node()})",
    "",
    f"{datetime.date.today()}, `bench/gemm.sh {n} {reps} {rounds}`: fp32 {n}^3, {reps} timed calls per run after one warm-up,",
    f"{rounds} alternating rounds. Library: {impl}.",
    f"CPU: {info.get('model name')} , {cores} logical CPUs at {info.get('cpu MHz')} MHz (as /proc/cpuinfo reports), {vec}"
    f"{' + fma' if 'fma' in flags else ''}.",
    "",
    "| | median of round medians, GFLOP/s | best call, GFLOP/s | round medians (GFLOP/s) |",
    "|---|---:|---:|---|",
    f"| direct cblas_sgemm (bench/gemm_direct.c) | {md:.2f} | {direct_best:.2f} | {', '.join(f'{x:.1f}' for x in direct)} |",
    f"| gpuaudit bench gemm --backends cblas | {mg:.2f} | {ga_best:.2f} | {', '.join(f'{x:.1f}' for x in ga)} |",
    "",
    f"Harness overhead (positive: gpuaudit slower; target < 2%): {over:+.2f}% on the medians,",
    f"{paired:+.2f}% as the median of the per-round differences, {over_best:+.2f}% on the best calls.",
    "",
]
if peak:
    lines += [f"Theoretical fp32 peak (gpuaudit's estimate: cores x clock x FLOP/cycle): {peak/1e9:.1f} GFLOP/s;"
              f" achieved {100*mg*1e9/peak:.1f}% (gpuaudit), {100*md*1e9/peak:.1f}% (direct).", ""]
try:
    c = json.load(open(f"{tmp}/cliff.json"))
    lines += ["## Backends on the same CPU (`gpuaudit bench gemm --backends cblas,clblast,opencl --dtype fp32 --sizes 256,512`)", "",
              "| backend | what | median GFLOP/s | best GFLOP/s | cold start s |", "|---|---|---:|---:|---:|"]
    for r in c["results"]:
        if r["status"] == "ok":
            lines.append(f"| {r['backend']} | {r['what']} | {r['median']/1e9:.2f} | {r['best']/1e9:.2f} | {r['cold_start_s']:.3f} |")
    lines += ["", "| what | fast/slow | ratio of best samples | cliff (> 2x) |", "|---|---|---:|---|"]
    for q in c["ratios"]:
        lines.append(f"| {q['what']} | {q['fast']}/{q['slow']} | {q['ratio']:.2f} | {'yes' if q['cliff'] else 'no'} |")
    lines.append("")
except Exception as e:
    lines += [f"(backend comparison unavailable: {e})", ""]
open(dest, "w").write("\n".join(lines))
print("\n".join(lines))
PY
