#!/bin/sh
# corpus-topcauses - the top-ranked cause of every corpus incident, one line each, so that
# two binaries (before and after a change to the catalogue) can be compared (issue 27):
#
#   bench/corpus-topcauses.sh [GPUAUDIT] [INCIDENTS_DIR] > FILE
#   bench/corpus-topcauses.sh --diff BEFORE_GPUAUDIT AFTER_GPUAUDIT [INCIDENTS_DIR]
#
# Each line: category/slug, the expectation (class/action), the top cause (id class/action,
# `-` when nothing matched) and `ok` when both class and action are right, `MISS` when not.
# With --diff it runs both binaries and prints only the incidents whose top cause changed,
# with the verdict before and after, then counts: turned right, turned wrong, changed but
# still wrong, changed and still right. A change to the catalogue should turn no incident
# wrong; every line of the diff is for the reviewer to read.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--diff" ]; then
	[ $# -ge 3 ] || { echo "usage: $0 --diff BEFORE AFTER [INCIDENTS_DIR]" >&2; exit 2; }
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	sh "$0" "$2" "${4:-$top/tests/corpus/incidents}" > "$tmp/a" || exit 1
	sh "$0" "$3" "${4:-$top/tests/corpus/incidents}" > "$tmp/b" || exit 1
	exec python3 - "$tmp/a" "$tmp/b" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        d[f[0]] = f[1:]
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
n = {"turned right": 0, "turned wrong": 0, "changed, still wrong": 0, "changed, still right": 0}
for k in sorted(set(a) | set(b)):
    x, y = a.get(k), b.get(k)
    if x is None or y is None:
        print(f"{k}\t{'absent' if x is None else 'only before'}")
        continue
    if x[1] == y[1]:
        continue
    print(f"{k}\texpected {x[0]}\t{x[1]} {x[2]} -> {y[1]} {y[2]}")
    if x[2] == "MISS" and y[2] == "ok":
        n["turned right"] += 1
    elif x[2] == "ok" and y[2] == "MISS":
        n["turned wrong"] += 1
    elif y[2] == "ok":
        n["changed, still right"] += 1
    else:
        n["changed, still wrong"] += 1
print("; ".join(f"{k}: {v}" for k, v in n.items()))
sys.exit(1 if n["turned wrong"] else 0)
PY
fi
GPUAUDIT=${1:-$top/build/gpuaudit}
ROOT=${2:-$top/tests/corpus/incidents}
exec python3 - "$GPUAUDIT" "$ROOT" <<'PY'
import json, os, subprocess, sys
exe, root = sys.argv[1], sys.argv[2]
for cat in sorted(os.listdir(root)):
    d = os.path.join(root, cat)
    if not os.path.isdir(d):
        continue
    for f in sorted(os.listdir(d)):
        if not f.endswith(".log"):
            continue
        exp = {}
        for line in open(os.path.join(d, f[:-4] + ".expect"), encoding="utf-8"):
            if ": " in line:
                k, v = line.rstrip("\n").split(": ", 1)
                exp[k] = v
        r = subprocess.run([exe, "explain", "--json", os.path.join(d, f)],
                           capture_output=True, text=True)
        try:
            causes = json.loads(r.stdout).get("causes") or []
        except ValueError:
            sys.exit(f"corpus-topcauses: {exe} explain {f}: no JSON (exit {r.returncode})")
        got = ("-", "unknown", "investigate")
        if causes:
            c = causes[0]
            got = (c.get("id", "?"), c.get("class", "?"), c.get("action", "?"))
        want = (exp.get("class", "?"), exp.get("decision", "?"))
        ok = "ok" if got[1:] == want else "MISS"
        print(f"{cat}/{f[:-4]}\t{want[0]}/{want[1]}\t{got[0]} {got[1]}/{got[2]}\t{ok}")
PY
