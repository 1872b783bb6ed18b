# --since, policy overrides and GPU count, --json/--npd/--slurm, garbage, bad input.
R=$FIXTURES/nodes/dgx-a100/root
K=$FIXTURES/kmsg
# a --kmsg file's seconds since boot need its machine's boot time for --since
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --since 5s
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --since 5s --boot-time 2026-11-30T20:00:00Z
run health --root "$R" --no-vendor --kmsg "$K/aer-storm.log" --since 2m --boot-time 1796000000
run health --root "$R" --no-vendor --kmsg "$K/xid13-app.log" --since 1h
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --policy "$FIXTURES/policies/fleet.yaml"
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/xid13-app.log" --policy "$FIXTURES/policies/fleet.yaml" --class a100-train
run health --root "$R" --no-vendor --kmsg "$K/xid48-ecc.log" --json
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --npd
run health --root "$R" --no-vendor --kmsg "$K/xid13-app.log" --npd
run health --root "$R" --no-vendor --kmsg "$K/xid79.log" --slurm
run health --root "$R" --no-vendor --kmsg "$K/xid13-app.log" --slurm
run health --root "$R" --no-vendor --kmsg "$K/garbage.log"
run health --root "$R" --no-vendor --kmsg "$K/no-such.log"
# Relative path: the one-line message is cut at 80 characters, so its text must
# not depend on where the checkout is.
(cd "$SRCDIR" && run health --root "$R" --no-vendor --kmsg tests/fixtures/kmsg/no-such.log --npd)
run health --root "$R" --no-vendor --since 2y
run health --root "$R" --no-vendor --json --npd
run health --root "$R" --no-vendor
# a tree with a captured dev/kmsg and proc/stat btime: wall times appear
mkdir -p t && cp -a "$R"/. t/ && mkdir -p t/dev t/proc
cp "$K/kmsg-records.log" t/dev/kmsg && printf 'cpu 1 2 3\nbtime 1700000000\n' >t/proc/stat
run health --root t --no-vendor
cat "$K/xid79.log" | run health --root "$R" --no-vendor --kmsg -
