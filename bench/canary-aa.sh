#!/usr/bin/env bash
# bench/canary-aa.sh - false rollbacks of `gpuaudit canary` on A/A pairs (issue 26):
# both arms run the same command, so every ROLLBACK is noise judged as a regression.
# Each pair is two `bench exec --runs RUNS -- CMD` one after the other (as a CI gate
# measures baseline and candidate) and `canary --no-tail` on them (10 runs cannot
# judge a p99).
#
#   bench/canary-aa.sh [-v] [-p PAIRS] [-r RUNS] [-t BUDGET_S] [-m MIN_PAIRS] -- CMD [ARG...]
#
# Defaults: 100 pairs, 10 runs, no time budget, CMD `true`. With -t it stops starting
# pairs after BUDGET_S seconds (the ctest runs it bounded), and exits 77 (skipped)
# when fewer than MIN_PAIRS (default 20) were done. Prints one line per command:
#   aa: CMD: N pairs of R runs, K rollbacks (X %), I inconclusive, S s, load L
# and with -v the reasons of each rollback. Extra canary options: CANARY_ARGS.
# Exit 0 when rollbacks <= 1 % of the pairs (rounded down: 0 below 100 pairs), 1
# otherwise, 2 usage. GPUAUDIT (default build/gpuaudit) is the binary.
set -uo pipefail
pairs=100 runs=10 budget=0 minpairs=20 verbose=0
while getopts vp:r:t:m: o; do
	case $o in
	v) verbose=1 ;;
	p) pairs=$OPTARG ;;
	r) runs=$OPTARG ;;
	t) budget=$OPTARG ;;
	m) minpairs=$OPTARG ;;
	*) echo "usage: $0 [-v] [-p PAIRS] [-r RUNS] [-t BUDGET_S] [-m MIN_PAIRS] -- CMD..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- true
bin=${GPUAUDIT:-build/gpuaudit}
[ -x "$bin" ] || { echo "canary-aa: $bin missing (build first, or set GPUAUDIT)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS n=0 rb=0 inc=0
while [ $n -lt "$pairs" ]; do
	if [ "$budget" -gt 0 ] && [ $((SECONDS - start)) -ge "$budget" ]; then
		break
	fi
	"$bin" bench exec --runs "$runs" -o "$tmp/a.json" -- "$@" >/dev/null 2>&1 || {
		echo "canary-aa: bench exec failed: $*" >&2; exit 2; }
	"$bin" bench exec --runs "$runs" -o "$tmp/b.json" -- "$@" >/dev/null 2>&1 || {
		echo "canary-aa: bench exec failed: $*" >&2; exit 2; }
	# shellcheck disable=SC2086
	"$bin" canary --no-tail ${CANARY_ARGS:-} --baseline "$tmp/a.json" --candidate "$tmp/b.json" \
		>"$tmp/out" 2>&1
	rc=$?
	n=$((n + 1))
	case $rc in
	0) ;;
	1)
		rb=$((rb + 1))
		if [ $verbose = 1 ]; then
			echo "pair $n: ROLLBACK"
			grep '^  - ' "$tmp/out"
		fi
		;;
	4) inc=$((inc + 1)) ;;
	*) echo "canary-aa: canary exit $rc"; cat "$tmp/out"; exit 2 ;;
	esac
done
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
pct=$(awk -v k=$rb -v n=$n 'BEGIN { printf "%.1f", n ? 100 * k / n : 0 }')
echo "aa: $*: $n pairs of $runs runs, $rb rollbacks ($pct %), $inc inconclusive, $((SECONDS - start)) s, load $load"
if [ $n -lt "$minpairs" ]; then
	echo "canary-aa: only $n pairs in ${budget} s (want $minpairs): machine too slow, skipped"
	exit 77
fi
[ $rb -le $((n / 100)) ]
