#!/usr/bin/env bash
# bench/coordinated-omission.sh [BUILD_DIR] - the reference example of
# coordinated omission, measured: 100 requests/s for 100 s on one connection to
# a loopback server (tests/cli/http-test-server.py) that stalls 1 s at its
# 5000th request. Open loop (bench http) vs closed loop (bench http
# --closed-loop, 10,000 requests as fast as they come back). Takes ~2 minutes.
# Output: bench/results/coordinated-omission.txt.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ga=$build/gpuaudit
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
serve() {
	rm -f "$tmp/port"
	"$PY" "$src/tests/cli/http-test-server.py" --port-file "$tmp/port" --stall-after 5000 --stall-s 1 &
	pid=$!
	for _ in $(seq 100); do [ -f "$tmp/port" ] && break; sleep 0.1; done
}
serve
"$ga" bench http "http://127.0.0.1:$(cat "$tmp/port")/" --rate 100 --duration 100 --connections 1 \
	-o "$tmp/open.json" >/dev/null || true
kill "$pid"
serve
"$ga" bench http "http://127.0.0.1:$(cat "$tmp/port")/" --rate 100 --duration 100 --connections 1 \
	--closed-loop -o "$tmp/closed.json" >/dev/null || true
kill "$pid"
pid=
{
	echo "# bench/coordinated-omission.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1 /proc/loadavg)"
	"$PY" - "$tmp" <<'PY'
import json, sys
for name in ("open", "closed"):
    r = json.load(open(f"{sys.argv[1]}/{name}.json"))
    L = r["latency_s"]
    print(f"{name:6} loop: {r['requests']} requests in {r['elapsed_s']:.1f} s, "
          f"p50 {L['p50'] * 1e3:.2f} ms, p99 {L['p99'] * 1e3:.1f} ms, "
          f"p99.9 {L['p99.9'] * 1e3:.1f} ms, max {L['max'] * 1e3:.0f} ms")
PY
} | tee "$src/bench/results/coordinated-omission.txt"
