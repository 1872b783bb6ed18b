#!/bin/sh
# Issue 22 item 7: record -o FILE opens FILE only after every argument and the
# first time point are validated, and never through a symlink: a usage error
# must leave a previous recording intact. Before the fix an unusable --root or
# a bad DIR/interval_s truncated FILE, and -o followed a planted symlink.
G=${1:?usage: files-record-order.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
try() { # try WHAT ARGS...: exit 2 and rec.jsonl unchanged
	what=$1
	shift
	echo previous >rec.jsonl
	timeout 10 "$G" record -o rec.jsonl "$@" >/dev/null 2>&1
	e=$?
	[ $e -eq 2 ] || bad "$what: exit $e, want 2"
	[ "$(cat rec.jsonl)" = previous ] || bad "$what: the previous recording was destroyed"
}
try "--interval bogus" --interval bogus
try "--count 2 --duration 10s" --count 2 --duration 10s
mkdir empty
try "--root with no time points" --root empty
mkdir one && cp -a "$F/samples/idle/t0" one/
try "--root with one time point" --root one
mkdir badiv && cp -a "$F/samples/idle/t0" "$F/samples/idle/t1" badiv/ && echo 0 >badiv/interval_s
try "--root with a bad interval_s" --root badiv
try "--root missing" --root no-such-dir
# a symlink at -o is refused, not followed
echo secret >victim && ln -s victim lnk
timeout 10 "$G" record --root "$F/samples/idle" -o lnk >/dev/null 2>&1
e=$?
[ $e -eq 2 ] || bad "-o SYMLINK: exit $e, want 2"
[ "$(cat victim)" = secret ] || bad "-o SYMLINK: the victim file was overwritten"
# a valid recording still replaces the file
echo previous >rec.jsonl
timeout 10 "$G" record --root "$F/samples/idle" -o rec.jsonl >/dev/null 2>&1 || bad "record --root -o failed"
grep -q '"gpuaudit.sample/v1"' rec.jsonl && ! grep -q previous rec.jsonl || bad "record -o: not written"
exit $rc
