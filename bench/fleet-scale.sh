#!/usr/bin/env bash
# bench/fleet-scale.sh - issue 20 item 5: the fleet view of 100,000 nodes from a
# Prometheus that holds their series, next to the same fleet from snapshot files.
# Run as `bench/fleet.sh scale [...]` or directly:
#
#   bench/fleet-scale.sh [--quick] [--runs R] [--keep] [NODES]
#       NODES default 100000; --quick: 1000 nodes, 1 run; --runs: runs per row (default 3)
#       --keep: leave the generated data in $BENCH_WORK (default build/bench-fleet-scale)
#
# What it does (bench/fleet_scale.py has the fleet's design):
#  1. snapshots of the fixtures (discover --json), mkfleet.py's 500 variants of them in
#     an earlier and a later state, each rendered by the real `gpuaudit serve --once
#     --openmetrics --from FILE`;
#  2. replicated into NODES nodes (distinct instance and hostname labels, the fixture mix,
#     drift, nodes that stop and appear halfway) as OpenMetrics text with timestamps over
#     SPAN_S (default 1800 s, a sample every STEP_S = 200 s), placed 6 h or more in the
#     past inside one 2 h block;
#  3. `promtool tsdb create-blocks-from openmetrics` (timed, with peak RSS and block size);
#  4. a Prometheus on those blocks (loopback, retention 100y, no scrape jobs);
#  5. timed rows (/usr/bin/time -v: wall, CPU, max RSS; the median of R runs; "nodes" is
#     what reports at END, NODES + 80):
#     * `gpuaudit fleet --prometheus URL --at END --json` and with `--since SPAN` (drift):
#       only when `gpuaudit fleet --help` lists --prometheus, else the row says so;
#       $FLEET_PROM_ARGS adds options;
#     * the matrix as one PromQL query (curl), what the server alone needs;
#     * `gpuaudit fleet --json DIR` over the same nodes' snapshot files at END.
# Results: bench/results/fleet-scale-NODES.txt ($BENCH_OUT overrides). FAMILIES
# (environment) selects the exposition's families to replicate (a regular expression, or
# "all"); GPUAUDIT the binary (default build/gpuaudit), which also renders the expositions.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=100000 runs=3 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) nodes=1000 runs=1 ;;
	--runs) runs=$2; shift ;;
	--keep) keep=1 ;;
	-h | --help) sed -n '2,29p' "$0"; exit 0 ;;
	*) nodes=$1 ;;
	esac
	shift
