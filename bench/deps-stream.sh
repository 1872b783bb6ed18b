#!/usr/bin/env bash
# bench/deps-stream.sh - issue 28 point 1: `gpuaudit deps` on a wheel holding one
# ~2 GB library, against `bsdtar -xOf WHEEL MEMBER >/dev/null` (inflating it and
# throwing it away: the floor any reader of the member pays). Generated in a
# temporary directory (never committed): a small shared library with an sm_80
# fatbin in .nv_fatbin (gcc), grown to SIZE MiB by objcopy with a non-loaded
# section that is mostly zeros with a 4 KiB pseudo-random block every 64 KiB
# (sparse-ish: deflate shrinks it ~15 times, well under --max-ratio), stored in
# one wheel and deflated (zlib level 1) in another.
#
#   bench/deps-stream.sh [RUNS]   default 3 runs per command (hyperfine, 1 warmup)
#
# Reports per wheel: median wall time, MiB/s of the member, peak RSS
# (/usr/bin/time -v "Maximum resident set size"), and gpuaudit's throughput as a
# share of bsdtar's (target >= 70 %), peak RSS (target <= 64 MiB).
# Env: GPUAUDIT (default build/gpuaudit), SIZE (MiB, default 2048; needs about
# 2.3 x SIZE of disk in BENCH_TMP, default /tmp, plus SIZE for the spool in
# TMPDIR), BASELINE (optional: another gpuaudit binary, e.g. built from an
# earlier commit, timed in the same run as a third row "baseline").
# Writes bench/results/deps-stream.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
size=${SIZE:-2048}
bin=$(realpath "${GPUAUDIT:-build/gpuaudit}")
for t in hyperfine bsdtar python3 gcc objcopy; do
	command -v $t >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing" >&2; exit 3; }
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/deps-stream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$bin" "$tmp/gpuaudit"
bin=$tmp/gpuaudit
base=
if [ -n "${BASELINE:-}" ]; then
	[ -x "$BASELINE" ] || { echo "bench: BASELINE $BASELINE not executable" >&2; exit 3; }
	cp "$BASELINE" "$tmp/gpuaudit-baseline"
	base=$tmp/gpuaudit-baseline
fi
df -h "$tmp" | tail -1 | awk '{print "bench: " $4 " free in " $6}' >&2

python3 - "$tmp" "$size" <<'PY'
import os, random, struct, subprocess, sys, zipfile
tmp, size = sys.argv[1], int(sys.argv[2]) << 20
os.chdir(tmp)
payload = b"\0" * 32
hdr = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x0101, 64, len(payload), 0, 0, 8, 1, 80, 0, 0, 0x11, 0, 0)
body = hdr + payload
blob = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body
with open("big.c", "w") as f:
    f.write('__attribute__((section(".nv_fatbin"), aligned(4096), used))\n'
            "const unsigned char devcode[] = {%s};\nint k(void) { return 0; }\n" % ",".join(map(str, blob)))
