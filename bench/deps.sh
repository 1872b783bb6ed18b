#!/usr/bin/env bash
# bench/deps.sh - `gpuaudit deps` against its peers, side by side in one run, warm cache:
#
#   1. full census of the CUDA toolkit's library directory vs `cat FILES >/dev/null`
#      (issue 19's target: at most 0.3x the CPU time of reading every byte), and the
#      same census with GPUAUDIT_DEPS_THREADS=1 (one thread), for the single-core cost;
#      with NOSYMVER=BIN (a build with -DGA_BENCH_NO_SYMVER: no .gnu.version_r
#      reading), the census without symbol versions too (target: they add <= 5 %)
#   2. `--no-device-code --no-archives` on /usr/lib vs `scanelf -R -n /usr/lib`: the
#      same files (scanelf opens no archive; --no-archives leaves the jars, zips and
#      tars of the walk closed, and the NEEDED-only mode skips .a already)
#      (target: at most 1.0x); the row with archives opened is kept for reference
#   3. a ~100 MB wheel built from big .so files vs `bsdtar -xOf WHEEL >/dev/null`
#      (target: at least 70% of bsdtar's throughput)
#   4. peak RSS of each gpuaudit run (/usr/bin/time)
#
#   bench/deps.sh [RUNS]       default 3 runs per command (hyperfine, 1 warmup)
#
# Env: CUDA_LIB (default /usr/local/cuda/lib64/), USR_LIB (default /usr/lib),
# GPUAUDIT (default build/gpuaudit), BASE (another binary, e.g. main's built in
# a separate build directory: its census in row 1 too, same hyperfine run, and its
# JSON compared with GPUAUDIT's; with PAIRED=N also N interleaved rounds of the
# one-thread census of both and of cat, CPU from wait4: the paired comparison),
# CENSUS_ONLY=1 (row 1 and its RSS only),
# NOSYMVER (default build-nosymver/gpuaudit when
# present: cmake -S . -B build-nosymver -DGA_TESTS=OFF -DCMAKE_C_FLAGS=-DGA_BENCH_NO_SYMVER
# && cmake --build build-nosymver --target gpuaudit-cli). Writes bench/results/deps.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=$(realpath "${GPUAUDIT:-build/gpuaudit}")
cuda=${CUDA_LIB:-/usr/local/cuda/lib64/}
usrlib=${USR_LIB:-/usr/lib}
tools="hyperfine python3"
[ -n "${CENSUS_ONLY:-}" ] || tools="$tools scanelf bsdtar"
for t in $tools; do
	command -v $t >/dev/null || { echo "bench: $t missing (scripts/install-deps --bench)" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
[ -d "$cuda" ] || { echo "bench: $cuda missing (CUDA toolkit)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a private copy: rebuilding during the run must not change what is measured
cp "$bin" "$tmp/gpuaudit"
bin=$tmp/gpuaudit
base=${BASE:-}
if [ -n "$base" ]; then
	[ -x "$base" ] || { echo "bench: BASE $base missing" >&2; exit 3; }
	cp "$base" "$tmp/gpuaudit-base"
	base=$tmp/gpuaudit-base
fi
census_only=${CENSUS_ONLY:-}
nosym=${NOSYMVER:-build-nosymver/gpuaudit}
if [ -x "$nosym" ]; then
	cp "$nosym" "$tmp/gpuaudit-nosymver"
	nosym=$tmp/gpuaudit-nosymver
else
	nosym=
fi

# the files cat reads: every regular file the census opens (symlinks are not read)
find "$cuda" -type f -print0 >"$tmp/cuda.files"
cuda_bytes=$(find "$cuda" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f\n", s}')

# a wheel of ~100 MB: the biggest CUDA libraries under 110 MB, deflated
[ -n "$census_only" ] || python3 - "$cuda" "$tmp/big-1.0-cp311-cp311-linux_x86_64.whl" <<'PY'
import os, sys, zipfile
d, out = sys.argv[1], sys.argv[2]
files = sorted((os.path.getsize(os.path.join(d, f)), f) for f in os.listdir(d)
               if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f)) and ".so" in f)
total, pick = 0, []
for size, f in sorted(files, reverse=True):
    if size < 60 << 20 and total + size <= 110 << 20:
        pick.append(f)
        total += size
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    for f in pick:
        z.write(os.path.join(d, f), "big/lib/" + f)
    z.writestr("big-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n")
    z.writestr("big-1.0.dist-info/RECORD", "")
print("wheel:", len(pick), "libraries,", total >> 20, "MiB inflated,", os.path.getsize(out) >> 20, "MiB on disk")
PY
wheel="$tmp/big-1.0-cp311-cp311-linux_x86_64.whl"
wheel_inflated=0
[ -n "$census_only" ] || wheel_inflated=$(bsdtar -xOf "$wheel" | wc -c)

# exit 1 (findings) is a result, not a failure: -i
nosym_args=()
[ -n "$nosym" ] && nosym_args=(-n "same census without symbol versions (GA_BENCH_NO_SYMVER)"
	"$nosym deps --json --compact $cuda"
	-n "same census, one thread, without symbol versions"
	"env GPUAUDIT_DEPS_THREADS=1 $nosym deps --json --compact $cuda")
base_args=()
[ -n "$base" ] && base_args=(-n "BASE: full census" "$base deps --json --compact $cuda"
	-n "BASE: same census, one thread" "env GPUAUDIT_DEPS_THREADS=1 $base deps --json --compact $cuda")
hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$tmp/census.json" \
	-n "gpuaudit deps --json CUDA_LIB (full census)" "$bin deps --json --compact $cuda" \
	-n "cat FILES >/dev/null" "bash -c 'xargs -0 cat <$tmp/cuda.files >/dev/null'" \
	-n "same census, one thread (GPUAUDIT_DEPS_THREADS=1)" \
	"env GPUAUDIT_DEPS_THREADS=1 $bin deps --json --compact $cuda" "${nosym_args[@]}" "${base_args[@]}" >/dev/null
same_json=
if [ -n "$base" ]; then
	"$bin" deps --json --compact "$cuda" >"$tmp/new.json" 2>/dev/null || true
	"$base" deps --json --compact "$cuda" >"$tmp/base.json" 2>/dev/null || true
	cmp -s "$tmp/new.json" "$tmp/base.json" && same_json=same || same_json=DIFFERENT
fi
# PAIRED=N (with BASE): N rounds of the one-thread census of gpuaudit, of BASE and of
# cat, one after the other in each round (hyperfine runs all of one command first, so
# a load that changes during the run favours one side); CPU of each from wait4
if [ -n "$base" ] && [ -n "${PAIRED:-}" ]; then
	python3 - "$PAIRED" "$bin" "$base" "$cuda" "$tmp/cuda.files" >"$tmp/paired.txt" <<'PY'
import os, statistics, subprocess, sys
n, new, base, cuda, files = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
env = dict(os.environ, GPUAUDIT_DEPS_THREADS="1")
cmds = {"gpuaudit": [new, "deps", "--json", "--compact", cuda], "BASE": [base, "deps", "--json", "--compact", cuda],
        "cat": ["bash", "-c", f"xargs -0 cat <{files} >/dev/null"]}
cpu = {k: [] for k in cmds}
for _ in range(n):
    for k, c in cmds.items():
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        ru = os.wait4(p.pid, 0)[2]
        cpu[k].append(ru.ru_utime + ru.ru_stime)
med = {k: statistics.median(v) for k, v in cpu.items()}
ratio = statistics.median(a / b for a, b in zip(cpu["gpuaudit"], cpu["BASE"]))
print(f"  paired, {n} rounds, one thread, median CPU: gpuaudit {med['gpuaudit']:.3f} s, BASE {med['BASE']:.3f} s, "
      f"cat {med['cat']:.3f} s")
print(f"  paired: gpuaudit / cat {med['gpuaudit'] / med['cat']:.2f}x, BASE / cat {med['BASE'] / med['cat']:.2f}x, "
      f"gpuaudit / BASE {med['gpuaudit'] / med['BASE']:.3f}x (median of the rounds' ratios {ratio:.3f}x; "
      f"gpuaudit lower in {sum(a < b for a, b in zip(cpu['gpuaudit'], cpu['BASE']))} of {n})")
PY
fi
if [ -z "$census_only" ]; then
hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$tmp/needed.json" \
	-n "gpuaudit deps --no-device-code --no-archives --json USR_LIB" \
	"$bin deps --no-device-code --no-archives --json --compact $usrlib" \
	-n "scanelf -R -n USR_LIB" "bash -c 'scanelf -R -n $usrlib >/dev/null 2>&1'" \
	-n "gpuaudit deps --no-device-code --json USR_LIB (archives opened)" \
	"$bin deps --no-device-code --json --compact $usrlib" >/dev/null
hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$tmp/wheel.json" \
	-n "gpuaudit deps --json WHEEL" "$bin deps --json --compact $wheel" \
	-n "bsdtar -xOf WHEEL >/dev/null" "bash -c 'bsdtar -xOf $wheel >/dev/null'" >/dev/null
fi

rss() { /usr/bin/time -f %M "$@" >/dev/null 2>"$tmp/rss" || true; tail -1 "$tmp/rss"; }
rss_census=$(rss "$bin" deps --json --compact "$cuda")
rss_base=
[ -n "$base" ] && rss_base=$(rss "$base" deps --json --compact "$cuda")
rss_needed= files_needed= files_all= files_scanelf= rss_wheel= rss_bsdtar= rss_scanelf=
if [ -z "$census_only" ]; then
rss_needed=$(rss "$bin" deps --no-device-code --no-archives --json --compact "$usrlib")
# the file sets: what each tool looked at (gpuaudit's files_seen, scanelf's lines)
files_needed=$("$bin" deps --no-device-code --no-archives --json --compact "$usrlib" 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["scanned"]["files"], len(d["files"]))' || echo "? ?")
files_all=$("$bin" deps --no-device-code --json --compact "$usrlib" 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["scanned"]["files"], len(d["files"]))' || echo "? ?")
files_scanelf=$(scanelf -R -n "$usrlib" 2>/dev/null | wc -l)
rss_wheel=$(rss "$bin" deps --json --compact "$wheel")
rss_bsdtar=$(rss bsdtar -xOf "$wheel")
rss_scanelf=$(rss scanelf -R -n "$usrlib")
fi

mkdir -p bench/results
python3 - "$tmp" "$runs" "$cuda_bytes" "$wheel_inflated" "$rss_census" "$rss_needed" "$rss_wheel" \
	"$rss_bsdtar" "$rss_scanelf" "$cuda" "$usrlib" "$files_needed" "$files_all" "$files_scanelf" \
	"${nosym:+yes}" "$census_only" "${BASE:-}" "$same_json" "$rss_base" <<'PY' | tee "bench/results/deps${census_only:+-census}.txt"
import json, os, sys, datetime, platform
tmp, runs, cuda_bytes, wheel_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rss = dict(zip(["census", "needed", "wheel", "bsdtar", "scanelf"], sys.argv[5:10]))
cuda, usrlib = sys.argv[10], sys.argv[11]
files_needed, files_all, files_scanelf, have_nosym = sys.argv[12], sys.argv[13], sys.argv[14], sys.argv[15] == "yes"
census_only, base, same_json, rss_base = sys.argv[16] != "", sys.argv[17], sys.argv[18], sys.argv[19]
def load(name):
    return [(r["command"], r["median"], r["user"] + r["system"]) for r in json.load(open(f"{tmp}/{name}.json"))["results"]]
load_avg = os.getloadavg()
print(f"# gpuaudit deps benchmark: {platform.node()} ({os.cpu_count()} CPUs), {datetime.date.today()}")
print(f"# bench/deps.sh {runs}; hyperfine medians, warm cache; load average at the end "
      f"{load_avg[0]:.1f} {load_avg[1]:.1f} {load_avg[2]:.1f} (shared machine: expect noise)")
print()
c = load("census")
print(f"census of {cuda} ({cuda_bytes / 2**30:.2f} GiB)")
for cmd, med, cpu in c:
    print(f"  {cmd:48s} median {med:7.3f} s   cpu {cpu:7.3f} s")
print(f"  ratio gpuaudit / cat: {c[0][1] / c[1][1]:.2f}x wall, {c[0][2] / max(c[1][2], 1e-9):.2f}x cpu (target <= 0.3x cpu, issue 19; <= 0.15x, issue 28)")
print(f"  one thread / cat: {c[2][1] / c[1][1]:.2f}x wall, {c[2][2] / max(c[1][2], 1e-9):.2f}x cpu")
if have_nosym:
    print(f"  symbol versions add: {(c[0][2] / max(c[3][2], 1e-9) - 1) * 100:+.1f}% cpu, "
          f"{(c[0][1] / c[3][1] - 1) * 100:+.1f}% wall; one thread {(c[2][2] / max(c[4][2], 1e-9) - 1) * 100:+.1f}% cpu, "
          f"{(c[2][1] / c[4][1] - 1) * 100:+.1f}% wall (target <= 5%)")
if base:
    b = [r for r in c if r[0].startswith("BASE: ")]
    print(f"  BASE = {base}: census {b[0][2] / max(c[1][2], 1e-9):.2f}x cpu, {b[0][1] / c[1][1]:.2f}x wall of cat; "
          f"one thread {b[1][2] / max(c[1][2], 1e-9):.2f}x cpu, {b[1][1] / c[1][1]:.2f}x wall")
    print(f"  gpuaudit / BASE: {c[0][2] / max(b[0][2], 1e-9):.2f}x cpu, {c[0][1] / b[0][1]:.2f}x wall; "
          f"one thread {c[2][2] / max(b[1][2], 1e-9):.2f}x cpu, {c[2][1] / b[1][1]:.2f}x wall")
    print(f"  JSON of gpuaudit and BASE: {same_json}")
print(f"  peak RSS gpuaudit: {rss['census']} KiB" + (f", BASE: {rss_base} KiB" if base else ""))
if os.path.exists(f"{tmp}/paired.txt"):
    print(open(f"{tmp}/paired.txt").read(), end="")
if census_only:
    sys.exit(0)
print()
n = load("needed")
print(f"NEEDED/RPATH listing of {usrlib}")
for cmd, med, cpu in n:
    print(f"  {cmd:48s} median {med:7.3f} s   cpu {cpu:7.3f} s")
print(f"  ratio gpuaudit --no-archives / scanelf: {n[0][1] / n[1][1]:.2f}x wall, {n[0][2] / max(n[1][2], 1e-9):.2f}x cpu (target <= 1.0x)")
print(f"  with archives opened / scanelf: {n[2][1] / n[1][1]:.2f}x wall, {n[2][2] / max(n[1][2], 1e-9):.2f}x cpu")
print(f"  files looked at / ELF listed: gpuaudit --no-archives {files_needed}, with archives {files_all}; "
      f"scanelf lists {files_scanelf} ELF")
print(f"  peak RSS gpuaudit: {rss['needed']} KiB, scanelf: {rss['scanelf']} KiB")
print()
w = load("wheel")
print(f"wheel ({wheel_bytes / 2**20:.0f} MiB inflated)")
for cmd, med, cpu in w:
    print(f"  {cmd:48s} median {med:7.3f} s   {wheel_bytes / med / 2**20:7.1f} MiB/s   cpu {cpu:7.3f} s")
print(f"  gpuaudit throughput / bsdtar's: {w[1][1] / w[0][1] * 100:.0f}% wall, "
      f"{w[1][2] / max(w[0][2], 1e-9) * 100:.0f}% cpu (target >= 70%)")
print(f"  peak RSS gpuaudit: {rss['wheel']} KiB, bsdtar: {rss['bsdtar']} KiB")
PY
