# issue 27 point 5: the node in the decision (explain --for). The node snapshots are synthesized
# (tests/fixtures/nodes/explain-for/README.md, or discover on a synthesized fixture tree); each log
# line is written here, around the exact text the named software prints.
N=$FIXTURES/nodes/explain-for
L=$FIXTURES/logs
# MIG: "no CUDA-capable device" (cudaErrorNoDevice, CUDA_ERROR_NO_DEVICE) on a node whose GPUs are in
# MIG mode: with no MIG instance, and with instances (CUDA_VISIBLE_DEVICES must name one); MIG off;
# and unknown (no NVML), with and without the driver's /proc MIG capabilities
echo 'RuntimeError: CUDA error: no CUDA-capable device is detected' >nodev.log
echo 'cuInit failed: CUDA_ERROR_NO_DEVICE' >nodev-cu.log
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --json >h100.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/k8s-cdi-mig/root" --no-vendor --json >mig.json
run explain nodev.log --for "$N/a100-mig-empty.json"
run explain nodev-cu.log --for "$N/h100-mig-instances.json" --json
run explain nodev.log --for "$N/a100-mig-off.json"
run explain nodev.log --for h100.json
run explain nodev.log --for mig.json
# cudaErrorUnknown (999): the nvidia module not loaded, libcuda newer than the loaded module (on the
# host: reboot; in a container: an image with its own libcuda; CUDA's forward-compatibility libcuda
# on a GeForce), /dev/nvidia-uvm missing, all agree
# (the row's reboot stays), and a node whose libcuda version is unknown
printf '%s\n' 'collatz.c:3592: CUDA call' '  cuInit(0)' 'failed with error code 999 (unknown error)' >cu999.log
for s in module-unloaded stale-module ctr-own-libcuda compat-geforce uvm-missing agree; do
	run explain cu999.log --for "$N/cu999-$s.json"
done
run explain cu999.log --for "$N/l40s-535.json" --json
# NVML's "Driver/library version mismatch": whether a reboot fixes it. The synthesized dgx-h100 tree
# copied, its driver libraries renamed to 580.105.08 over the loaded module 580.95.05, and a DKMS
# tree whose kernel-<release>-<arch> link (DKMS's record of an install) names 580.105.08 for the
# running kernel (reboot, confirmed); then 580.95.05 for it and 580.105.08 only for an older
# kernel (fix_config: a reboot loads 580.95.05 again); then no DKMS tree (unknown: the row's
# reboot stays), and a container whose image carries its own libnvidia-ml (fix_config)
echo 'Failed to initialize NVML: Driver/library version mismatch' >nvml.log
cp -r "$FIXTURES/nodes/dgx-h100/root" dkms-root
for f in libnvidia-ml libcuda; do
	mv "dkms-root/usr/lib/x86_64-linux-gnu/$f.so.580.95.05" "dkms-root/usr/lib/x86_64-linux-gnu/$f.so.580.105.08"
