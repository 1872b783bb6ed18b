# NVSwitch SXids by NVIDIA's Fabric Manager guide (lib/core/sxid.def, docs/xid.md "SXids"):
# one finding per (NVSwitch, SXid) with the guide's name, the link and the row's action
# (non-fatal corrected ECC: none; 12028: restart the job; fatal: reboot; always fatal:
# critical, reboot; 20009, not in the guide: investigate, with the driver's name for it; 31005, no
# NVSwitch error number of the driver: investigate), on a node without NVSwitch;
# on a DGX H100 the same log is one GA-NVSWITCH-SXID with the worst row's step.
L=$FIXTURES/logs/nvswitch-sxid.log
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$L"
run health --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --kmsg "$L"
run explain "$L" --max-matches 0
