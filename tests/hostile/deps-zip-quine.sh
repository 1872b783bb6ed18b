#!/bin/sh
# deps-zip-quine.sh GPUAUDIT - issue 22 item 2: a real zip quine (a zip whose only
# member inflates, byte for byte, to the zip itself, with a CRC-32 that is a true
# fixed point; tests/fixtures/deps/mkquine.py, 532 bytes, generated here) must stop
# at the nesting cap like any other nested archive. Before the one nesting gate
# (a2c598c) `deps` recursed without end: 15.7 GB resident after 20 s, no output.
# Bounds: `timeout 20`, peak RSS under 100 MB (/usr/bin/time; 400 MB under
# sanitizers), exit 4 (INCOMPLETE) with the gap "archive nested deeper than 8
# levels: not opened (--max-nesting raises the bound)" at level 9, in the text report and as a gap in --json. The
# member is recognised by its first bytes, so a member name without ".zip" is
# tried too.
set -u
GA=$1
command -v python3 >/dev/null || exit 77
[ -x /usr/bin/time ] || exit 77
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 "$SRCDIR/tests/fixtures/deps/mkquine.py" "$tmp/quine.zip" quine.zip >/dev/null || exit 1
python3 "$SRCDIR/tests/fixtures/deps/mkquine.py" "$tmp/self.zip" self >/dev/null || exit 1
max_kib=102400
case "${GA_SANITIZE:-}" in
ON | on | 1 | TRUE | true) max_kib=409600 ;;
*) ulimit -v 2097152 2>/dev/null ;; # a regression fails fast instead of eating the machine
esac
fail=0
gap='archive nested deeper than 8 levels: not opened (--max-nesting raises the bound)'
for f in quine.zip self.zip; do
	for mode in text json; do
		opt=
		[ $mode = json ] && opt=--json
		/usr/bin/time -o "$tmp/rss" -f %M timeout 20 "$GA" deps $opt "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 4 ]; then
			echo "FAIL $f $mode: exit $rc (want 4, INCOMPLETE; 124 is the timeout)"
			tail -n 5 "$tmp/out" "$tmp/err"
			fail=1
			continue
		fi
		rss=$(tail -1 "$tmp/rss")
		if [ "$rss" -gt $max_kib ]; then echo "FAIL $f $mode: peak RSS $rss KiB > $max_kib"; fail=1; fi
		if [ $mode = text ]; then
			line=$(grep -F "$gap" "$tmp/out" | head -1)
			grep -q '^result: INCOMPLETE' "$tmp/out" || { echo "FAIL $f: result is not INCOMPLETE"; fail=1; }
		else
			line=$(python3 - "$tmp/out" "$gap" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
hits = [g["path"] for g in doc.get("gaps", []) if g.get("reason") == sys.argv[2]]
print(hits[0] if len(hits) == 1 else "")
PY
)
		fi
		if [ -z "$line" ]; then
			echo "FAIL $f $mode: no (single) nesting gap"; tail -n 8 "$tmp/out"; fail=1; continue
		fi
		# the refused member is the 9th level: 8 "!/" separators in its path
		seps=$(printf '%s\n' "$line" | grep -o '!/' | wc -l)
		[ "$seps" -eq 8 ] || { echo "FAIL $f $mode: the gap is at level $((seps + 1)), want 9: $line"; fail=1; }
		echo "$f $mode: exit $rc, peak RSS $rss KiB"
	done
done
exit $fail
