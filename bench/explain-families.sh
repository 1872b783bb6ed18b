#!/bin/sh
# bench/explain-families.sh - how many of the generic-family lines (bench/explain-families.txt:
# one line per failure family and ecosystem, written from each project's own message) match no
# signature of `gpuaudit explain`, and which (issue 27; docs/explain.md "Generic families from
# the ecosystems' own messages"):
#
#   bench/explain-families.sh [GPUAUDIT]      default build/gpuaudit
#
# The first line of the list is its header; each other line is explained on its own. Prints every line no cause matched, then the count for the
# first list (lines 1-83) and the second (84 on). Exit 0; 2 when a line cannot be explained.
set -u
gpuaudit=${1:-build/gpuaudit}
list=$(dirname "$0")/explain-families.txt
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT INT TERM
i=0 a=0 b=0 na=0 nb=0
tail -n +2 "$list" | while IFS= read -r line; do
	i=$((i + 1))
	printf '%s\n' "$line" >"$tmp"
	id=$("$gpuaudit" explain --json "$tmp" 2>/dev/null | python3 -c 'import json,sys; c=json.load(sys.stdin)["causes"]; print(c[0]["id"] if c else "-")') || exit 2
	if [ "$i" -le 83 ]; then na=$((na + 1)); else nb=$((nb + 1)); fi
	if [ "$id" = "-" ]; then
		printf 'no match  %3d  %s\n' "$i" "$(printf '%s' "$line" | cut -c1-100)"
		if [ "$i" -le 83 ]; then a=$((a + 1)); else b=$((b + 1)); fi
	fi
	printf '%d %d %d %d\n' "$a" "$na" "$b" "$nb" >"$tmp.count"
done
read -r a na b nb <"$tmp.count"
rm -f "$tmp.count"
echo "first list: $a of $na match nothing; second list: $b of $nb match nothing ($gpuaudit)"
