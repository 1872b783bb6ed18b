# A snapshot written with --json reads back with --from to the same snapshot,
# the same findings and the same text, for every fixture.
for f in "$FIXTURES"/nodes/*/root; do
	name=$(basename "$(dirname "$f")")
	"$GPUAUDIT" discover --root "$f" --json >"$name.json"
	"$GPUAUDIT" discover --from "$name.json" --json >"$name.again.json"
	"$GPUAUDIT" discover --root "$f" >"$name.txt"
	"$GPUAUDIT" discover --from "$name.json" >"$name.again.txt"
	cmp -s "$name.json" "$name.again.json" && echo "$name: json same" || diff -u "$name.json" "$name.again.json"
	cmp -s "$name.txt" "$name.again.txt" && echo "$name: text same" || diff -u "$name.txt" "$name.again.txt"
done
# compact output is one line and reads back too
"$GPUAUDIT" discover --root "$FIXTURES/nodes/a10-x8/root" --json --compact >c.json
wc -l <c.json
"$GPUAUDIT" discover --from c.json --json >c.again.json
cmp -s c.again.json a10-x8.json && echo "compact: same" || echo "compact: differs"
# stdin
"$GPUAUDIT" discover --from - --json <a10-x8.json >stdin.json
cmp -s stdin.json a10-x8.json && echo "stdin: same" || echo "stdin: differs"
