# discover on the synthesized gb200-tray node (tests/fixtures/nodes/gb200-tray, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/gb200-tray/root"
run discover --root "$FIXTURES/nodes/gb200-tray/root" --json
