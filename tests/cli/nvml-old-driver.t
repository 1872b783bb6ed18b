# An old driver's libnvidia-ml without the _v2/_v3 symbols: the loader falls back to the
# unversioned names, lists what is missing, and GPUs merge by NVML index (no PCI info_v3).
export LD_LIBRARY_PATH=$GA_FAKE_NVML_OLD_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/old-driver.json
run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor
run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor --json
