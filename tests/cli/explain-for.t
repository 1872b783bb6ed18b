# --for SNAPSHOT: what the node says about each cause, from fixture snapshots
L=$FIXTURES/logs
"$GPUAUDIT" discover --root "$FIXTURES/nodes/mi250x/root" --no-vendor --json >mi250x.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --json >h100.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/cpu-vm/root" --no-vendor --json >cpu.json
# the hidden-CUDA case: a CUDA runtime missing on an AMD node
run explain "$L/loader-libcudart.log" --for mi250x.json
run explain "$L/torch-no-driver.log" --for mi250x.json
run explain "$L/hip-no-binary.log" --for mi250x.json
# ROCm build on an NVIDIA node; the driver present but not in the container
run explain "$L/loader-rocm.log" --for h100.json
run explain "$L/loader-libcuda.log" --for h100.json
# kernel-log addresses resolved against the snapshot's GPUs
run explain "$L/dmesg-xid-aer.log" --for h100.json
run explain "$L/loader-libcuda.log" --for cpu.json --json
# a bad snapshot is a usage error
echo '{"schema": "nope"}' >bad.json
run explain "$L/loader-libcuda.log" --for bad.json
# issue 18: the new signatures against what a node has
run explain "$L/container-cuda-requirement.log" --for h100.json
run explain "$L/container-toolkit-no-driver.log" --for cpu.json
run explain "$L/container-toolkit-no-driver.log" --for h100.json
run explain "$L/amdgpu-vm-fault.log" --for mi250x.json
run explain "$L/amdgpu-reset.log" --for h100.json
# Xid 13/31/43 are the job's: class application
run explain "$L/xid-application.log" --for h100.json --json --max-matches 0
