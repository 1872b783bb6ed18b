# record over recorded time points (DIR/t0, DIR/t1, ... and DIR/interval_s):
# exact JSON lines, one per interval after the first point.
S=$FIXTURES/samples
# idle: 3 points 1 s apart, an amdgpu card with gpu_busy_percent / mem_busy_percent
run record --root "$S/idle"
# nvme at ~100% util with await rising (12, 25, 48 ms), iowait and io pressure high,
# an NVIDIA card whose busy percentages sysfs lacks (null)
run record --root "$S/cpu-iowait-disk-saturated"
# rx drops rising on an mlx5 port; a second port's counters reset (null, not a huge rate)
run record --root "$S/network-dropping"
# --count and --duration bound the replay; -o writes the file
run record --root "$S/network-dropping" --count 1 -o out.jsonl
wc -l <out.jsonl
run record --root "$S/cpu-iowait-disk-saturated" --duration 4s -o out.jsonl
wc -l <out.jsonl
