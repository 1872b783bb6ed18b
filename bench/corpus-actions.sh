#!/bin/sh
# bench/corpus-actions.sh - what a remediation system would have done on the incident
# corpus (issue 27): for each action `gpuaudit explain` gives as its top cause, how often
# the thread's conclusion agrees (the action's precision), and the whole confusion table
# of expected decision against the action given.
#
#   bench/corpus-actions.sh [PREFIXES] [GPUAUDIT]
#
# PREFIXES: comma-separated slug prefixes (e.g. `hd-,he-`: two held-out batches), or `all`
# (the default) for every incident of tests/corpus/incidents. GPUAUDIT defaults to
# build/gpuaudit. The rules are the scorer's (tests/integration/explain-corpus.sh): the
# top-ranked cause of `explain --json` gives the action; no cause is `investigate`.
# "acted" counts the incidents where explain gave an action other than investigate:
# those a remediation system would carry out with nobody awake. Exit 0; 2 when no
# incident matches or GPUAUDIT is not an executable.
set -u
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-build/gpuaudit}
[ -x "$bin" ] || { echo "corpus-actions: $bin is not an executable gpuaudit (build first)" >&2; exit 2; }
exec python3 - "${1:-all}" "$bin" "$top/tests/corpus/incidents" <<'PY'
import json, os, subprocess, sys
prefixes, gpuaudit, root = sys.argv[1], sys.argv[2], sys.argv[3]
pre = None if prefixes == "all" else tuple(p for p in prefixes.split(",") if p)
ACTIONS = ["fix_config", "restart_workload", "reset_gpu", "reboot", "drain", "replace",
           "none", "investigate"]
rows = []
for cat in sorted(os.listdir(root)):
    d = os.path.join(root, cat)
    if not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        if not name.endswith(".log") or (pre and not name.startswith(pre)):
            continue
        log = os.path.join(d, name)
        e = {}
        for line in open(log[:-4] + ".expect", encoding="utf-8"):
            k, sep, v = line.partition(":")
            if sep:
                e[k.strip()] = v.strip()
        p = subprocess.run([gpuaudit, "explain", "--json", log], capture_output=True)
        doc = json.loads(p.stdout) if p.returncode in (0, 1, 4) else {"causes": []}
        c = doc["causes"][0] if doc["causes"] else None
        rows.append((e["decision"], c["action"] if c else "investigate"))
if not rows:
    print("no incident matches", file=sys.stderr)
    sys.exit(2)
n = len(rows)
print(f"incidents: {n} ({prefixes}), scored with {gpuaudit}")
print(f"\n{'action given':<17} {'given':>6} {'right':>6} {'precision %':>12} {'expected':>9} {'recall %':>9}")
for a in ACTIONS:
    g = sum(r[1] == a for r in rows)
    ok = sum(r[1] == a and r[0] == a for r in rows)
    x = sum(r[0] == a for r in rows)
    if g or x:
        prec = f"{100.0 * ok / g:.1f}" if g else "-"
        rec = f"{100.0 * ok / x:.1f}" if x else "-"
        print(f"{a:<17} {g:>6} {ok:>6} {prec:>12} {x:>9} {rec:>9}")
acted = [r for r in rows if r[1] != "investigate"]
right = sum(r[0] == r[1] for r in acted)
node = ("reset_gpu", "reboot", "drain", "replace")
nacted = [r for r in rows if r[1] in node]
nright = sum(r[0] == r[1] for r in nacted)
nsafe = sum(r[0] in node for r in nacted)
print(f"\nacted (an action other than investigate): {len(acted)} of {n} "
      f"({100.0 * len(acted) / n:.1f} %), right {right} ({100.0 * right / len(acted) if acted else 0:.1f} % of acted)")
print(f"node actions (reset_gpu, reboot, drain, replace) given: {len(nacted)}, exactly right {nright}, "
      f"the thread also took the node out of service {nsafe}")
print("\nconfusion (rows: the thread's decision; columns: the action given)")
short = {"fix_config": "fix", "restart_workload": "restart", "reset_gpu": "reset",
         "reboot": "reboot", "drain": "drain", "replace": "replace", "none": "none",
         "investigate": "invest."}
used = [a for a in ACTIONS if any(a in r for r in rows)]
print(f"{'':<17}" + "".join(f"{short[a]:>8}" for a in used))
for x in used:
    print(f"{x:<17}" + "".join(f"{sum(r[0] == x and r[1] == a for r in rows):>8}" for a in used))
PY
