# gpuaudit deps: bad input and limits. A zip bomb member over --max-member-bytes, the
# total cap, a directory with a FIFO, a symlink loop and a symlinked directory (not
# followed), paths that do not exist, and usage errors.
python3 "$FIXTURES/deps/mkartifacts.py" art
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd art
run deps --max-member-bytes 1M bomb.zip | bytes
run deps --max-total-bytes 64K bomb.zip | bytes
run deps --target cuda:12.4,sm_80 tree | bytes
# ten archives deep: the walk stops at the nesting cap (8) and says so
run deps deep.tar.gz | bytes
# a symlink loop as the argument, a FIFO as the argument, a missing path: exit 2, others still scanned
run deps tree/loop tree/fifo missing.whl tree/lib/libkern80.so | bytes
run deps --target vulkan:1 tree
run deps --target cuda:12.4,sm_9x tree
run deps --max-member-bytes 0 tree
run deps --json --sarif tree
run deps --for-class h100-train tree
run deps
run deps -h