rnd = random.Random(28)
chunk = bytearray(64 << 10)
with open("payload.bin", "wb") as f:
    for _ in range(size // len(chunk)):
        chunk[:4096] = rnd.randbytes(4096)
        f.write(chunk)
subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", "small.so", "big.c"], check=True)
subprocess.run(["objcopy", "--add-section", ".bench.payload=payload.bin", "--set-section-flags",
                ".bench.payload=noload,readonly", "small.so", "libbig.so"], check=True)
os.unlink("payload.bin")
for name, method in (("stored", zipfile.ZIP_STORED), ("deflated", zipfile.ZIP_DEFLATED)):
    with zipfile.ZipFile(f"big_{name}-1.0-py3-none-any.whl", "w", method, compresslevel=1) as z:
        zi = zipfile.ZipInfo("big/lib/libbig.so", (2024, 1, 1, 0, 0, 0))
        zi.compress_type = method
        with open("libbig.so", "rb") as src, z.open(zi, "w", force_zip64=True) as dst:
            while b := src.read(8 << 20):
                dst.write(b)
        z.writestr("big_%s-1.0.dist-info/METADATA" % name, "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n")
print("member:", os.path.getsize("libbig.so") >> 20, "MiB; wheels:",
      ", ".join(f"{n} {os.path.getsize(f'big_{n}-1.0-py3-none-any.whl') >> 20} MiB" for n in ("stored", "deflated")),
      file=sys.stderr)
os.unlink("libbig.so")
PY
member_bytes=$(bsdtar -xOf "$tmp/big_stored-1.0-py3-none-any.whl" big/lib/libbig.so | wc -c)

rss() { /usr/bin/time -v "$@" >/dev/null 2>"$tmp/rss" || true; awk -F': ' '/Maximum resident/ {print $2}' "$tmp/rss"; }
out=()
for kind in stored deflated; do
	w="$tmp/big_$kind-1.0-py3-none-any.whl"
	# the verdict: the member is read whole (no gap), its sm_80 kernel found
	"$bin" deps --target cuda:12.4,sm_80 "$w" >"$tmp/verdict.$kind" 2>&1 || true
	[ -z "$base" ] || "$base" deps --target cuda:12.4,sm_80 "$w" >"$tmp/verdict-base.$kind" 2>&1 || true
	extra=()
	[ -z "$base" ] || extra=(-n "baseline: gpuaudit deps ... WHEEL" "$base deps --target cuda:12.4,sm_80 $w")
	hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$tmp/$kind.json" \
		-n "gpuaudit deps --target cuda:12.4,sm_80 WHEEL" "$bin deps --target cuda:12.4,sm_80 $w" \
		-n "bsdtar -xOf WHEEL MEMBER >/dev/null" "bash -c 'bsdtar -xOf $w big/lib/libbig.so >/dev/null'" \
		"${extra[@]}" >/dev/null
	out+=("$(rss "$bin" deps --target cuda:12.4,sm_80 "$w")" "$(rss bsdtar -xOf "$w" big/lib/libbig.so)")
	[ -z "$base" ] || out+=("$(rss "$base" deps --target cuda:12.4,sm_80 "$w")")
done

mkdir -p bench/results
python3 - "$tmp" "$runs" "$member_bytes" "${out[@]}" <<'PY' | tee bench/results/deps-stream.txt
import json, os, sys, datetime, platform
tmp, runs, member = sys.argv[1], sys.argv[2], int(sys.argv[3])
rss = sys.argv[4:]
per = len(rss) // 2
la = os.getloadavg()
print(f"# gpuaudit deps on a wheel with one {member / 2**20:.0f} MiB library: {platform.node()} "
      f"({os.cpu_count()} CPUs), {datetime.date.today()}")
print(f"# bench/deps-stream.sh {runs}; hyperfine medians, warm cache; load average at the end "
      f"{la[0]:.1f} {la[1]:.1f} {la[2]:.1f} (shared machine: expect noise)")
for i, kind in enumerate(("stored", "deflated")):
    res = [(r["command"], r["median"], r["user"] + r["system"]) for r in json.load(open(f"{tmp}/{kind}.json"))["results"]]
    wheel = os.path.getsize(f"{tmp}/big_{kind}-1.0-py3-none-any.whl")
    verdict = open(f"{tmp}/verdict.{kind}").read()
    result = [l for l in verdict.splitlines() if l.startswith("result:")]
    print()
    print(f"{kind} wheel ({wheel / 2**20:.0f} MiB on disk); gpuaudit: {result[0] if result else 'no result line'}, "
          f"{'a gap' if 'not read' in verdict else 'no gap'}, sm_80 {'found' if 'sm_80' in verdict else 'NOT found'}")
    for (cmd, med, cpu), r in zip(res, rss[per * i:per * i + per]):
        print(f"  {cmd:44s} median {med:7.2f} s  {member / med / 2**20:7.1f} MiB/s  cpu {cpu:6.2f} s  "
              f"peak RSS {int(r) / 1024:6.1f} MiB")
    print(f"  gpuaudit throughput / bsdtar's: {res[1][1] / res[0][1] * 100:.0f}% (target >= 70%); "
          f"peak RSS {int(rss[per * i]) / 1024:.1f} MiB (target <= 64 MiB)")
    if per == 3:
        same = open(f"{tmp}/verdict-base.{kind}").read() == verdict
        print(f"  baseline's verdict {'identical' if same else 'DIFFERS'}")
        print(f"  baseline throughput / bsdtar's: {res[1][1] / res[2][1] * 100:.0f}%")
PY
