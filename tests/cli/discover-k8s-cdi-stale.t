# discover on the synthesized k8s-cdi-stale node (tests/fixtures/nodes/k8s-cdi-stale): the container layer
# (CDI specs, kubelet device plugins) in text, then JSON.
run discover --root "$FIXTURES/nodes/k8s-cdi-stale/root" --no-vendor
run discover --root "$FIXTURES/nodes/k8s-cdi-stale/root" --no-vendor --json
