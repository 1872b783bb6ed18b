# discover on the synthesized intel-max node (tests/fixtures/nodes/intel-max): text, then JSON.
run discover --root "$FIXTURES/nodes/intel-max/root"
run discover --root "$FIXTURES/nodes/intel-max/root" --json
