#!/usr/bin/env bash
# tools/device-check.sh - the one script to run on a machine with a real GPU
# (the project's H200 device machine, or any NVIDIA node). It:
#   1. builds gpuaudit there (or uses build/ if it was carried over),
#   2. runs `discover --json` against the real driver and NVML and checks the
#      facts that must hold on an H200: one GPU, model H200, ~141 GB of memory,
#      compute capability 9.0, driver and CUDA versions parsed, no NVML error,
#   3. times NVML collection in-process and through the deadline helper
#      (bench/nvml_bench) and discover with and without vendor libraries,
#   4. runs the primitive benchmarks (cuBLAS GEMM, transfers, OpenCL stream and
#      the cuBLAS/CLBlast/OpenCL cliff ratio) and the smoke suite,
#   5. captures the machine (gpuaudit capture + NVML's view) so it becomes
#      the fixture tests/fixtures/nodes/h200-real.
# Everything lands in $OUT (default ./device-out). Meant to finish in a few
# minutes; each step is bounded with timeout.
#
#   OUT=/tmp/o tools/device-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
log=$OUT/device-check.log
exec > >(tee "$log") 2>&1
fail=0
check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}

echo "== machine"
uname -a
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv 2>&1 | head -5 || true
nvidia-smi topo -m 2>&1 | head -20 >"$OUT/nvidia-smi-topo.txt" || true

echo "== build"
if [ ! -x build/gpuaudit ]; then
	timeout 300 cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGA_TESTS=OFF >/dev/null &&
		timeout 300 cmake --build build -j "$(nproc)" >/dev/null || { echo "FAIL build"; exit 1; }
fi
bin=build/gpuaudit
"$bin" --version

echo "== discover (real NVML)"
timeout 60 "$bin" discover --json --timeout 10 >"$OUT/discover.json"
echo "discover exit $?"
timeout 60 "$bin" discover --timeout 10 >"$OUT/discover.txt"
cat "$OUT/discover.txt"

if command -v python3 >/dev/null; then
	python3 - "$OUT/discover.json" <<'PY' >"$OUT/facts.txt"
import json, sys
d = json.load(open(sys.argv[1]))
nv = d.get("nvml") or {}
gpus = [a for a in d["accelerators"] if a.get("vendor") == "nvidia"]
g = (gpus[0].get("nvml") or {}) if gpus else {}
print("gpus", len(gpus))
print("name", g.get("name"))
print("memory_total_bytes", g.get("memory_total_bytes"))
print("compute_capability", g.get("compute_capability"))
print("driver_version", nv.get("driver_version"))
print("cuda_driver_version", nv.get("cuda_driver_version"))
print("nvml_error", nv.get("error"))
print("kernel_driver", next((x.get("version") for x in d["drivers"] if x["name"] == "nvidia"), None))
PY
	cat "$OUT/facts.txt"
	get() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$OUT/facts.txt"; }
	check "one NVIDIA GPU" test "$(get gpus)" = 1
	check "model is H200" grep -q "H200" <<<"$(get name)"
	mem=$(get memory_total_bytes)
	check "memory about 141 GB" test "${mem:-0}" -gt 130000000000 -a "${mem:-0}" -lt 160000000000
	check "compute capability 9.0" test "$(get compute_capability)" = 9.0
	check "driver version parsed" grep -Eq '^[0-9]+\.[0-9]+' <<<"$(get driver_version)"
	check "CUDA version parsed" grep -Eq '^[0-9]+\.[0-9]+$' <<<"$(get cuda_driver_version)"
	check "NVML without error" test "$(get nvml_error)" = None
	check "NVML and kernel agree" test "$(get driver_version)" = "$(get kernel_driver)"
fi

echo "== the nvidia module file (the shape discover's module_file_version assumes: .modinfo SHF_ALLOC alone, alignment 1)"
f=$(modinfo -n nvidia 2>/dev/null)
echo "module file: ${f:-none}; modinfo version: $(modinfo -F version nvidia 2>/dev/null)"
if [ -n "$f" ] && [ -f "$f" ] && command -v readelf >/dev/null; then
	case "$f" in
	*.xz) xz -dc "$f" >"$OUT/nvidia.ko.tmp" ;;
	*.zst) zstd -qdc "$f" >"$OUT/nvidia.ko.tmp" ;;
	*.gz) gzip -dc "$f" >"$OUT/nvidia.ko.tmp" ;;
	*) cp "$f" "$OUT/nvidia.ko.tmp" ;;
	esac
	readelf -S -W "$OUT/nvidia.ko.tmp" | grep -E '\.modinfo|\.rodata' | tee "$OUT/modinfo-sections.txt"
	rm -f "$OUT/nvidia.ko.tmp"
