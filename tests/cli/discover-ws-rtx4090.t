# discover on the synthesized ws-rtx4090 node (tests/fixtures/nodes/ws-rtx4090, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/ws-rtx4090/root"
run discover --root "$FIXTURES/nodes/ws-rtx4090/root" --json
