#!/bin/sh
# The CUDA driver API's and NVML's message tables (tools/errstrings/{cu,nvml}.tsv, compiled into
# lib/core/errcodes/{cu,nvml}.str.def) against the libraries themselves: tools/fetch-driver-libs
# downloads Debian's non-free libcuda1 and libnvidia-ml1 (pinned versions and sha256 sums, cached
# under $GA_TEST_CACHE, default /var/cache/gpuaudit-tests), tools/dump-errstrings asks
# cuGetErrorString and nvmlErrorString for every code again, and the two lists must equal the
# committed ones line for line (the header line names the package and is compared too). No GPU,
# driver or kernel module is involved: the functions read the library's own table.
# Exit 0 pass, 1 fail, 77 skipped (offline and not cached, or no python3/dpkg-deb).
set -u
src=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
for t in python3 dpkg-deb curl sha256sum; do
	command -v $t >/dev/null 2>&1 || { echo "skipped: $t is needed"; exit 77; }
done
lib=$("$src/tools/fetch-driver-libs") ; rc=$?
[ $rc = 77 ] && { echo "skipped: the driver packages could not be fetched and are not cached"; exit 77; }
[ $rc = 0 ] || { echo "FAIL: tools/fetch-driver-libs exit $rc"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
v=$(basename "$(dirname "$lib")")
fail=0
for fam in cu nvml; do
	pkg=libcuda1
	[ $fam = nvml ] && pkg=libnvidia-ml1
	suite=experimental
	case $v in 535.*) suite=bookworm ;; esac
	LD_LIBRARY_PATH=$lib python3 "$src/tools/dump-errstrings" $fam --out "$out" \
		--from "Debian $pkg $v ($suite, non-free)" >/dev/null || { echo "FAIL: dump-errstrings $fam"; fail=1; continue; }
	if [ "$v" = 555.58.02-4 ]; then
		diff -u "$src/tools/errstrings/$fam.tsv" "$out/$fam.tsv" || { echo "FAIL: $fam.tsv differs from $pkg $v"; fail=1; }
	else
		# an older driver knows fewer codes: each text it has must be the committed one
		tail -n +2 "$out/$fam.tsv" | while IFS='	' read -r name text; do
			[ -n "$text" ] || continue
			grep -qxF "$name	$text" "$src/tools/errstrings/$fam.tsv" || echo "FAIL: $fam $name: $text"
		done | tee "$out/$fam.bad"
		[ -s "$out/$fam.bad" ] && fail=1
	fi
	echo "$fam: $(grep -c '	.' "$out/$fam.tsv") messages from $pkg $v"
done
[ $fail = 0 ] && echo "errstrings-driver: the committed tables are the libraries' own"
exit $fail