fi

echo "== timing"
if [ -x build/nvml_bench ]; then
	timeout 120 build/nvml_bench "$PWD/$bin" 20 | tee "$OUT/nvml-bench.txt"
fi
for mode in "" "--no-vendor"; do
	start=$(date +%s%N)
	for _ in 1 2 3 4 5 6 7 8 9 10; do timeout 30 "$bin" discover --json $mode >/dev/null; done
	end=$(date +%s%N)
	echo "discover --json $mode: $(((end - start) / 10000000)) ms per run (mean of 10)" | tee -a "$OUT/timing.txt"
done

echo "== primitive benchmarks (issue 8)"
# cuBLAS GEMM at 8192^3 in bf16, fp16 and fp32 (reference: ~790 TFLOP/s bf16 through
# PyTorch on this H200), host<->device and on-device copies (reference: ~4.3 TB/s device
# copy counting read + write; gpuaudit counts the bytes copied once), BabelStream
# through CUDA (PTX kernels) and OpenCL when the NVIDIA ICD is present, and cuBLAS against CLBlast and the built-in
# OpenCL kernel on the same GPU (the cliff ratio). Every result is verified against a
# float64 host reference; a wrong one exits 1.
bench() { # bench NAME SECONDS ARGS...
	local name=$1 secs=$2
	shift 2
	timeout "$secs" "$bin" "$@" --json >"$OUT/$name.json" 2>"$OUT/$name.err"
	echo "$name: exit $? ($*)"
}
ls /etc/OpenCL/vendors 2>/dev/null | sed 's/^/OpenCL ICD: /'
# Only the GPU's OpenCL driver: a CPU ICD (PoCL) would run the built-in GEMM at
# 4096^3 for minutes. ocl-icd reads OCL_ICD_VENDORS (a file or a directory).
if [ -f /etc/OpenCL/vendors/nvidia.icd ]; then
	export OCL_ICD_VENDORS=/etc/OpenCL/vendors/nvidia.icd
else
	echo "no NVIDIA OpenCL ICD: the OpenCL rows will say why"
	export OCL_ICD_VENDORS=/nonexistent-gpuaudit-no-icd
fi
bench bench-gemm-cuda 150 bench gemm --backends cuda --dtype bf16,fp16,fp32 --sizes 8192 --reps 10
bench bench-transfer 90 bench transfer --backends cuda,opencl --bytes 1G --reps 5
bench bench-stream 120 bench stream --backends cuda,opencl --elements 128M --reps 5
bench bench-gemm-cliff 150 bench gemm --backends cuda,clblast,opencl --dtype fp32 --sizes 4096 --reps 5
bench smoke 180 smoke --reps 5
if command -v python3 >/dev/null; then
	python3 - "$OUT" <<'PY' | tee "$OUT/bench-summary.txt"
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        print(f"{name}: no JSON ({e})")
        return None
for name in ("bench-gemm-cuda", "bench-transfer", "bench-stream", "bench-gemm-cliff", "smoke"):
    d = load(name)
    if not d:
        continue
    for b in d["backends"]:
        print(f"{name}: backend {b['name']} {b['status']} {b['version'] or b['reason'] or ''}")
    for r in d["results"]:
        rate = r["median"]
        unit = r["unit"] or ""
        if unit == "flop/s" and rate:
            fig = f"{rate/1e12:.1f} TFLOP/s (best {r['best']/1e12:.1f})"
        elif unit == "byte/s" and rate:
            fig = f"{rate/1e9:.1f} GB/s (best {r['best']/1e9:.1f})"
        elif unit == "s" and rate:
            fig = f"{rate*1e3:.2f} ms"
        else:
            fig = "-"
        pct = f" {r['percent_of_expected']:.0f}% of {r['expected_source']}" if r["percent_of_expected"] else ""
        cold = f" cold {r['cold_start_s']:.2f}s" if r["cold_start_s"] else ""
        print(f"{name}: {r['backend']} {r['what']}: {r['status']} {fig}{pct}{cold}"
              f"{' rel_err %.1e' % r['rel_err'] if r['rel_err'] is not None else ''}"
              f"{' (' + r['reason'] + ')' if r['reason'] else ''}")
    for q in d["ratios"]:
        print(f"{name}: ratio {q['what']} {q['fast']}/{q['slow']} = {q['ratio']:.2f}x{' CLIFF' if q['cliff'] else ''}")
    for f in d["findings"]:
        if f["severity"] in ("error", "critical"):
            print(f"{name}: finding {f['code']} {f['subject']}: {f['message']}")
