# gpuaudit deps --cyclonedx: the inventory as a CycloneDX 1.5 SBOM (lib/emit/cyclonedx.c),
# timestamp and serial number fixed by GPUAUDIT_NOW (set for every CLI test). Trees from
# tests/fixtures/deps/mkplugins.py and a wheel from mkartifacts.py. The schema check is
# tests/integration/cyclonedx-schema.sh (it needs the schema from npm).
python3 "$FIXTURES/deps/mkplugins.py" t >/dev/null
python3 "$FIXTURES/deps/mkartifacts.py" a >/dev/null
size() { sed -E '/"gpuaudit:size_bytes"/{n;s/"value": "[0-9]+"/"value": "N"/}'; }
cd t
# files, signals, plug-ins, verdicts and findings (annotations) of the ONNX Runtime-like tree
run deps --target cuda:12.4,sm_90 --cyclonedx - ort | size
# a dpkg package as pkg:deb, the compat verdict on the image
run deps --target driver:470.239.06,brand:tesla --cyclonedx - compat.tar | size
# a wheel: pkg:pypi with the local version encoded; the file nested in the package
run deps --target rocm:6.2,gfx942 --cyclonedx - ../a/torch-2.5.1+cu126-cp311-cp311-linux_x86_64.whl | size
# to a file, next to --json (the same findings in both)
"$GPUAUDIT" deps --json --target cuda:12.4,sm_90 --cyclonedx sbom.json ort >report.json
python3 -c '
import json
r = json.load(open("report.json")); s = json.load(open("sbom.json"))
print(len(r["findings"]), len(s["annotations"]), s["specVersion"], s["serialNumber"])
'
run deps --json --cyclonedx - ort
run deps --cyclonedx /nonexistent/dir/x.json ort
