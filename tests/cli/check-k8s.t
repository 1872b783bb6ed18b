# check the synthesized Kubernetes workers against tests/fixtures/policies/k8s.yaml
# (expect.cdi, expect.allocatable): the healthy node passes; the stale CDI spec, the
# spec missing a MIG device and the checkpoint with 7 of 8 GPUs each fail with the fix.
P=$FIXTURES/policies/k8s.yaml
for n in k8s-healthy k8s-cdi-stale k8s-dp-7of8 k8s-cdi-mig; do
	run check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor
done
run check --policy "$P" --root "$FIXTURES/nodes/k8s-dp-7of8/root" --no-vendor --json
# a snapshot read back with --from gives the same verdict
"$GPUAUDIT" discover --root "$FIXTURES/nodes/k8s-cdi-stale/root" --no-vendor --json >stale.json
run check --policy "$P" --from stale.json
# NFD labels for the container layer: cdi (current, stale, incomplete) and device-plugin (ok, partial)
mkdir features.d
for n in k8s-healthy k8s-cdi-stale k8s-dp-7of8 k8s-cdi-mig; do
	quiet check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor --nfd-dir features.d
	echo "$n:"; grep -E 'io/(cdi|device-plugin)=' features.d/gpuaudit
done
