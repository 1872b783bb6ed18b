# discover on the synthesized a10-x8 node (tests/fixtures/nodes/a10-x8): text, then JSON.
run discover --root "$FIXTURES/nodes/a10-x8/root"
run discover --root "$FIXTURES/nodes/a10-x8/root" --json
