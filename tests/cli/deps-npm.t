# gpuaudit deps on npm artifacts (issue 19 item 4), built now by tests/fixtures/deps/mkpkgs.py:
# an `npm pack` tarball whose package.json picks node-llama-cpp's -cuda and -vulkan platform
# packages (the mac -metal one declares nothing for Linux) and runs node-pre-gyp at postinstall
# (GA-DEPS-INSTALL-SCRIPT warning), with a .node addon that NEEDs libcuda.so.1; a project's
# node_modules tree: each package.json a package owning the files under its directory (the
# nested node_modules package owns its own), node-gyp rebuild at install (info), a package.json
# without a name (ignored) and a broken one (not read).
python3 "$FIXTURES/deps/mkpkgs.py" pk >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd pk
run deps gpu-addon-1.0.0.tgz | bytes
# on a CUDA node the addon's libcuda.so.1 comes from the driver; on an AMD node the declared
# CUDA variant and the addon's NEED are the wrong vendor
run deps --target cuda:12.4,sm_90 gpu-addon-1.0.0.tgz | bytes
run deps --target rocm:6.2,gfx942 gpu-addon-1.0.0.tgz | bytes
run deps --target cuda:12.4,sm_90 app | bytes
# the JSON inventory: packages with their npm fields, which package owns each file
"$GPUAUDIT" deps --json gpu-addon-1.0.0.tgz app | python3 -c '
import json, sys
d = json.load(sys.stdin)
for t in d["trees"]: print("tree", t["kind"], t["name"])
for p in d["packages"]:
    print("package", p["kind"], p["name"], p["version"], p["metadata"])
    for k in ("requires", "optional", "os", "cpu", "libc", "install_scripts", "install_fetch"):
        if k in p: print("   ", k, p[k])
    for s in p["signals"]: print("    signal", s["backend"], s["strength"], s["what"])
for f in d["files"]: print("file", f["path"], f["package"], f["elf"]["needed"])
print("findings", [(f["code"], f["severity"], f["subject"], f["action"]) for f in d["findings"]])
print("gaps", [(g["path"], g["reason"]) for g in d["gaps"]])
'
