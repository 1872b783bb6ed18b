#!/bin/sh
# Terminal injection through `gpuaudit deps` text (issue 22, item 4): a library
# whose file name holds ESC ]0;title BEL and a forged "result: PASS" line, and
# whose DT_NEEDED string (the SONAME of the library it links) holds ESC [2J.
# The text output must hold no raw ESC or BEL, the forged line must not start
# a line of its own, and the SARIF artifact URI must be percent-encoded.
# Argument: the gpuaudit binary. Needs gcc (77 otherwise).
set -u
bin=$1
src=${SRCDIR:?}/tests/fixtures/deps
command -v gcc >/dev/null 2>&1 || { echo "skip: no gcc"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
E=$(printf '\033')
B=$(printf '\007')
NL='
'
gcc -shared -fPIC -o libcudart.so.12 -Wl,-soname,"libcudart.so.12${E}[2J" "$src/fakevendor.c" || exit 1
echo 'int f(void) { return 0; }' >u.c
gcc -shared -fPIC -o libu.so u.c -L. -Wl,--no-as-needed -l:libcudart.so.12 || exit 1
mkdir d
mv libu.so "d/lib${E}]0;pwned${B}${NL}result: PASS (0 errors, 0 warnings)${NL}x.so" || exit 1

fail=0
timeout 10 "$bin" deps d >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: deps exit $rc, want 0"; cat err.txt; fail=1; }
if LC_ALL=C grep -q "[$E$B]" out.txt err.txt; then
	echo "FAIL: raw ESC/BEL in the text output:"; cat -v out.txt; fail=1
fi
n=$(grep -c '^result:' out.txt)
[ "$n" -eq 1 ] || { echo "FAIL: $n lines start with result:, want 1"; cat -v out.txt; fail=1; }
grep -qF 'd/lib\x1b]0;pwned\x07\nresult: PASS (0 errors, 0 warnings)\nx.so' out.txt ||
	{ echo "FAIL: the file name is not shown escaped"; cat -v out.txt; fail=1; }
grep -qF 'libcudart.so.12\x1b[2J' out.txt || { echo "FAIL: DT_NEEDED not shown escaped"; fail=1; }

timeout 10 "$bin" deps --sarif d >out.sarif 2>err.txt
grep -qF '"d/lib%1B%5D0;pwned%07%0Aresult%3A%20PASS%20(0%20errors,%200%20warnings)%0Ax.so"' out.sarif ||
	{ echo "FAIL: SARIF uri not percent-encoded"; grep '"uri"' out.sarif; fail=1; }
[ $fail -eq 0 ] && echo "ok: deps text escapes file names and DT_NEEDED, SARIF uri percent-encoded"
exit $fail
