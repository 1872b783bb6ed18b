# Coverage is part of the verdict: health without its kernel log is UNKNOWN (exit 4;
# NPD 2 = Unknown; Slurm: a line and exit 4, no drain), never OK, in every format.
# Tests run as root, which /dev/kmsg never refuses: a dev/kmsg that is a directory under
# --root takes the same path as EPERM for a plain user (open or read fails; the reason is
# the reader's message, here "neither the kmsg device nor a regular file").
R=$FIXTURES/nodes/dgx-a100/root
K=$FIXTURES/kmsg
cp -a "$R" t && mkdir -p t/dev/kmsg
run health --root t --no-vendor
"$GPUAUDIT" health --root t --no-vendor --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], "|", d["reason"])
for c in d["coverage"]: print(" ", c["source"], c["state"], "|", c["detail"])
print([f["code"] for f in d["findings"]])'
echo "[exit ${PIPESTATUS[0]}]"
run health --root t --no-vendor --npd
run health --root t --no-vendor --slurm
# a recorded tree without dev/kmsg, and a saved snapshot without --kmsg: no log, unknown
run health --root "$R" --no-vendor --npd
"$GPUAUDIT" discover --root "$R" --json >node.json
run health --from node.json
# the same node with its log: a verdict (exit 0 with only warnings)
: >empty.log
run health --from node.json --kmsg empty.log | grep -E '^(\$ |health:|coverage:|\[exit)'
# problems found stay problems without the log (the MI250X's RAS error: exit 1)
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor | grep -E '^(\$ |health:|coverage:|  kernel_log|\[exit)'

# --state: an unknown run is not a clear run. Xid 48 raised at T; three runs without the
# log (--from without --kmsg) long after clear_for keep it raised with clear_runs 0; two
# runs with the (empty) log then lower it.
cat >pol.yaml <<'EOF2'
version: 1
classes: [{name: a100, match: {vendor: nvidia}}]
health:
  clear_after: 2
  clear_for: 10m
EOF2
T=1741083400
st() { python3 -c 'import json; d = json.load(open("s.json")); print("state:", [(c["code"], c["raised"], c["clear_runs"]) for c in d["conditions"]])'; }
"$GPUAUDIT" health --from node.json --kmsg "$K/xid48-ecc.log" --policy pol.yaml --state s.json --now $T --npd
echo "[exit $?]"
st
for i in 1 2 3; do
	"$GPUAUDIT" health --from node.json --policy pol.yaml --state s.json --now $((T + i * 1000)) --npd
	echo "[exit $?]"
	st
done
for i in 4 5; do
	"$GPUAUDIT" health --from node.json --kmsg empty.log --policy pol.yaml --state s.json --now $((T + i * 1000)) --npd
	echo "[exit $?]"
	st
done
# a node whose PCI devices cannot be read (no sys/bus/pci: a container without /sys):
# the bus is unseen, not empty: UNKNOWN (exit 4), with or without a class expecting a GPU
# count, and never "0 GPUs visible, drain"
cp -r "$FIXTURES/nodes/dgx-h100/root" nopci && rm -rf nopci/sys/bus/pci
: >nopci.log
run health --root nopci --no-vendor --kmsg nopci.log
run health --root nopci --no-vendor --kmsg nopci.log --policy "$FIXTURES/policies/fleet.yaml" --class h100-train
run health --root nopci --no-vendor --kmsg nopci.log --policy "$FIXTURES/policies/fleet.yaml" --class h100-train --slurm
"$GPUAUDIT" health --root nopci --no-vendor --kmsg nopci.log --policy "$FIXTURES/policies/fleet.yaml" --class h100-train --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["result"], [(c["source"], c["state"]) for c in d["coverage"]], sorted(f["code"] for f in d["findings"]))'
