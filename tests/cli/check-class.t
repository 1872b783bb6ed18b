# --class forces a class; an unknown name is a usage error; a node no class matches fails
P=$FIXTURES/policies/fleet.yaml
run check --policy "$P" --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --class h100-train
run check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --class cpu-batch --json
run check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --class nope
printf 'version: 1\nclasses:\n  - name: only-h100\n    match: {vendor: nvidia, model: "*H100*"}\n' >h100.yaml
run check --policy h100.yaml --root "$FIXTURES/nodes/a10-x8/root" --no-vendor
run check --policy h100.yaml --root "$FIXTURES/nodes/cpu-vm/root" --json
