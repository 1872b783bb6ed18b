# One NVSwitch finding (issue 18): on a node whose snapshot has NVSwitches, the kernel
# log's SXids join NVML's fabric finding as evidence instead of standing alone.
# 1. DGX H100, no NVML: non-fatal SXids on two switches become one GA-NVSWITCH-SXID
#    (warning, investigate) with codes, counts, switches and first/last times.
# 2. DGX A100 with the fake NVML's fabric-failed scenario (GPU 2 failed, GPU 5 degraded)
#    and a Fatal SXid: both fabric findings carry the SXids and become error, reboot.
# 3. A node without NVSwitch keeps GA-KLOG-SXID per (code, device).
K=$FIXTURES/kmsg
S=$FIXTURES/../fakes/scenarios
ev() {
	python3 -c 'import json,sys
d = json.load(sys.stdin)
for f in d["findings"]:
    if "SXID" in f["code"] or "FABRIC-" in f["code"]:
        e = f["evidence"]
        print(f["code"], f["subject"], f["severity"], f["action"], f["cause"],
              {k: e[k] for k in sorted(e) if k.startswith("sxid") or k in ("nvswitches", "first_boot_s", "last_boot_s", "first_time", "last_time")})'
}
run health --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --kmsg "$K/nvswitch-nonfatal.log"
"$GPUAUDIT" health --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --kmsg "$K/nvswitch-nonfatal.log" --json | ev
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
FAKE_NVML_SCENARIO=$S/fabric-failed.json run health --root "$FIXTURES/nodes/dgx-a100/root" --vendor --kmsg "$K/nvswitch.log" | sed '/GA-IB-PEERMEM/,/action:/d'
FAKE_NVML_SCENARIO=$S/fabric-failed.json "$GPUAUDIT" health --root "$FIXTURES/nodes/dgx-a100/root" --vendor --kmsg "$K/nvswitch.log" --json | ev
# non-fatal SXids leave the fabric finding's severity and action as NVML's state set them
FAKE_NVML_SCENARIO=$S/fabric-failed.json "$GPUAUDIT" health --root "$FIXTURES/nodes/dgx-a100/root" --vendor --kmsg "$K/nvswitch-nonfatal.log" --json | ev
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/nvswitch.log" | grep -E '^\$ |SXID|action:.*network|^\[exit'
# --state: GA-NVSWITCH-SXID counts kernel-log events, so reading the same log again adds none
for now in 1764580000 1764580060; do
	"$GPUAUDIT" health --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --kmsg "$K/nvswitch-nonfatal.log" --state st.json --now $now >/dev/null
done
python3 -c 'import json; d=json.load(open("st.json")); print([(c["code"], c["subject"], sum(h["n"] for h in c.get("hits", [])), c["raised"], c["action"]) for c in d["conditions"]])'
