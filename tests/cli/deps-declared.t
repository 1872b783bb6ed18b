# gpuaudit deps: a library a package's declared dependencies provide is a note (info), not a
# warning (issue 28 item 1). A synthesized python3-torch .deb (tests/fixtures/deps/mkverdicts.py)
# NEEDs libtorch.so.1.13 and libc10.so.1.13, which its exact "Depends: libtorch1.13 (= ...)"
# ships, libprotobuf.so.32 (libprotobuf32t64 by Debian's library package naming) and
# libgone.so.7, which nothing it declares provides: only that one stays a warning.
python3 "$FIXTURES/deps/mkverdicts.py" v >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd v
run deps declared/python3-torch_1.13.1+dfsg-4_amd64.deb | bytes
"$GPUAUDIT" deps --json declared/python3-torch_1.13.1+dfsg-4_amd64.deb | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    print(f["code"], f["severity"], f["evidence"].get("provided_by"))
'
