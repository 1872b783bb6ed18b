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
# issue 27 point 5: the node in the decision: who may open /dev/kfd and the render nodes (a
# root-only node confirms a permission or HSA-resources cause), GeForce against forward
# compatibility (804), the MIG state against the device plugin's MIG strategy
"$GPUAUDIT" discover --root "$FIXTURES/nodes/ctr-kfd-group/root" --no-vendor --json >kfd.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/ws-rtx4090/root" --no-vendor --json >ws.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/k8s-cdi-mig/root" --no-vendor --json >mig.json
run explain "$L/rocm-userspace.log" --for kfd.json
run explain "$L/compat-804.log" --for ws.json
run explain "$L/compat-804.log" --for h100.json
run explain "$L/node-setup-more.log" --for mig.json
# NVML's MIG state (not collected with --no-vendor) written in: GPU 0 with MIG, GPU 1 without
sed -e '0,/"nvml": null/s//"nvml": {"mig_enabled": true}/' \
	-e '0,/"nvml": null/s//"nvml": {"mig_enabled": false}/' mig.json >mig2.json
run explain "$L/node-setup-more.log" --for mig2.json
