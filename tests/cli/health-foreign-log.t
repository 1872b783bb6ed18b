# Kernel logs from other machines: seconds since boot get no date without the
# boot time of the machine that wrote them; --since refuses them unless
# --boot-time is given; dmesg -T, syslog and journal stamps are wall times.
R=$FIXTURES/nodes/dgx-a100/root
K=$FIXTURES/kmsg
run health --root "$R" --no-vendor --kmsg "$K/xid79.log"
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --json
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --since 1h
# --npd truncates its one line to 80 characters: a path of fixed length, wherever the tree is
cp "$K/xid79.log" foreign.log
run health --root "$R" --no-vendor --kmsg foreign.log --since 1h --npd
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --boot-time 2026-12-01T07:00:00+01:00
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --since 10s --boot-time 1796112000 --json
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --boot-time yesterday
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --boot-time 2026-12-01T07:00:00
# wall-clock stamps: --since applies without --boot-time
run health --root "$R" --no-vendor --kmsg "$K/dmesg-T.log"
run health --root "$R" --no-vendor --kmsg "$K/dmesg-T.log" --since 1h
run health --root "$R" --no-vendor --kmsg "$K/syslog-kern.log" --since 12h
run health --root "$R" --no-vendor --kmsg "$K/journal-precise.log" --since 30m --json
# the machine's own log under --root keeps its proc/stat boot time
mkdir -p t && cp -a "$R"/. t/ && mkdir -p t/dev t/proc
cp "$K/xid79.log" t/dev/kmsg && printf 'cpu 1 2 3\nbtime 1796100000\n' >t/proc/stat
run health --root t --no-vendor --since 10s
# ... which a --kmsg file on that root does not get
run health --root t --no-vendor --kmsg "$K/xid79.log"
# amdgpu VM faults grouped with the GPU reset that followed
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg "$K/amdgpu-vm-fault.log"
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg "$K/amdgpu-vm-fault.log" --json
# --kmsg FILE without --root or --from is another machine's log: only its findings, none
# of this machine's (sysfs, NVML, processes); the coverage says the node was skipped.
# (This runs on the test machine itself, so any local finding would show up here.)
run health --no-vendor --kmsg "$K/xid79.log"
"$GPUAUDIT" health --no-vendor --kmsg "$K/xid13-app.log" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["result"], [(c["source"], c["state"]) for c in d["coverage"]], [f["code"] for f in d["findings"]])'
# a class names the log's machine: its Xid overrides apply, its GPU count is not checked
run health --no-vendor --kmsg "$K/xid13-app.log" --policy "$FIXTURES/policies/fleet.yaml" --class a100-train --npd
# --local: the file is this machine's log, and this machine is looked at (its findings vary)
"$GPUAUDIT" health --no-vendor --kmsg "$K/xid13-app.log" --local --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print([(c["source"], c["state"], c["detail"]) for c in d["coverage"]])'
run health --no-vendor --kmsg "$K/xid79.log" --nvml-events 1s
run health --no-vendor --local
