#!/usr/bin/env bash
# ptx-jit-rate.sh - how fast PTX compiles to a cubin: the rate behind the
# GA-DEPS-PTX-JIT estimate (lib/analyze/deps-jit.c). The driver's JIT at first
# load runs the same optimising back end as ptxas (NVIDIA's CUDA C++ Programming
# Guide, "Just-in-Time Compilation"), so `ptxas -O3` on real PTX gives the rate
# in bytes of PTX per second and kernels (.entry) per second, one process, one
# thread, warm cache; median of RUNS.
#
# PTX: nvcc -ptx of a generated source with K kernels of a realistic shape
# (tiled matrix multiply with shared memory, unrolled loops, templates over
# tile sizes and types), for -arch compute_80, compiled by ptxas for sm_90.
#
#   bench/ptx-jit-rate.sh [OUT.txt]     RUNS=5 KERNELS=64 by default
#
# Wall and CPU (user + sys of ptxas) medians both: on a shared machine the CPU
# figure is the steadier one; the estimate in deps-jit.c uses the wall rate
# (what a process waits), which is the lower of the two here.
set -euo pipefail
CUDA=${CUDA:-/usr/local/cuda}
RUNS=${RUNS:-5}
KERNELS=${KERNELS:-64}
out=${1:-bench/results/ptx-jit-rate.txt}
[ -x "$CUDA/bin/ptxas" ] && [ -x "$CUDA/bin/nvcc" ] || { echo "no $CUDA/bin/ptxas / nvcc: skipped" >&2; exit 0; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
python3 - "$KERNELS" >"$w/k.cu" <<'PY'
import sys
k = int(sys.argv[1])
print("#include <cuda_fp16.h>")
print("""template <typename T, int TM, int TN, int TK>
__device__ void tile_mm(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, int m, int n, int kk, float alpha) {
  __shared__ T sa[TM][TK];
  __shared__ T sb[TK][TN];
  int tx = threadIdx.x % TN, ty = threadIdx.x / TN;
  int row = blockIdx.y * TM + ty, col = blockIdx.x * TN + tx;
  float acc = 0.f;
  for (int t = 0; t < kk; t += TK) {
    if (row < m && t + tx < kk && tx < TK) sa[ty][tx] = a[row * kk + t + tx];
    if (col < n && t + ty < kk && ty < TK) sb[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TK; i++) acc += (float)sa[ty][i] * (float)sb[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = (T)(alpha * acc + (float)c[row * n + col]);
}""")
shapes = [(8, 8, 8), (16, 16, 16), (16, 16, 8), (32, 8, 8), (8, 32, 16), (16, 8, 16), (32, 32, 8), (8, 16, 8)]
types = ["float", "double", "__half"]
for i in range(k):
    tm, tn, tk = shapes[i % len(shapes)]
    ty = types[(i // len(shapes)) % len(types)]
    print(f"extern \"C\" __global__ void k{i}(const {ty} *a, const {ty} *b, {ty} *c, int m, int n, int kk, float alpha) "
          f"{{ tile_mm<{ty}, {tm}, {tn}, {tk}>(a, b, c, m, n, kk, alpha + {i}.0f); }}")
PY
"$CUDA/bin/nvcc" -ptx -arch=compute_80 -o "$w/k.ptx" "$w/k.cu"
bytes=$(stat -c %s "$w/k.ptx")
entries=$(grep -c '^\.visible \.entry\|^\.entry\|[[:space:]]\.entry[[:space:]]' "$w/k.ptx" || true)
times=() cpus=()
for _ in $(seq "$RUNS"); do
	s=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$w/t" "$CUDA/bin/ptxas" -O3 -arch=sm_90 -o "$w/k.cubin" "$w/k.ptx"
	e=$(date +%s.%N)
	times+=("$(echo "$e - $s" | bc -l)")
	cpus+=("$(awk '{print $1 + $2}' "$w/t")")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
cmed=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
cubin=$(stat -c %s "$w/k.cubin")
{
	echo "# bench/ptx-jit-rate.sh: ptxas -O3 -arch=sm_90 on nvcc -ptx -arch=compute_80 output"
	echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; $("$CUDA/bin/ptxas" --version | tail -1)"
	echo "kernels: $entries  ptx_bytes: $bytes  cubin_bytes: $cubin  runs: $RUNS"
	echo "wall_s: ${times[*]}"
	echo "cpu_s: ${cpus[*]}"
	printf 'median_wall_s: %.3f  median_cpu_s: %.3f\n' "$med" "$cmed"
	printf 'rate_bytes_per_s: %.0f (wall)  %.0f (cpu)\n' "$(echo "$bytes / $med" | bc -l)" "$(echo "$bytes / $cmed" | bc -l)"
	printf 'rate_kernels_per_s: %.1f (wall)  %.1f (cpu)\n' "$(echo "$entries / $med" | bc -l)" "$(echo "$entries / $cmed" | bc -l)"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out"
