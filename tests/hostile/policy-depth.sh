#!/bin/sh
# policy-depth.sh GPUAUDIT - issue 22: a 1 MiB policy of deep flow sequences took
# ~350 MB resident (libfyaml tokenizes the whole flow before its depth limit), and a
# 1 MiB flat list or mapping as much (~550 bytes per node). Each is now refused by
# the prescan: exit 2, within 5 s, under 64 MB resident (GNU time's %M).
set -u
GA=$1
ROOT=$SRCDIR/tests/fixtures/nodes/cpu-vm/root
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys
d, n = sys.argv[1], 1 << 20
open(d + "/deep-flow.yaml", "w").write("[" * n)
open(d + "/deep-map.yaml", "w").write(("{a: " * (n // 4))[:n])
open(d + "/deep-block.yaml", "w").write("".join(" " * i + "- \n" for i in range(1400))[:n])
open(d + "/flat-flow.yaml", "w").write("[" + "a," * (n // 2 - 1) + "]")
open(d + "/flat-block.yaml", "w").write("- a\n" * (n // 4))
keys, size, i = [], 0, 0
while size < n - 16:
    k = "k%x: 1\n" % i
    keys.append(k); size += len(k); i += 1
open(d + "/many-keys.yaml", "w").write("".join(keys))
PY
fail=0
for f in deep-flow:'1:32: nested deeper than 32 levels' deep-map:'1:125: nested deeper than 32 levels' \
	deep-block:'32:32: nested deeper than 32 levels' \
	flat-flow:'1:131073: more than 65536 characters that can start a YAML node' \
	flat-block:'65537:1: more than 65536 characters that can start a YAML node' \
	many-keys:'more than 65536 characters that can start a YAML node'; do
	name=${f%%:*}
	want=${f#*:}
	out=$(timeout 5 /usr/bin/time -f 'maxrss_kb=%M' -o "$dir/rss" "$GA" check --policy "$dir/$name.yaml" --root "$ROOT" 2>&1)
	rc=$?
	rss=$(sed -n 's/^maxrss_kb=//p' "$dir/rss" 2>/dev/null)
	case "$out" in
	*"$name.yaml:"*"$want"*) ;;
	*) echo "FAIL: $name: exit $rc: $out (want: $want)"; fail=1; continue ;;
	esac
	if [ "$rc" != 2 ] || [ -z "$rss" ] || [ "$rss" -gt 65536 ]; then
		echo "FAIL: $name: exit $rc, max RSS ${rss:-?} KB (want exit 2, under 65536 KB)"
		fail=1
	else
		echo "ok: $name: exit 2, max RSS $rss KB"
	fi
done
exit $fail
