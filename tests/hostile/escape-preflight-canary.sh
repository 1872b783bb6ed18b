#!/bin/sh
# Issue 22 item 4 for the text printers of preflight and canary: a workload
# whose stderr sets the terminal title, and benchmark results whose metric
# name and kind carry ESC and BEL, print no raw control byte; the text rule
# (cli_esc) makes them visible as \x1b, \x07. Before, both were printed raw.
G=${1:?usage: escape-preflight-canary.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
command -v python3 >/dev/null || exit 77
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
raw() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if any(b in d for b in (b"\x1b", b"\x07")) else 1)' "$1"; }
timeout 30 "$G" preflight --root "$F/nodes/cpu-vm/root" --no-vendor --no-times --warmup-backend cpu \
	-- sh -c 'printf "\033]0;pwned\007\n" >&2; exit 3' >pf.txt 2>&1
raw pf.txt && bad "preflight printed a raw ESC/BEL"
grep -q 'x1b]0;pwned' pf.txt || bad "preflight: the escaped line is missing: $(cat pf.txt)"
timeout 30 "$G" bench exec --runs 5 -o base.json -- true >/dev/null 2>&1 || bad "bench exec failed"
python3 - <<'PY'
import json
d = json.load(open("base.json"))
for m in d.get("metrics", []):
    m["name"] = "\x1b]0;t\x07" + m["name"]
json.dump(d, open("evil.json", "w"))
PY
timeout 30 "$G" canary --baseline evil.json --candidate evil.json >ca.txt 2>&1
raw ca.txt && bad "canary printed a raw ESC/BEL"
grep -q 'x1b]0;t' ca.txt || bad "canary: the escaped metric name is missing: $(head -5 ca.txt)"
[ $rc -eq 0 ] && echo "escape-preflight-canary: ok"
exit $rc
