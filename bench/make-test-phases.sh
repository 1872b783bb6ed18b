#!/bin/bash
# make-test-phases - the time of each phase of `make test` (CI's 20-minute budget), on a
# fresh clone of the current commit, as CI runs it (CI=true: WERROR=ON):
#
#   bench/make-test-phases.sh [WORKDIR]     default /tmp/ga-phases
#
# Prints one line per phase (deps, build, lint, normal ctest, ASan build + ctest, fuzz
# build + run) with its exit status and seconds, then the total, and the CPU cost of
# starting one sanitized process against a normal one (`gpuaudit --version`, 50 runs):
# what makes the sanitizer pass slow. Every phase runs even after one fails, so the
# times are whole. integration/package runs only where its tools are installed (CI's
# machine has them: its log shows the test passing); its time is printed apart.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/ga-phases}
rm -rf "$work"
git clone -q "$src" "$work" || exit 1
cd "$work" || exit 1
export CI=true
t0=$(date +%s)
status=0
phase() {
	local name=$1
	shift
	local s=$(date +%s)
	"$@" >"$work/phase-$name.log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || status=1
	printf '%-8s rc=%d %5d s\n' "$name" "$rc" $(($(date +%s) - s))
}
phase deps make deps
phase build make build
phase lint make lint
phase normal make test-normal
phase asan make test-asan
phase fuzz make fuzz-short FUZZ_OPTIONAL=1
printf '%-8s      %5d s\n' total $(($(date +%s) - t0))
pkg=$(sed -n 's/.*integration\/package .*Passed *\([0-9.]*\) sec.*/\1/p' "$work/phase-normal.log")
[ -n "$pkg" ] && echo "of which integration/package: $pkg s"
for b in build build-asan; do
	[ -x "$b/gpuaudit" ] || continue
	/usr/bin/time -f "$b: 50 x gpuaudit --version: %e s wall, %U s user, %S s sys" \
		sh -c "for i in \$(seq 50); do ASAN_OPTIONS=detect_leaks=1 ./$b/gpuaudit --version >/dev/null; done"
done
exit $status
