# the real loader wording: python's ctypes asks glibc's dlopen for a CUDA runtime that is not
# there, on the AMD fixture node. The traceback varies with the Python version, so only the
# verdict is printed: the warm-up fails, explain names the missing soname and the AMD node.
"$GPUAUDIT" preflight --root "$FIXTURES/nodes/mi250x/root" --no-vendor --no-times --json -- \
	python3 -c 'import ctypes; ctypes.CDLL("/nonexistent/cuda/lib64/libcudart.so.12")' >out.json
echo "[exit $?]"
python3 - <<'PY'
import json
d = json.load(open("out.json"))
w = d["warmup"]
print("result", d["result"], "| warm-up", w["status"], "| exit code", w["cold"]["exit_code"])
c = d["explain"]["causes"][0]
print("cause 1:", c["id"], c["captured"])
print("node:", c["node"])
PY
