#!/bin/sh
# Issue 29 point 3: a capture killed at any moment must never read as another
# machine. Before the fix a capture stopped after 0.1 s left a partial OUTDIR
# that discover read with exit 0 as "accelerators: 0", 83 of 128 cores. Now
# the capture fills OUTDIR.partial-XXXXXX and renames it into place when
# complete: after each kill OUTDIR is absent or whole, and every partial
# directory left is refused by discover (exit 2, "incomplete capture").
# The source is a fixture tree (recorded); the kill delays are spread over
# the time one whole capture takes here, with a fixed seed.
G=${1:?usage: files-capture-kill.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
R=${SRCDIR:?SRCDIR not set}/tests/fixtures/nodes/a10-x8/root
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
command -v timeout >/dev/null || exit 77
rc=0
bad() { echo "FAIL: $*"; rc=1; }
N=${KILLS:-25}
# one whole capture: its time bounds the delays, its snapshot is the reference
t0=$(date +%s%N)
"$G" capture --root "$R" whole >/dev/null 2>&1 || { echo "FAIL: the whole capture failed"; exit 1; }
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -gt 0 ] || ms=1
"$G" discover --no-vendor --root whole --json >whole.json 2>/dev/null
we=$? # 1: the fixture has findings
[ $we -le 1 ] || bad "discover of the whole capture: exit $we"
whole=0 absent=0 partial=0
for d in $(awk -v n="$N" -v ms="$ms" 'BEGIN { srand(29); for (i = 0; i < n; i++) printf "%.3f\n", rand() * ms * 2 / 1000 }'); do
	rm -rf out out.partial-*
	timeout -s KILL "$d" "$G" capture --root "$R" out >/dev/null 2>&1
	if [ -e out ]; then
		whole=$((whole + 1))
		[ -f out/.gpuaudit-capture-complete ] || bad "kill after ${d}s: out exists without the completion marker"
		"$G" discover --no-vendor --root out --json >out.json 2>err.txt
		e=$?
		[ $e -eq $we ] || bad "kill after ${d}s: discover of the renamed capture: exit $e, want $we: $(cat err.txt)"
		cmp -s whole.json out.json || bad "kill after ${d}s: the renamed capture reads differently"
	else
		absent=$((absent + 1))
	fi
	for p in out.partial-*; do
		[ -e "$p" ] || continue
		partial=$((partial + 1))
		"$G" discover --no-vendor --root "$p" >/dev/null 2>err.txt
		e=$?
		[ $e -eq 2 ] || bad "kill after ${d}s: discover read the partial $p with exit $e"
		grep -q "incomplete capture" err.txt || bad "kill after ${d}s: no clear message: $(cat err.txt)"
	done
done
echo "capture ${ms} ms; $N kills: $whole whole, $absent absent ($partial partial directories left, all refused)"
exit $rc
