# amdgpu ring timeouts, resets and RAS on the MI250X; an AER storm on the A10.
K=$FIXTURES/kmsg
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg "$K/amdgpu.log"
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/aer-storm.log"
