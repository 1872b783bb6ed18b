#!/bin/sh
# gpuaudit deps --cyclonedx checked against the official CycloneDX 1.5 JSON schema
# (bom-1.5 with the spdx and jsf schemas it references), as shipped in res/schema of the
# npm package @cyclonedx/cyclonedx-library (downloaded once with `npm pack` into
# $GA_TEST_CACHE) and validated with python3-jsonschema. The SBOMs are of trees built now
# by tests/fixtures/deps/mkplugins.py (plug-ins, cuda-compat with a dpkg status, ICDs) and
# of a wheel. Exit 0 pass, 1 fail, 77 skipped (offline and not cached, or no jsonschema).
set -eu
GPUAUDIT=$1
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c 'import jsonschema' 2>/dev/null || { echo "skipped: python3-jsonschema is needed"; exit 77; }
cache=${GA_TEST_CACHE:-/var/cache/gpuaudit-tests}
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=${TMPDIR:-/tmp}/gpuaudit-tests-cache
schemas=$cache/cyclonedx-library-10.3.0/package/res/schema
if [ ! -f "$schemas/bom-1.5.SNAPSHOT.schema.json" ]; then
	command -v npm >/dev/null 2>&1 || { echo "skipped: npm is needed to fetch the schema"; exit 77; }
	mkdir -p "$cache/cyclonedx-library-10.3.0"
	if ! (cd "$cache/cyclonedx-library-10.3.0" && timeout 120 npm pack --silent @cyclonedx/cyclonedx-library@10.3.0 >/dev/null 2>&1 &&
		tar xzf cyclonedx-cyclonedx-library-10.3.0.tgz); then
		echo "skipped: @cyclonedx/cyclonedx-library could not be fetched from the npm registry (offline?) and is not cached"
		exit 77
	fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 "$SRCDIR/tests/fixtures/deps/mkplugins.py" t >/dev/null
python3 "$SRCDIR/tests/fixtures/deps/mkartifacts.py" a >/dev/null 2>&1 || true
"$GPUAUDIT" deps --target cuda:12.4,sm_90 --cyclonedx ort.cdx.json t/ort t/ort-cpu >/dev/null || true
"$GPUAUDIT" deps --target driver:470.239.06,brand:tesla --json --cyclonedx compat.cdx.json t/compat.tar >/dev/null || true
"$GPUAUDIT" deps --cyclonedx icd.cdx.json t/icd.tar >/dev/null || true
for w in a/*.whl a/*.deb a/*.conda; do
	[ -f "$w" ] || continue
	"$GPUAUDIT" deps --target rocm:6.2,gfx942 --cyclonedx "$(basename "$w").cdx.json" "$w" >/dev/null || true
done
python3 - "$schemas" ./*.cdx.json <<'PY'
import json, os, sys
import jsonschema
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))
bom = load("bom-1.5.SNAPSHOT.schema.json")
store = {}
for n in ("spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json", "bom-1.5.SNAPSHOT.schema.json"):
    s = load(n)
    store["http://cyclonedx.org/schema/" + n] = s
    store[s["$id"]] = s
try:
    from referencing import Registry, Resource
    reg = Registry().with_resources([(k, Resource.from_contents(v)) for k, v in store.items()])
    v = jsonschema.Draft7Validator(bom, registry=reg)
except ImportError:  # jsonschema < 4.18 (Debian 12: 4.10)
    v = jsonschema.Draft7Validator(bom, resolver=jsonschema.RefResolver.from_schema(bom, store=store))
bad = 0
for f in sys.argv[2:]:
    doc = json.load(open(f))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:5]:
        print("%s: %s at %s" % (f, e.message, "/".join(map(str, e.path))))
    bad += len(errs) > 0
    print("%s: %s (%d components)" % (f, "invalid" if errs else "valid", len(doc.get("components", []))))
sys.exit(1 if bad or len(sys.argv) < 5 else 0)
PY
