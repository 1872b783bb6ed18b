# tools/capture-node records this machine; discovering the capture gives the
# same snapshot as discovering live (uptime aside, which moves between the two).
"$SRCDIR/tools/capture-node" cap >capture.log 2>&1 || { echo "capture failed"; cat capture.log; }
"$GPUAUDIT" discover --json | grep -v '"uptime_s"' >live.json
"$GPUAUDIT" discover --root cap --json | grep -v '"uptime_s"' >captured.json
if cmp -s live.json captured.json; then
	echo "capture round trip: same snapshot"
else
	echo "capture round trip: snapshots differ"
	diff -u live.json captured.json | head -60
fi
# capturing a fixture reproduces the fixture's snapshot too (symlinked sysfs, vendor files)
for f in a10-x8 intel-max mi250x; do
	"$SRCDIR/tools/capture-node" --root "$FIXTURES/nodes/$f/root" "cap-$f" >/dev/null 2>&1
	"$GPUAUDIT" discover --root "$FIXTURES/nodes/$f/root" --json >"$f.a.json"
	"$GPUAUDIT" discover --root "cap-$f" --json >"$f.b.json"
	cmp -s "$f.a.json" "$f.b.json" && echo "$f: capture of fixture same" || diff -u "$f.a.json" "$f.b.json" | head -40
done
# refuses a non-empty output directory
mkdir full && touch full/x
"$SRCDIR/tools/capture-node" full >/dev/null 2>&1; echo "non-empty outdir: exit $?"
