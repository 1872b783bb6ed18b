# serve --once on the synthesized Kubernetes workers: the container layer's families
# (docs/metrics.md, "Container layer"): CDI specs, GPUs no spec lists, device-plugin resources.
for n in k8s-healthy k8s-cdi-stale k8s-dp-7of8 k8s-cdi-mig; do
	run serve --once --root "$FIXTURES/nodes/$n/root" --no-vendor | grep -E '^(\$ |# (HELP|TYPE) gpuaudit_(cdi|device_plugin)|gpuaudit_(cdi|device_plugin)|gpuaudit_findings\{code="GA-(CDI|DP)|\[exit)'
done
# OpenMetrics: the info family keeps its _info suffix on the samples
run serve --once --openmetrics --root "$FIXTURES/nodes/k8s-cdi-mig/root" --no-vendor | grep -E '^(\$ |# (TYPE|UNIT) gpuaudit_cdi|gpuaudit_cdi_spec_info|\[exit)'
