# NVML through the fake libnvidia-ml (scenario tests/fakes/scenarios/pcie-x8.json), merged
# with the dgx-a100 fixture's sysfs view by PCI address: text, then the merged snapshot.
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/pcie-x8.json
run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor
run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor --json
