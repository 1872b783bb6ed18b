# discover on the synthesized k8s-healthy node (tests/fixtures/nodes/k8s-healthy): the container layer
# (CDI specs, kubelet device plugins) in text, then JSON.
run discover --root "$FIXTURES/nodes/k8s-healthy/root" --no-vendor
run discover --root "$FIXTURES/nodes/k8s-healthy/root" --no-vendor --json
