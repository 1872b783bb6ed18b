# check the six synthesized hosts of issue 16 against their example pools
# (tests/fixtures/policies/new-hosts.yaml): each lands in its class; without NVML the
# NVML-only expectations are unknown, never guessed.
P=$FIXTURES/policies/new-hosts.yaml
for n in gh200 gb200-tray dgx-spark mi300x power9-v100 ws-rtx4090; do
	run check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor
done
run check --policy "$P" --root "$FIXTURES/nodes/gb200-tray/root" --no-vendor --json
# the MI300X node also lands in the pool fleet.yaml had waiting for it
run check --policy "$FIXTURES/policies/fleet.yaml" --root "$FIXTURES/nodes/mi300x/root" --no-vendor
# a GH200 is not a DGX H100: the H100 pool of fleet.yaml does not take it
run check --policy "$FIXTURES/policies/fleet.yaml" --root "$FIXTURES/nodes/gh200/root" --no-vendor --class h100-train
