# Issue 26: a node whose PCI devices cannot be read (a container or chroot without /sys)
# is not a CPU-only node. discover says the accelerator count is unknown (null in JSON),
# check matches no class and says INCONCLUSIVE, class refuses, all with exit 4, the
# reason and what to do; never "nothing to do for a CPU-only pool", never PASS.
P=$FIXTURES/policies/fleet.yaml

# the CPU-only fixture without sys/bus/pci: before, a PASS of class cpu-batch
cp -a "$FIXTURES/nodes/cpu-vm/root" nopci
rm -rf nopci/sys/bus/pci
run discover --root nopci --no-vendor
run discover --root nopci --no-vendor --json
run check --policy "$P" --root nopci --no-vendor
run check --policy "$P" --root nopci --no-vendor --json
run check --policy "$P" --root nopci --no-vendor --npd
run check --policy "$P" --root nopci --no-vendor --slurm
run class --root nopci --no-vendor

# the same snapshot read back gives the same verdict (coverage travels in the snapshot)
"$GPUAUDIT" discover --root nopci --no-vendor --json >nopci.json
run check --policy "$P" --from nopci.json
# an explicit --class: what depends on the accelerators is unknown, not "0 GPUs"
run check --policy "$P" --from nopci.json --class a10-inference

# there but not a directory (a file where sysfs has one; tests run as root, so a
# mode-000 directory would still be read): unreadable, with the reader's reason
mkdir -p notdir/sys/bus/pci
cp -a "$FIXTURES/nodes/cpu-vm/root/proc" notdir/
echo x >notdir/sys/bus/pci/devices
run discover --root notdir --no-vendor
run check --policy "$P" --root notdir --no-vendor

# a GPU node (a10-x8) with its PCI devices gone: before, class cpu-batch and "remove the
# CUDA driver libraries"; now no class, and only the findings that do not need the bus
cp -a "$FIXTURES/nodes/a10-x8/root" a10
rm -rf a10/sys/bus/pci
run check --policy "$P" --root a10 --no-vendor

# the exporter: pci known 0, and no gpuaudit_gpus samples (unknown, not 0)
run serve --once --root nopci --no-vendor | grep -E '^(\$ |gpuaudit_source_known|gpuaudit_gpus|\[exit)'
# NFD labels of the check: the result is inconclusive, not pass
mkdir nfd
run check --policy "$P" --root nopci --no-vendor --nfd-dir nfd >/dev/null
sed 's/^# +expiry-time=.*/# +expiry-time=<masked>/' nfd/gpuaudit

# fleet: the node whose PCI devices were not read has no GPU count (JSON null, CSV empty,
# "GPUs UNKNOWN" in text), is never "0 GPUs", and gives its pool no count to drift against
"$GPUAUDIT" discover --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --json >a10-ok.json
"$GPUAUDIT" discover --root a10 --no-vendor --json >a10-nopci.json
run fleet a10-ok.json a10-nopci.json
"$GPUAUDIT" fleet --json a10-ok.json a10-nopci.json |
	python3 -c 'import json,sys; [print(k["id"], "gpus", k["gpus"], "expected", k["expected_gpus"]) for k in json.load(sys.stdin)["classes"]]'
run fleet --markdown a10-nopci.json
run fleet --csv a10-nopci.json
# the exporter's fleet series has no gpus label then (fleet --prometheus reads it as unknown)
run serve --once --root a10 --no-vendor | grep -E '^(\$ |gpuaudit_fleet_info|\[exit)'
