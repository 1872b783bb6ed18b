# gpuaudit fleet --jobs: the documents are parsed in threads but aggregated in
# reading order, so the report (skipped reports and their order included) is
# the same for every thread count. A small generated fleet with bad reports,
# as files and as one stream on stdin with garbage and cut lines in between.
mkdir base
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$GPUAUDIT" discover --root "$FIXTURES/nodes/$n/root" --no-vendor --json >base/$n.json
done
python3 "$FIXTURES/fleet/mkfleet.py" base A --nodes 300 || echo "mkfleet failed"
# one stream: every node, bad reports, garbage, a cut line, a \u escape (the slow path)
{
	for f in A/[0-9]*/*; do
		case $f in *.gz) zcat "$f" ;; *.zst) zstd -dcq "$f" ;; *) cat "$f" ;; esac
		echo
		case $f in */0[0-4]/*-00[0-3]*) echo 'not json'; head -c 500 base/a10-x8.json; echo ;; esac
	done
	sed 's/"hostname":"/"hostname":"\\u0041/' base/cpu-vm.json
	echo
	cat A/lines.jsonl
} >all.jsonl
for j in 1 2 4 7; do
	"$GPUAUDIT" fleet --jobs $j --json --max-drift 100000 A/[0-9]* A/lines.jsonl* A/bad >files-$j.json 2>/dev/null
	"$GPUAUDIT" fleet --jobs $j --json --max-drift 100000 - <all.jsonl >stdin-$j.json 2>/dev/null
done
for j in 2 4 7; do
	cmp files-1.json files-$j.json && echo "files, --jobs $j: the same report as --jobs 1"
	cmp stdin-1.json stdin-$j.json && echo "stdin, --jobs $j: the same report as --jobs 1"
done
python3 - stdin-1.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("stdin: %d reports, %d nodes, %d skipped" % (r["reports"], r["nodes"], r["skipped"]))
for s in r["skipped_reports"][:4]:
    print("  %s: %s" % (s["source"].split(":")[0], s["reason"]))
PY
run fleet --jobs 3 --max-drift 0 A/bad
run fleet --jobs 0 A/00
run fleet --jobs 65 A/00
