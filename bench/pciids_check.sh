#!/usr/bin/env bash
# bench/pciids_check.sh - the names of lib/collect/pciids.c equal libpci's, on the
# system pci.ids and the test one, and the time of one pass (bench/pciids_check.c).
# Needs libpci-dev (only here: gpuaudit itself no longer links libpci).
#
#   bench/pciids_check.sh [PCI.IDS...]   default /usr/share/misc/pci.ids tests/fixtures/pci.ids
#
# Exit 0 when no lookup differs; writes bench/results/pciids-check-<host>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/usr/share/misc/pci.ids tests/fixtures/pci.ids)
pkg-config --exists libpci || { echo "check: libpci-dev missing" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -std=c11 -D_GNU_SOURCE -Ilib -o "$tmp/check" bench/pciids_check.c lib/collect/pciids.c \
	$(pkg-config --cflags --libs libpci)
mkdir -p bench/results
out=bench/results/pciids-check-$(uname -n).txt
echo "bench/pciids_check.sh: $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD), libpci $(pkg-config --modversion libpci)" | tee "$out"
status=0
for f in "${files[@]}"; do
	"$tmp/check" "$f" | tee -a "$out" || status=1
done
exit $status
