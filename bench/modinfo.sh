#!/usr/bin/env bash
# bench/modinfo.sh - what discover pays to read the nvidia module file installed for the running
# kernel (drivers[].module_file_version, read only when the loaded module and the driver
# libraries differ), side by side with kmod's `modinfo -F version` on the same file.
#
#   bench/modinfo.sh [TEXT_MIB] [RUNS]     default 64 MiB of .text, 10 runs
#
# The module is synthesized (tests/fixtures/nodes/mk-modinfo-ko.py VERSION TEXT_MIB: a .text
# half pseudo-random, half a repeated pattern, .modinfo after it as in a real module; a real
# nvidia.ko of the 550-580 branches is 60-100 MiB) and put plain, xz- and zstd-compressed in a
# copy of the synthesized dgx-h100 tree whose libraries differ from the loaded module. Each case
# times `discover --root TREE --no-vendor --json` and `modinfo -F version FILE`; a last case
# times discover with the libraries matching the module (the file is not read): the difference is
# what the file costs. Medians from hyperfine. Writes bench/results/modinfo.txt.
set -euo pipefail
MIB=${1:-64}
RUNS=${2:-10}
GPUAUDIT=${GPUAUDIT:-build/gpuaudit}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
MODINFO=$(command -v modinfo || echo /usr/sbin/modinfo)
for t in hyperfine python3 xz zstd "$MODINFO"; do
	command -v "$t" >/dev/null || { echo "bench/modinfo.sh: $t is not installed" >&2; exit 1; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
cp -r "$SRCDIR/tests/fixtures/nodes/dgx-h100/root" "$R"
cp -r "$R" "$T/agree"
for f in libnvidia-ml libcuda; do
	mv "$R/usr/lib/x86_64-linux-gnu/$f.so.580.95.05" "$R/usr/lib/x86_64-linux-gnu/$f.so.580.105.08"
done
M=$R/lib/modules/6.8.0-1015-nvidia
mkdir -p "$M/updates/dkms"
python3 "$SRCDIR/tests/fixtures/nodes/mk-modinfo-ko.py" 580.105.08 "$MIB" >"$T/nvidia.ko"
xz -T1 -c "$T/nvidia.ko" >"$T/nvidia.ko.xz"
zstd -q -19 -c "$T/nvidia.ko" >"$T/nvidia.ko.zst"
out=$SRCDIR/bench/results/modinfo.txt
{
	echo "modinfo benchmark: $(uname -m), $(nproc) CPUs, $(date -u +%Y-%m-%d) (load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "module: synthesized, .text $MIB MiB; plain $(stat -c %s "$T/nvidia.ko") B, xz $(stat -c %s "$T/nvidia.ko.xz") B, zstd $(stat -c %s "$T/nvidia.ko.zst") B"
	echo "$("$MODINFO" --version | head -n 1); hyperfine -N -i --warmup 1 --runs $RUNS, medians:"
} >"$out"
med() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.4f" % x["median"] for x in r))' "$1"; }
for f in nvidia.ko nvidia.ko.xz nvidia.ko.zst; do
	rm -f "$M/updates/dkms/"nvidia.ko*
	cp "$T/$f" "$M/updates/dkms/$f"
	printf 'updates/dkms/%s:\n' "$f" >"$M/modules.dep"
	got=$({ "$GPUAUDIT" discover --root "$R" --no-vendor --json || true; } | python3 -c 'import json,sys; d=json.load(sys.stdin); print(next(x.get("module_file_version") for x in d["drivers"] if x["name"] == "nvidia"))')
	hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$T/h.json" \
		"$GPUAUDIT discover --root $R --no-vendor --json" "$MODINFO -F version $M/updates/dkms/$f" >/dev/null
	read -r d m <<<"$(med "$T/h.json")"
	printf '  %-14s discover %s s (module_file_version %s), modinfo %s s\n' "$f" "$d" "$got" "$m" >>"$out"
done
hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$T/h.json" "$GPUAUDIT discover --root $T/agree --no-vendor --json" >/dev/null
printf '  %-14s discover %s s (libraries match the module: the file is not read)\n' "agree" "$(med "$T/h.json")" >>"$out"
cat "$out"
