# triage: problems on the node side stop or flag the playbook (exit 1).
N=$FIXTURES/nodes
S=$FIXTURES/samples
K=$FIXTURES/kmsg
H100=$N/dgx-h100/root
# disk saturated and iowait high (samples recorded from the fixture's time points, via stdin)
"$GPUAUDIT" record --root "$S/cpu-iowait-disk-saturated" -o disk.jsonl
run triage --root "$H100" --samples - <disk.jsonl
# NIC dropping packets
"$GPUAUDIT" record --root "$S/network-dropping" -o net.jsonl
run triage --root "$H100" --samples net.jsonl --json
# a GPU fell off the bus (Xid 79): stop at step 1, quarantine
run triage --root "$N/dgx-a100/root" --kmsg "$K/xid79.log" --samples "$S/compute-bound.jsonl"
# an AER storm on the A10 node
run triage --root "$N/a10-x8/root" --kmsg "$K/aer-storm.log" --samples "$S/compute-bound.jsonl"
# the MI250X fixture carries an uncorrectable RAS error: quarantine, even when busy
run triage --root "$N/mi250x/root" --samples "$S/compute-bound.jsonl"
# a double-bit ECC error (Xid 48) on the H100 node: stop at step 1
run triage --root "$H100" --kmsg "$K/xid48-ecc.log" --samples "$S/compute-bound.jsonl"
# an amdgpu ring timeout and GPU reset
run triage --root "$N/mi250x/root" --kmsg "$K/amdgpu.log" --samples "$S/compute-bound.jsonl"
