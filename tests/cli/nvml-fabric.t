# The NVIDIA fabric through the fake NVML (tests/fakes/scenarios, mkscenarios.py): GPU fabric
# registration states, an NVLink down while its peers are up, NVLink error counters; the
# findings in text, the NVML fields and the metrics of the affected GPUs.
R=$FIXTURES/nodes/dgx-a100/root
S=$FIXTURES/../fakes/scenarios
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
fabric() { # GPU 0's fabric fields, GPU 2's and GPU 5's where they differ
	python3 -c 'import json,sys
d = json.load(sys.stdin)
for i in (0, 2, 5):
    n = d["accelerators"][i]["nvml"]
    print(i, {k: v for k, v in n.items() if k.startswith("fabric_")})'
}
for sc in fabric-completed fabric-in-progress fabric-failed fabric-v2 fabric-v1; do
	FAKE_NVML_SCENARIO=$S/$sc.json run discover --root "$R" --vendor | grep -E '^\$ |GA-FABRIC|fix:.*fabric|^\[exit'
	FAKE_NVML_SCENARIO=$S/$sc.json "$GPUAUDIT" discover --root "$R" --vendor --json | fabric
done
# the fabric metrics: registration state and health (GPU 2 failed, GPU 5 degraded)
FAKE_NVML_SCENARIO=$S/fabric-failed.json run serve --once --root "$R" --vendor | grep -E '^(\$ |# TYPE gpuaudit_gpu_fabric|gpuaudit_gpu_fabric|gpuaudit_findings\{code="GA-FABRIC|\[exit)'
# a link down: GPU 0 link 5, while the other seven GPUs have their link 5 up
FAKE_NVML_SCENARIO=$S/nvlink-down.json run discover --root "$R" --vendor | grep -E '^\$ |GA-NVLINK|^\[exit'
FAKE_NVML_SCENARIO=$S/nvlink-down.json run serve --once --root "$R" --vendor | grep -E '^(\$ |gpuaudit_gpu_nvlink_up\{gpu="0",.*link="[456]"|gpuaudit_findings\{code="GA-NVLINK|\[exit)'
# error counters: one reading is not a rise (serve compares collections: tests/integration/serve_nvml.py)
FAKE_NVML_SCENARIO=$S/nvlink-errors.json run serve --once --root "$R" --vendor | grep -E '^(\$ |gpuaudit_gpu_nvlink_errors_total\{gpu="4",.*link="3"|gpuaudit_findings\{code="GA-NVLINK|\[exit)'
FAKE_NVML_SCENARIO=$S/nvlink-errors.json "$GPUAUDIT" discover --root "$R" --vendor --json | python3 -c 'import json,sys
d = json.load(sys.stdin)
print([l for l in d["accelerators"][4]["nvml"]["nvlinks"] if l["link"] == 3])'
# the old driver has no fabric calls and no error counters: absent, not an error
FAKE_NVML_SCENARIO=$S/fabric-completed.json LD_LIBRARY_PATH=$GA_FAKE_NVML_OLD_DIR "$GPUAUDIT" discover --root "$R" --vendor --json | python3 -c 'import json,sys
d = json.load(sys.stdin)
n = d["accelerators"][0]["nvml"]
print(n["fabric_state"], n["nvlinks"][0]["replay_errors"], n["call_errors"], [s for s in d["nvml"]["missing_symbols"] if "Fabric" in s or "Event" in s or "ErrorCounter" in s])'
# the Fabric Manager, read where NVML reports a fabric state: the fixture has none of its
# files (not running: GA-FABRICMANAGER-DOWN), a copy of it gets a unit, a pid file and the
# process's comm (running), then a pid file whose process is gone (stale). The files are
# made here; their paths are the driver container's and the fabricmanager package's.
FAKE_NVML_SCENARIO=$S/fabric-completed.json run discover --root "$R" --vendor | grep -E '^\$ |FABRICMANAGER|^\[exit'
cp -a "$R" fm-root
mkdir -p fm-root/var/run/nvidia-fabricmanager fm-root/proc/4242 fm-root/lib/systemd/system
echo 4242 >fm-root/var/run/nvidia-fabricmanager/nv-fabricmanager.pid
echo nv-fabricmanage >fm-root/proc/4242/comm
: >fm-root/lib/systemd/system/nvidia-fabricmanager.service
fm() {
	python3 -c 'import json,sys
d = json.load(sys.stdin)
print(d["fabric_manager"])
print([(f["code"], f["severity"], f["evidence"].get("fabric_manager")) for f in d["findings"] if "FABRIC" in f["code"]][:2])'
}
FAKE_NVML_SCENARIO=$S/fabric-in-progress.json "$GPUAUDIT" discover --root fm-root --vendor --json | fm
echo 4243 >fm-root/var/run/nvidia-fabricmanager/nv-fabricmanager.pid
FAKE_NVML_SCENARIO=$S/fabric-in-progress.json "$GPUAUDIT" discover --root fm-root --vendor --json | fm
FAKE_NVML_SCENARIO=$S/fabric-in-progress.json run discover --root fm-root --vendor | grep -E '^\$ |FABRICMANAGER|^\[exit'
