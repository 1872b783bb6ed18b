# discover on the synthesized power9-v100 node (tests/fixtures/nodes/power9-v100, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/power9-v100/root"
run discover --root "$FIXTURES/nodes/power9-v100/root" --json
