#!/usr/bin/env bash
# bench/container.sh - what the container-layer collection (lib/collect/ctr-runtime.c) adds
# to `gpuaudit discover --json` (issue 21: under 2 ms). hyperfine runs discover on two pairs
# of fixture trees that differ only in the container files: ctr-wired (toolkit, containerd
# with an import, Docker, CRI-O with a drop-in) against a copy with every container file
# removed, and ctr-kfd-group against the same tree without them; then on this machine
# (whatever its container layer is: the collector still looks for every file).
#
#   bench/container.sh [RUNS]      default 40 runs per command
#
# Writes bench/results/container-<host>.md (medians, differences, ratios, hyperfine tables).
# Needs: hyperfine, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-40}
bin=${GPUAUDIT:-build/gpuaudit}
out=bench/results
mkdir -p "$out"
for t in hyperfine python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (make)" >&2; exit 3; }
cb=${CTR_BENCH:-build/ctr_bench}
[ -x "$cb" ] || { echo "bench: $cb missing (make)" >&2; exit 3; }
host=$(uname -n)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the same trees without the container layer
strip_ctr() {
	rm -rf "$1/etc/containerd" "$1/etc/docker" "$1/etc/crio" "$1/etc/nvidia-container-runtime" \
		"$1/var/lib/dpkg" "$1/dev/.fixture-perms" "$1/etc/passwd" "$1/etc/group"
	for b in containerd containerd-shim-runc-v2 dockerd docker crio crun nvidia-container-cli \
		nvidia-container-runtime nvidia-container-runtime-hook nvidia-ctk nvidia-cdi-hook \
		amd-container-runtime amd-ctk; do
		rm -f "$1/usr/bin/$b"
	done
	rm -f "$1/usr/sbin/runc"
}
cp -a tests/fixtures/nodes/ctr-wired/root "$tmp/wired"
cp -a tests/fixtures/nodes/ctr-wired/root "$tmp/wired-bare"
strip_ctr "$tmp/wired-bare"
cp -a tests/fixtures/nodes/ctr-kfd-group/root "$tmp/kfd"
cp -a tests/fixtures/nodes/ctr-kfd-group/root "$tmp/kfd-bare"
strip_ctr "$tmp/kfd-bare"
# the stripped trees really have no section
# in-process: the container collector alone against the whole collection, 10x the runs
for t in wired wired-bare kfd kfd-bare; do
	"$cb" "$tmp/$t" $((runs * 10)) >"$tmp/cb-$t.txt"
done
"$cb" / $((runs * 10)) >"$tmp/cb-live.txt"

# (discover exits 1 on the kfd tree: the mi250x base carries an error-level RAS finding)
for t in wired-bare kfd-bare; do
	"$bin" discover --root "$tmp/$t" --no-vendor --json >"$tmp/$t.json" || true
	python3 -c 'import json,sys; sys.exit("container_runtime" in json.load(open(sys.argv[1])))' "$tmp/$t.json" ||
		{ echo "bench: $t still has a container layer" >&2; exit 1; }
done

hyperfine --warmup 5 --runs "$runs" -N -i --export-json "$tmp/fix.json" --export-markdown "$tmp/fix.md" \
	-n "ctr-wired" "$bin discover --json --no-vendor --root $tmp/wired" \
	-n "ctr-wired without container files" "$bin discover --json --no-vendor --root $tmp/wired-bare" \
	-n "ctr-kfd-group" "$bin discover --json --no-vendor --root $tmp/kfd" \
	-n "ctr-kfd-group without container files" "$bin discover --json --no-vendor --root $tmp/kfd-bare" \
	>/dev/null
hyperfine --warmup 5 --runs "$runs" -N -i --export-json "$tmp/live.json" --export-markdown "$tmp/live.md" \
	-n "live: discover --json" "$bin discover --json" >/dev/null
"$bin" discover --json >"$tmp/live-snapshot.json" || true
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("container_runtime")))' \
	"$tmp/live-snapshot.json" >"$tmp/live-section.json"

python3 - "$tmp" "$out/container-$host.md" <<'PY'
import json, statistics, sys, platform, os, datetime
tmp, dest = sys.argv[1:3]
def med(name):
    r = json.load(open(f"{tmp}/{name}.json"))["results"]
    return {x["command"]: statistics.median(x["times"]) for x in r}
m = med("fix"); m.update(med("live"))
L = [f"# container-layer benchmark: {platform.node()} ({os.cpu_count()} CPUs), {datetime.date.today()}\n",
     "Medians of hyperfine runs (`bench/container.sh`); `discover --json --no-vendor --root TREE`.",
     "The difference of a pair is what the container files cost the collection (target: under 2 ms).\n",
     "| tree | median ms | without container files, ms | added ms | ratio |", "|---|---:|---:|---:|---:|"]
for k in ("ctr-wired", "ctr-kfd-group"):
    a, b = m[k], m[k + " without container files"]
    L.append(f"| `{k}` | {a*1000:.2f} | {b*1000:.2f} | {(a-b)*1000:+.2f} | {a/b:.3f} |")
def cb(name):
    return dict((k, float(v)) for k, v in (l.split() for l in open(f"{tmp}/cb-{name}.txt")))
L.append("\nIn-process (`bench/ctr_bench.c`, medians of 10x the runs): the container collector "
         "alone against the whole `ga_node_collect` (vendor libraries off) on the same root.\n")
L.append("| root | collection ms | container collector ms | share |")
L.append("|---|---:|---:|---:|")
for name, label in (("wired", "ctr-wired"), ("wired-bare", "ctr-wired without container files"),
                    ("kfd", "ctr-kfd-group"), ("kfd-bare", "ctr-kfd-group without container files"),
                    ("live", "live machine (/)")):
    r = cb(name)
    L.append(f"| {label} | {r['collect_ms']:.3f} | {r['ctr_ms']:.3f} | {r['ctr_share']*100:.2f} % |")
L.append(f"\nLive machine: `discover --json` median {m['live: discover --json']*1000:.2f} ms; its container "
         f"section: `{open(tmp + '/live-section.json').read().strip()}` (null: nothing found, the collector "
         "still looked for every binary and file).\n")
L.append("## hyperfine output\n")
L.append(open(f"{tmp}/fix.md").read())
L.append(open(f"{tmp}/live.md").read())
open(dest, "w").write("\n".join(L) + "\n")
print("\n".join(l for l in L if l.startswith("|") or l.startswith("Live")))
PY
echo "wrote $out/container-$host.md"
