#!/bin/sh
# codes-convert.sh - tools/codes-convert on a planted tree: it rewrites code
# literals to their GA_C_ names, leaves comments and prose alone, reports a
# comparison, a printf-built code, a prefix and an uncatalogued code, --check
# fails while anything is left, and a second run changes nothing.
set -eu
conv=$(cd "$(dirname "$0")/../.." && pwd)/tools/codes-convert
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/lib/core" "$t/lib/analyze" "$t/src"
cat >"$t/lib/core/codes.def" <<'DEF'
GA_CODE(ONE, "GA-ONE", ERROR, DRAIN, NETWORK, NONE, NONE, "one", NULL, NULL)
GA_CODE(TWO_X, "GA-TWO-X", ERROR, DRAIN, NETWORK, NONE, NONE, "two", NULL, NULL)
GA_FAMILY(FAM, "GA-FAM-", ERROR, DRAIN, NETWORK, NONE, NONE, "fam", NULL, NULL)
DEF
cat >"$t/lib/analyze/a.c" <<'C'
/* raises "GA-ONE" in a comment */
static void f(struct ga_findings *out, const char *x)
{
	ga_findings_add(out, "GA-ONE", GA_SEV_ERROR, "s", NULL, "see GA-ONE.");
	add(out, x ? "GA-TWO-X" : "GA-ONE", "s");
	if (!strcmp(x, "GA-TWO-X"))
		return;
	snprintf(b, sizeof(b), "GA-FAM-%d", 3);
	g(out, "GA-FAM-", "GA-NEW-CODE");
}
C
fail() { echo "codes-convert.sh: $*" >&2; exit 1; }
if "$conv" --root "$t" --check >"$t/out" 2>&1; then fail "--check passed on literals"; fi
grep -q 'lib/analyze/a.c: would rewrite 3 literals' "$t/out" || fail "check: $(cat "$t/out")"
if "$conv" --root "$t" --no-format >"$t/out" 2>&1; then fail "exit 0 with literals left"; fi
for want in 'a.c:6: comparison: "GA-TWO-X"' 'a.c:8: format: "GA-FAM-%d"' 'a.c:9: prefix: "GA-FAM-"' \
	'a.c:9: not-catalogued: "GA-NEW-CODE"' 'rewrote 3 literals in 1 file'; do
	grep -qF "$want" "$t/out" || fail "missing '$want' in: $(cat "$t/out")"
done
grep -qF 'ga_findings_add(out, GA_C_ONE, GA_SEV_ERROR, "s", NULL, "see GA-ONE.");' "$t/lib/analyze/a.c" ||
	fail "not rewritten: $(cat "$t/lib/analyze/a.c")"
grep -qF 'add(out, x ? GA_C_TWO_X : GA_C_ONE, "s");' "$t/lib/analyze/a.c" || fail "ternary not rewritten"
grep -qF '/* raises "GA-ONE" in a comment */' "$t/lib/analyze/a.c" || fail "comment rewritten"
cp "$t/lib/analyze/a.c" "$t/before"
"$conv" --root "$t" --no-format >"$t/out" 2>&1 || true
cmp -s "$t/before" "$t/lib/analyze/a.c" || fail "second run changed the file"
grep -qF 'rewrote 0 literals' "$t/out" || fail "second run: $(cat "$t/out")"
# fixed by hand, the tree passes
sed -i -e '/strcmp/,+1d' -e '/snprintf/d' -e '/g(out/d' "$t/lib/analyze/a.c"
"$conv" --root "$t" --check >"$t/out" 2>&1 || fail "clean tree failed --check: $(cat "$t/out")"
echo "codes-convert.sh: ok"
