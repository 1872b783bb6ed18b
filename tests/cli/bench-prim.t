# bench gemm/stream/transfer/collective and smoke: usage errors, then real runs on
# OpenBLAS and OpenCL (PoCL) reduced to their host-independent shape by
# bench-summary.py (no timing numbers), the corrupted-result hook, and
# policy figures. CUDA and HIP are excluded so the output does not depend on
# which vendor libraries a machine has (test_bench covers their absent paths).
export GPUAUDIT_BACKENDS=-cuda,-hip
root="$FIXTURES/nodes/cpu-vm/root"
summary() { python3 "$SRCDIR/tests/cli/bench-summary.py"; }
run bench gemm --dtype fp8
run bench gemm --sizes 0
run bench gemm --sizes 512:256
run bench gemm --reps 0
run bench stream --sizes 64
run bench transfer --bytes 12
run bench gemm --backends nosuch
run bench gemm --class x
run bench gemm extra
run bench nosuch
run smoke --size 64,128
run bench gemm --deadline 0
echo '== --blas naming a library that is not there: the backend is absent, nothing ran'
run bench gemm --root "$root" --backends cblas --blas libnosuchblas.so.9 --sizes 32
echo '== a run past --deadline stops at once and names the step in progress'
run bench gemm --root "$root" --backends cblas --dtype fp32 --sizes 6144 --reps 50 --deadline 1

echo '== -v: a line on stderr as each step starts (time, step, time of the previous step), and a last one'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --dtype fp32 --sizes 32,48 --reps 1 -v 2>&1 >/dev/null |
	grep -E '\] (gemm |done)' | sed -E 's/\[ *[0-9.]+ s\]/[T s]/; s/: [0-9.]+ s\)$/: N s)/'
echo '== without -v and stderr not a terminal: no progress lines'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --dtype fp32 --sizes 32 --reps 1 2>&1 >/dev/null | grep -c '\] ' || true

echo '== gemm on OpenBLAS, fp32 and fp64'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --sizes 64,96 --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
echo '== a dtype the backend lacks'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --dtype bf16 --sizes 32 --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
echo '== a corrupted result fails loudly'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --dtype fp32 --sizes 48 --reps 2 --test-corrupt-result --json | summary
echo "[exit ${PIPESTATUS[0]}]"
"$GPUAUDIT" bench gemm --root "$root" --backends cblas --dtype fp32 --sizes 48 --reps 2 --test-corrupt-result | grep -E '^  error|wrong result' | sed 's/relative error [0-9.e+-]*/relative error N/'
echo '== gemm: OpenBLAS, CLBlast and the built-in OpenCL kernel on the same CPU'
"$GPUAUDIT" bench gemm --root "$root" --backends cblas,clblast,opencl --dtype fp32 --sizes 64 --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
echo '== stream on host memory and on the OpenCL device'
"$GPUAUDIT" bench stream --root "$root" --backends cblas,opencl --elements 64K --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
echo '== transfer: OpenCL only (the CPU backend has no device memory)'
"$GPUAUDIT" bench transfer --root "$root" --backends cblas,opencl --bytes 1M --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
echo '== collective without the CUDA backend'
run bench collective --root "$root"

echo '== smoke without a policy: correctness only'
"$GPUAUDIT" smoke --root "$root" --backends cblas,opencl --size 64 --elements 64K --bytes 1M --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
cat >policy.yaml <<'YAML'
version: 1
classes:
  - name: cpu-fast
    match: {vendor: none}
    smoke: {gemm.cblas.fp32: 1.0e6, "stream.*.triad": 1.0e3}
  - name: cpu-impossible
    match: {vendor: none}
    smoke: {gemm_tflops_min: 1000}
YAML
echo '== smoke against a policy the machine meets'
"$GPUAUDIT" smoke --root "$root" --backends cblas --policy policy.yaml --size 64 --elements 64K --reps 2 | grep -E '^smoke:'
echo "[exit ${PIPESTATUS[0]}]"
echo '== smoke against a policy it cannot meet (1000 TFLOP/s on a CPU)'
"$GPUAUDIT" smoke --root "$root" --backends cblas --policy policy.yaml --class cpu-impossible --size 64 --elements 64K --reps 2 --json | summary
echo "[exit ${PIPESTATUS[0]}]"
run smoke --root "$root" --policy policy.yaml --class nosuch
echo '== smoke against a policy on a node whose PCI devices cannot be read: no class can match'
echo '== (an unseen bus is not an empty one), no figure is judged: INCONCLUSIVE, exit 4'
cp -r "$root" nopci && rm -rf nopci/sys/bus/pci
"$GPUAUDIT" smoke --root nopci --backends cblas --policy policy.yaml --size 64 --elements 64K --reps 2 2>&1 | grep -E '^smoke:|gpuaudit smoke:|GA-PCI-UNKNOWN'
echo "[exit ${PIPESTATUS[0]}]"
echo '== the same with --class: the figures are judged, but discovery could not see the bus: still INCONCLUSIVE'
"$GPUAUDIT" smoke --root nopci --backends cblas --policy policy.yaml --class cpu-fast --size 64 --elements 64K --reps 2 | grep -E '^smoke:'
echo "[exit ${PIPESTATUS[0]}]"