done
bin=${GPUAUDIT:-build/gpuaudit}
span=${SPAN_S:-1800} step=${STEP_S:-200}
families=${FAMILIES:-'_info$|^gpuaudit_gpus|^gpuaudit_findings|^gpuaudit_check_|^gpuaudit_last_collection_timestamp_seconds$'}
for t in "$bin" /usr/bin/time promtool prometheus curl python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 3; }
done
work=${BENCH_WORK:-build/bench-fleet-scale}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prom_pid=
cleanup() {
	[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# 1-2. the fleet
mkdir "$work/base"
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$bin" discover --root "tests/fixtures/nodes/$n/root" --no-vendor --json >"$work/base/$n.json" || true
done
python3 tests/fixtures/fleet/mkfleet.py "$work/base" --lines-only --nodes 500 >"$work/variants.jsonl"
python3 tests/fixtures/fleet/mkfleet.py "$work/base" --lines-only --nodes 500 --later >"$work/later.jsonl"
now=$(date +%s)
block=$((((now - 6 * 3600) / 7200) * 7200)) # a 2 h block, 6-8 h ago
end=$((block + 600 + span))
[ $((600 + span)) -lt 7200 ] || { echo "bench: SPAN_S must stay under 6600 s (one block)" >&2; exit 2; }
python3 bench/fleet_scale.py plan "$work" "$bin" "$nodes" "$span" "$step" "$end" "$families" | tee "$work/plan.txt"
t0=$(date +%s.%N)
python3 bench/fleet_scale.py openmetrics "$work" "$work/fleet.om" | tee -a "$work/plan.txt"
t1=$(date +%s.%N)
python3 bench/fleet_scale.py snapshots "$work" "$work/dir" | tee -a "$work/plan.txt"
t2=$(date +%s.%N)
echo "generated: OpenMetrics in $(python3 -c "print(round($t1 - $t0, 1))") s, snapshots in $(python3 -c "print(round($t2 - $t1, 1))") s"

# one measured command: /usr/bin/time -v; sets wall cpu rss (MiB)
timed() {
	local rc=0
	/usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" -le "${ok_rc:-0}" ] && rc=0 # fleet: 1 = drifting nodes, a report all the same
	cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { print s }' "$work/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time")
	return $rc
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
header=$(printf '%-52s %8s %8s %8s %9s %9s %5s  %s' "row" "nodes" "wall s" "cpu s" "peak MiB" "server s" "runs" "note")
rows=()
row() { rows+=("$(printf '%-52s %8s %8s %8s %9s %9s %5s  %s' "$@")"); echo "${rows[-1]}"; }
# CPU seconds (user + system) Prometheus has used so far; "-" before it runs
tick=$(getconf CLK_TCK)
server_cpu() { [ -n "$prom_pid" ] && awk -v t="$tick" '{ sub(/^.*\) /, ""); print ($12 + $13) / t }' "/proc/$prom_pid/stat" || echo -; }
# measure LABEL NODES CMD...: R runs, medians; the note names the output's node count
measure() {
	local label=$1 count=$2 ws=() cs=() rs=() ss=() note="" i s0 s1
	shift 2
	for ((i = 0; i < runs; i++)); do
		s0=$(server_cpu)
		if ! timed "$@"; then
			row "$label" "$count" - - - - "$i" "failed: $(tail -c 200 "$work/err" | tr '\n' ' ')"
			return 0
		fi
		s1=$(server_cpu)
		ws+=("$wall") cs+=("$cpu") rs+=("$rss")
		[ "$s0" = - ] || ss+=("$(python3 -c "print(round($s1 - $s0, 2))")")
	done
	local server=-
	[ ${#ss[@]} -gt 0 ] && server=$(median "${ss[@]}")
	note=$(grep -o '"nodes": *[0-9]*' "$work/out" | head -1 || true)
	cp "$work/out" "$work/out-$(printf '%s' "$label" | tr -c 'A-Za-z0-9' '-')"
	row "$label" "$count" "$(median "${ws[@]}")" "$(median "${cs[@]}")" "$(median "${rs[@]}")" "$server" "$runs" "$note"
}
echo "$header"

# 3. backfill
series=$(awk '/^fleet_scale: [0-9]+ series/ { print $2 }' "$work/plan.txt")
om_mib=$(du -m "$work/fleet.om" | cut -f1)
mkdir "$work/tsdb"
if timed promtool tsdb create-blocks-from openmetrics "$work/fleet.om" "$work/tsdb"; then
	row "promtool tsdb create-blocks-from openmetrics" "$nodes" "$wall" "$cpu" "$rss" - 1 \
		"$series series, $om_mib MiB of text -> $(du -sm "$work/tsdb" | cut -f1) MiB of blocks"
else
	row "promtool tsdb create-blocks-from openmetrics" "$nodes" - - - - 0 "failed: $(tail -c 300 "$work/err")"
	exit 1
fi
rm -f "$work/fleet.om"

# 4. Prometheus on the blocks
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1m\n' >"$work/prometheus.yml"
t0=$(date +%s.%N)
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
	--log.level=warn >"$work/prometheus.log" 2>&1 &
prom_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 600); do
	curl -fs "$url/-/ready" >/dev/null 2>&1 && break
	kill -0 "$prom_pid" 2>/dev/null || { echo "bench: prometheus exited:" >&2; tail "$work/prometheus.log" >&2; exit 1; }
	sleep 0.5
done
ready=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
q() { curl -fsS "$url/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$end"; }
got=$(q 'count(gpuaudit_node_class_info)' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
echo "prometheus ready in $ready s; nodes with a class at END: $got"
prom_rss0=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$prom_pid/status")

# 5. the rows
if "$bin" fleet --help 2>&1 | grep -q -- '--prometheus'; then
	# shellcheck disable=SC2086
	ok_rc=1 measure "gpuaudit fleet --prometheus URL --at END" "$got" \
		"$bin" fleet --prometheus "$url" --at "$end" --json ${FLEET_PROM_ARGS:-}
	# shellcheck disable=SC2086
	ok_rc=1 measure "gpuaudit fleet --prometheus URL --at END --since ${span}s" "$got" \
		"$bin" fleet --prometheus "$url" --at "$end" --since "${span}s" --json ${FLEET_PROM_ARGS:-}
else
	row "gpuaudit fleet --prometheus URL --at END" "$got" - - - - 0 "skipped: this gpuaudit has no fleet --prometheus"
fi
measure "PromQL matrix, one query (curl)" "$got" \
	curl -fsS "$url/api/v1/query" --data-urlencode "time=$end" --data-urlencode \
	'query=count by (name, class, stack, driver, version) (gpuaudit_driver_info * on (instance, job) group_left (name, class, stack) gpuaudit_node_class_info)'
measure "PromQL drift: nodes with >1 class in the span (curl)" "$got" \
	curl -fsS "$url/api/v1/query" --data-urlencode "time=$end" --data-urlencode \
	"query=count by (instance) (last_over_time(gpuaudit_node_class_info[${span}s])) > 1"
prom_hwm=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$prom_pid/status")
files=$(find "$work/dir" -type f | wc -l)
{ kill "$prom_pid"; wait "$prom_pid"; } 2>/dev/null || true
prom_pid= # the file rows: no server
ok_rc=1 measure "gpuaudit fleet --json DIR (snapshot files, 10% gzip)" "$files" "$bin" fleet --json "$work/dir"
dir_mib=$(du -sm "$work/dir" | cut -f1)
# the same fleet both ways: the matrix (classes) and the drift list must agree
same=$(python3 - "$work" <<'PY'
import glob, json, os, sys
w = sys.argv[1]
def load(pat):
    f = sorted(glob.glob(os.path.join(w, pat)))
    return json.load(open(f[0])) if f else None
files, prom = load("out-gpuaudit-fleet---json-DIR*"), load("out-gpuaudit-fleet---prometheus-URL---at-END")
if files is None or prom is None:
    print("not compared (no fleet --prometheus report)")
else:
    key = lambda r: [(d["host"], d["class_id"], d["stack_sha256"], sorted(d["reasons"])) for d in r["drift"]]
    print("matrix %s, drift list %s (%d and %d drifting nodes)" % (
        "the same" if files["classes"] == prom["classes"] else "DIFFERENT",
        "the same" if key(files) == key(prom) else "DIFFERENT", files["drift_nodes"], prom["drift_nodes"]))
PY
)
echo "fleet --prometheus at END against fleet DIR: $same"

mkdir -p bench/results
out=${BENCH_OUT:-bench/results/fleet-scale-$nodes.txt}
{
	echo "# bench/fleet.sh scale $nodes on $(uname -n) ($(nproc) CPUs, shared with other jobs: noisy), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# $bin: $("$bin" --version 2>/dev/null | head -1)${GPUAUDIT_COMMIT:+ (commit $GPUAUDIT_COMMIT)}; $(prometheus --version 2>&1 | head -1)"
	echo "# load average before: $load0"
	sed 's/^/# /' "$work/plan.txt"
	echo "# families: $families"
	echo "# samples from $((end - span)) to END=$end; prometheus ready in $ready s; RSS $prom_rss0 MiB after start, peak $prom_hwm MiB after the queries"
	echo "# snapshot files: $files, $dir_mib MiB; wall/cpu/peak: medians of the runs (/usr/bin/time -v) of the client;"
	echo "# server s: CPU seconds Prometheus spent during the run (utime + stime from /proc), median;"
	echo "# promtool's peak RSS includes the input file, which it maps whole"
	echo "# fleet --prometheus at END against fleet DIR: $same"
	echo "$header"
	printf '%s\n' "${rows[@]}"
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out"
echo "wrote $out"
