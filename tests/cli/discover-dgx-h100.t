# discover on the synthesized dgx-h100 node (tests/fixtures/nodes/dgx-h100): text, then JSON.
run discover --root "$FIXTURES/nodes/dgx-h100/root"
run discover --root "$FIXTURES/nodes/dgx-h100/root" --json
