# record --nvml: NVML's live counters per GPU at every point, through the fake
# libnvidia-ml; a hang costs the point's NVML data, not the recorder.
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/pcie-x8.json run record --root "$FIXTURES/samples/idle" --nvml --count 1
FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/init-hangs.json \
	"$GPUAUDIT" record --root "$FIXTURES/samples/idle" --nvml --timeout 0.5 --count 2 >hang.jsonl
echo "[exit $?]"
python3 -c 'import json,sys; [print(json.loads(l)["nvml"]) for l in open("hang.jsonl")]'
# triage uses NVML utilization for NVIDIA GPUs (an empty kernel log: step 1 has its log)
FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/healthy-8xa100.json \
	"$GPUAUDIT" record --root "$FIXTURES/samples/idle" --nvml >nv.jsonl
: >empty.log
run triage --root "$FIXTURES/nodes/dgx-h100/root" --kmsg empty.log --samples nv.jsonl
