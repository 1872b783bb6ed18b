#!/usr/bin/env bash
# bench/explain.sh - throughput of `gpuaudit explain` on a large log against
# `grep -E -f` with the same patterns (`gpuaudit explain --print-patterns`).
#
#   bench/explain.sh [SIZE_MB] [RUNS]     default 128 MB, 5 runs
#
# The log is generated (seeded, reproducible): mostly noise - application
# INFO/DEBUG lines, Python tracebacks, NCCL INFO, dmesg-style kernel lines - and
# one line in ~2000 that matches a signature. Both tools run with LC_ALL=C
# (byte matching; grep in a UTF-8 locale is slower); grep runs with -c so that it
# reads the whole log, as explain does. Target: explain within 2x
# of grep. Writes bench/results/explain.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-128}
runs=${2:-5}
bin=${GPUAUDIT:-build/gpuaudit}
command -v hyperfine >/dev/null || { echo "bench: hyperfine missing" >&2; exit 3; }
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
"$bin" explain --print-patterns >"$tmp/patterns"
log=${BENCH_LOG:-$tmp/big.log}  # BENCH_LOG=FILE keeps (or reuses) the generated log
[ -s "$log" ] || python3 - "$log" "$size_mb" tests/fixtures/logs <<'PY'
import os, random, sys
out, size, logdir = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]
rnd = random.Random(42)
hits = []
for f in sorted(os.listdir(logdir)):
    if f.endswith(".log") and f != "clean.log":
        hits += [l for l in open(os.path.join(logdir, f), encoding="utf-8", errors="replace").read().splitlines() if l.strip()]
words = ("request served model batch tokens latency cache shard worker epoch step loss "
         "allocator stream kernel tensor queue scheduler gradient checkpoint loader").split()
def noise(i):
    k = rnd.randrange(6)
    t = f"2026-11-28T{i // 3600000 % 24:02d}:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"
    if k == 0:
        return f"{t} INFO  {rnd.choice(words)} {rnd.choice(words)} id={rnd.getrandbits(40):x} took {rnd.random() * 90:.2f} ms"
    if k == 1:
        return f"[{i / 1000:12.6f}] {rnd.choice(['eth0', 'nvme0n1', 'pcieport 0000:16:01.0', 'EXT4-fs (md0)', 'systemd[1]'])}: {' '.join(rnd.choice(words) for _ in range(6))}"
    if k == 2:
        return f'  File "/opt/venv/lib/python3.11/site-packages/{rnd.choice(words)}/{rnd.choice(words)}.py", line {rnd.randrange(1, 2000)}, in {rnd.choice(words)}'
    if k == 3:
        return f"node-{rnd.randrange(64)}:{rnd.randrange(99999)}:{rnd.randrange(99999)} [{rnd.randrange(8)}] NCCL INFO Channel {rnd.randrange(32):02d}/0 : {rnd.randrange(8)}[{rnd.randrange(8)}] -> {rnd.randrange(8)}[{rnd.randrange(8)}] via P2P/IPC"
    if k == 4:
        return f"{t} DEBUG step={i} loss={rnd.random() * 3:.4f} lr={rnd.random() / 1000:.6f} grad_norm={rnd.random() * 10:.3f} tokens/s={rnd.randrange(1000, 90000)}"
    return f"{t} WARN  {rnd.choice(words)} retry {rnd.randrange(5)} of 5 for {rnd.choice(words)}/{rnd.getrandbits(32):08x} (Temporary failure)"
with open(out, "w") as f:
    n, i = 0, 0
    while n < size:
        l = rnd.choice(hits) if rnd.randrange(2000) == 0 else noise(i)
        f.write(l + "\n")
        n += len(l) + 1
        i += 1
PY
bytes=$(stat -c %s "$log")
lines=$(wc -l <"$log")
# same answer first: the lines grep selects are the lines explain reports
g=$(grep -c -E -f "$tmp/patterns" "$log" || true)
e=$("$bin" explain --json --max-matches 0 "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["match_count"])' || true)
# grep -c: with its output on /dev/null GNU grep stops at the first match (as -q),
# which is not the work explain does; -c reads it all. Both write into a pipe.
hyperfine -N -i --output=pipe --warmup 1 --runs "$runs" --export-json "$tmp/r.json" \
	-n explain "$bin explain --max-matches 100 $log" \
	-n "grep -E -c -f" "grep -E -c -f $tmp/patterns $log" >/dev/null
mkdir -p bench/results
python3 - "$tmp/r.json" bench/results/explain.txt "$bytes" "$lines" "$g" "$e" "$runs" "$(wc -l <"$tmp/patterns")" <<'PY'
import json, sys, os, datetime, platform, subprocess
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
nbytes, lines, g, e, runs, npat = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8]
ex, gr = res["explain"]["median"], res["grep -E -c -f"]["median"]
grepv = subprocess.run(["grep", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
out = [f"explain benchmark: {platform.node()} ({os.cpu_count()} CPUs, shared with other jobs: noisy), {datetime.date.today()}",
       f"log: {nbytes / 2**20:.0f} MiB, {lines} lines (generated, seed 42); {npat} patterns; LC_ALL=C; {grepv}",
       f"matching lines: grep -E -c {g}, explain {e}",
       f"hyperfine -N --warmup 1 --runs {runs}, medians:",
       f"  gpuaudit explain   {ex:.3f} s  ({nbytes / ex / 2**20:.0f} MiB/s)",
       f"  grep -E -c -f      {gr:.3f} s  ({nbytes / gr / 2**20:.0f} MiB/s)",
       f"  ratio explain/grep {ex / gr:.2f} (target <= 1.0, issue 27)"]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
