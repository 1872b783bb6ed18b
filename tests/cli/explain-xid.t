# explain on a kernel log lists every (GPU, Xid), most severe first, with the
# action of NVIDIA's catalogue (docs/xid.md) or of the line's own words, the
# same events health reads from the same file: 48 without "PCI:", a second and
# third GPU lost without an Xid number, 154 "Node Reboot Required", NVLink5
# Fatal/Nonfatal, an unused Xid (28) and an unpublished one (199).
L=$FIXTURES/xid/kernel-log.log
run explain "$L" --max-matches 0
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --json >a100.json
run explain "$L" --for a100.json --json --max-matches 0
run health --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --kmsg "$L"
