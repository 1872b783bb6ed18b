# discover on dgx-a100-ib (tests/fixtures/nodes/dgx-a100-ib): the dgx-a100 node with a port
# down (mlx5_2), one at 2X (mlx5_6), one counting link errors (mlx5_8), and a fabric manager
# whose pid file is stale. Text, then the JSON's ports and findings.
run discover --root "$FIXTURES/nodes/dgx-a100-ib/root"
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100-ib/root" --json >a.json
python3 - a.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({"ib_ports": d["ib_ports"][6:9], "fabric_manager": d["fabric_manager"],
                  "findings": d["findings"]}, indent=2))
PY
