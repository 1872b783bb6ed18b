# discover on the one recorded node: tests/fixtures/nodes/captured-build-vm, a
# `gpuaudit capture` of the CI/build VM (its README says when, and what was
# redacted). Not made by mkfixtures.py: tests/fixtures/nodes/captured-build-vm/recapture.sh.
run discover --no-vendor --root "$FIXTURES/nodes/captured-build-vm/root"
run discover --no-vendor --root "$FIXTURES/nodes/captured-build-vm/root" --json
