# discover on the synthesized mi250x node (tests/fixtures/nodes/mi250x): text, then JSON.
run discover --root "$FIXTURES/nodes/mi250x/root"
run discover --root "$FIXTURES/nodes/mi250x/root" --json
