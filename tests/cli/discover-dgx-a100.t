# discover on the synthesized dgx-a100 node (tests/fixtures/nodes/dgx-a100): text, then JSON.
run discover --root "$FIXTURES/nodes/dgx-a100/root"
run discover --root "$FIXTURES/nodes/dgx-a100/root" --json
