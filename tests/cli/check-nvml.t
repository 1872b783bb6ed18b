# check with NVML (the fake library) on the dgx-a100 fixture against a100-train: healthy passes;
# a pending row remap, MIG turned on, a lost GPU are violations; a failing NVML is not a pass.
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
S=$FIXTURES/../fakes/scenarios
P=$FIXTURES/policies/fleet.yaml
R=$FIXTURES/nodes/dgx-a100/root
FAKE_NVML_SCENARIO=$S/healthy-8xa100.json run check --policy "$P" --root "$R" --vendor
FAKE_NVML_SCENARIO=$S/row-remap-pending.json run check --policy "$P" --root "$R" --vendor
FAKE_NVML_SCENARIO=$S/mig.json run check --policy "$P" --root "$R" --vendor
FAKE_NVML_SCENARIO=$S/mig.json run check --policy "$P" --root "$R" --vendor --json
FAKE_NVML_SCENARIO=$S/gpu3-lost.json run check --policy "$P" --root "$R" --vendor
FAKE_NVML_SCENARIO=$S/version-mismatch.json run check --policy "$P" --root "$R" --vendor --npd
# no NVML library at all although --vendor asked for it: exit 3 (unknown), NPD 2
LD_LIBRARY_PATH=/nonexistent run check --policy "$P" --root "$R" --vendor --class a100-train
