# gpuaudit fleet over a generated fleet: base snapshots from the fixtures,
# ~2,600 derived nodes with seeded drift (tests/fixtures/fleet/mkfleet.py),
# some compressed, some as JSON lines, some check reports, and bad reports.
P=$FIXTURES/policies/fleet.yaml
mkdir base
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$GPUAUDIT" discover --root "$FIXTURES/nodes/$n/root" --no-vendor --json >base/$n.json
	"$GPUAUDIT" check --policy "$P" --from base/$n.json --json >base/$n.check.json
done
python3 "$FIXTURES/fleet/mkfleet.py" base A || echo "mkfleet failed"
python3 "$FIXTURES/fleet/mkfleet.py" base B --later || echo "mkfleet failed"
good() { echo "$1"/[0-9]* "$1"/lines.jsonl "$1"/lines.jsonl.gz "$1"/checks; }

# the matrix and drift list without a policy: drift against each pool's majority
run fleet --max-drift 12 $(good A)
# with the policy: pins, expectations and classes of fleet.yaml
run fleet --policy "$P" --markdown --max-drift 8 $(good A)
run fleet --csv --max-drift 6 $(good A)
# the same fleet in reverse order, and as JSON lines on stdin: the same report
"$GPUAUDIT" fleet --json $(good A) >a.json
"$GPUAUDIT" fleet --json $(ls -d $(good A) | sort -r) >a-rev.json
cmp a.json a-rev.json && echo "reverse order: same report"
for f in A/[0-9]*/*; do
	case $f in *.gz) zcat "$f" ;; *.zst) zstd -dcq "$f" ;; *) cat "$f" ;; esac
	echo
done >stdin.jsonl
cat A/lines.jsonl >>stdin.jsonl
zcat A/lines.jsonl.gz >>stdin.jsonl
"$GPUAUDIT" fleet --json - <stdin.jsonl | grep -v '"source"' >a-stdin.json
"$GPUAUDIT" fleet --json A/[0-9]* A/lines.jsonl* | grep -v '"source"' | cmp - a-stdin.json &&
	echo "stdin: same report"
# every drifting node against the drift mkfleet.py injected (its manifest)
for f in A B; do
	"$GPUAUDIT" fleet --json --max-drift 100000 $f/[0-9]* $f/lines.jsonl* >$f.json
	python3 "$FIXTURES/fleet/expect.py" $f/manifest.txt $f.json
done
# bad reports are reported and skipped, the rest is still read; exit 2
run fleet --max-drift 0 A/bad A/checks
# a later run of the same fleet, against the first one
"$GPUAUDIT" fleet --json --max-drift 3000 $(good A) >old.json
run fleet --diff old.json --max-drift 0 $(good B)
# every drifting node listed: drift added, resolved and changed per host
"$GPUAUDIT" fleet --json --max-drift 1000 A/00 A/01 >old01.json
run fleet --markdown --diff old01.json --max-drift 1000 B/00 B/01
run fleet --json --diff old01.json --max-drift 1 B/00
# usage and unreadable input
run fleet
run fleet --json --csv A/00
run fleet --max-drift many A/00
run fleet A/00 no-such-dir
run fleet --diff base/cpu-vm.json A/00
run fleet --policy "$FIXTURES/policies/bad-type.yaml" A/00
run fleet - -
