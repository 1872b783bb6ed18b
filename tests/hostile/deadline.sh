#!/bin/sh
# Issue 22, defences: every command has an overall deadline for inputs it
# cannot bound. `gpuaudit --deadline SEC COMMAND` stops after SEC seconds with
# exit 4 and one line on stderr: here explain reading a stdin that never ends
# and record sampling forever. Before, there was no such option (exit 2,
# "unknown command") and explain on an endless stdin waited forever.
G=${1:?usage: deadline.sh GPUAUDIT}
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
rc=0
bad() { echo "FAIL: $*"; rc=1; }
mkfifo "$W/in"
sleep 30 >"$W/in" &
spid=$!
t0=$(date +%s%N)
timeout 10 "$G" --deadline 1 explain - <"$W/in" >/dev/null 2>"$W/err"
e=$?
ms=$((($(date +%s%N) - t0) / 1000000))
kill $spid 2>/dev/null
wait $spid 2>/dev/null
[ $e -eq 4 ] || bad "explain on an endless stdin: exit $e, want 4 (124: it hung)"
[ $ms -lt 4000 ] || bad "explain on an endless stdin took $ms ms"
grep -q "deadline of 1 s exceeded" "$W/err" || bad "message: $(cat "$W/err")"
timeout 10 "$G" --deadline=0.5 record --interval 0.1 -o "$W/s.jsonl" >/dev/null 2>"$W/err"
e=$?
[ $e -eq 4 ] || bad "record under --deadline=0.5: exit $e, want 4"
# a command that finishes in time is not touched, and bad values are usage errors
"$G" --deadline 30 version >/dev/null || bad "version under a long deadline failed"
"$G" --deadline 0 version >/dev/null 2>&1
[ $? -eq 2 ] || bad "--deadline 0 accepted"
"$G" --deadline >/dev/null 2>&1
[ $? -eq 2 ] || bad "--deadline without a value accepted"
[ $rc -eq 0 ] && echo "deadline: ok"
exit $rc
