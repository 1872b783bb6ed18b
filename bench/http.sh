#!/usr/bin/env bash
# bench/http.sh [BUILD_DIR] - `gpuaudit bench http` against wrk on a loopback
# nginx (private config, high port, temp dir; stopped at the end):
#  1. closed-loop maximum rate, 8 connections, 4 s, 3 rounds each: responses/s,
#     CPU seconds of the load generator (user + system, /usr/bin/time), and so
#     responses per CPU second ("per core"); the median round is reported;
#     gpuaudit runs its default engine (native HTTP/1.1), then once more with
#     --engine curl after a fourth wrk run, for reference;
#  2. the latency percentiles both report in that closed loop;
#  3. open-loop runs at fixed rates: achieved rate, generator lag, corrected and
#     uncorrected latency;
#  4. an HTTP/2 run (h2c, prior knowledge) on a second nginx listener;
#  5. the histogram's record cost (bench/hist_bench.c).
# Results go to bench/results/http.txt. The machine is shared (2 cores, other
# jobs running): figures are noisy; nginx, the generator and the other jobs
# share the same cores.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ga=$build/gpuaudit
out=$src/bench/results/http.txt
tmp=$(mktemp -d)
chmod 755 "$tmp"
nginx_pid=
cleanup() {
	[ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

port=$((20000 + RANDOM % 20000))
mkdir -p "$tmp/www" "$tmp/logs"
head -c 256 /dev/zero | tr '\0' 'x' >"$tmp/www/small.txt"
cat >"$tmp/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000000;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $tmp/www;
    }
    server {
        listen 127.0.0.1:$((port + 1)) http2;
        root $tmp/www;
    }
}
CONF
/usr/sbin/nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/logs/error.log" &
nginx_pid=$!
url=http://127.0.0.1:$port/small.txt
for _ in $(seq 50); do curl -fs "$url" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$url" >/dev/null

{
	echo "# bench/http.sh on $(uname -n), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# load average before: $(cut -d" " -f1-3 /proc/loadavg) (shared machine)"
	echo "# nginx $(/usr/sbin/nginx -v 2>&1 | sed 's/.*\///'), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), 256-byte static file, loopback"
	for round in 1 2 3 curl; do
		engine=native
		[ "$round" = curl ] && engine=curl
		/usr/bin/time -f '%U %S' -o "$tmp/wrk.time" wrk -t1 -c8 -d4s --latency "$url" >"$tmp/wrk.out"
		/usr/bin/time -f '%U %S' -o "$tmp/ga.time" "$ga" bench http "$url" --closed-loop \
			--connections 8 --rate 1e6 --duration 4 --engine $engine -o "$tmp/ga.json" >/dev/null
		"$PY" - "$tmp" "$round" <<'PY'
import json, re, sys
tmp, rnd = sys.argv[1], sys.argv[2]
w = open(f"{tmp}/wrk.out").read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", w).group(1))
total = int(re.search(r"(\d+) requests in", w).group(1))
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
lat = {m.group(1): float(m.group(2)) * unit[m.group(3)]
       for m in re.finditer(r"^\s+(50|90|99)%\s+([\d.]+)(us|ms|s)\s*$", w, re.M)}
wcpu = sum(float(x) for x in open(f"{tmp}/wrk.time").read().split()[-2:])
g = json.load(open(f"{tmp}/ga.json"))
gcpu = sum(float(x) for x in open(f"{tmp}/ga.time").read().split()[-2:])
grps = g["achieved_rate_per_s"]
gtot = g["requests"]
L = g["latency_s"]
print(f"round {rnd}: wrk {rps:.0f} resp/s, {total / wcpu:.0f} resp per CPU s, "
      f"p50 {lat['50'] * 1e3:.3f} ms p90 {lat['90'] * 1e3:.3f} ms p99 {lat['99'] * 1e3:.3f} ms | "
      f"gpuaudit ({g['engine']}) {grps:.0f} resp/s, {gtot / gcpu:.0f} resp per CPU s, errors {g['errors']}, "
      f"p50 {L['p50'] * 1e3:.3f} ms p90 {L['p90'] * 1e3:.3f} ms p99 {L['p99'] * 1e3:.3f} ms | "
      f"per-core ratio {gtot / gcpu / (total / wcpu):.2f}")
PY
	done | tee "$tmp/rounds.txt"
	"$PY" - "$tmp/rounds.txt" <<'PY'
import re, statistics, sys
r = [float(m.group(1)) for line in open(sys.argv[1])
     if line.startswith("round ") and not line.startswith("round curl")
     for m in [re.search(r"per-core ratio ([\d.]+)", line)] if m]
print(f"median per-core ratio (native engine, {len(r)} rounds): {statistics.median(r):.2f}")
PY
	for rate in 1000 2000 5000; do
		/usr/bin/time -f '%U %S' -o "$tmp/ga.time" "$ga" bench http "$url" --rate $rate \
			--duration 3 --connections 16 -o "$tmp/ol.json" >/dev/null
		"$PY" - "$tmp" "$rate" <<'PY'
import json, sys
tmp, rate = sys.argv[1], float(sys.argv[2])
g = json.load(open(f"{tmp}/ol.json"))
cpu = sum(float(x) for x in open(f"{tmp}/ga.time").read().split()[-2:])
L, U, G = g["latency_s"], g["uncorrected_latency_s"], g["generator_lag_s"]
print(f"open loop {rate:.0f}/s: achieved {g['achieved_rate_per_s']:.0f}/s "
      f"({g['requests']} requests, {g['errors']} errors), generator CPU {100 * cpu / g['elapsed_s']:.0f}%, "
      f"lag p50 {G['p50'] * 1e6:.0f} us p99 {G['p99'] * 1e6:.0f} us max {G['max'] * 1e3:.2f} ms; "
      f"latency p50 {L['p50'] * 1e3:.3f} ms p99 {L['p99'] * 1e3:.3f} ms p99.9 {L['p99.9'] * 1e3:.3f} ms; "
      f"uncorrected p50 {U['p50'] * 1e3:.3f} ms p99 {U['p99'] * 1e3:.3f} ms")
PY
	done
	"$ga" bench http "http://127.0.0.1:$((port + 1))/small.txt" --http2 --rate 500 --duration 2 \
		--connections 8 -o "$tmp/h2.json" >/dev/null || true
	"$PY" - "$tmp" <<'PY'
import json, sys
g = json.load(open(f"{sys.argv[1]}/h2.json"))
L = g["latency_s"]
print(f"HTTP/2 (h2c prior knowledge) 500/s: version {g['http_version']}, {g['ok']} ok of {g['requests']}, "
      f"connection per request: {g['h2_connection_per_request']}, "
      f"latency p50 {L['p50'] * 1e3:.3f} ms p99 {L['p99'] * 1e3:.3f} ms")
PY
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$src/include" "$src/bench/hist_bench.c" "$build/libgpuaudit.a" \
		$(pkg-config --libs jansson libfyaml libmd libelf libarchive libmicrohttpd libcurl) \
		-l:libhttp_parser.a -lm -ldl -lpthread -o "$tmp/hist_bench"
	"$tmp/hist_bench"
	echo "# load average after: $(cut -d" " -f1-3 /proc/loadavg)"
} | tee "$out"
