# check every synthesized node against the example fleet (tests/fixtures/policies/fleet.yaml):
# each lands in its class; without NVML the NVML-only expectations are unknown, never guessed.
P=$FIXTURES/policies/fleet.yaml
for n in dgx-a100 dgx-h100 mi250x intel-max a10-x8 cpu-vm; do
	run check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor
done
run check --policy "$P" --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --json
# a snapshot read back with --from gives the same verdict
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --json >h100.json
run check --policy "$P" --from h100.json --json
