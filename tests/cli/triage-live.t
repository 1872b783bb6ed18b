# triage without --samples samples the GPUs itself over the --duration window
# (at least 4 points): amdgpu's gpu_busy_percent from sysfs, NVML's utilization
# (here the fake libnvidia-ml under --nvml). A node whose GPUs give no busy
# figure (Intel i915/xe: none in sysfs; NVML failing) is INCONCLUSIVE, exit 4.
# The trees are synthesized: node fixtures with the idle sample's proc/stat,
# diskstats and pressure copied in (the counters do not move, so every rate is
# the same at any pace) and the busy attributes written here.
N=$FIXTURES/nodes
S=$FIXTURES/samples
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
: >empty.log
node() { # node NAME DIR: a node fixture with the idle point's proc counters
	cp -a "$N/$1/root" "$2" && cp -a "$S/idle/t0/proc/." "$2/proc/"
}
upto2() { # the command, the verdict, the warnings, steps 1 and 2, the exit status
	sed -n -e '/^\$ /p' -e '/^gpuaudit/p' -e '/^triage:/,/^3\./p' -e '/^\[exit/p' | grep -v '^3\.'
}
# AMD: every MI300X at 90 % busy, memory 20 % -> compute-bound (the workload), exit 0
node mi300x amd
for f in $(find amd/sys/devices -name gpu_busy_percent); do
	echo 90 >"$f"
	echo 20 >"${f%/*}/mem_busy_percent"
done
run triage --root amd --kmsg empty.log --duration 1s | upto2
# ... at 5 % busy and memory 85 %: memory-bound kernels
for f in $(find amd/sys/devices -name gpu_busy_percent); do
	echo 5 >"$f"
	echo 85 >"${f%/*}/mem_busy_percent"
done
"$GPUAUDIT" triage --root amd --kmsg empty.log --duration 1s --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], d["samples"], d["steps"][1]["verdict"], d["steps"][1]["evidence"])'
echo "[exit ${PIPESTATUS[0]}]"
# ... the attributes gone (no /sys busy figures): step 2 unknown -> INCONCLUSIVE, exit 4
find amd/sys/devices \( -name gpu_busy_percent -o -name mem_busy_percent \) -delete
run triage --root amd --kmsg empty.log --duration 1s | upto2
# Intel (i915): sysfs has no busy percentage -> INCONCLUSIVE, exit 4
node intel-max intel
run triage --root intel --kmsg empty.log --duration 1s | upto2
# NVIDIA under --root: NVML only with --nvml; without it sysfs alone has nothing
node dgx-h100 nv
run triage --root nv --kmsg empty.log --duration 1s | upto2
# --nvml: NVML at every point (the fake GPUs 75 % busy, memory 30 %) -> exit 0
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    g["utilization"] = {"gpu": 75, "memory": 30}
json.dump(d, open("busy.json", "w"))' "$FIXTURES/../fakes/scenarios/healthy-8xa100.json"
FAKE_NVML_SCENARIO=busy.json run triage --root nv --kmsg empty.log --duration 1s --nvml | upto2
# NVML hangs at every point: its failure is counted and warned, and the step is unknown (exit 4);
# a deadline of 0.5 s: under AddressSanitizer the helper's start and dlopen alone took over 0.2 s
FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/init-hangs.json \
	run triage --root nv --kmsg empty.log --duration 1s --nvml --timeout 0.5 | upto2
# --no-nvml: never NVML; --nvml with --samples is a usage error
run triage --root nv --samples "$S/compute-bound.jsonl" --nvml
FAKE_NVML_SCENARIO=busy.json run triage --root nv --kmsg empty.log --duration 1s --no-nvml |
	grep -E '^(\$ |triage:|samples:|\[exit)'
