# gpuaudit deps: NVIDIA's own libraries pick their kernels per arch (issue 28 item 3). On an
# sm_90 target, libcublasLt.so.13's sm_75-only container and sm_100a container and
# libcusparse.so.13's one sm_75-only container are notes (info), not a warning and a FAIL;
# libcufft.so.13 holds nothing but sm_100a / sm_120a containers, so the target can load nothing
# of it: still an error. A library the vendor table does not name is NVIDIA's by its place
# (a CUDA toolkit directory). The same containers in a library of the user's own stay a warning.
# Libraries synthesized by tests/fixtures/deps/mkverdicts.py (fatbin layout, fake sonames).
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps --target cuda:13.0,sm_90 vendor/cuda-13.0/lib64/libcublasLt.so.13 vendor/cuda-13.0/lib64/libcusparse.so.13 vendor/cuda-13.0/lib64/libnvptxcompiler-x.so.13 vendor/user | bytes
run deps --target cuda:13.0,sm_90 vendor/cuda-13.0/lib64/libcufft.so.13 | bytes
