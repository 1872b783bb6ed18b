# gpuaudit deps: symbol versions (.gnu.version_r). A library built now calls memcpy
# (GLIBC_2.14 on x86-64, GLIBC_2.17 on aarch64: shown as GLIBC_2.N) and is packed in a
# wheel whose tag claims manylinux1 (glibc 2.5): the tag is wrong with no target at all;
# --target glibc:2.3 refuses it with the loader's message, glibc:2.99 takes it.
ver() { sed -E -e 's/GLIBC_2\.(14|17)/GLIBC_2.N/g' -e 's/, [0-9]+ bytes,/, N bytes,/'; }
printf '#include <string.h>\nvoid *cp(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n' >cp.c
cc -shared -fPIC -O1 -fno-builtin -o libcp.so cp.c
python3 -c '
import zipfile
with zipfile.ZipFile("cp-1.0-cp311-cp311-manylinux1_x86_64.whl", "w") as z:
    z.write("libcp.so", "cp/libcp.so")
'
run deps cp-1.0-cp311-cp311-manylinux1_x86_64.whl | ver
run deps --target glibc:2.3 libcp.so | ver
run deps --target cpu,glibc:2.99 libcp.so | ver
"$GPUAUDIT" deps --json --target cpu,glibc:2.3 libcp.so | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["files"][0]["elf"]
print("target glibc", d["target"]["glibc"], "| needs glibc", "2.14/2.17" if e["glibc_needed"] in ("2.14", "2.17") else e["glibc_needed"], "| glibcxx" , e.get("glibcxx_needed"))
print(sorted({f["code"] for f in d["findings"]}))
'
run deps --target glibc:2.x libcp.so
