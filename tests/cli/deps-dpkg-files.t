# gpuaudit deps: the files of an image are attributed to the dpkg package whose file list
# (var/lib/dpkg/info/NAME[:ARCH].list) names them (issue 28 item 6), in text and JSON, for a
# root directory and its tar: libfoo1:amd64.list names libfoo.so.1; libbar2.list names
# /lib/x86_64-linux-gnu/libbar.so.2, which a merged /usr keeps under usr/lib; libown.so is
# nobody's; oldpkg (config-files only) is no package. Synthesized by mkverdicts.py.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps root | bytes
run deps root.tar | bytes
"$GPUAUDIT" deps --json root.tar | python3 -c '
import json, sys
d = json.load(sys.stdin)
for p in d["packages"]: print("package", p["kind"], p["name"], p["version"], p["metadata"])
for f in d["files"]: print("file", f["path"], f.get("package"))
'
