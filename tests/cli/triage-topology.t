# triage's communication step and the topology matrix (issue 30 point 5). The snapshots are the
# fixtures' discover --json with one fact changed here (synthesized, not recorded):
#  * dgx-h100 without its four NICs of NUMA node 0 (as if they had no driver): GPUs 0-3 have
#    every NIC SYS from them -> GA-TOPO-NIC-REMOTE each;
#  * mi300x with GPUs 4-7 out of the XGMI hive (no xgmi files, no KFD links): the pairs
#    across the two sockets have only SYS paths -> GA-TOPO-GPU-SYS-ONLY.
# Neither changes step 4's verdict; both are evidence, findings and the decision's tail.
N=$FIXTURES/nodes
S=$FIXTURES/samples
: >empty.log
"$GPUAUDIT" discover --root "$N/dgx-h100/root" --no-vendor --json >h100.json
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["pci"] = [p for p in d["pci"] if not (p["kind"] == "nic" and p["numa_node"] == 0)]
json.dump(d, sys.stdout)' h100.json >h100-nic-remote.json
"$GPUAUDIT" discover --from h100-nic-remote.json | sed -n '/^topology/,/^  legend/p'
run triage --from h100-nic-remote.json --kmsg empty.log --samples "$S/compute-bound.jsonl"
"$GPUAUDIT" discover --root "$N/mi300x/root" --no-vendor --json >mi300x.json
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for a in d["accelerators"][4:]:
    a["amd"]["xgmi"] = None
    a["interconnect"] = []
json.dump(d, sys.stdout)' mi300x.json >mi300x-split.json
"$GPUAUDIT" discover --from mi300x-split.json | sed -n '/^topology/,/^  legend/p'
run triage --from mi300x-split.json --kmsg empty.log --samples "$S/compute-bound.jsonl" --json
# the unchanged fixtures raise neither: every GPU has a NIC or a link on its side
for f in dgx-a100 dgx-h100 gb200-tray mi300x; do
	"$GPUAUDIT" triage --root "$N/$f/root" --kmsg empty.log --samples "$S/compute-bound.jsonl" --json |
		python3 -c 'import json, sys; d = json.load(sys.stdin); print(sys.argv[1], [x["code"] for x in d["findings"] if x["code"].startswith("GA-TOPO")])' "$f"
done
