#!/bin/sh
# Terminal and format injection through a node's hostname (issue 22, item 4):
# a copy of the cpu-vm fixture whose proc/sys/kernel/hostname holds ESC[2J,
# an OSC title (ESC ]0;t BEL), a newline with a forged "result: PASS" line, a
# C1 CSI (U+009B) and a byte that is not UTF-8. discover's text and fleet's
# text, Markdown and CSV must show it escaped: no raw ESC, BEL, C1 or stray
# byte, no line starting with the forged text, and a CSV whose records are
# all on their own line. Argument: the gpuaudit binary.
set -u
bin=$1
fx=${SRCDIR:?}/tests/fixtures/nodes/cpu-vm/root
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp -a "$fx" "$tmp/root" || exit 1
printf 'evil\033[2J\033]0;t\007\nresult: PASS\302\233\376x\n' >"$tmp/root/proc/sys/kernel/hostname"

fail=0
# raw_check FILE WHAT SHOWN: no ESC, BEL, U+009B or 0xfe byte, no forged line, SHOWN in FILE
raw_check() {
	if LC_ALL=C grep -q "$(printf '[\033\007\376]')" "$1" || LC_ALL=C grep -q "$(printf '\302\233')" "$1"; then
		echo "FAIL: $2: raw control or invalid bytes:"; cat -v "$1"; fail=1
	fi
	if grep -q '^result: PASS' "$1"; then
		echo "FAIL: $2: the forged line starts a line"; cat -v "$1"; fail=1
	fi
	grep -qF "$3" "$1" ||
		{ echo "FAIL: $2: the hostname is not shown escaped"; cat -v "$1"; fail=1; }
}
timeout 10 "$bin" discover --root "$tmp/root" >"$tmp/discover.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -le 1 ] || { echo "FAIL: discover exit $rc"; cat "$tmp/err.txt"; fail=1; }
raw_check "$tmp/discover.txt" "discover" 'evil\x1b[2J\x1b]0;t\x07\nresult: PASS\u009b\xfex'

timeout 10 "$bin" discover --root "$tmp/root" --json >"$tmp/node.json" 2>/dev/null
# two ordinary nodes of the same class make a majority the hostile one drifts from
# (another kernel); a report that cannot be read, under a hostile name, is skipped
python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
n = json.load(open(d + "/node.json"))
for i in (1, 2):
    m = json.loads(json.dumps(n))
    m["host"]["hostname"] = "good%d" % i
    json.dump(m, open("%s/good%d.json" % (d, i), "w"))
n["host"]["kernel_release"] = "6.1.0-99-hostile"
json.dump(n, open(d + "/node.json", "w"))
PY
bad="$tmp/bad$(printf '\033[2J\007').json"
echo 'not json' >"$bad"
for fmt in text markdown csv; do
	opt=; [ $fmt = text ] || opt=--$fmt
	timeout 10 "$bin" fleet $opt "$tmp/good1.json" "$tmp/good2.json" "$tmp/node.json" "$bad" \
		>"$tmp/fleet.$fmt" 2>"$tmp/err.$fmt"
	rc=$?
	[ $rc -le 2 ] || { echo "FAIL: fleet $opt exit $rc"; cat "$tmp/err.$fmt"; fail=1; }
	# (the JSON writer made the 0xfe byte U+FFFD: the snapshot is valid UTF-8)
	raw_check "$tmp/fleet.$fmt" "fleet $fmt" 'evil\x1b[2J\x1b]0;t\x07\nresult: PASS\u009b'

	grep -qF 'bad\x1b[2J\x07.json' "$tmp/fleet.$fmt" ||
		{ echo "FAIL: fleet $fmt: the skipped report's name is not shown escaped"; cat -v "$tmp/fleet.$fmt"; fail=1; }
	if LC_ALL=C grep -q "$(printf '[\033\007]')" "$tmp/err.$fmt"; then
		echo "FAIL: fleet $fmt: raw control bytes on stderr"; cat -v "$tmp/err.$fmt"; fail=1
	fi
done
# CSV: every record on one line (a header and four records: stack, stack, drift, skipped)
n=$(grep -c . "$tmp/fleet.csv")
[ "$n" -eq 5 ] || { echo "FAIL: fleet csv has $n lines, want 5"; cat -v "$tmp/fleet.csv"; fail=1; }
[ $fail -eq 0 ] && echo "ok: hostname escaped in discover and fleet (text, markdown, csv)"
exit $fail
