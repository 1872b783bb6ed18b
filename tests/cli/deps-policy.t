# gpuaudit deps with a policy's artifacts: rules (tests/fixtures/policies/fleet.yaml):
# allowed backends and required archs make a CI gate fail with the reasons.
python3 "$FIXTURES/deps/mkartifacts.py" art
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd art
# mi300x-inference allows hip and needs gfx942: the gfx90a-only wheel fails, the CUDA one too
run deps --for-class mi300x-inference --policy "$FIXTURES/policies/fleet.yaml" rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl torch-2.5.1+cu126-cp311-cp311-linux_x86_64.whl | bytes
# mi250x-hpc (hip, gfx90a) with the synthesized MI250X node: the ROCm wheel passes
"$GPUAUDIT" discover --root "$FIXTURES/nodes/mi250x/root" --json >../mi250x.json
run deps --for ../mi250x.json --for-class mi250x-hpc --policy "$FIXTURES/policies/fleet.yaml" rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl | bytes
# h100-train requires sm_90: the sm_80-only conda package fails the policy arch rule too
run deps --target cuda:13.0,sm_90 --for-class h100-train --policy "$FIXTURES/policies/fleet.yaml" pkgx-1.0-cuda126_0.conda | bytes
run deps --for-class nope --policy "$FIXTURES/policies/fleet.yaml" tree
# SARIF for code-scanning UIs
run deps --sarif --compact --target rocm:6.2,gfx942 rocmthing-1.0+rocm6.2-cp311-cp311-linux_x86_64.whl
