# gpuaudit serve --once: one collection, the /metrics exposition on stdout.
# Timestamps and durations vary from run to run, so they are masked.
mask() {
	sed -E 's/^(gpuaudit_(last_collection_timestamp|last_success_timestamp|collection_duration)_seconds) [0-9.e+-]+$/\1 <masked>/'
}
# a whole exposition: 8 NVIDIA GPUs from sysfs only
run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor | mask
# NVML through the fake library: memory, utilization, clocks, ECC; GPU 0 and node-level lines
LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/row-remap-pending.json \
	run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --vendor | mask | grep -v '^# HELP' | grep -v 'gpu="[1-7]"'
# a lost GPU: NVML reports the device error
LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/gpu3-lost.json \
	run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --vendor | grep -E '^(\$ |gpuaudit_gpu_device_error|gpuaudit_findings|gpuaudit_vendor_library_up|\[exit)'
# a GPU whose upstream link trained at fewer lanes: degraded 1, as the GA-LINK-DEGRADED finding says
run serve --once --root "$FIXTURES/nodes/a10-x8/root" --no-vendor | grep -E '^(\$ |gpuaudit_gpu_pcie_link_(degraded|width)\{gpu="0"|gpuaudit_findings\{|\[exit)'
# one NVLink of GPU 0 down: 11 of 12 active
python3 - "$SRCDIR/tests/fakes/scenarios/healthy-8xa100.json" <<'PY' >link-down.json
import json, sys
d = json.load(open(sys.argv[1])); d["gpus"][0]["nvlinks"][5]["active"] = False; print(json.dumps(d))
PY
LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$PWD/link-down.json \
	run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --vendor | grep -E '^(\$ |gpuaudit_gpu_nvlinks(_active)?\{gpu="[01]"|\[exit)'
# AMD: sysfs temperatures by sensor, RAS blocks, findings (OpenMetrics)
run serve --once --openmetrics --root "$FIXTURES/nodes/mi250x/root" | mask | grep -v 'gpu="[1-7]"'
# with a policy: the check result, the expected GPU count; kernel events from a log file
run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --policy "$FIXTURES/policies/fleet.yaml" \
	--kmsg "$FIXTURES/kmsg/xid79.log" | grep -E '^(\$ |gpuaudit_(check|gpus_expected|kernel|findings)|\[exit)'
# the NFD feature file, written at each collection; without a policy no class/check labels
mkdir features.d
quiet serve --once --root "$FIXTURES/nodes/mi250x/root" --nfd-dir features.d
ls -A features.d
grep -v expiry-time features.d/gpuaudit
quiet serve --once --root "$FIXTURES/nodes/mi250x/root" --nfd-dir features.d --policy "$FIXTURES/policies/fleet.yaml"
grep -v expiry-time features.d/gpuaudit
# a directory that cannot be written: the reason, exit 2, no exposition
run serve --once --root "$FIXTURES/nodes/cpu-vm/root" --nfd-dir missing-dir
# --from: a saved snapshot is served as it is
"$GPUAUDIT" discover --root "$FIXTURES/nodes/cpu-vm/root" --json >cpu-vm.json
run serve --once --from cpu-vm.json | mask | grep -E '^(\$ |gpuaudit_(node|gpus|kernel)|\[exit)'
# usage errors
run serve --listen nowhere
run serve --listen 127.0.0.1:70000
run serve --listen '[::1:9747'
run serve --interval 0s
run serve --interval soon
run serve --openmetrics
run serve --class a100-train
run serve --max-connections 0
run serve --connection-timeout x
run serve --nfd-expiry 5
run serve --bogus
run serve extra
run serve --policy "$FIXTURES/policies/bad-syntax.yaml" --once --root "$FIXTURES/nodes/cpu-vm/root"
run serve --policy "$FIXTURES/policies/fleet.yaml" --class nope --once --root "$FIXTURES/nodes/cpu-vm/root"
run serve --once --root no-such-dir
run serve --once --from no-such.json
# --state FILE: the error findings become sticky conditions that survive a restart of serve;
# the next run on a node without them still reports them (condition sticky in /v1/check)
run serve --once --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --state sv.json | grep -E '^(\$ |gpuaudit_findings\{|\[exit)'
python3 -c 'import json; d=json.load(open("sv.json")); print(d["schema"], d["collections"], [(c["code"], c["subject"], c["raised"], c["action"]) for c in d["conditions"]])'
run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --state sv.json | grep -E '^(\$ |gpuaudit_findings\{|\[exit)'
echo '{"schema": "x"}' >bad-state.json
run serve --once --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --state bad-state.json
