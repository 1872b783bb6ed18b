#!/bin/sh
# serve-ib-flap - a link flap between two collections of `gpuaudit serve` (docs/network.md):
# a copy of the dgx-a100-ib fixture, serve every second; mlx5_8's link_downed counter is
# raised in the tree, and the next collection reports GA-IB-LINK-FLAP in /v1/check and the
# findings metric, with the counter's new value; with no further rise the flap stays held
# (SERVE_FLAP_HOLD_S). Argument: the gpuaudit binary. Exit 77 (skipped) without python3.
set -eu
command -v python3 >/dev/null 2>&1 || exit 77
here=$(cd "$(dirname "$0")" && pwd)
exec python3 - "$here" "$1" <<'PY'
import json, os, shutil, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from servetest import FIXTURES, Fail, Serve, check, metric

exe = os.path.abspath(sys.argv[2])
work = tempfile.mkdtemp(prefix="ga-ibflap-")
rc = 1
s = None
try:
    root = os.path.join(work, "root")
    shutil.copytree(os.path.join(FIXTURES, "nodes", "dgx-a100-ib", "root"), root, symlinks=True)
    ctr = os.path.join(root, "sys/class/infiniband/mlx5_8/ports/1/counters/link_downed")
    s = Serve(exe, ["--root", root, "--no-vendor", "--interval", "1s"], work=work)
    n0 = s.wait_metric("gpuaudit_collections_total", lambda v: v >= 2)

    def findings():
        st, _, body = s.get("/v1/check")
        check(st == 200, "GET /v1/check answers 200")
        return json.loads(body)["findings"]

    check(not [f for f in findings() if f["code"] == "GA-IB-LINK-FLAP"], "no flap while the counter stands still")
    with open(ctr, "w") as f:
        f.write("5\n")
    s.wait_metric("gpuaudit_ib_port_link_downed_total", lambda v: v == 5, labels={"device": "mlx5_8", "port": "1"})
    flaps = [f for f in findings() if f["code"] == "GA-IB-LINK-FLAP"]
    check(len(flaps) == 1 and flaps[0]["subject"] == "mlx5_8/1", "the rise is one GA-IB-LINK-FLAP on mlx5_8/1")
    check(flaps[0]["severity"] == "error" and flaps[0]["evidence"]["link_downed_delta"] == "2",
          "an error, with the delta (3 -> 5) as evidence")
    n1 = metric(s.metrics(), "gpuaudit_collections_total")
    s.wait_metric("gpuaudit_collections_total", lambda v: v >= n1 + 2)
    text = s.metrics()
    check(metric(text, "gpuaudit_findings", {"code": "GA-IB-LINK-FLAP"}) == 1,
          "two collections later the flap is still reported (held), once")
    check(len([f for f in findings() if f["code"] == "GA-IB-LINK-FLAP"]) == 1, "and once in /v1/check")
    rc = 0 if s.stop() == 0 else 1
    s = None
except Fail as e:
    print("FAIL:", e)
finally:
    if s:
        s.stop()
    shutil.rmtree(work, ignore_errors=True)
sys.exit(rc)
PY
