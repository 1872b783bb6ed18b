#!/usr/bin/env bash
# bench/nvlink.sh - what the NVIDIA fabric work costs a collection: CPU (user+sys, the
# gpuaudit process and its vendor helper together) of `serve --once` on the 8-GPU
# dgx-a100 fixture with the fake NVML, with NVLink counters and fabric info (12 links x 4
# counters per GPU) and without (a scenario whose links answer the counter calls with
# NOT_SUPPORTED and no fabric info: the calls remain, nothing is stored or rendered);
# the same with one NVML event wait (--nvml-events 1s: its CPU, not its wall time); and the
# resident memory of `serve` after 10 collections at a 1 s interval, without and with
# --nvml-events 2s. The CPU figures are whole `serve --once` processes (exec, dlopen,
# helper start included), so a collection inside a running serve costs less.
#
#   bench/nvlink.sh [REPS]     default 15 runs each; medians
#
# The fake answers from memory, so this is gpuaudit's own cost (the calls, the JSON
# between helper and parent, the merge, the analysis, the rendering), not a driver's:
# real NVML counter calls go to the kernel. Writes bench/results/nvlink.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-15}
bin=${GPUAUDIT:-build/gpuaudit}
fake=${GA_FAKE_NVML_DIR:-build/tests/fakes/nvml}
old=${GA_FAKE_NVML_OLD_DIR:-build/tests/fakes/nvml-old}
root=tests/fixtures/nodes/dgx-a100/root
sc=tests/fakes/scenarios
[ -x "$bin" ] && [ -e "$fake/libnvidia-ml.so.1" ] || { echo "bench: build first (make build)" >&2; exit 3; }
out=bench/results/nvlink.txt
python3 - "$bin" "$fake" "$old" "$root" "$sc" "$reps" >"$out" <<'PY'
import os, resource, statistics, subprocess, sys, time, urllib.request
binp, fake, old, root, sc, reps = sys.argv[1:7]
reps = int(reps)
def cpu_ms(lib, scenario, extra):
    env = dict(os.environ, LD_LIBRARY_PATH=lib, FAKE_NVML_SCENARIO=os.path.join(sc, scenario))
    xs = []
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([binp, "serve", "--once", "--root", root, "--vendor"] + extra, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        xs.append(((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) * 1e3)
    return statistics.median(xs)
print("machine: %s, %d CPUs (shared)" % (os.uname().machine, os.cpu_count()))
print("command: serve --once --root %s --vendor [--nvml-events 1s], fake NVML; %d runs, medians" % (root, reps))
import json, tempfile
base = json.load(open(os.path.join(sc, "healthy-8xa100.json")))
for g in base["gpus"]:
    for l in g["nvlinks"]:
        l["errors"] = None
tmpd = tempfile.mkdtemp()
json.dump(base, open(os.path.join(tmpd, "no-counters.json"), "w"))
a = cpu_ms(fake, os.path.join(tmpd, "no-counters.json"), [])
b = cpu_ms(fake, "nvlink-errors.json", [])
c = cpu_ms(fake, "fabric-completed.json", [])
d = cpu_ms(fake, "events-xid.json", ["--nvml-events", "1s"])
print("collection without NVLink counters/fabric (counters NOT_SUPPORTED): %.1f ms CPU" % a)
print("collection with NVLink counters (96 links x 4), nvlink-errors: %.1f ms CPU (%.2fx)" % (b, b / a))
print("collection with counters and fabric info, fabric-completed:  %.1f ms CPU (%.2fx)" % (c, c / a))
print("collection plus one 1 s NVML event wait, events-xid:         %.1f ms CPU" % d)
# resident memory of serve, without and with the event thread
def rss_mib(extra, scenario="nvlink-errors.json"):
    env = dict(os.environ, LD_LIBRARY_PATH=fake, FAKE_NVML_SCENARIO=os.path.join(sc, scenario))
    p = subprocess.Popen([binp, "serve", "--listen", "127.0.0.1:0", "--root", root, "--vendor", "--interval", "1s"]
                         + extra, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(10.5)
        return [int(l.split()[1]) for l in open("/proc/%d/status" % p.pid) if l.startswith("VmRSS:")][0] / 1024
    finally:
        p.terminate()
        p.wait()
print("serve --interval 1s after ~10 collections, VmRSS: without counters %.1f MiB; with counters %.1f MiB; "
      "with counters and --nvml-events 2s %.1f MiB (target <= 10 MiB)"
      % (rss_mib([], os.path.join(tmpd, "no-counters.json")), rss_mib([]), rss_mib(["--nvml-events", "2s"])))
PY
cat "$out"
