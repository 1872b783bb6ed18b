#!/bin/sh
# Issue 22 item 8: a FIFO named where a file is expected (explain FILE,
# health --kmsg FILE, health --state FILE, canary --baseline/--candidate,
# --from/--for FILE of check, health and explain) is
# refused at once with a clear message and exit 2 instead of blocking forever
# on the open or the read; "-" (standard input) stays the way to stream.
# Before the fix each of these hung (timeout's exit 124 here).
G=${1:?usage: files-fifo.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
mkfifo p
refused() { # refused WHAT ARGS...
	what=$1
	shift
	timeout 5 "$G" "$@" >/dev/null 2>err.txt
	e=$?
	[ $e -eq 2 ] || bad "$what: exit $e, want 2 (124: it blocked)"
	grep -qi "fifo" err.txt || bad "$what: the message does not say FIFO: $(cat err.txt)"
}
refused "explain FIFO" explain p
refused "health --kmsg FIFO" health --root "$F/nodes/cpu-vm/root" --no-vendor --kmsg p
timeout 10 "$G" discover --root "$F/nodes/dgx-a100/root" --json >node.json 2>/dev/null || bad "discover"
refused "health --state FIFO" health --from node.json --kmsg "$F/kmsg/xid79.log" --state p
refused "canary --baseline FIFO" canary --baseline p --candidate p
# a snapshot named by --from / --for (ga_node_load)
refused "check --from FIFO" check --policy "$F/policies/fleet.yaml" --from p
refused "health --from FIFO" health --from p
refused "explain --for FIFO" explain --for p node.json
refused "triage --samples FIFO" triage --samples p
refused "fleet --diff FIFO" fleet --diff p node.json
# a writer that never writes does not block either (the open is non-blocking, then refused)
sleep 30 >p &
wpid=$!
refused "explain FIFO with a silent writer" explain p
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
# standard input still streams
printf 'RuntimeError: CUDA error: out of memory\n' | timeout 5 "$G" explain - >/dev/null 2>&1
e=$?
[ $e -le 1 ] || bad "explain - (stdin): exit $e"
timeout 5 "$G" health --root "$F/nodes/cpu-vm/root" --no-vendor --kmsg - <"$F/kmsg/xid79.log" >/dev/null 2>&1
e=$?
[ $e -le 1 ] || bad "health --kmsg - (stdin): exit $e"
exit $rc