done
D=dkms-root/var/lib/dkms/nvidia
mkdir -p "$D/580.105.08/6.8.0-1015-nvidia/x86_64/module" "$D/580.95.05/6.8.0-1011-nvidia/x86_64/module"
ln -s 580.105.08/6.8.0-1015-nvidia/x86_64 "$D/kernel-6.8.0-1015-nvidia-x86_64"
ln -s 580.95.05/6.8.0-1011-nvidia/x86_64 "$D/kernel-6.8.0-1011-nvidia-x86_64"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >dkms-installed.json
run explain nvml.log --for dkms-installed.json
rm -r "$D"
mkdir -p "$D/580.95.05/6.8.0-1015-nvidia/x86_64/module" "$D/580.105.08/6.8.0-1011-nvidia/x86_64/module"
ln -s 580.95.05/6.8.0-1015-nvidia/x86_64 "$D/kernel-6.8.0-1015-nvidia-x86_64"
ln -s 580.105.08/6.8.0-1011-nvidia/x86_64 "$D/kernel-6.8.0-1011-nvidia-x86_64"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >dkms-other.json
run explain nvml.log --for dkms-other.json --json
# a tree that cannot be read (the install record is no link): a gap in the snapshot, no DKMS
# verdict (unknown, the row's reboot stays)
rm "$D/kernel-6.8.0-1015-nvidia-x86_64" && : >"$D/kernel-6.8.0-1015-nvidia-x86_64"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >dkms-unread.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([g for g in d.get("gaps", []) if "dkms" in g.get("path", "")], [x.get("dkms_tree") for x in d["drivers"]])' dkms-unread.json
run explain nvml.log --for dkms-unread.json
# no DKMS tree: the module file installed for the running kernel, found in the kernel's
# modules.dep and read for its .modinfo version (a synthesized module, mk-modinfo-ko.py, with a
# decoy version= string in .rodata), however it was installed: the libraries' version (reboot,
# confirmed), then another version xz-compressed (fix_config: a reboot loads it again), then a
# module file that is no ELF (a gap, no verdict)
rm -r dkms-root/var/lib/dkms
M=dkms-root/lib/modules/6.8.0-1015-nvidia
mkdir -p "$M/kernel/nvidia-580srv" "$M/updates/dkms"
python3 "$FIXTURES/nodes/mk-modinfo-ko.py" 580.105.08 >"$M/kernel/nvidia-580srv/nvidia.ko"
printf '%s\n' 'kernel/drivers/video/fbdev/core/fb.ko:' 'kernel/nvidia-580srv/nvidia.ko:' 'kernel/nvidia-580srv/nvidia-uvm.ko: kernel/nvidia-580srv/nvidia.ko' >"$M/modules.dep"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >modfile-same.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(x.get("module_file"), x.get("module_file_version")) for x in d["drivers"]])' modfile-same.json
run explain nvml.log --for modfile-same.json
rm "$M/kernel/nvidia-580srv/nvidia.ko"
python3 "$FIXTURES/nodes/mk-modinfo-ko.py" 580.95.05 | xz >"$M/kernel/nvidia-580srv/nvidia.ko.xz"
printf '%s\n' 'kernel/nvidia-580srv/nvidia.ko.xz:' >"$M/modules.dep"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >modfile-other.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(x.get("module_file"), x.get("module_file_version")) for x in d["drivers"]])' modfile-other.json
run explain nvml.log --for modfile-other.json --json
printf 'not an ELF\n' | xz >"$M/kernel/nvidia-580srv/nvidia.ko.xz"
"$GPUAUDIT" discover --root dkms-root --no-vendor --json >modfile-bad.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([g for g in d.get("gaps", []) if "nvidia.ko" in g.get("path", "")], [x.get("module_file_version") for x in d["drivers"]])' modfile-bad.json
run explain nvml.log --for "$N/nvml-no-dkms.json"
run explain nvml.log --for "$N/nvml-ctr-own-libs.json"
# the driver's CUDA against what the log needs: NVML's, NVIDIA's table by branch, unknown
echo 'docker: Error response from daemon: failed to create task for container: OCI runtime create failed: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown.' >require.log
run explain require.log --for "$N/l40s-535.json"
run explain require.log --for "$N/h100-mig-instances.json"
run explain "$L/cuda-insufficient-driver.log" --for "$N/l40s-535.json"
run explain "$L/cuda-driver-old.log" --for "$N/a100-mig-off.json"
run explain "$L/cuda-insufficient-driver.log" --for "$N/nvidia-unknown.json"
# the GPU's arch against the build's: PyTorch's list, an arch CUDA 13 dropped, unknown
printf '%s\n' 'UserWarning: NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation.' \
	'The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.' >noimage-torch.log
echo 'RuntimeError: CUDA error: no kernel image is available for execution on the device' >noimage.log
"$GPUAUDIT" discover --root "$FIXTURES/nodes/power9-v100/root" --no-vendor --json >v100.json
run explain noimage-torch.log --for h100.json
run explain noimage.log --for v100.json
run explain noimage.log --for "$N/nvidia-unknown.json"
# the driver API's name for 209, with NVML's compute capability
echo 'cuModuleLoad failed: CUDA_ERROR_NO_BINARY_FOR_GPU' >noimage-cu.log
run explain noimage-cu.log --for "$N/a100-mig-off.json"
echo 'hipErrorNoBinaryForGpu: Unable to find code object for all current devices!' >nobinary.log
run explain nobinary.log --for "$N/mi300x-render.json"
# forward compatibility (804): professional RTX, unknown class
run explain "$L/compat-804.log" --for "$N/rtx-a6000.json"
run explain "$L/compat-804.log" --for "$N/nvidia-unknown.json"
# the driver API's name for 804 on a GeForce node
"$GPUAUDIT" discover --root "$FIXTURES/nodes/ws-rtx4090/root" --no-vendor --json >ws.json
echo 'cuInit returned CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE' >compat-cu.log
run explain compat-cu.log --for ws.json
# no HIP device / permission denied: who may open /dev/kfd and the render nodes
"$GPUAUDIT" discover --root "$FIXTURES/nodes/ctr-kfd-group/root" --no-vendor --json >kfd.json
"$GPUAUDIT" discover --root "$FIXTURES/nodes/mi250x/root" --no-vendor --json >mi250x.json
echo 'open /dev/kfd: permission denied' >kfd-denied.log
run explain "$L/hip-no-device.log" --for "$N/mi300x-render.json"
run explain "$L/hip-no-device.log" --for kfd.json
run explain "$L/hip-no-device.log" --for mi250x.json
run explain kfd-denied.log --for "$N/mi300x-render.json"
# an NVIDIA device node: its owners are not in the snapshot
echo 'open /dev/nvidia0: permission denied' >nv-denied.log
run explain nv-denied.log --for h100.json
