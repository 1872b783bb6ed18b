# preflight --scan: the hidden-CUDA scenario end to end on an AMD node. The wheel's
# native module NEEDs libcudart.so.12 while its metadata says nothing: the scan flags it,
# the warm-up (loading the module the way Python would) fails with the loader's own
# error, and explain names the cause with what the node says.
python3 "$FIXTURES/deps/mkartifacts.py" art >/dev/null
python3 -c 'import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall("site")' art/hidden-1.0-cp311-cp311-linux_x86_64.whl
M="--root $FIXTURES/nodes/mi250x/root --no-vendor --no-times --warmup-backend cpu"
# (the warm-up prints only the exception line: a traceback names the host's Python paths)
cat >warmup.py <<'PY'
import ctypes, sys
try:
    ctypes.CDLL("site/hidden/_native.so")
except OSError as e:
    sys.exit("OSError: %s" % e)
PY
run preflight $M --scan art/hidden-1.0-cp311-cp311-linux_x86_64.whl -- python3 warmup.py
# a clean CPU-only wheel passes the scan; the built-in warm-up runs
run preflight $M --scan art/cpuonly-1.0-py3-none-any.whl
# the same as JSON: the scan step's status, target and finding codes
"$GPUAUDIT" preflight $M --scan site --json |
	python3 -c 'import json,sys; s=json.load(sys.stdin)["scan"]; print(s["status"], s["target"], sorted({f["code"] for f in s["findings"]}))'
# JUnit has a scan test case
"$GPUAUDIT" preflight $M --scan site --junit - |
	python3 -c 'import sys,xml.etree.ElementTree as E; r=E.parse(sys.stdin).getroot(); [print(c.get("name"), "failure" if c.find("failure") is not None else "skipped" if c.find("skipped") is not None else "pass") for c in r.iter("testcase")]'
# a path that does not exist makes the scan unknown, nothing is lost (exit 1 here: discover fails)
run preflight $M --scan art/no-such-path
