# gpuaudit deps: an image config's NVIDIA_REQUIRE_* judged as the NVIDIA container toolkit
# judges it before it starts a container (GA-DEPS-NVIDIA-REQUIRE, lib/analyze/nvreq.c), with
# the toolkit's own text. OCI layouts built now by tests/fixtures/deps/mkimage-nvreq.py.
python3 "$FIXTURES/deps/mkimage-nvreq.py" img
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --json >h100.json
# the same node on a 550 (CUDA 12.4) driver, and on a 545 (CUDA 12.3) one
sed 's/580\.95\.05/550.54.15/g' h100.json >h100-550.json
sed 's/580\.95\.05/545.23.08/g' h100.json >h100-545.json
cd img
# a CUDA 13.0 driver meets every cuda>= requirement; the malformed one is refused anyway
run deps --target cuda:13.0 nvreq-cuda128 nvreq-cuda128-only nvreq-disabled nvreq-legacy nvreq-malformed
# CUDA 12.4 from --target: no driver version, no brand, so the branch alternatives are not known;
# cuda>=12.8 alone and the legacy CUDA_VERSION are refused; NVIDIA_DISABLE_REQUIRE=true is not checked
run deps --target cuda:12.4 nvreq-cuda128 nvreq-cuda128-only nvreq-disabled nvreq-legacy
# a node snapshot on the 550 branch: still the brand; a 545 driver is outside both branches: refused
run deps --for ../h100-550.json nvreq-cuda128 nvreq-cuda128-only
run deps --for ../h100-545.json nvreq-cuda128
# the requirements and the label as recorded in the report
run deps --json --target cuda:13.0 nvreq-cuda128
