# --nfd-dir: an NFD local feature file written atomically (dot-file, fsync, rename),
# replacing the previous one, no temp file left; values follow the label rules.
P=$FIXTURES/policies/fleet.yaml
mkdir features.d
echo "stale=1" >features.d/gpuaudit
quiet check --policy "$P" --root "$FIXTURES/nodes/mi250x/root" --nfd-dir features.d
ls -A features.d
sed -E 's/expiry-time=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/expiry-time=TIMESTAMP/' features.d/gpuaudit
# the expiry is about an hour ahead (default --nfd-expiry 3600)
exp=$(sed -n 's/^# +expiry-time=//p' features.d/gpuaudit)
d=$(( $(date -d "$exp" +%s) - $(date +%s) ))
[ "$d" -gt 3500 ] && [ "$d" -le 3600 ] && echo "expiry ok"
quiet check --policy "$P" --root "$FIXTURES/nodes/dgx-a100/root" --no-vendor --nfd-dir features.d --nfd-expiry 600
ls -A features.d
grep -v expiry-time features.d/gpuaudit
quiet check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --nfd-dir features.d --json
grep -v expiry-time features.d/gpuaudit
# with NVML: cc and cuda labels
LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/healthy-8xa100.json \
	quiet check --policy "$P" --root "$FIXTURES/nodes/dgx-a100/root" --vendor --nfd-dir features.d
grep -v expiry-time features.d/gpuaudit
run check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --nfd-dir missing-dir
run check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --nfd-dir features.d --nfd-expiry 5
ls -A features.d
