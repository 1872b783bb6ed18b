# discover on the synthesized k8s-cdi-mig node (tests/fixtures/nodes/k8s-cdi-mig): the container layer
# (CDI specs, kubelet device plugins) in text, then JSON.
run discover --root "$FIXTURES/nodes/k8s-cdi-mig/root" --no-vendor
run discover --root "$FIXTURES/nodes/k8s-cdi-mig/root" --no-vendor --json
