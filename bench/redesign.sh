#!/usr/bin/env bash
# bench/redesign.sh - the same commands run by two gpuaudit binaries side by
# side in one hyperfine run, to show that a change of structure (issue 15: the
# models, the layer order, thin commands; issue 26: the catalogue of codes and
# the node verdict) made no command slower. Every
# command reads the test fixtures, so both binaries do the same work.
#
#   bench/redesign.sh OLD NEW [RUNS]     default 20 runs per command
#
# OLD is usually a build of the commit before the change:
#   git worktree add /tmp/old COMMIT && cmake -S /tmp/old -B /tmp/old/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGA_TESTS=OFF && cmake --build /tmp/old/build
# Writes bench/results/redesign-<host>.md (medians, new/old ratio per command)
# and prints it. Needs hyperfine and python3 (scripts/install-deps --bench).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/redesign.sh OLD NEW [RUNS]}
new=${2:?usage: bench/redesign.sh OLD NEW [RUNS]}
runs=${3:-20}
for t in hyperfine python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
for b in "$old" "$new"; do [ -x "$b" ] || { echo "bench: $b is not executable" >&2; exit 3; }; done
fx=tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a fleet of 5,000 derived nodes from the fixture snapshots (written by NEW; both read the same files)
mkdir "$tmp/base" "$tmp/nfd"
for n in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	"$new" discover --root "$fx/nodes/$n/root" --no-vendor --json >"$tmp/base/$n.json" || true
done
python3 "$fx/fleet/mkfleet.py" "$tmp/base" "$tmp/fleet" --nodes 5000 >/dev/null
# a samples file of 600 lines for triage
for i in $(seq 1 20); do cat "$fx/samples/compute-bound.jsonl"; done >"$tmp/samples.jsonl"
P=$fx/policies/fleet.yaml
H100=$fx/nodes/dgx-h100/root
declare -a names cmds
add() { names+=("$1"); cmds+=("$2"); }
add "discover --json (dgx-h100)" "discover --root $H100 --no-vendor --json"
add "class (dgx-h100)" "class --root $H100 --no-vendor"
add "check --json (dgx-h100)" "check --policy $P --root $H100 --no-vendor --json"
add "health --json (xid79 log)" "health --root $H100 --no-vendor --kmsg $fx/kmsg/xid79.log --json"
add "serve --once metrics (dgx-h100)" "serve --once --root $H100 --no-vendor"
add "check --nfd-dir (dgx-h100, labels)" "check --policy $P --root $H100 --no-vendor --nfd-dir $tmp/nfd"
add "explain (dmesg log)" "explain $fx/logs/dmesg-xid-aer.log"
add "triage --json (600 samples)" "triage --samples $tmp/samples.jsonl --json"
add "fleet --json (5,000 nodes)" "fleet --json --max-drift 100000 $tmp/fleet"
add "deps --json (fixture deps dir)" "deps --json $fx/deps"
add "bench exec (5 runs of true, -o FILE)" "bench exec --runs 5 -o $tmp/exec.json -- /bin/true"
add "bench exec (5 runs of true, --json)" "bench exec --runs 5 --json -- /bin/true"
[ -d /usr/lib/x86_64-linux-gnu ] && add "deps --json /usr/lib/x86_64-linux-gnu" "deps --json /usr/lib/x86_64-linux-gnu"
args=()
for i in "${!names[@]}"; do
	args+=(-n "old: ${names[$i]}" "$old ${cmds[$i]}" -n "new: ${names[$i]}" "$new ${cmds[$i]}")
done
hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$tmp/h.json" "${args[@]}" >/dev/null 2>&1
out=bench/results/redesign-$(uname -n).md
mkdir -p bench/results
python3 - "$tmp/h.json" "$runs" >"$out" <<'PY'
import json, sys, statistics
res = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: statistics.median(r["times"]) for r in res}
print("| command | old median ms | new median ms | new/old |")
print("|---|---:|---:|---:|")
names = [r["command"][5:] for r in res if r["command"].startswith("old: ")]
ratios = []
for n in names:
    o, w = med["old: " + n], med["new: " + n]
    ratios.append(w / o)
    print("| %s | %.2f | %.2f | %.3f |" % (n, o * 1e3, w * 1e3, w / o))
print()
print("median of ratios: %.3f (%s runs each, hyperfine -N, same run)" % (statistics.median(ratios), sys.argv[2]))
PY
cat "$out"
