# gpuaudit deps over every archive kind, read without extracting: conda (.conda with
# zstd tars, legacy .tar.bz2), .deb, a wheel nested in a tar.gz, an OCI layout directory
# and a `docker save` tarball whose upper layer deletes a file (.wh.) and makes a
# directory opaque (.wh..wh..opq), and the same image with gzip and zstd layers;
# Debian metadata: a .deb's control file and dpkg's status.
# Built now by tests/fixtures/deps/mkartifacts.py.
python3 "$FIXTURES/deps/mkartifacts.py" art
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd art
run deps --target cuda:13.0,sm_90,x86-64-v3 pkgx-1.0-cuda126_0.conda pkgy-2.0-h0_0.tar.bz2 libfoo_1.0_amd64.deb bundle.tar.gz | bytes
# the images: libold.so is deleted and opt/plugins/libp.so hidden by the opaque directory
run deps --target cuda:13.0,sm_90,x86-64-v3 image-oci image-docker.tar | bytes
# the same layers compressed, whiteouts inside the compressed upper layer: docker save with
# gzip layers, docker 25+ save (OCI blobs, gzip + zstd), that piped through gzip, an OCI
# layout with a zstd layer: the same three files, libold.so and libp.so hidden in each
run deps --target cuda:13.0,sm_90,x86-64-v3 image-docker-gz.tar image-docker-oci.tar image-docker-oci.tar.gz image-oci-zstd | bytes
# dpkg's status in a root filesystem: one package per installed stanza; cuda-cudart-12-8
# runs on a 12.4 driver (minor-version compatibility), myapp's cuda-runtime-13-0 does not;
# the removed libcudnn9 is not a package; a stanza without Package is reported
run deps --target cuda:12.4,sm_90 dpkg-root.tar | bytes
# the JSON inventory: trees, packages and files, sizes left out (they depend on the compiler)
"$GPUAUDIT" deps --json image-oci pkgx-1.0-cuda126_0.conda libfoo_1.0_amd64.deb bundle.tar.gz | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["schema"], d["target"])
for t in d["trees"]: print("tree", t["kind"], t["name"])
for p in d["packages"]: print("package", p["kind"], p["name"], p["version"], p["local_version"], [s["backend"] + "/" + s["strength"] + "/" + s["what"] + "/" + str(s["runtime_version"]) for s in p["signals"]])
for f in d["files"]: print("file", f["path"], f["package"], f["elf"]["soname"], f["elf"]["needed"], f["elf"]["x86_isa_level"], [(i["format"], i["kind"], i["arch"], i["count"]) for i in f["elf"]["device_code"]["images"]])
print("findings", [(f["code"], f["subject"]) for f in d["findings"]])
'
