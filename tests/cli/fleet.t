# gpuaudit fleet over a generated fleet: base snapshots from the fixtures,
# 1,000 derived nodes with seeded drift (tests/fixtures/fleet/mkfleet.py),
# some compressed, some as JSON lines, some check reports, and bad reports.
P=$FIXTURES/policies/fleet.yaml
mkdir base
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$GPUAUDIT" discover --root "$FIXTURES/nodes/$n/root" --no-vendor --json >base/$n.json
	"$GPUAUDIT" check --policy "$P" --from base/$n.json --json >base/$n.check.json
done
python3 "$FIXTURES/fleet/mkfleet.py" base A --nodes 1000 || echo "mkfleet failed"
python3 "$FIXTURES/fleet/mkfleet.py" base B --nodes 1000 --later || echo "mkfleet failed"
good() { echo "$1"/[0-9]* "$1"/lines.jsonl "$1"/lines.jsonl.gz "$1"/checks; }

# the matrix and drift list without a policy: drift against each pool's majority
run fleet --max-drift 12 $(good A)
# every drifting node against the drift mkfleet.py injected (its manifest)
"$GPUAUDIT" fleet --json --max-drift 100000 $(good A) >a.json
python3 "$FIXTURES/fleet/expect.py" A/manifest.txt a.json
"$GPUAUDIT" fleet --json --max-drift 100000 $(good B) >b.json
python3 "$FIXTURES/fleet/expect.py" B/manifest.txt b.json
# the same fleet in reverse order: the same report
"$GPUAUDIT" fleet --json --max-drift 100000 $(ls -d $(good A) | sort -r) >a-rev.json
cmp a-rev.json a.json && echo "reverse order: same report"
# as JSON lines on stdin: the same report as from the files (check reports
# apart: on stdin they are named after their line, in files after the file)
for f in A/[0-9]*/*; do
	case $f in *.gz) zcat "$f" ;; *.zst) zstd -dcq "$f" ;; *) cat "$f" ;; esac
	echo
done >stdin.jsonl
cat A/lines.jsonl >>stdin.jsonl
zcat A/lines.jsonl.gz >>stdin.jsonl
"$GPUAUDIT" fleet --json --max-drift 100000 - <stdin.jsonl | grep -v '"source"' >a-stdin.json
"$GPUAUDIT" fleet --json --max-drift 100000 A/[0-9]* A/lines.jsonl* | grep -v '"source"' >a-files.json
cmp a-stdin.json a-files.json && echo "stdin: same report"
# with the policy: pins, expectations and classes of fleet.yaml (a fifth of the fleet)
run fleet --policy "$P" --markdown --max-drift 8 A/0[0-9] A/checks
run fleet --csv --max-drift 6 A/0[0-4]
# bad reports are reported and skipped, the rest is still read; exit 2
run fleet --max-drift 0 A/bad A/checks
# a later run of the same fleet, against the first one
run fleet --diff a.json --max-drift 0 $(good B)
# every drifting node listed: drift added, resolved and changed per host
"$GPUAUDIT" fleet --json --max-drift 1000 A/00 A/01 >old01.json
run fleet --markdown --diff old01.json --max-drift 1000 B/00 B/01
run fleet --json --diff old01.json --max-drift 1 B/00
# CSV: every record (stack, check, drift, skipped, change) has the header's 23 fields
"$GPUAUDIT" fleet --csv --diff old01.json --max-drift 1000 B/00 B/01 B/checks A/bad >all.csv 2>/dev/null
python3 - all.csv <<'PY'
import collections, csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
widths = collections.Counter((r[0], len(r)) for r in rows[1:])
print("csv header %d fields; %s" % (len(rows[0]), ", ".join("%s x%d: %d fields" % (k, n, w) for (k, w), n in sorted(widths.items()))))
PY
# usage and unreadable input
run fleet
run fleet --json --csv A/00
run fleet --max-drift many A/00
run fleet A/00 no-such-dir
run fleet --diff base/cpu-vm.json A/00
run fleet --policy "$FIXTURES/policies/bad-type.yaml" A/00
run fleet - -
