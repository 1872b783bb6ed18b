#!/bin/sh
# policy-keys.sh GPUAUDIT - libfyaml 0.7.12's duplicate-key check is quadratic: 16,000
# keys in one mapping (190 KB) took 11 s, 32,000 a minute. The walk finds duplicates
# now; a mapping of 20,000 distinct keys must be refused within 5 s.
set -u
GA=$1
ROOT=$SRCDIR/tests/fixtures/nodes/cpu-vm/root
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
i=0
awk 'BEGIN { print "version: 1"; print "classes: []"; print "x:"; for (i = 0; i < 20000; i++) printf "  k%d: 1\n", i }' >"$dir/p.yaml"
out=$(timeout 5 "$GA" check --policy "$dir/p.yaml" --root "$ROOT" 2>&1)
rc=$?
case "$rc:$out" in
"2:"*"p.yaml:3:1: unknown key 'x' in the policy"*) exit 0 ;;
esac
echo "FAIL: exit $rc: $out"
exit 1
