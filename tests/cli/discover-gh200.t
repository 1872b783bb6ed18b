# discover on the synthesized gh200 node (tests/fixtures/nodes/gh200, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/gh200/root"
run discover --root "$FIXTURES/nodes/gh200/root" --json
