# gpuaudit deps --fail-on SEVERITY (issue 28 item 7): FAIL (exit 1) when any finding is at or
# above it, in the text, the JSON and SARIF alike; error (the default) keeps the result as
# before. A library of the user's own with a missing container (a warning) and one of NVIDIA's
# with a legacy container (info), synthesized by mkverdicts.py.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps --target cuda:13.0,sm_90 vendor/user/libmine.so | bytes | grep -E '^\$|^result|--fail-on|^\[exit'
run deps --fail-on error --target cuda:13.0,sm_90 vendor/user/libmine.so | bytes | grep -E '^\$|^result|--fail-on|^\[exit'
run deps --fail-on warning --target cuda:13.0,sm_90 vendor/user/libmine.so | bytes | grep -E '^\$|^result|--fail-on|^\[exit'
run deps --target cuda:13.0,sm_90 vendor/cuda-13.0/lib64/libcusparse.so.13 --fail-on warning | bytes | grep -E '^\$|^result|--fail-on|^\[exit'
run deps --target cuda:13.0,sm_90 vendor/cuda-13.0/lib64/libcusparse.so.13 --fail-on info | bytes | grep -E '^\$|^result|--fail-on|^\[exit'
run deps --fail-on fatal vendor/user/libmine.so
"$GPUAUDIT" deps --json --fail-on warning --target cuda:13.0,sm_90 vendor/user/libmine.so | python3 -c '
import json, sys; print("json result:", json.load(sys.stdin)["result"])'
echo "[exit ${PIPESTATUS[0]}]"
"$GPUAUDIT" deps --sarif --fail-on warning --target cuda:13.0,sm_90 vendor/user/libmine.so | python3 -c '
import json, sys; i = json.load(sys.stdin)["runs"][0]["invocations"][0]; print("sarif:", i["exitCode"], i["properties"])'
