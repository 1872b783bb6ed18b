#!/bin/sh
# sanitizer-pass - what the sanitizer pass of `make test` costs with one build variant, on a build
# tree of its own (CI's 20-minute budget; docs/performance.md "make test"):
#
#   bench/sanitizer-pass.sh VARIANT BUILD_DIR [EXTRA_ASAN_OPTIONS]
#
# VARIANT: gcc (CI's: GCC, ASan+UBSan, -O1, PIE), clang (CC=clang, warnings not errors: clang
# warns on two test files), gcc-noglobals (GCC with --param asan-globals=0). EXTRA_ASAN_OPTIONS is
# appended to make test's ASAN_OPTIONS (e.g. :quarantine_size_mb=32). Configures and builds the
# tree (an existing tree is rebuilt incrementally), then prints the CPU cost of 20 sanitized
# `gpuaudit --version` runs (with and without LeakSanitizer) and /usr/bin/time of the pass's ctest
# as make test runs it (-j JOBS+1, the same labels left out). The pass's failures are printed.
set -u
variant=${1:?variant: gcc, clang or gcc-noglobals}
dir=${2:?build directory}
extra=${3:-}
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
case $variant in
gcc) set -- ;;
clang) set -- -DGA_WERROR=OFF ;;
gcc-noglobals) set -- "-DCMAKE_C_FLAGS=--param asan-globals=0" ;;
*) echo "unknown variant $variant" >&2; exit 2 ;;
esac
if [ "$variant" = clang ]; then cc=clang; else cc=gcc; fi
CC=$cc cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DGA_SANITIZE=ON "$@" >"$dir.configure.log" 2>&1 &&
	cmake --build "$dir" -j "$jobs" >"$dir.build.log" 2>&1 || { echo "build failed: $dir.build.log"; exit 1; }
for leaks in 1 0; do
	/usr/bin/time -f "$variant: 20 x gpuaudit --version, detect_leaks=$leaks: %e s wall, %U s user, %S s sys" \
		sh -c "for i in \$(seq 20); do ASAN_OPTIONS=detect_leaks=$leaks$extra $dir/gpuaudit --version >/dev/null; done"
done
cd "$dir" || exit 1
/usr/bin/time -o ctest-pass.time -f "$variant$extra: sanitizer ctest %e s wall, %U s user, %S s sys" \
	env ASAN_OPTIONS="detect_leaks=1:abort_on_error=1$extra" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest -j $((jobs + 1)) -LE 'source|measure|sanitizer-one-log' >ctest-pass.log 2>&1
cat ctest-pass.time
grep -E '\((Failed|Timeout)\)' ctest-pass.log || echo "every test passed"
