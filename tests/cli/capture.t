# gpuaudit capture (docs/capture.md): this machine, captured and discovered
# again, gives the same snapshot as discovering it live. Masked, because they
# move between the two runs: host.uptime_s (the clock), and the live counters
# a sysfs read returns anew each time (hwmon temperatures, power and energy,
# busy percentages, used memory, network statistics). Vendor libraries stay
# off in both (--no-vendor): discover queries NVML/ROCm SMI only for the live
# root, so with them on the live snapshot holds views a tree cannot have.
mask() {
	python3 -c '
import json, sys
MOVING = {"uptime_s", "temperature_c", "temperature_mc", "power_mw", "power_uw", "energy_uj",
          "gpu_busy_percent", "mem_busy_percent", "busy_pct", "mem_busy_pct", "vram_used_bytes",
          "gtt_used_bytes", "memory_used_bytes", "rx_bytes", "tx_bytes", "rx_packets", "tx_packets",
          "rx_dropped", "tx_dropped", "rx_errors", "tx_errors", "port_rcv_data", "port_xmit_data"}
def walk(v):
    if isinstance(v, dict):
        return {k: ("MASKED" if k in MOVING else walk(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x) for x in v]
    return v
json.dump(walk(json.load(sys.stdin)), sys.stdout, indent=1, sort_keys=True)
'
}
timeout 30 "$GPUAUDIT" capture cap >capture.log 2>&1 || { echo "capture failed"; cat capture.log; }
"$GPUAUDIT" discover --no-vendor --json | mask >live.json
"$GPUAUDIT" discover --no-vendor --root cap --json | mask >captured.json
if cmp -s live.json captured.json; then
	echo "capture round trip: same snapshot"
else
	echo "capture round trip: snapshots differ"
	diff -u live.json captured.json | head -60
fi
# capturing a tree reproduces its snapshot: every fixture, synthesized or recorded
# (symlinked sysfs, vendor files, the container layer, CDI, device plug-ins)
# (one line when all agree, so that a new fixture does not change this file)
differ=0
for d in "$FIXTURES"/nodes/*/root; do
	f=$(basename "$(dirname "$d")")
	timeout 30 "$GPUAUDIT" capture --root "$d" "cap-$f" >/dev/null 2>&1 || echo "$f: capture failed"
	"$GPUAUDIT" discover --no-vendor --root "$d" --json >"$f.a.json"
	"$GPUAUDIT" discover --no-vendor --root "cap-$f" --json >"$f.b.json"
	cmp -s "$f.a.json" "$f.b.json" || { differ=1; echo "$f: capture of fixture differs"; diff -u "$f.a.json" "$f.b.json" | head -40; }
done
[ $differ = 0 ] && echo "every fixture: capture of fixture same"
# the summary: a model document (gpuaudit.capture/v1) with the counts
"$GPUAUDIT" capture --root "$FIXTURES/nodes/cpu-vm/root" sum --json >sum.json
python3 -c '
import json
d = json.load(open("sum.json"))
print(d["schema"], "files>0:", d["files"] > 0, "bytes>0:", d["bytes"] > 0, "links>0:", d["links"] > 0,
      "skipped:", d["skipped_count"], "truncated:", d["truncated_count"], "elapsed_ms>=0:", d["elapsed_ms"] >= 0)'
# OUTDIR: new or empty only; a file; inside the source root; usage errors
mkdir full && touch full/x
run capture full
touch afile
run capture afile
mkdir -p src/sub
run capture --root src src/sub/out
[ -e src/sub/out ] && echo "inside the root: OUTDIR made anyway"
run capture --root src src
run capture
run capture a b
run capture --bogus x
run capture --max-file-kib 1 x
# the old script name still works: it execs the command
"$SRCDIR/tools/capture-node" --root "$FIXTURES/nodes/cpu-vm/root" viawrapper >/dev/null 2>&1; echo "tools/capture-node: exit $?"
[ -f viawrapper/proc/cpuinfo ] && echo "tools/capture-node: captured"
