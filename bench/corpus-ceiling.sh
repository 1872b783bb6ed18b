#!/bin/sh
# corpus-ceiling - how far the corpus score (tests/integration/explain-corpus.sh) can rise
# without telling apart lines that today match the same signature (issue 27):
#
#   bench/corpus-ceiling.sh [GPUAUDIT] [INCIDENTS_DIR]   defaults: build/gpuaudit, tests/corpus/incidents
#
# Groups the incidents by the signature of explain's top cause. Within one group every
# incident gets the same (class, action), so at most the group's most common expectation
# can be right. Prints: incidents, those no signature matches, the joint (class AND
# decision) score today, the ceiling if every matched group gave its most common
# expectation (no-match incidents counted as misses), and every group whose incidents
# expect different things (the signature, its size, the expectations and their counts).
# A group in that list is either text the catalogue does not yet tell apart (a finer
# signature would) or text that cannot decide (the same words, different causes): the
# threads decide which.
set -u
GPUAUDIT=${1:-build/gpuaudit}
ROOT=${2:-tests/corpus/incidents}
# The top cause of every incident comes from bench/corpus-topcauses.sh (one scorer for both).
sh "$(dirname "$0")/corpus-topcauses.sh" "$GPUAUDIT" "$ROOT" | python3 -c '
import collections, sys

groups = collections.defaultdict(list)
joint = 0
for line in sys.stdin:
    name, want, got, ok = line.rstrip("\n").split("\t")
    sig = got.split(" ")[0]
    groups[sig].append(tuple(want.split("/")))
    joint += ok == "ok"
total = sum(len(v) for v in groups.values())
if not total:
    sys.exit("corpus-ceiling: no incidents")
nomatch = len(groups.get("-", []))
best = sum(collections.Counter(v).most_common(1)[0][1] for k, v in groups.items() if k != "-")
print("incidents %d, no signature matches %d" % (total, nomatch))
print("joint (class and decision) today: %d = %.1f %%" % (joint, 100.0 * joint / total))
print("ceiling at today\x27s signatures: %d = %.1f %%" % (best, 100.0 * best / total))
print("groups whose incidents expect different things:")
for sig, v in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
    c = collections.Counter(v)
    if sig != "-" and len(c) > 1:
        print("  %-32s %3d  %s" % (sig, len(v), ", ".join(
            "%s/%s %d" % (k[0], k[1], n) for k, n in c.most_common())))
'
