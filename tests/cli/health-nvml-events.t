# Xids without the kernel log: the dgx-a100 fixture root has no dev/kmsg, so NVML events
# (the fake delivers Xid 79 on GPU 3, Xid 48 and a double-bit ECC event on GPU 6 through
# nvmlEventSetWait_v2) are the only Xid source, and they give the same Xid findings.
R=$FIXTURES/nodes/dgx-a100/root
S=$FIXTURES/../fakes/scenarios
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
FAKE_NVML_SCENARIO=$S/events-xid.json run health --root "$R" --nvml-events 1s | sed -E 's/in [0-9]+ ms/in <ms> ms/'
FAKE_NVML_SCENARIO=$S/events-xid.json "$GPUAUDIT" health --root "$R" --nvml-events 1s --json | python3 -c 'import json,sys
d = json.load(sys.stdin)
e = d["nvml_events"]
print(e["live"], e["registered_gpus"], [(x["gpu"], x["type"], x["xid"], x["pci_bus_id"]) for x in e["events"]])
print([(f["code"], f["subject"], f["severity"]) for f in d["findings"]])'
# node-problem-detector and Slurm see the NVML Xid like a logged one
FAKE_NVML_SCENARIO=$S/events-xid.json run health --root "$R" --nvml-events 1s --npd
# the same Xid state across runs (--state): a hardware Xid from NVML is remembered per boot
FAKE_NVML_SCENARIO=$S/events-xid.json quiet health --root "$R" --nvml-events 1s --state state.json
python3 -c 'import json; d = json.load(open("state.json")); print(d["schema"], d["collections"], sorted((c["code"], c["subject"], c["action"]) for c in d["conditions"]))'
# the wait hangs in NVML: the helper is killed at the wait plus --timeout, and with no
# kernel log either, no Xid source is live
FAKE_NVML_SCENARIO=$S/events-hang.json run health --root "$R" --nvml-events 1s --timeout 1
# an old driver (the fake's pre-2018 build): nvmlEventSetWait v1 and the 52-byte PCI info still give the Xid
FAKE_NVML_SCENARIO=$S/events-xid.json LD_LIBRARY_PATH=$GA_FAKE_NVML_OLD_DIR run health --root "$R" --nvml-events 1s --npd
# no NVML at all
FAKE_NVML_SCENARIO=$S/events-xid.json LD_LIBRARY_PATH=/nonexistent run health --root "$R" --nvml-events 1s
# without --nvml-events a recorded tree without dev/kmsg raises no finding, but its health is
# unknown (no kernel log: NPD exit 2); a kernel log file is a source
run health --root "$R" --no-vendor --npd
FAKE_NVML_SCENARIO=$S/events-xid.json run health --root "$R" --kmsg "$FIXTURES/kmsg/xid79.log" --nvml-events 1s --npd
# serve --once: one event wait before the collection; the Xid counted with the kernel log's
FAKE_NVML_SCENARIO=$S/events-xid.json run serve --once --root "$R" --vendor --nvml-events 1s | grep -E '^(\$ |gpuaudit_kernel_events_total|gpuaudit_xid_source_up|gpuaudit_findings\{code="GA-XID|\[exit)'
FAKE_NVML_SCENARIO=$S/events-hang.json run serve --once --root "$R" --vendor --nvml-events 1s --timeout 1 | grep -E '^(\$ |gpuaudit_xid_source_up|gpuaudit_findings\{code="GA-XID|\[exit)'
# usage
run health --root "$R" --nvml-events 0s
run health --root "$R" --nvml-events 11m
run health --from state.json --nvml-events 1s
run serve --once --root "$R" --nvml-events soon
