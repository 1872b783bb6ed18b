# gpuaudit deps: symbol versions judged against a node (issue 19). A stub libc.so.6
# defining GLIBC_2.99 and a stub libstdc++.so.6 defining GLIBCXX_3.4.99 / CXXABI_1.3.99
# are built now with version scripts; libneed.so links against both, so its
# .gnu.version_r needs all three. Judged against glibc:2.31, the platform tags
# manylinux2014 / manylinux_2_28_aarch64 / musl as targets, wheels tagged manylinux2014
# and musllinux_1_2, the model fixture node (glibc 2.39, libstdc++ 3.4.33) and the
# live node as discover records it (its versions shown as N).
printf 'GLIBC_2.99 { global: ga_future; local: *; };\n' >c.map
printf 'GLIBCXX_3.4.99 { global: ga_cxx_future; local: *; };\nCXXABI_1.3.99 { global: ga_abi_future; };\n' >x.map
printf 'int ga_future(void) { return 1; }\n' >c.c
printf 'int ga_cxx_future(void) { return 1; }\nint ga_abi_future(void) { return 2; }\n' >x.c
printf 'int ga_future(void);\nint ga_cxx_future(void);\nint ga_abi_future(void);\nint need(void) { return ga_future() + ga_cxx_future() + ga_abi_future(); }\n' >need.c
mkdir stub
cc -shared -fPIC -nostdlib -Wl,-soname,libc.so.6 -Wl,--version-script=c.map -o stub/libc.so.6 c.c
cc -shared -fPIC -nostdlib -Wl,-soname,libstdc++.so.6 -Wl,--version-script=x.map -o stub/libstdc++.so.6 x.c
cc -shared -fPIC -nostdlib -o libneed.so need.c stub/libc.so.6 stub/libstdc++.so.6
python3 -c '
import zipfile
for n in ("need-1.0-cp311-cp311-manylinux2014_x86_64.whl", "need-1.0-cp311-cp311-musllinux_1_2_x86_64.whl"):
    with zipfile.ZipFile(n, "w") as z:
        z.write("libneed.so", "need/libneed.so")
'
sz() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
run deps --target glibc:2.31 libneed.so | sz
run deps --target manylinux2014 libneed.so | sz
run deps --target cuda:12.4,sm_90,manylinux_2_28_aarch64 libneed.so | sz
run deps --target musl libneed.so | sz
run deps need-1.0-cp311-cp311-manylinux2014_x86_64.whl need-1.0-cp311-cp311-musllinux_1_2_x86_64.whl | sz
run deps --for "$FIXTURES/models/node.json" libneed.so | sz
# the live node: discover reads libc.so.6 / libstdc++.so.6 version definitions under /
"$GPUAUDIT" discover --json >live.json 2>/dev/null
python3 -c '
import json
h = json.load(open("live.json"))["host"]
print("live node: glibc", "found" if h.get("glibc") else "missing", "| libstdc++", "found" if h.get("libstdcxx") else "missing")
'
"$GPUAUDIT" deps --for live.json libneed.so 2>&1 | sz | sed -E -e 's/glibc( is|:)( ?)[0-9.]+/glibc\1\2N/g' -e 's/(GLIBCXX_ |libstdc\+\+:)[0-9.]+/\1N/g' -e 's/^target: .*\(live.json\)/target: (live node) (live.json)/'
# --no-archives: the wheels in a directory are not opened (the library next to them is)
mkdir tree && cp libneed.so need-1.0-cp311-cp311-manylinux2014_x86_64.whl tree/
"$GPUAUDIT" deps --json --no-archives tree | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("--no-archives:", [f["path"] for f in d["files"]], sorted({f["code"] for f in d["findings"]}))
'
"$GPUAUDIT" deps --json tree | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("archives opened:", [f["path"] for f in d["files"]], sorted({f["code"] for f in d["findings"]}))
'
# discover on a root whose libc.so.6 is a link to glibc < 2.34's libc-2.31.so (no version
# definitions readable: an empty file here) takes the release from the file name; its
# libstdc++.so.6 (the stub above) defines GLIBCXX_3.4.99
mkdir -p r/lib/x86_64-linux-gnu r/usr/lib/x86_64-linux-gnu
: >r/lib/x86_64-linux-gnu/libc-2.31.so
ln -s libc-2.31.so r/lib/x86_64-linux-gnu/libc.so.6
cp stub/libstdc++.so.6 r/usr/lib/x86_64-linux-gnu/
"$GPUAUDIT" discover --root r --json 2>/dev/null | python3 -c '
import json, sys
h = json.load(sys.stdin)["host"]
print("root r: glibc", h.get("glibc"), "libstdcxx", h.get("libstdcxx"))
'