PY
	fig() { # fig FILE BACKEND WHAT-PREFIX -> median
		python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=[r["median"] for r in d["results"] if r["backend"]==sys.argv[2] and r["what"].startswith(sys.argv[3]) and r["status"]=="ok"]
print(v[0] if v else 0)' "$@" 2>/dev/null || echo 0
	}
	bf16=$(fig "$OUT/bench-gemm-cuda.json" cuda bf16)
	check "cuBLAS bf16 8192^3 runs, verified, >= 400 TFLOP/s" python3 -c "import sys; sys.exit(not float('$bf16') >= 400e12)"
	check "cuBLAS fp32 8192^3 runs and is verified" python3 -c "import sys; sys.exit(not float('$(fig "$OUT/bench-gemm-cuda.json" cuda fp32)') > 0)"
	h2d=$(fig "$OUT/bench-transfer.json" cuda h2d)
	check "pinned host->device >= 10 GB/s" python3 -c "import sys; sys.exit(not float('$h2d') >= 10e9)"
	d2d=$(fig "$OUT/bench-transfer.json" cuda d2d)
	check "device copy >= 1.5 TB/s (x2 read+write ~ the 4.3 TB/s reference order)" python3 -c "import sys; sys.exit(not float('$d2d') >= 1.5e12)"
	triad=$(fig "$OUT/bench-stream.json" cuda triad)
	check "CUDA stream triad >= 2.5 TB/s" python3 -c "import sys; sys.exit(not float('$triad') >= 2.5e12)"
	unset OCL_ICD_VENDORS
	check "no wrong result anywhere" sh -c "! grep -l GA-BENCH-WRONG-RESULT $OUT/bench-*.json $OUT/smoke.json"
fi

echo "== capture"
rm -rf "$OUT/h200-real"
timeout 300 "$bin" capture "$OUT/h200-real/root" --json >"$OUT/h200-real-capture.json" 2>&1
timeout 60 "$bin" __vendor-helper nvml >"$OUT/h200-real/nvml.json" 2>/dev/null
timeout 60 "$bin" discover --root "$OUT/h200-real/root" --json >"$OUT/h200-real/discover-capture.json"
tar -C "$OUT" -czf "$OUT/h200-real.tar.gz" h200-real && rm -rf "$OUT/h200-real"
echo "== error strings (this machine's libcuda and libnvidia-ml)"
# cuGetErrorString and nvmlErrorString for every code of lib/core/errcodes/{cu,nvml}.def from this
# machine's driver. The committed tables come from Debian's 555.58.02 libraries
# (tools/fetch-driver-libs); a newer driver adds the texts of newer codes: every text both
# know must be the same (docs/explain.md, "Message strings")
mkdir -p "$OUT/errstrings"
for fam in cu nvml; do
	check "error strings: $fam dumped from the driver's library" \
		timeout 60 python3 tools/dump-errstrings "$fam" --out "$OUT/errstrings"
	check "error strings: $fam agrees with tools/errstrings/$fam.tsv where both have a text" sh -c \
		"tail -n +2 '$OUT/errstrings/$fam.tsv' | while IFS='	' read -r n t; do [ -z \"\$t\" ] || grep -qxF \"\$n	\$t\" tools/errstrings/$fam.tsv || grep -qxF \"\$n	\" tools/errstrings/$fam.tsv || { echo \"differs: \$n \$t\"; exit 1; }; done"
done

ls -la "$OUT"
echo "device-check: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
