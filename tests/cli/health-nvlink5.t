# NVLink5 Xids 144-150 decoded by NVIDIA's "XID 144-150 Decode" sheet (docs/xid.md):
# the line's unit and error status pick the row, the finding names the link and the
# sub-error; RLW_REMAP 0x40 is Fatal (reset_gpu), 0x100 non-fatal (none); NETIR_MFDE
# value 3 is one row (none), not bits 1 and 2; TLW_CTRL 0x1 and SAW_MVB 0x1 ignore.
L=$FIXTURES/kmsg/nvlink5-decode.log
run health --root "$FIXTURES/nodes/gb200-tray/root" --no-vendor --kmsg "$L"
run explain "$L" --max-matches 0
