#!/bin/sh
# verdict-agree - a metric, an NFD label and the finding of the same decision agree
# (issue 26): for every fixture tree under tests/fixtures/nodes (and dgx-a100 with the
# fake NVML's x8 link when the fake library is built), the node is read once with
# `discover --json` (findings and verdict), `check --json` against a class expecting 8
# GPUs (GA-EXPECT-GPU-COUNT), and `serve --once --nfd-dir` against the same class
# (metrics and labels). Then:
#   link      gpuaudit_gpu_pcie_link_degraded 1  <=> a GA-LINK-DEGRADED names the GPU
#   CDI       gpuaudit_cdi_spec_stale 1           <=> GA-CDI-STALE for that spec
#             gpuaudit_cdi_spec_missing_paths > 0 <=> GA-CDI-PATH-MISSING for that spec
#             gpuaudit_cdi_devices_unlisted       == the GA-CDI-DEVICE-MISSING findings
#             label cdi                           == what the GA-CDI-* findings say
#   plugins   label device-plugin                 == what the GA-DP-* findings say
#   readiness gpuaudit_node_ready 0               <=> GA-EXPECT-GPU-COUNT
# and the same metrics and labels come back from `serve --once --from` the snapshot, whose
# verdict `discover --from` reproduces. Each state must occur in some fixture, so the test
# cannot pass by having nothing to compare. ctest passes the gpuaudit binary. Exit 77
# (skipped) without python3.
set -u
command -v python3 >/dev/null 2>&1 || exit 77
GPUAUDIT=$1
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/policy.yaml" <<'EOF'
version: 1
classes:
  - name: expect8
    match: {}
    expect: {gpu_count: 8}
EOF
pol="--policy $tmp/policy.yaml --class expect8"

