# gpuaudit deps: PTX newer than the driver names the CUDA its PTX ISA needs and the lowest
# driver for it (issue 28 item 5; PTX ISA release history and NVIDIA's toolkit/driver table):
# PTX ISA 9.1 needs CUDA 13.1, a driver >= 590.44.01; PTX ISA 8.6 needs CUDA 12.7, which had
# no toolkit, so the driver named is CUDA 12.8's (>= 570.26). Synthesized by mkverdicts.py.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps --target cuda:13.0,sm_90 ptx/libptx91.so | bytes
run deps --target cuda:12.4,sm_90 ptx/libptx86.so | bytes
run deps --target nvidia:sm_90,driver:580.65.06 ptx/libptx91.so | bytes
"$GPUAUDIT" deps --json --target cuda:13.0,sm_90 ptx/libptx91.so | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    print(f["code"], f["severity"], {k: v for k, v in sorted(f["evidence"].items()) if k.startswith("ptx")})
'
