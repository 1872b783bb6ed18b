# expect.ib_ports (tests/fixtures/policies/ib.yaml, docs/network.md): dgx-a100 passes with
# its warnings; dgx-a100-ib fails on the down and the slow port.
P=$FIXTURES/policies/ib.yaml
run check --policy "$P" --root "$FIXTURES/nodes/dgx-a100/root"
run check --policy "$P" --root "$FIXTURES/nodes/dgx-a100-ib/root"
run check --policy "$P" --root "$FIXTURES/nodes/dgx-a100-ib/root" --json
# the port metrics of the faulty node: state, rate, the flapping port's counters
run serve --once --root "$FIXTURES/nodes/dgx-a100-ib/root" --no-vendor | grep -E '^(\$ |gpuaudit_ib_port_(active|rate_bytes_per_second|link_downed_total|symbol_errors_total)\{|gpuaudit_fabric_manager|gpuaudit_findings\{.*(IB|FABRIC)|\[exit)'
# XGMI: mi250x's hive is whole; one GCD out of it (hive id 0), another reporting errors and a
# missing link, read back with --from
"$GPUAUDIT" discover --root "$FIXTURES/nodes/mi250x/root" --json >mi.json
python3 - mi.json <<'PY' >split.json
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("findings")
a = d["accelerators"]
a[7]["amd"]["xgmi"]["hive_id"] = "0"
for g in a[:7]:
    g["amd"]["xgmi"]["hive_members"] = 7
a[2]["amd"]["xgmi"]["error_count"] = 5
a[3]["amd"]["xgmi"]["num_links"][5] = "00"
print(json.dumps(d))
PY
run discover --root "$FIXTURES/nodes/mi250x/root" | grep -E '^(\$ |findings|  [a-z]+ +GA-XGMI|\[exit)'
run discover --from split.json | grep -E '^(\$ |findings|  [a-z]+ +GA-XGMI|\[exit)'
run serve --once --from split.json | grep -E '^(\$ |gpuaudit_gpu_xgmi_(hive_members|errors)\{gpu="[237]"|\[exit)'
# /sys/class/infiniband unreadable: expect.ib_ports is not checked (unknown), not failed
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --json >a100.json
python3 - a100.json <<'PY' >noib.json
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("findings")
d["ib_ports"] = []
d["gaps"].append({"path": "sys/class/infiniband", "reason": "permission denied"})
print(json.dumps(d))
PY
run check --policy "$P" --from noib.json | grep -E '^(\$ |class|  [a-z]+ +GA-(CHECK|EXPECT)|\[exit)'
