# check the container-layer fixtures against expect.container_runtime
# (tests/fixtures/policies/container.yaml): a wired node passes; each fault fails with the
# GA-EXPECT-CTR-* violation and its fix.
P=$FIXTURES/policies/container.yaml
for n in ctr-wired ctr-toolkit-missing ctr-containerd-unwired; do
	run check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor
done
run check --policy "$P" --class a10-docker --root "$FIXTURES/nodes/ctr-docker-default-runc/root" --no-vendor
run check --policy "$P" --class a10-docker --root "$FIXTURES/nodes/ctr-wired/root" --no-vendor
run check --policy "$P" --root "$FIXTURES/nodes/ctr-kfd-group/root" --no-vendor
run check --policy "$P" --root "$FIXTURES/nodes/ctr-kfd-group/root" --no-vendor --json
# NFD labels for the container layer (src/nfd.c): toolkit state, the engines wired, their default
mkdir features.d
for n in ctr-wired ctr-docker-default-runc ctr-toolkit-missing; do
	quiet check --policy "$P" --class a10-docker --root "$FIXTURES/nodes/$n/root" --no-vendor --nfd-dir features.d
	grep -E 'container|check=' features.d/gpuaudit
done
# serve's exposition: the container-layer families (lib/emit/prom-ctr.c, docs/metrics.md)
for n in ctr-docker-default-runc ctr-kfd-group; do
	run serve --once --root "$FIXTURES/nodes/$n/root" --no-vendor | grep -E '^(\$ |gpuaudit_container_|# (HELP|TYPE) gpuaudit_container_|\[exit)' | grep -v 'renderD13[0-5]'
done
