# triage without its evidence is INCONCLUSIVE (exit 4) with the reason and what to do,
# never "node OK": no kernel log, no GPU utilization in the samples, no accelerators.
N=$FIXTURES/nodes
S=$FIXTURES/samples
H100=$N/dgx-h100/root
: >empty.log
"$GPUAUDIT" record --root "$S/idle" -o idle.jsonl
# samples as an NVIDIA node records them without --nvml: no GPU busy percentages
python3 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    d["accelerators"] = []
    d["nvml"] = None
    print(json.dumps(d))' idle.jsonl >no-util.jsonl
# the baseline: the log read and utilization present -> a conclusion (exit 0)
run triage --root "$H100" --kmsg empty.log --samples idle.jsonl | grep -E '^(\$ |triage:|\[exit)'
# no GPU utilization: step 2 unknown -> INCONCLUSIVE, record with --nvml
run triage --root "$H100" --kmsg empty.log --samples no-util.jsonl
"$GPUAUDIT" triage --root "$H100" --kmsg empty.log --samples no-util.jsonl --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], "|", d["reason"], "|", [(s["step"], s["verdict"]) for s in d["steps"]])'
echo "[exit ${PIPESTATUS[0]}]"
# no kernel log (the tree has no dev/kmsg): step 1 unknown -> INCONCLUSIVE
run triage --root "$H100" --samples idle.jsonl | grep -E '^(\$ |triage:|1\. |   kernel_log|   Decision: no error|5\. |\[exit)'
# dev/kmsg there but refused (a directory stands in for EPERM, which root never gets)
cp -a "$H100" root && mkdir -p root/dev/kmsg
run triage --root root --samples idle.jsonl | grep -E '^(\$ |triage:|   kernel_log|   Decision: no error|\[exit)'
# a CPU-only node: no accelerators, the device steps do not apply (never "devices healthy")
run triage --root "$N/cpu-vm/root" --kmsg empty.log --samples idle.jsonl
"$GPUAUDIT" triage --root "$N/cpu-vm/root" --kmsg empty.log --samples idle.jsonl --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], "|", d["reason"], "|", [(s["step"], s["verdict"]) for s in d["steps"]])'
echo "[exit ${PIPESTATUS[0]}]"
# a node-side problem still wins over missing evidence (exit 1)
"$GPUAUDIT" record --root "$S/network-dropping" -o net.jsonl
run triage --root "$N/cpu-vm/root" --kmsg empty.log --samples net.jsonl | grep -E '^(\$ |triage:|\[exit)'
# the H100 node with its PCI devices unread (a container without /sys): the accelerators
# are unknown, not absent: step 1 and 2 unknown, INCONCLUSIVE with the reason to mount /sys
cp -a "$H100" nopci && rm -rf nopci/sys/bus/pci
run triage --root nopci --kmsg empty.log --samples idle.jsonl | grep -E '^(\$ |triage:|[12]\. |   Decision|\[exit)'
"$GPUAUDIT" triage --root nopci --kmsg empty.log --samples idle.jsonl --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], "|", [(s["step"], s["verdict"]) for s in d["steps"]])'
