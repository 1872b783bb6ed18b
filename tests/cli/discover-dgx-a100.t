# discover on the synthesized dgx-a100 node (tests/fixtures/nodes/dgx-a100): text, then JSON.
run discover --root "$FIXTURES/nodes/dgx-a100/root"
run discover --root "$FIXTURES/nodes/dgx-a100/root" --json
# a PCI device pci.ids does not name (here: an empty pci.ids) shows its kind and IDs, not a bare '-'
echo '== --pci-ids /dev/null: the NVSwitch, NIC and NVMe lines'
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --pci-ids /dev/null | grep -E '^  (nvswitch|nic|nvme) ' | sort -u -k1,1
