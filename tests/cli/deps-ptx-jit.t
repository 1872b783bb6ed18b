# gpuaudit deps: PTX JIT at first load (GA-DEPS-PTX-JIT). The committed libraries
# (tests/fixtures/deps/ptx-jit, nvcc 13.0 from jk.cu: 3 kernels) hold PTX compute_80 only,
# LZ4- and zstd-compressed, and sm_90 cubins plus compute_80 PTX. An H100 (sm_90) runs the
# first two from PTX, the third from its cubin; a B200 (sm_100) JITs all three; a 12.4
# driver cannot JIT PTX ISA 9.0 at all (GA-DEPS-NO-KERNEL-IMAGE, no JIT warning). The
# kernels are counted in the decompressed PTX; preflight on an H100 node says the same.
P="$FIXTURES/deps/ptx-jit"
cp "$P"/libjit-*.so .
run deps --target cuda:13.0,sm_90 libjit-lz4.so libjit-zstd.so libjit-sm90.so
run deps --target cuda:13.0,sm_100 libjit-sm90.so
run deps --target cuda:12.4,sm_90 libjit-zstd.so
"$GPUAUDIT" deps --json --target cuda:13.0,sm_90 libjit-zstd.so | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    print(f["code"], f["severity"], f["action"], f["cause"], {k: v for k, v in sorted(f["evidence"].items())})
'
"$GPUAUDIT" deps --sarif --target cuda:13.0,sm_90 libjit-zstd.so | python3 -c '
import json, sys
run = json.load(sys.stdin)["runs"][0]
print([(r["id"], r["shortDescription"]["text"]) for r in run["tool"]["driver"]["rules"]])
print([(r["ruleId"], r["level"]) for r in run["results"]])
'
mkdir site && cp libjit-zstd.so site/
run preflight --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --no-times --warmup-backend cpu --scan site | grep -E '^\$|scan|PTX|exit'
