#!/bin/sh
# Issue 22 item 5 for preflight --junit: the report is written atomically
# (ga_file_write_atomic), so a symlink planted at the file's name is refused
# before the run and its target never written; a missing directory is an
# error before anything runs; a plain target is replaced whole. Before the
# fix, --junit was fopen(FILE, "w"): it followed the link and truncated the
# victim.
G=${1:?usage: files-junit.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
pf() { timeout 30 "$G" preflight --root "$F/nodes/cpu-vm/root" --no-vendor --no-times --warmup-backend cpu "$@"; }
echo "precious" >victim
ln -s "$W/victim" report.xml
pf --junit report.xml -- true >/dev/null 2>err.txt
e=$?
[ $e -eq 2 ] || bad "symlink at --junit: exit $e, want 2"
grep -q "symbolic link" err.txt || bad "symlink at --junit: message: $(cat err.txt)"
[ "$(cat victim)" = precious ] || bad "the symlink's target was written"
pf --junit nodir/report.xml -- true >/dev/null 2>err.txt
[ $? -eq 2 ] || bad "missing directory: want exit 2"
echo "old" >plain.xml
pf --junit plain.xml -- true >/dev/null 2>&1 || bad "plain target: preflight failed"
head -1 plain.xml | grep -q '^<?xml' || bad "plain target not replaced by the report"
ls -a | grep -q '\.tmp\.' && bad "a temporary file was left behind"
[ $rc -eq 0 ] && echo "files-junit: ok"
exit $rc
