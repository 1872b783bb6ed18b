#!/bin/sh
# policy-fifo.sh GPUAUDIT - issue 22 item 8: a FIFO (or a device) given as
# --policy blocked open() or read() with no bound. ga_file_read opens non-blocking
# and refuses what is not a regular file; '-' stays the way to stream.
set -u
GA=$1
ROOT=$SRCDIR/tests/fixtures/nodes/cpu-vm/root
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/p.yaml" || exit 77
fail=0
for p in "$dir/p.yaml" /dev/zero; do
	out=$(timeout 5 "$GA" check --policy "$p" --root "$ROOT" 2>&1 </dev/null)
	rc=$?
	case "$rc:$out" in
	"2:gpuaudit check: cannot read policy $p: "*", not a regular file: refused, it could block forever (to stream, pass - and redirect it to standard input)") ;;
	*) echo "FAIL: $p: exit $rc: $out"; fail=1 ;;
	esac
done
# standard input still streams, from a pipe too
out=$(printf 'version: 1\nclasses: [{name: any}]\n' | timeout 5 "$GA" check --policy - --root "$ROOT" 2>&1)
rc=$?
case "$rc:$out" in
"0:class any: PASS"*) ;;
*) echo "FAIL: stdin: exit $rc: $out"; fail=1 ;;
esac
exit $fail
