# discover on the container-layer fixtures (tests/fixtures/nodes/ctr-*, issue 21): the text
# report, then the JSON container_runtime section with the findings (the rest of the snapshot
# is the base fixture's and pinned by its own goldens).
ctr_json() {
	echo "\$ gpuaudit discover --root $1 --no-vendor --json | (container_runtime, findings)"
	"$GPUAUDIT" discover --root "$1" --no-vendor --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({"container_runtime": d.get("container_runtime"), "findings": d["findings"]}, indent=2))'
}
for n in ctr-toolkit-missing ctr-containerd-unwired ctr-docker-default-runc ctr-kfd-group ctr-wired; do
	run discover --root "$FIXTURES/nodes/$n/root" --no-vendor
	ctr_json "$FIXTURES/nodes/$n/root"
done
# --from reads the section back: the same findings
"$GPUAUDIT" discover --root "$FIXTURES/nodes/ctr-kfd-group/root" --no-vendor --json >kfd.json
run discover --from kfd.json
