# gpuaudit deps: libraries loaded by file name (lib/deps/plugins.c conventions). Trees built
# now by tests/fixtures/deps/mkplugins.py: an ONNX Runtime-like host naming its CUDA,
# TensorRT and ROCm providers and libnccl-net.so, with the CUDA provider beside it (which
# NEEDs libcudart.so.12, not shipped) or without it; OpenCL and Vulkan ICD files.
python3 "$FIXTURES/deps/mkplugins.py" t >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd t
# CUDA node: the chain host -> provider -> libcudart.so.12 (unresolved, with loaded_by);
# the CPU-only tree has no CUDA provider: warning; the one with the CUDA provider: info
run deps --target cuda:12.4,sm_90 ort ort-cpu | bytes
# AMD node: the CUDA provider's hard need is a plug-in's (warning, not an error); no ROCm provider
run deps --target rocm:6.2,gfx942 ort | bytes
# a scan of the host file alone cannot tell what is missing: no PLUGIN-MISSING
run deps --target cuda:12.4 ort/lib/libonnxruntime.so | bytes
# ICD files name the vendor library the OpenCL / Vulkan loader opens
run deps --target cuda:12.4 icd.tar | bytes
# the JSON report: each file's plugins (found path and the plug-in's vendor NEEDs)
"$GPUAUDIT" deps --json --target cuda:12.4,sm_90 ort | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["files"]:
    for p in f.get("plugins", []):
        print(f["path"], "->", p["name"], "|", p["host"], p["brings"], p["backend"], "|", p["found"], p["needs"])
print(sorted((f["code"], f["severity"]) for f in d["findings"]))
'
# SARIF: the new codes are rules with their text
"$GPUAUDIT" deps --sarif --target cuda:12.4,sm_90 ort-cpu | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
print([(x["id"], x["shortDescription"]["text"]) for x in r["tool"]["driver"]["rules"]])
print([(x["ruleId"], x["level"]) for x in r["results"]])
'
