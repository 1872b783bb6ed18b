# gpuaudit deps: the "hidden CUDA" wheel (its .so NEEDs libcudart.so.12, its metadata says
# nothing) and friends, judged against synthesized nodes and explicit targets. Artifacts are
# built now by tests/fixtures/deps/mkartifacts.py (gcc, zipfile, tarfile, zstd).
python3 "$FIXTURES/deps/mkartifacts.py" art
"$GPUAUDIT" discover --root "$FIXTURES/nodes/mi250x/root" --json >mi250x.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --json >dgx-h100.json
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd art
# AMD node: a hard CUDA dependency fails at import
run deps --for ../mi250x.json hidden-1.0-cp311-cp311-linux_x86_64.whl | bytes
# H100 node: the wheel loads only with a CUDA runtime it does not ship
run deps --for ../dgx-h100.json hidden-1.0-cp311-cp311-linux_x86_64.whl | bytes
# the H100 node snapshotted without its PCI devices (a container without /sys): its
# accelerators are unknown, never "CPU-only": target none, GA-PCI-UNKNOWN, UNKNOWN (exit 4)
cp -r "$FIXTURES/nodes/dgx-h100/root" ../nopci && rm -rf ../nopci/sys/bus/pci
"$GPUAUDIT" discover --root ../nopci --json >../nopci.json
run deps --for ../nopci.json cpuonly-1.0-py3-none-any.whl | bytes
"$GPUAUDIT" deps --for ../nopci.json hidden-1.0-cp311-cp311-linux_x86_64.whl --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["result"], d["target"], sorted(f["code"] for f in d["findings"]))'
# CPU-only target: every GPU signal is wrong; the cpu-only wheel is clean
run deps --target cpu:x86-64-v3 torch-2.5.1+cu126-cp311-cp311-linux_x86_64.whl cpuonly-1.0-py3-none-any.whl | bytes
# a CUDA 11.8 driver is too old for a libcudart.so.12 runtime and for +cu126 (error 35)
run deps --target cuda:11.8,sm_80 torch-2.5.1+cu126-cp311-cp311-linux_x86_64.whl | bytes
# HIP code objects: gfx90a matches MI250X; gfx942 has no code object (hipErrorNoBinaryForGpu)
run deps --target rocm:6.2,gfx90a:xnack- rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl | bytes
run deps --target rocm:6.2,gfx942 rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl | bytes
# ROCm 7 does not provide the ROCm 6 HIP runtime the library NEEDs
run deps --target rocm:7.0,gfx90a rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl | bytes
# --no-device-code: dynamic linking only, so no kernel-image verdicts
run deps --no-device-code --target cuda:13.0,sm_90 torch-2.5.1+cu126-cp311-cp311-linux_x86_64.whl | bytes
