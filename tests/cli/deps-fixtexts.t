# gpuaudit deps: the fix of a missing library follows the artifact's format and the library's
# vendor (issue 28 item 2): a .deb is told to install the Debian package that ships it, a wheel
# the NVIDIA wheel only for NVIDIA libraries and ROCm's wheel index only for AMD ones, a conda
# package its environment; a .deb declaring CUDA on an AMD node is not sent to a wheel index.
# Artifacts synthesized by tests/fixtures/deps/mkverdicts.py.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v/fixtexts
run deps --target rocm:7.0,gfx942 hipapp_1.0_amd64.deb hipwheel-1.0-cp311-cp311-linux_x86_64.whl | bytes
run deps --target cuda:12.4,sm_90 blaswheel-1.0-cp311-cp311-linux_x86_64.whl blasconda-1.0-h0_0.tar.bz2 | bytes
run deps --target rocm:6.2,gfx942 cudadeb_1.0_amd64.deb | bytes
