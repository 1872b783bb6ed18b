# nvmlInit hangs forever: the helper is killed at the deadline, nothing is left
# behind, and the finding names the call that hung.
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/init-hangs.json
# our helpers only (other tests run helpers at the same time): those with this tag in their environment
export GA_TEST_TAG=nvml-hang-$$
our_helper() {
	for p in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "__vendor-helper nvml" || continue
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "GA_TEST_TAG=$GA_TEST_TAG" && return 0
	done
	return 1
}
start=$(date +%s%N)
run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor --timeout 1.5
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
[ "$ms" -lt 4500 ] && echo "returned within the deadline (1.5 s + reaping)" || echo "took $ms ms: too long"
# no helper process survives the deadline
sleep 0.2
our_helper && echo "helper still running" || echo "no helper left"
# a hang in a per-device call is caught the same way
python3 - "$SRCDIR/tests/fakes/scenarios/healthy-8xa100.json" <<'PY' >hang-mem.json
import json, sys
d = json.load(open(sys.argv[1])); d["hang_in"] = "nvmlDeviceGetMemoryInfo"; print(json.dumps(d))
PY
FAKE_NVML_SCENARIO=$PWD/hang-mem.json run discover --root "$FIXTURES/nodes/dgx-a100/root" --vendor --timeout 1.5 --json --compact | grep -o '"nvml":{[^}]*}'
