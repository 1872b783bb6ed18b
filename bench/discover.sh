#!/usr/bin/env bash
# bench/discover.sh - time `gpuaudit discover --json` against `lspci -vmm` (PCI ids and
# names only; the issue 16 target is discover <= 0.5x lspci) and, when installed,
# `lstopo-no-graphics --of xml` (hwloc's topology), side by side in one run, on this
# machine and on the 256-CPU dgx-a100 fixture tree (--root; lspci reads the same tree
# through -A linux-sysfs when the tree has config files it can open).
#
#   bench/discover.sh [RUNS] [--profile]     default 30 runs per command
#
# With hyperfine: its medians (3 warm-up runs, -N: no shell). Without it: a loop of
# RUNS runs per command timed with date +%s%N, medians of those (said in the output).
# Also the median CPU time (user + system) of each, which the 2 shared cores of the
# build machine disturb less than the wall clock. --profile adds where discover's time
# goes: `perf record` (cpu-clock) over 50 runs by shared object and by symbol, and
# `strace -c` syscall counts of one run.
#
# Writes bench/results/discover-<host>.md and prints the table.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=30
profile=0
for a in "$@"; do
	case $a in
	--profile) profile=1 ;;
	*[!0-9]* | '') echo "usage: bench/discover.sh [RUNS] [--profile]" >&2; exit 2 ;;
	*) runs=$a ;;
	esac
done
bin=${GPUAUDIT:-build/gpuaudit}
out=bench/results
mkdir -p "$out"
for t in lspci python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (make)" >&2; exit 3; }
host=$(uname -n)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture=tests/fixtures/nodes/dgx-a100/root

# name|command, one per line
{
	echo "gpuaudit discover --json|$bin discover --json"
	echo "lspci -vmm|lspci -vmm"
	echo "gpuaudit --version (process start: loading its libraries)|$bin --version"
	if command -v lstopo-no-graphics >/dev/null; then
		echo "lstopo-no-graphics --of xml|lstopo-no-graphics --of xml -"
	fi
	echo "gpuaudit discover --json --root dgx-a100 (256 CPUs, 8 GPUs)|$bin discover --json --root $fixture"
	# lspci says "Cannot open .../config" and still exits 0 on a tree without config files
	if [ -z "$(lspci -vmm -A linux-sysfs -O sysfs.path="$fixture/sys/bus/pci" 2>&1 >/dev/null)" ]; then
		echo "lspci -vmm on dgx-a100|lspci -vmm -A linux-sysfs -O sysfs.path=$fixture/sys/bus/pci"
	else
		echo "lspci cannot read the dgx-a100 tree (no config files?): no lspci row for it" >&2
	fi
} >"$tmp/cmds"

if command -v hyperfine >/dev/null; then
	tool="hyperfine $(hyperfine --version | cut -d' ' -f2), --warmup 3 --runs $runs -N"
	args=()
	while IFS='|' read -r name cmd; do args+=(-n "$name" "$cmd"); done <"$tmp/cmds"
	hyperfine --warmup 3 --runs "$runs" -N --export-json "$tmp/hf.json" "${args[@]}" >/dev/null
else
	tool="a shell loop of $runs runs per command (no hyperfine), date +%s%N"
	python3 - "$tmp/cmds" "$runs" "$tmp/hf.json" <<'PY'
import json, os, resource, subprocess, sys, time
cmds = [l.rstrip("\n").split("|", 1) for l in open(sys.argv[1]) if "|" in l]
runs = int(sys.argv[2])
res = []
for name, cmd in cmds:
    times, user, system = [], [], []
    for i in range(runs + 3):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter_ns()
        subprocess.run(cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t1 = time.perf_counter_ns()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i >= 3:
            times.append((t1 - t0) / 1e9)
            user.append(r1.ru_utime - r0.ru_utime)
            system.append(r1.ru_stime - r0.ru_stime)
    # the shape of hyperfine's export: times per run, user and system as means
    res.append({"command": name, "times": times, "user": sum(user) / runs, "system": sum(system) / runs})
json.dump({"results": res}, open(sys.argv[3], "w"))
PY
fi

python3 - "$tmp/hf.json" "$out/discover-$host.md" "$tool" <<'PY'
import json, statistics, sys, platform, os, datetime
src, dest, tool = sys.argv[1:4]
r = json.load(open(src))["results"]
m = {x["command"]: (statistics.median(x["times"]), x["user"] + x["system"]) for x in r}
model = ""
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            model = l.split(":", 1)[1].strip(); break
except OSError:
    pass
ga = m["gpuaudit discover --json"]
lines = [f"# discover benchmark: {platform.node()} ({os.cpu_count()} CPUs, {model}, kernel {platform.release()}), {datetime.date.today()}\n",
         f"`bench/discover.sh`, {tool}. Wall: the median of the runs' elapsed times; CPU: the mean user + system time per run. Ratio = command / `gpuaudit discover --json` on the same machine (the issue's target: lspci -vmm at least 2x, i.e. discover/lspci <= 0.5).\n",
         "| command | median wall ms | mean CPU ms | wall ratio to discover |", "|---|---:|---:|---:|"]
for k, (w, c) in m.items():
    lines.append(f"| `{k}` | {w*1000:.2f} | {c*1000:.2f} | {w/ga[0]:.2f} |")
if "lspci -vmm" in m:
    l = m["lspci -vmm"]
    lines.append(f"\ndiscover / lspci -vmm: wall {ga[0]/l[0]:.2f}, CPU {ga[1]/l[1]:.2f}")
    if "lspci -vmm on dgx-a100" in m:
        f, lf = m["gpuaudit discover --json --root dgx-a100 (256 CPUs, 8 GPUs)"], m["lspci -vmm on dgx-a100"]
        lines.append(f"\ndiscover / lspci -vmm on the dgx-a100 tree: wall {f[0]/lf[0]:.2f}, CPU {f[1]/lf[1]:.2f}")
open(dest, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

if [ "$profile" = 1 ]; then
	{
		echo
		echo "## Where discover's time goes"
		echo
		if command -v perf >/dev/null && perf record -q -e cpu-clock -F 10000 -g -o "$tmp/perf.data" \
			sh -c "for i in \$(seq 50); do $bin discover --json >/dev/null; done" 2>/dev/null; then
			echo '`perf record -e cpu-clock -F 10000` over 50 runs of `discover --json`, by shared object:'
			echo
			echo '```'
			perf report -i "$tmp/perf.data" --comm gpuaudit --no-children --sort dso -g none --stdio 2>/dev/null |
				grep '%' | head -8
			echo '```'
			echo
			echo 'and the top symbols:'
			echo
			echo '```'
			perf report -i "$tmp/perf.data" --comm gpuaudit --no-children --sort dso,sym -g none --stdio 2>/dev/null |
				grep '%' | head -15
			echo '```'
		else
			echo "(perf not available or not permitted here)"
		fi
		if command -v strace >/dev/null; then
			echo
			echo '`strace -c -f` of one `discover --json` (calls per syscall):'
			echo
			echo '```'
			strace -c -f -o "$tmp/strace.txt" "$bin" discover --json >/dev/null 2>&1 || true
			head -14 "$tmp/strace.txt"
			echo '```'
		fi
	} | tee -a "$out/discover-$host.md"
fi
echo "wrote $out/discover-$host.md"
