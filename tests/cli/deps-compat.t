# gpuaudit deps: CUDA forward compatibility. compat.tar (tests/fixtures/deps/mkplugins.py)
# holds usr/local/cuda-12.8/compat/libcuda.so.570.124.06 as cuda-compat-12-8 installs it and
# a library NEEDing libcudart.so.12. On a data-centre GPU with an R470 (CUDA 11.4) driver the
# compat libraries are the fix: no bundled driver, no "runtime too new"; on GeForce (804),
# an R520 feature branch, an unknown GPU and a driver already newer, say why not.
python3 "$FIXTURES/deps/mkplugins.py" t >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd t
run deps --target driver:470.239.06,brand:tesla compat.tar | bytes
run deps --target nvidia:sm_90,driver:470.239.06,brand:geforce compat.tar | bytes
run deps --target driver:520.61.05,brand:tesla compat.tar | bytes
run deps --target driver:470 compat.tar | bytes
run deps --target driver:580.95.05,brand:tesla compat.tar | bytes
# professional RTX: supported on select SKUs, said in the message
run deps --target cuda:11.4,driver:470.239.06,brand:nvidiartx compat.tar | bytes
# a node snapshot: the GPU class from the product name (H100: data centre), the driver from the snapshot
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-h100/root" --json >h100.json
sed 's/580\.95\.05/470.239.06/g' h100.json >h100-470.json
run deps --for h100-470.json compat.tar | bytes
# the target in the JSON report
"$GPUAUDIT" deps --json --target driver:470.239.06,brand:Tesla compat.tar | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["target"])
'
# bad values
run deps --target driver:abc compat.tar
run deps --target brand:te-sla compat.tar
run deps --target rocm:6.2,driver:550 compat.tar
# the brand also decides an image's NVIDIA_REQUIRE_CUDA brand= alternatives (lib/analyze/nvreq.c):
# a Tesla on the 535 branch meets "brand=tesla,driver>=535,driver<536"; a GeForce does not
cd ..
python3 "$FIXTURES/deps/mkimage-nvreq.py" img >/dev/null
run deps --target driver:535.183.06,brand:tesla img/nvreq-cuda128
run deps --target driver:535.183.06,brand:geforce img/nvreq-cuda128
