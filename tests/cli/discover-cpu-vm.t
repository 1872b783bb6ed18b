# discover on the synthesized cpu-vm node (tests/fixtures/nodes/cpu-vm): text, then JSON.
run discover --root "$FIXTURES/nodes/cpu-vm/root"
run discover --root "$FIXTURES/nodes/cpu-vm/root" --json
