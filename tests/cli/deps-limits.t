# gpuaudit deps: bad input and limits. A zip bomb member over --max-member-bytes, the
# total cap, a directory with a FIFO, a symlink loop and a symlinked directory (not
# followed), paths that do not exist, and usage errors.
python3 "$FIXTURES/deps/mkartifacts.py" art
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd art
run deps --max-member-bytes 1M bomb.zip | bytes
run deps --max-total-bytes 64K bomb.zip | bytes
# a header that claims 2.8 GB for a member cut after 2 KB: memory is committed as data
# arrives, not from the claim (it was 2.8 GB of RSS and 11 s when the claim sized it)
# (--max-member-bytes 4G: the default, 64M, refuses the claim before reading)
run deps --max-member-bytes 4G liar.tar | bytes
/usr/bin/time -o rss.txt -f %M "$GPUAUDIT" deps --max-member-bytes 4G liar.tar >/dev/null 2>&1
rss=$(tail -1 rss.txt)
[ "$rss" -lt 512000 ] && echo "peak RSS under 500 MiB" || echo "peak RSS $rss KiB"
run deps --target cuda:12.4,sm_80 tree | bytes
# ten archives deep: the walk stops at the nesting cap (8) and says so
run deps deep.tar.gz | bytes
# the gap names the flag that completes the scan: with it, all eleven levels are read
run deps --max-nesting 11 deep.tar.gz | bytes
# a symlink loop as the argument, a FIFO as the argument, a missing path: exit 2, others still scanned
run deps tree/loop tree/fifo missing.whl tree/lib/libkern80.so | bytes
run deps --target vulkan:1 tree
run deps --target cuda:12.4,sm_9x tree
run deps --max-member-bytes 0 tree
run deps --max-nesting 17 tree
run deps --max-ratio lots tree
run deps --json --sarif tree
run deps --for-class h100-train tree
run deps
run deps -h
