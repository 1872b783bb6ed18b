#!/bin/sh
# Issue 22 item 5 for the capture (tools/capture-node then, `gpuaudit capture` now): it
# wrote every captured file with `>` into OUTDIR, so an existing OUTDIR that someone else can write (a
# pre-created /tmp/cap, mode 777) would let them plant symlinks in it between
# the checks and the writes. Such an OUTDIR is refused (exit 2); a new or a
# private empty one is still used. Before the fix the world-writable one was used.
G=${1:?usage: files-capture.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
S=${SRCDIR:?SRCDIR not set}
R=$S/tests/fixtures/nodes/cpu-vm/root
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
command -v stat >/dev/null || exit 77
rc=0
bad() { echo "FAIL: $*"; rc=1; }
mkdir open && chmod 777 open
timeout 30 "$G" capture --root "$R" open >/dev/null 2>err.txt
e=$?
[ $e -eq 2 ] || bad "world-writable OUTDIR: exit $e, want 2"
[ -z "$(ls -A open)" ] || bad "world-writable OUTDIR: written into"
grep -q "writable by group or others" err.txt || bad "no clear message: $(cat err.txt)"
mkdir private && chmod 700 private
timeout 30 "$G" capture --root "$R" private >/dev/null 2>&1 || bad "private empty OUTDIR refused"
timeout 30 "$G" capture --root "$R" new >/dev/null 2>&1 || bad "new OUTDIR refused"
[ -f new/proc/cpuinfo ] && [ -f private/proc/cpuinfo ] || bad "nothing captured"
exit $rc
