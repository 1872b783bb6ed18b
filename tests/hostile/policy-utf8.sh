#!/bin/sh
# policy-utf8.sh GPUAUDIT - issue 22: "%\xfe" (a directive with a byte that is not
# UTF-8) made libfyaml 0.7.12 spin forever in fy_scan_directive, wedging check, serve,
# preflight and fleet. Each variant must be refused within 5 s, exit 2, with
# FILE:LINE:COLUMN of the first bad byte.
set -u
GA=$1
ROOT=$SRCDIR/tests/fixtures/nodes/cpu-vm/root
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
# printf format | expected message tail
while IFS='|' read -r bytes want; do
	printf "$bytes" >"$dir/p.yaml"
	out=$(timeout 5 "$GA" check --policy "$dir/p.yaml" --root "$ROOT" 2>&1)
	rc=$?
	case "$rc:$out" in
	"2:gpuaudit check: $dir/p.yaml:$want"*) ;;
	*)
		echo "FAIL: $bytes: exit $rc: $out (want exit 2, p.yaml:$want)"
		fail=1
		;;
	esac
done <<'CASES'
%%\376|1:2: a byte that is never UTF-8 (byte 0xfe)
%%"\246|1:3: a UTF-8 continuation byte without a lead byte (byte 0xa6)
%%\355\240\200|1:2: a UTF-16 surrogate written as UTF-8 (byte 0xed)
%%YAML 1.2\n%%TAG ! \300\200\n---\na: 1\n|2:8: an overlong UTF-8 sequence (byte 0xc0)
%%YAML 1.2 \364\220\200\200\n|1:11: a code point above U+10FFFF (byte 0xf4)
version: 1\n%%\376\n|2:2: a byte that is never UTF-8 (byte 0xfe)
version: 1\nclasses: [] # \033]0;pwned\007\n|2:15: a control character (U+001B)
CASES
exit $fail
