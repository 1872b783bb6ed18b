#!/bin/sh
# fixtures-regen - the synthesized node fixtures (tests/fixtures/nodes/*/root) are
# what tests/fixtures/nodes/mkfixtures.py writes today: it regenerates every tree
# into a temporary directory and compares it with the committed one, file by file
# (contents and symlink targets; directories, which git cannot keep empty, only
# through what they hold). A hand edit of a tree, or a generator change whose
# output was not committed, fails here instead of drifting. Trees the generator
# does not write are not compared: captured-build-vm is a recording (`gpuaudit
# capture` of the build VM, its README), not a synthesized tree. ctest passes the
# gpuaudit binary; it is not used. Exit 77 (skipped) without python3.
set -eu
command -v python3 >/dev/null 2>&1 || exit 77
here=$(cd "$(dirname "$0")/../fixtures/nodes" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The generator writes next to itself (HERE/NAME/root): run a copy in the temporary directory.
cp "$here/mkfixtures.py" "$here/mkfix_new.py" "$tmp/"
(cd "$tmp" && python3 -B ./mkfixtures.py >/dev/null)
exec python3 - "$tmp" "$here" <<'PY'
import hashlib, os, sys

def manifest(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = "-> " + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = "sha256 " + hashlib.sha256(f.read()).hexdigest()
    return out

tmp, here = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(tmp) if os.path.isdir(os.path.join(tmp, n)))
bad = 0
for n in names:
    new = manifest(os.path.join(tmp, n, "root"))
    old = manifest(os.path.join(here, n, "root"))
    for rel in sorted(set(new) | set(old)):
        a, b = old.get(rel), new.get(rel)
        if a != b:
            bad += 1
            if bad <= 40:
                print("%s/root/%s: committed %s, generated %s" % (n, rel, a or "(none)", b or "(none)"))
    print("%s: %d entries" % (n, len(new)))
if not names:
    print("fixtures-regen: mkfixtures.py generated nothing")
    sys.exit(1)
if bad:
    print("fixtures-regen: %d differences; run tests/fixtures/nodes/mkfixtures.py and commit, "
          "or fix the generator" % bad)
    sys.exit(1)
print("fixtures-regen: %d trees as generated" % len(names))
PY
