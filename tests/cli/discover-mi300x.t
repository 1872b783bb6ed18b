# discover on the synthesized mi300x node (tests/fixtures/nodes/mi300x, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/mi300x/root"
run discover --root "$FIXTURES/nodes/mi300x/root" --json
