# gpuaudit deps on RPM artifacts (issue 19 item 6), built now by tests/fixtures/deps/mkpkgs.py
# from the documented v4 package format: .rpm files (lead, signature header, main header,
# gzip'd cpio payload read through libarchive's rpm filter) with declared signals from Requires
# (libcuda.so.1()(64bit), cuda-cudart-12-4, rocm-hip-runtime); a root filesystem and its tar
# with RHEL 9's rpm database (var/lib/rpm/rpmdb.sqlite, left in WAL mode, read with libsqlite3):
# one package per header blob, owning the files it lists; gpg-pubkey is not a package, a broken
# blob is reported; hostile headers are refused with a message each.
python3 "$FIXTURES/deps/mkpkgs.py" pk >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd pk
run deps cudaapp-1.0-1.x86_64.rpm rocmtool-2.0-3.x86_64.rpm | bytes
# a CUDA 11.8 driver: cuda-cudart-12-4 and libcudart.so.12 are too new (the versions their names pin)
run deps --target cuda:11.8,sm_90 cudaapp-1.0-1.x86_64.rpm rocmtool-2.0-3.x86_64.rpm | bytes
run deps --target cuda:12.4,sm_90 rhel-root rhel-root.tar | bytes
# an image: the upper layer's database (glibc, cuda-cudart-12-4, myapp) is the image's, the lower
# one's is hidden; each library owned by the package whose file list names it
run deps --target cuda:12.4,sm_90 ubi-image.tar | bytes
# hostile databases: a Packages view without end (the 100,000-package cap), one that computes
# forever (sqlite's progress handler stops it), a file that is not an SQLite database
run deps hostile-db/endless hostile-db/busy hostile-db/garbage | bytes
run deps bad-truncated.rpm bad-hugecount.rpm bad-pastend.rpm bad-unterminated.rpm bad-dirindex.rpm | bytes
"$GPUAUDIT" deps --json rhel-root.tar cudaapp-1.0-1.x86_64.rpm ubi-image.tar | python3 -c '
import json, sys
d = json.load(sys.stdin)
for t in d["trees"]: print("tree", t["kind"], t["name"])
for p in d["packages"]:
    print("package", p["kind"], p["name"], p["version"], p.get("arch"), p["metadata"])
    for k in ("requires", "provides"):
        if k in p: print("   ", k, p[k])
    for s in p["signals"]: print("    signal", s["backend"], s["strength"], s["what"], s["runtime_version"])
for f in d["files"]: print("file", f["path"], f["package"], f["elf"]["needed"])
print("gaps", [(g["path"], g["reason"]) for g in d["gaps"]])
'
