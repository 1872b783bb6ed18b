#!/usr/bin/env bash
# bench/census-read.sh - how the device-code census should read the bytes it scans on
# this machine (issue 28): bench/census_read.c reads the sections `gpuaudit deps`
# scans in every ELF file of DIR four ways (pread windows into one reused buffer;
# mapped windows filled with MADV_POPULATE_READ and dropped with MADV_DONTNEED, as
# the census did before issue 28; mapped and populated, kept to the end; mapped and
# faulted), scanning each for fatbin magics, and pread of every byte (what `cat`
# reads); and the floor of an exact census (issue 28, item 6): as many bytes as lie
# outside the fatbin containers of those sections and of .nv_fatbin / __nv_relfatbin
# (every one of them must be looked at: a container can start at any 4-byte step),
# read in 256 KiB calls ("needed"), and those bytes plus every container and entry
# header read by a plan that knows where each header lies, merging reads less than
# 16 KiB apart ("floor"); interleaved, single thread; prints the median CPU time of
# each. Then the
# cost of one pread (64 B .. 256 KiB) and of a first touch of a mapped page
# (strides 4 KiB .. 256 KiB), which is what the census's header read-ahead trades.
#
#   bench/census-read.sh [ROUNDS] [DIR]     default 5 rounds, /usr/local/cuda/lib64/
#
# Writes bench/results/census-read-<host>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
dir=${2:-/usr/local/cuda/lib64/}
[ -d "$dir" ] || { echo "bench: $dir absent" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O3 -std=c11 -Wall -o "$tmp/census_read" bench/census_read.c
mapfile -d '' files < <(find "$dir" -type f -size +1M -print0)
big=$(find "$dir" -type f -size +1M -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
mkdir -p bench/results
{
	echo "# bench/census-read.sh $rounds $dir: $(hostname), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(uname -r), $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	"$tmp/census_read" "$rounds" "${files[@]}"
	"$tmp/census_read" -c "$big"
} | tee "bench/results/census-read-$(hostname).txt"
