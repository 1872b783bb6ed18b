# gpuaudit deps: the CUDA release that dropped the target's arch is named (issue 28 item 4):
# CUDA 13.0 dropped Maxwell, Pascal and Volta, so a CUDA 13 build (libapp13.so NEEDs
# libcudart.so.13; libcublas.so.13 is CUDA 13's own) cannot be rebuilt for sm_70 or sm_61
# with CUDA 13; a CUDA 12 build (libapp12.so) still can. Synthesized by mkverdicts.py.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps --target cuda:13.0,sm_70 dropped | bytes
run deps --target cuda:13.0,sm_61 dropped/libapp13.so | bytes
