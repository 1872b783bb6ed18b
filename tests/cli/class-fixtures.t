# gpuaudit class on the six synthesized nodes (tests/fixtures/nodes), sysfs only: text, JSON, key.
for f in a10-x8 cpu-vm dgx-a100 dgx-h100 intel-max mi250x; do
	run class --no-vendor --root "$FIXTURES/nodes/$f/root"
	run class --no-vendor --root "$FIXTURES/nodes/$f/root" --json
	run class --no-vendor --root "$FIXTURES/nodes/$f/root" --key
done
# a snapshot read back gives the same class as the tree it came from
"$GPUAUDIT" discover --no-vendor --root "$FIXTURES/nodes/mi250x/root" --json >mi250x.json
run class --from mi250x.json --key
