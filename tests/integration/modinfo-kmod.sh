#!/bin/sh
# modinfo-kmod - discover's .modinfo reader against kmod's modinfo (issue 27 point 5, the module
# file installed for the running kernel): synthesized modules (tests/fixtures/nodes/mk-modinfo-ko.py,
# with a decoy version string in .rodata) of several versions, plain and compressed with xz, zstd and
# gzip, each put in a copy of the synthesized dgx-h100 tree whose driver libraries differ from the
# loaded module (the only case discover reads the file in); discover's drivers[].module_file_version
# must be what `modinfo -F version FILE` prints. Exit 77 (skipped) without modinfo, python3 or a
# compressor. Argument: the gpuaudit binary.
set -eu
GPUAUDIT=$1
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MODINFO=$(command -v modinfo || ls /usr/sbin/modinfo /sbin/modinfo 2>/dev/null | head -n 1 || true)
if [ -z "$MODINFO" ] || ! command -v python3 >/dev/null; then
	echo "modinfo-kmod: skipped: kmod's modinfo or python3 is not installed (apt-get install kmod)"
	exit 77
fi
for z in xz zstd gzip; do
	command -v "$z" >/dev/null || { echo "modinfo-kmod: skipped: $z is not installed"; exit 77; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
cp -r "$SRCDIR/tests/fixtures/nodes/dgx-h100/root" "$R"
for f in libnvidia-ml libcuda; do
	mv "$R/usr/lib/x86_64-linux-gnu/$f.so.580.95.05" "$R/usr/lib/x86_64-linux-gnu/$f.so.580.105.08"
done
KR=6.8.0-1015-nvidia
M=$R/lib/modules/$KR
mkdir -p "$M/updates/dkms"
fail=0 n=0 nw=0
for v in 580.105.08 580.95.05 550.163.01 1.0; do
	for comp in none xz zstd gzip; do
		rm -f "$M/updates/dkms/"nvidia.ko*
		python3 "$SRCDIR/tests/fixtures/nodes/mk-modinfo-ko.py" "$v" >"$T/nvidia.ko"
		case $comp in
		none) f=nvidia.ko; cp "$T/nvidia.ko" "$M/updates/dkms/$f" ;;
		xz) f=nvidia.ko.xz; xz -c "$T/nvidia.ko" >"$M/updates/dkms/$f" ;;
		zstd) f=nvidia.ko.zst; zstd -q -c "$T/nvidia.ko" >"$M/updates/dkms/$f" ;;
		gzip) f=nvidia.ko.gz; gzip -c "$T/nvidia.ko" >"$M/updates/dkms/$f" ;;
		esac
		printf 'updates/dkms/%s:\n' "$f" >"$M/modules.dep"
		# a kmod built without a codec (Debian 12's has no zlib) cannot read that file: the
		# version written into it is the reference then, and the case is counted apart
		if want=$("$MODINFO" -F version "$M/updates/dkms/$f" 2>/dev/null); then
			ref=modinfo
		else
			want=$v ref=written
			nw=$((nw + 1))
		fi
		got=$("$GPUAUDIT" discover --root "$R" --no-vendor --json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(next((x.get("module_file_version") for x in d["drivers"] if x["name"] == "nvidia"), None))')
		n=$((n + 1))
		if [ "$got" != "$want" ]; then
			echo "FAIL $v $comp: discover $got, $ref $want"
			fail=1
		fi
	done
done
echo "modinfo-kmod: $n modules, $((n - nw)) compared with $MODINFO, $nw that it cannot read compared with the version written"
exit $fail
