#!/usr/bin/env bash
# bench/capture.sh - time `gpuaudit capture OUTDIR` against the shell script it
# replaced (tools/capture-node as of commit 4c09fd9, taken from git history;
# it started a process per file), with hyperfine, on this machine and on the
# largest node fixture tree as --root. Each run writes a fresh OUTDIR
# (hyperfine --prepare removes the previous one). Also counts what each wrote:
# the command takes more (CPU topology and caches, config space, cpuset, the
# container layer) than the script did.
#
#   bench/capture.sh [RUNS_NEW] [RUNS_OLD]    default 20 and 3 (the script is slow)
#
# A third tree is synthesized here: 256 CPUs with sysfs topology and four
# cache levels each (17,668 files, the shape issue 16's fixtures take on),
# captured by the command alone (the script took no CPU topology), once into
# $TMPDIR and once into /dev/shm (tmpfs) when there is one, to show what the
# file system's file creation costs.
#
# Writes bench/results/capture-<host>.md (hyperfine markdown, medians, ratios).
# Needs: hyperfine, python3, git (for the old script).
set -euo pipefail
cd "$(dirname "$0")/.."
runs_new=${1:-20}
runs_old=${2:-3}
bin=${GPUAUDIT:-build/gpuaudit}
out=bench/results
mkdir -p "$out"
for t in hyperfine python3 git; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (make)" >&2; exit 3; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
host=$(uname -n)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
old=$tmp/capture-node.sh
git show 4c09fd9:tools/capture-node >"$old"
# the largest tree (by bytes) among the fixtures
fixture=$(du -s tests/fixtures/nodes/*/root | sort -n | tail -1 | cut -f2)

bench_one() { # NAME SRC
	local name=$1 src=$2
	hyperfine --runs "$runs_new" --warmup 2 --prepare "rm -rf $tmp/new" -N \
		--export-json "$tmp/$name.new.json" --export-markdown "$tmp/$name.new.md" \
		-n "gpuaudit capture ($name)" "$bin capture --root $src $tmp/new" >/dev/null
	hyperfine --runs "$runs_old" --prepare "rm -rf $tmp/old" -N \
		--export-json "$tmp/$name.old.json" --export-markdown "$tmp/$name.old.md" \
		-n "tools/capture-node shell script ($name)" "sh $old --root $src $tmp/old" >/dev/null
	rm -rf "$tmp/new" "$tmp/old"
	"$bin" capture --root "$src" "$tmp/new" >/dev/null
	sh "$old" --root "$src" "$tmp/old" 2>/dev/null
	echo "$(find "$tmp/new" -type f | wc -l) $(find "$tmp/new" -type l | wc -l)" >"$tmp/$name.new.count"
	echo "$(find "$tmp/old" -type f | wc -l) $(find "$tmp/old" -type l | wc -l)" >"$tmp/$name.old.count"
	rm -rf "$tmp/new" "$tmp/old"
}
bench_new() { # NAME SRC OUTBASE
	local name=$1 src=$2 o=$3/ga-bench-capture-$$
	hyperfine --runs "$runs_new" --warmup 2 --prepare "rm -rf $o" -N \
		--export-json "$tmp/$name.new.json" --export-markdown "$tmp/$name.new.md" \
		-n "gpuaudit capture ($name)" "$bin capture --root $src $o" >/dev/null
	rm -rf "$o"
}
bench_one live /
bench_one fixture "$fixture"
python3 - "$tmp/cpu256/root" <<'PY'
import os, sys
cpu = os.path.join(sys.argv[1], "sys/devices/system/cpu")
def w(p, t):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(t)
for c in range(256):
    d = "%s/cpu%d" % (cpu, c)
    for f, v in [("core_id", c % 64), ("physical_package_id", c // 128), ("die_id", 0), ("cluster_id", c // 2),
                 ("core_cpus_list", c), ("thread_siblings_list", c), ("core_siblings_list", "0-127"),
                 ("package_cpus_list", "0-127"), ("die_cpus_list", "0-127"), ("cluster_cpus_list", c),
                 ("core_cpus", 1), ("thread_siblings", 1), ("core_siblings", "ff"), ("package_cpus", "ff"),
                 ("die_cpus", "ff"), ("cluster_cpus", 1)]:
        w("%s/topology/%s" % (d, f), "%s\n" % v)
    for i in range(4):
        for f in ("level", "type", "size", "ways_of_associativity", "coherency_line_size", "shared_cpu_map",
                  "shared_cpu_list", "id", "number_of_sets", "physical_line_partition", "allocation_policy",
                  "write_policy", "uevent"):
            w("%s/cache/index%d/%s" % (d, i, f), "1\n")
    w(d + "/online", "1\n")
for f in ("online", "possible", "present"):
    w("%s/%s" % (cpu, f), "0-255\n")
w(os.path.join(sys.argv[1], "proc/cpuinfo"), "processor\t: 0\n")
PY
bench_new cpu256-disk "$tmp/cpu256/root" "${TMPDIR:-/tmp}"
[ -d /dev/shm ] && [ -w /dev/shm ] && bench_new cpu256-tmpfs "$tmp/cpu256/root" /dev/shm

python3 - "$tmp" "$out/capture-$host.md" "$fixture" "$runs_new" "$runs_old" <<'PY'
import json, statistics, sys, os, datetime, platform
tmp, dest, fixture, rn, ro = sys.argv[1:6]
def med(p):
    r = json.load(open(p))["results"][0]
    return statistics.median(r["times"]) * 1000
lines = ["# bench/capture.sh on %s, %s" % (platform.node(), datetime.date.today().isoformat()), "",
         "%d CPUs (os.cpu_count), %s; runs: %s of the command, %s of the script; fixture: %s" %
         (os.cpu_count(), platform.platform(), rn, ro, fixture), "",
         "| tree | gpuaudit capture median | shell script median | ratio | files+links (command) | files+links (script) |",
         "|---|---|---|---|---|---|"]
summary = []
for name in ("live", "fixture"):
    n, o = med(os.path.join(tmp, name + ".new.json")), med(os.path.join(tmp, name + ".old.json"))
    cn = open(os.path.join(tmp, name + ".new.count")).read().split()
    co = open(os.path.join(tmp, name + ".old.count")).read().split()
    lines.append("| %s | %.1f ms | %.0f ms | %.0fx faster | %s+%s | %s+%s |" % (name, n, o, o / n, cn[0], cn[1], co[0], co[1]))
    summary.append("%s: command %.1f ms, script %.0f ms (%.0fx)" % (name, n, o, o / n))
for name in ("cpu256-disk", "cpu256-tmpfs"):
    if os.path.exists(os.path.join(tmp, name + ".new.json")):
        n = med(os.path.join(tmp, name + ".new.json"))
        lines.append("| %s (synthesized, 17,668 files) | %.1f ms | (takes no CPU topology) | | | |" % (name, n))
        summary.append("%s: command %.1f ms" % (name, n))
lines += ["", "hyperfine output:", ""]
for name in ("live", "fixture", "cpu256-disk", "cpu256-tmpfs"):
    for k in ("new", "old"):
        f = os.path.join(tmp, "%s.%s.md" % (name, k))
        if os.path.exists(f):
            lines += open(f).read().splitlines() + [""]
open(dest, "w").write("\n".join(lines))
print("\n".join(summary))
print("wrote", dest)
PY
