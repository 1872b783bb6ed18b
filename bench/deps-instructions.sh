#!/usr/bin/env bash
# bench/deps-instructions.sh - instructions executed by two gpuaudit binaries
# for the same `deps` run, counted by callgrind: repeatable on a noisy
# machine (the same binary, input and environment give the same count), so a
# change of a few per cent in the ELF reader shows where wall time cannot.
#
#   bench/deps-instructions.sh OLD NEW [DIR]    default DIR /usr/lib/x86_64-linux-gnu
#
# One thread (GPUAUDIT_DEPS_THREADS=1), three modes: the full census as JSON,
# --no-device-code as JSON, --no-device-code as text. Writes
# bench/results/deps-instructions-<host>.md and prints it. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/deps-instructions.sh OLD NEW [DIR]}
new=${2:?usage: bench/deps-instructions.sh OLD NEW [DIR]}
dir=${3:-/usr/lib/x86_64-linux-gnu}
command -v valgrind >/dev/null || { echo "bench: valgrind missing" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # count BIN ARGS... -> instructions
	GPUAUDIT_DEPS_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>"$tmp/err" || true
	sed -n 's/^summary: //p' "$tmp/cg"
}
out=bench/results/deps-instructions-$(uname -n).md
mkdir -p bench/results
{
	echo "| deps mode on $dir | old instructions | new instructions | new/old |"
	echo "|---|---:|---:|---:|"
	for mode in "--json" "--no-device-code --json" "--no-device-code"; do
		# shellcheck disable=SC2086
		o=$(count "$old" deps $mode "$dir")
		# shellcheck disable=SC2086
		n=$(count "$new" deps $mode "$dir")
		awk -v m="$mode" -v o="$o" -v n="$n" 'BEGIN { printf "| %s | %d | %d | %.3f |\n", m, o, n, n / o }'
	done
	echo
	echo "callgrind, one thread, $(date -u +%Y-%m-%dT%H:%MZ)."
} >"$out"
cat "$out"
