# discover on the synthesized dgx-spark node (tests/fixtures/nodes/dgx-spark, README "New hosts"): text, then JSON.
run discover --root "$FIXTURES/nodes/dgx-spark/root"
run discover --root "$FIXTURES/nodes/dgx-spark/root" --json
