#!/bin/sh
# bench/corpus-heldout.sh - score one held-out batch of the incident corpus (issue 27)
# on its own: the incidents of tests/corpus/incidents/<category>/ whose slug starts
# with PREFIX (default `ho-`, held-out batch i, tests/corpus/incidents/SOURCES-i.md), or
# with any of several comma-separated prefixes (`je-,jf-`: the batches scored together).
#
#   bench/corpus-heldout.sh [PREFIX[,PREFIX...]] [GPUAUDIT]
#
# Links the batch's .log/.expect pairs into a temporary tree and runs the corpus scorer
# on it (tests/integration/explain-corpus.sh with SRCDIR pointing there and floors 0),
# so the rules of scoring are the scorer's own: top-ranked cause's class and action
# against the .expect, no cause = class `unknown` / action `investigate`. Prints the
# score by category (class %, decision %, n) and every miss with (expected, got, the
# cause's id). GPUAUDIT defaults to build/gpuaudit. Exit: the scorer's (0 unless an
# .expect is malformed or explain fails), 2 when no incident has the prefix.
set -u
prefix=${1:-ho-}
gpuaudit=${2:-build/gpuaudit}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
for log in $(for p in $(echo "$prefix" | tr ',' ' '); do
	ls "$top"/tests/corpus/incidents/*/"$p"*.log 2>/dev/null
done | sort -u); do
	cat=$(basename "$(dirname "$log")")
	mkdir -p "$tmp/tests/corpus/incidents/$cat"
	ln -s "$log" "$tmp/tests/corpus/incidents/$cat/"
	ln -s "${log%.log}.expect" "$tmp/tests/corpus/incidents/$cat/"
	n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
	echo "no incident with the prefix '$prefix'" >&2
	exit 2
fi
echo "held-out batch '$prefix': $n incidents, scored with $gpuaudit"
SRCDIR=$tmp MIN_CLASS=0 MIN_DECISION=0 sh "$top/tests/integration/explain-corpus.sh" "$gpuaudit"
