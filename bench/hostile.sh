#!/usr/bin/env bash
# bench/hostile.sh - time and peak memory of two gpuaudit binaries on the
# hostile inputs of issue 22, side by side: what each input cost before the
# defences and what it costs after. Every input is generated here (nothing
# large in git); every run is bounded by `timeout` (exit 124 = it was still
# running at the bound: the hang the issue describes).
#
#   bench/hostile.sh OLD NEW [TIMEOUT_S]      default bound 20 s per run
#
# Writes bench/results/hostile-<host>.md and prints it. Needs python3 and GNU
# time (/usr/bin/time, Debian package time: scripts/install-deps --bench).
# Also runs tests/hostile/serve-slowloris.sh's attack on each binary's serve and
# keeps its summary lines (scrapes answered within the budget under 64 and 200
# slow clients).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/hostile.sh OLD NEW [TIMEOUT_S]}
new=${2:?usage: bench/hostile.sh OLD NEW [TIMEOUT_S]}
bound=${3:-20}
old=$(realpath "$old")
new=$(realpath "$new")
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (scripts/install-deps --bench)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=tests/fixtures/nodes/cpu-vm/root
python3 - "$tmp" <<'PY'
import io, sys, zipfile
d = sys.argv[1]
n = 1 << 20
open(d + "/two-byte.yaml", "wb").write(b"%\xfe")
open(d + "/deep-flow.yaml", "w").write("[" * n)
open(d + "/flat-flow.yaml", "w").write("[" + "a," * (n // 2 - 1) + "]")
inner = b""
for i in range(500):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr("n.zip" if i else "x.txt", inner or b"x")
    inner = b.getvalue()
open(d + "/nested-500.zip", "wb").write(inner)
inner = b""
for i in range(6000):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr("n.zip" if i else "x.txt", inner or b"x")
    inner = b.getvalue()
open(d + "/nested-6000.zip", "wb").write(inner)
zero = b"\0" * (1 << 20)
with zipfile.ZipFile(d + "/big-member.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    with z.open("lib/libbig.so", "w", force_zip64=True) as m:
        m.write(b"\x7fELF\x02\x01\x01" + b"\0" * 57)
        for _ in range(1024):
            m.write(zero)
PY
python3 tests/fixtures/deps/mkquine.py "$tmp/quine.zip" >/dev/null
so=/usr/lib/x86_64-linux-gnu/libm.so.6
[ -f "$so" ] && head -c 4096 "$so" >"$tmp/cut-libm.so"
declare -a names args
add() { names+=("$1"); args+=("$2"); }
add "check --policy: 2-byte policy '%\\xfe'" "check --policy $tmp/two-byte.yaml --root $root --no-vendor"
add "check --policy: 1 MiB of '['" "check --policy $tmp/deep-flow.yaml --root $root --no-vendor"
add "check --policy: 1 MiB flat flow list" "check --policy $tmp/flat-flow.yaml --root $root --no-vendor"
add "deps: 500 nested stored zips (57 KB)" "deps $tmp/nested-500.zip"
add "deps: 6,000 nested stored zips" "deps $tmp/nested-6000.zip"
add "deps: zip quine (a zip that contains itself)" "deps $tmp/quine.zip"
add "deps: zip, ELF member inflating to 1 GiB" "deps $tmp/big-member.zip"
[ -f "$tmp/cut-libm.so" ] && add "deps: libm.so.6 cut at 4096 bytes" "deps $tmp/cut-libm.so"
run() { # run BIN ARGS -> "exit seconds KiB"; at most 4 GiB of address space (the old
	# binary on the quine grows without end: exit 70, out of memory, is its answer here)
	# shellcheck disable=SC2086
	(ulimit -v 4194304; timeout "$bound" /usr/bin/time -o "$tmp/t" -f '%e %M' "$1" $2 >/dev/null 2>&1) && rc=0 || rc=$?
	# GNU time puts "Command exited with non-zero status N" first: the figures are the last line
	read -r s kib < <(tail -n 1 "$tmp/t" 2>/dev/null) || { s=">$bound"; kib="?"; }
	[ "$rc" = 124 ] && s=">$bound"
	echo "$rc $s $kib"
}
out=bench/results/hostile-$(uname -n).md
mkdir -p bench/results
{
	echo "| input | old: exit, s, peak KiB | new: exit, s, peak KiB |"
	echo "|---|---|---|"
	for i in "${!names[@]}"; do
		read -r orc os ok < <(run "$old" "${args[$i]}")
		read -r nrc ns nk < <(run "$new" "${args[$i]}")
		echo "| ${names[$i]} | $orc, $os, $ok | $nrc, $ns, $nk |"
	done
	echo
	# slowloris: the hostile test's own attack, its summary lines for each binary
	for b in old new; do
		bin=$old
		[ $b = new ] && bin=$new
		SRCDIR=$PWD timeout 120 tests/hostile/serve-slowloris.sh "$bin" 2>&1 | grep -E 'scrapes answered|slow request' |
			sed "s/^/- $b: /" || true
	done
	echo
	echo "exit 124: still running at the ${bound} s bound; 70 with no figures: out of memory at 4 GiB. $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)."
} >"$out"
cat "$out"
