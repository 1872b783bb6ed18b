#!/usr/bin/env bash
# bench/fleet.sh - `gpuaudit fleet` over many node reports: the rate (nodes/s)
# and the peak RSS for 10k and for N (default 100k) nodes, to show that memory
# follows the classes and stacks, not the nodes.
#
#   bench/fleet.sh [NODES]     default 100000
#   bench/fleet.sh scale [--quick] [NODES]   Prometheus against snapshot files
#                              (bench/fleet-scale.sh, issue 20)
#
# The reports are generated, not collected: tests/fixtures/fleet/mkfleet.py
# derives 500 variants (seeded drift) from the fixture snapshots, and they are
# repeated with unique host names as JSON lines (~24 KB a node, the fixture
# mix: DGX A100/H100, A10, MI250X, Max 1550, CPU VMs). Runs:
#   * gpuaudit fleet - < 10k.jsonl, < N.jsonl (JSON lines on stdin)
#   * gpuaudit fleet DIR: 10k files, one per node, every 10th gzip-compressed
#   * the ad-hoc peer: jq extracting host, kernel and driver per line, then
#     sort | uniq -c (jq's own time and RSS; no drift, no classes)
# /usr/bin/time -v gives wall time and peak RSS. Writes bench/results/fleet.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = scale ] && { shift; exec bench/fleet-scale.sh "$@"; }
nodes=${1:-100000}
bin=${GPUAUDIT:-build/gpuaudit}
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (GNU time)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
mkdir "$tmp/base"
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$bin" discover --root "tests/fixtures/nodes/$n/root" --no-vendor --json >"$tmp/base/$n.json" || true
done
python3 tests/fixtures/fleet/mkfleet.py "$tmp/base" --lines-only --nodes 500 >"$tmp/variants.jsonl"
python3 - "$tmp" "$nodes" <<'PY'
import gzip, json, os, sys
tmp, n = sys.argv[1], int(sys.argv[2])
var = []
for line in open(os.path.join(tmp, "variants.jsonl")):
    h = json.loads(line)["host"]["hostname"]
    a, b = line.split('"hostname":"%s"' % h, 1)
    var.append((a + '"hostname":"', '"' + b))
def write(path, count):
    with open(path, "w") as f:
        for i in range(count):
            a, b = var[i % len(var)]
            f.write("%snode-%06d%s" % (a, i, b))
write(os.path.join(tmp, "10k.jsonl"), 10000)
write(os.path.join(tmp, "big.jsonl"), n)
d = os.path.join(tmp, "dir")
os.makedirs(d)
for i in range(10000):
    a, b = var[i % len(var)]
    data = ("%snode-%06d%s" % (a, i, b)).encode()
    if i % 10 == 7:
        with gzip.GzipFile(os.path.join(d, "node-%06d.json.gz" % i), "wb", mtime=0) as f:
            f.write(data)
    else:
        with open(os.path.join(d, "node-%06d.json" % i), "wb") as f:
            f.write(data)
PY
# one measured run: label, node count, bytes, command...
results=()
measure() {
	local label=$1 count=$2 bytes=$3
	shift 3
	/usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || true
	local wall rss cpu
	cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { print s }' "$tmp/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$tmp/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
	results+=("$(printf '%-44s %7d %7d %8.2f %8.0f %7.2f %9.0f %8.1f' "$label" "$count" "$((bytes / 1048576))" \
		"$wall" "$(python3 -c "print($count / max($wall, 0.001))")" "$cpu" \
		"$(python3 -c "print($count / max($cpu, 0.001))")" "$(python3 -c "print($rss / 1024)")")")
	echo "${results[-1]}"
}
size() { du -bs "$1" | cut -f1; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
header="label                                          nodes     MiB   wall s  nodes/s   cpu s nodes/cpu-s peak MiB"
echo "$header"
measure "gpuaudit fleet - (JSON lines, 10k)" 10000 "$(size "$tmp/10k.jsonl")" sh -c "'$bin' fleet --json - <'$tmp/10k.jsonl'"
grep -o '"nodes": [0-9]*' "$tmp/out" | head -1
measure "gpuaudit fleet - (JSON lines, $nodes)" "$nodes" "$(size "$tmp/big.jsonl")" sh -c "'$bin' fleet --json - <'$tmp/big.jsonl'"
grep -o '"nodes": [0-9]*' "$tmp/out" | head -1
cp "$tmp/out" "$tmp/out-jobs"
measure "gpuaudit fleet --jobs 1 - (JSON lines, $nodes)" "$nodes" "$(size "$tmp/big.jsonl")" sh -c "'$bin' fleet --jobs 1 --json - <'$tmp/big.jsonl'"
cmp -s "$tmp/out" "$tmp/out-jobs" && echo "--jobs 1 and the default: the same report" || echo "bench: --jobs 1 and the default differ" >&2
measure "gpuaudit fleet DIR (10k files, 10% gzip)" 10000 "$(size "$tmp/dir")" "$bin" fleet --json "$tmp/dir"
grep -o '"nodes": [0-9]*' "$tmp/out" | head -1
command -v jq >/dev/null || echo "bench: jq missing: the peer rows are left out" >&2
jqprog='[.host.hostname, .host.kernel_release, ([.drivers[]?.version] | join(","))] | @tsv'
command -v jq >/dev/null && measure "peer: jq per line | sort | uniq -c (10k)" 10000 "$(size "$tmp/10k.jsonl")" sh -c "jq -r '$jqprog' <'$tmp/10k.jsonl' | cut -f2- | sort | uniq -c"
command -v jq >/dev/null && measure "peer: jq per line | sort | uniq -c ($nodes)" "$nodes" "$(size "$tmp/big.jsonl")" sh -c "jq -r '$jqprog' <'$tmp/big.jsonl' | cut -f2- | sort | uniq -c"
mkdir -p bench/results
{
	echo "# bench/fleet.sh $nodes on $(uname -n) ($(nproc) CPUs, shared with other jobs: noisy), $(date -u +%Y-%m-%d)"
	echo "# $("$bin" --version 2>/dev/null | head -1); $(jq --version 2>/dev/null || echo "no jq"); load average before: $load0"
	echo "# peak MiB: /usr/bin/time -v maximum RSS (for the peer: of the sh -c pipeline's largest process)"
	echo "# cpu s: user + system time (the peer: the whole pipeline); wall depends on the machine's load"
	echo "$header"
	printf '%s\n' "${results[@]}"
	echo "# load average after: $(cut -d" " -f1-3 /proc/loadavg)"
} >bench/results/fleet.txt
echo "wrote bench/results/fleet.txt"