# one case: NAME ROOT [env assignments for the vendor library...]
read_case() {
	name=$1 root=$2
	shift 2
	d="$tmp/cases/$name"
	mkdir -p "$d/nfd" "$d/nfd-from"
	vend=--no-vendor
	[ $# -gt 0 ] && vend=--vendor
	env "$@" "$GPUAUDIT" discover --root "$root" $vend --json >"$d/snap.json" 2>"$d/err"
	env "$@" "$GPUAUDIT" check --root "$root" $vend $pol --json >"$d/check.json" 2>>"$d/err"
	env "$@" "$GPUAUDIT" serve --once --root "$root" $vend $pol --nfd-dir "$d/nfd" >"$d/metrics" 2>>"$d/err"
	"$GPUAUDIT" serve --once --from "$d/snap.json" $pol --nfd-dir "$d/nfd-from" >"$d/metrics-from" 2>>"$d/err"
	"$GPUAUDIT" discover --from "$d/snap.json" --json >"$d/snap2.json" 2>>"$d/err"
	return 0
}

for root in "$SRCDIR"/tests/fixtures/nodes/*/root; do
	read_case "$(basename "$(dirname "$root")")" "$root"
done
if [ -n "${GA_FAKE_NVML_DIR:-}" ] && [ -e "$GA_FAKE_NVML_DIR/libnvidia-ml.so.1" ]; then
	read_case dgx-a100+nvml-pcie-x8 "$SRCDIR/tests/fixtures/nodes/dgx-a100/root" \
		LD_LIBRARY_PATH="$GA_FAKE_NVML_DIR" FAKE_NVML_SCENARIO="$SRCDIR/tests/fakes/scenarios/pcie-x8.json"
fi

exec python3 - "$tmp/cases" <<'PY'
import json, os, re, sys

base = sys.argv[1]
bad = []
seen = set()
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
JUDGED = ("gpuaudit_gpu_pcie_link_degraded", "gpuaudit_gpu_memory_total_bytes", "gpuaudit_cdi_",
          "gpuaudit_device_plugin_", "gpuaudit_node_ready", "gpuaudit_gpus_expected")

def metrics(path):
    out = []
    for line in open(path):
        m = LINE.match(line.strip())
        if m and m.group(1).startswith(JUDGED):
            out.append((m.group(1), dict(LABEL.findall(m.group(3) or "")), float(m.group(4))))
    return out

def labels(d):
    p = os.path.join(d, "gpuaudit")
    if not os.path.exists(p):
        return None
    return {k: v for k, v in (l.strip().split("=", 1) for l in open(p) if not l.startswith("#"))}

def load(path):
    try:
        return json.load(open(path))
    except ValueError as e:
        bad.append("%s: not JSON (%s)" % (path, e))
        return {}

def fail(case, msg):
    bad.append("%s: %s" % (case, msg))

for case in sorted(os.listdir(base)):
    d = os.path.join(base, case)
    snap = load(os.path.join(d, "snap.json"))
    chk = load(os.path.join(d, "check.json"))
    found = snap.get("findings", []) + [f for f in chk.get("findings", []) if f["code"] == "GA-EXPECT-GPU-COUNT"]
    codes = lambda c: [f for f in found if f["code"] == c]
    m = metrics(os.path.join(d, "metrics"))
    lab = labels(os.path.join(d, "nfd")) or {}
    lab = {k.split("/", 1)[1]: v for k, v in lab.items()}

    # link
    for name, l, v in m:
        if name != "gpuaudit_gpu_pcie_link_degraded":
            continue
        a = l["pci_address"]
        named = any(a in (f.get("evidence") or {}).get("devices", "").split() or f["subject"] == a
                    for f in codes("GA-LINK-DEGRADED"))
        if (v == 1) != named:
            fail(case, "link of %s: metric %g, GA-LINK-DEGRADED %s" % (a, v, "names it" if named else "does not"))
        seen.add("link-degraded" if v == 1 else "link-ok")
    gpus = {l["pci_address"] for n, l, v in m if n == "gpuaudit_gpu_pcie_link_degraded"}
    for dv in snap.get("verdict", {}).get("devices", []):
        if dv["kind"] == "accelerator" and dv["link"] != "unknown" and dv["pci_address"] not in gpus:
            fail(case, "verdict judged %s's link but no metric renders it" % dv["pci_address"])

    # CDI
    for name, l, v in m:
        if name == "gpuaudit_cdi_spec_stale":
            has = any(f["subject"] == l["path"] for f in codes("GA-CDI-STALE"))
            if (v == 1) != has:
                fail(case, "CDI %s: stale metric %g, GA-CDI-STALE %s" % (l["path"], v, has))
            seen.add("cdi-stale" if v == 1 else "cdi-fresh")
        elif name == "gpuaudit_cdi_spec_missing_paths":
            has = any(f["subject"] == l["path"] for f in codes("GA-CDI-PATH-MISSING"))
            if (v > 0) != has:
                fail(case, "CDI %s: %g missing paths, GA-CDI-PATH-MISSING %s" % (l["path"], v, has))
        elif name == "gpuaudit_cdi_devices_unlisted":
            if v != len(codes("GA-CDI-DEVICE-MISSING")):
                fail(case, "%g unlisted devices, %d GA-CDI-DEVICE-MISSING" % (v, len(codes("GA-CDI-DEVICE-MISSING"))))
            seen.add("cdi-unlisted" if v else "cdi-listed")
    for f in codes("GA-CDI-STALE"):
        if not any(n == "gpuaudit_cdi_spec_stale" and l["path"] == f["subject"] for n, l, v in m):
            fail(case, "GA-CDI-STALE for %s without its metric" % f["subject"])
    cdi_want = ("invalid" if codes("GA-CDI-INVALID") else
                "stale" if codes("GA-CDI-STALE") or codes("GA-CDI-PATH-MISSING") else
                "incomplete" if codes("GA-CDI-DEVICE-MISSING") or codes("GA-CDI-DEVICE-GONE") else None)
    if "cdi" in lab:
        ok = lab["cdi"] == cdi_want if cdi_want else lab["cdi"] in ("current", "none")
        if not ok:
            fail(case, "label cdi=%s, the GA-CDI-* findings say %s" % (lab["cdi"], cdi_want or "current/none"))
        seen.add("label-cdi-" + lab["cdi"])
    elif cdi_want:
        fail(case, "GA-CDI-* findings (%s) but no cdi label" % cdi_want)

    # device plugins
    dp_want = ("missing" if codes("GA-DP-NOT-REGISTERED") else
               "partial" if codes("GA-DP-GPU-UNREGISTERED") else
               "unknown" if codes("GA-DP-CHECKPOINT-INVALID") else "ok")
    if "device-plugin" in lab:
        if lab["device-plugin"] != dp_want:
            fail(case, "label device-plugin=%s, the GA-DP-* findings say %s" % (lab["device-plugin"], dp_want))
        seen.add("label-dp-" + lab["device-plugin"])
    elif dp_want != "ok":
        fail(case, "GA-DP-* findings (%s) but no device-plugin label" % dp_want)

    # readiness
    ready = [v for n, l, v in m if n == "gpuaudit_node_ready"]
    count = bool(codes("GA-EXPECT-GPU-COUNT"))
    if len(ready) != 1:
        fail(case, "%d gpuaudit_node_ready samples against a class with a GPU count" % len(ready))
    elif (ready[0] == 0) != count:
        fail(case, "gpuaudit_node_ready %g, GA-EXPECT-GPU-COUNT %s" % (ready[0], count))
    else:
        seen.add("ready" if ready[0] else "not-ready")

    # --from: the same verdict, metrics and labels
    if snap.get("verdict") is None:
        fail(case, "discover --json has no verdict")
    if load(os.path.join(d, "snap2.json")).get("verdict") != snap.get("verdict"):
        fail(case, "discover --from computes another verdict than the snapshot holds")
    if metrics(os.path.join(d, "metrics-from")) != m:
        fail(case, "serve --from renders other judged metrics than serve --root")
    if labels(os.path.join(d, "nfd-from")) != labels(os.path.join(d, "nfd")):
        fail(case, "serve --from writes other NFD labels than serve --root")

need = {"link-degraded", "link-ok", "cdi-stale", "cdi-fresh", "cdi-unlisted", "label-cdi-stale",
        "label-cdi-current", "label-cdi-incomplete", "label-dp-ok", "label-dp-partial", "ready", "not-ready"}
for s in sorted(need - seen):
    bad.append("no fixture shows %s: nothing was compared for it" % s)
for b in bad:
    print("FAIL " + b)
print("%d cases, %d states seen, %d disagreements" % (len(os.listdir(base)), len(seen), len(bad)))
sys.exit(1 if bad else 0)
PY
