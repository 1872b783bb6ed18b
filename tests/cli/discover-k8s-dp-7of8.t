# discover on the synthesized k8s-dp-7of8 node (tests/fixtures/nodes/k8s-dp-7of8): the container layer
# (CDI specs, kubelet device plugins) in text, then JSON.
run discover --root "$FIXTURES/nodes/k8s-dp-7of8/root" --no-vendor
run discover --root "$FIXTURES/nodes/k8s-dp-7of8/root" --no-vendor --json
