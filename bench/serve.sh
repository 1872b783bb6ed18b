#!/usr/bin/env bash
# bench/serve.sh - scrape latency (p50/p99), requests per second and resident memory of
# `gpuaudit serve` against prometheus-node-exporter on the same machine, side by side,
# loaded with wrk (--latency) on loopback: one connection back to back (what a few
# Prometheus servers scraping a node look like: the latency target applies here), then
# 8 connections (saturation: throughput, and latency under load).
#
#   bench/serve.sh [SECONDS] [REPS]      default 5 s per run, 3 runs per server
#
# Servers (8-GPU fixture dgx-a100; with the fake NVML when the build has it, so the
# exposition carries the per-GPU NVML families too):
#   gpuaudit serve                      its own exposition, collected every 30 s
#   node-exporter textfile only         the same exposition (gpuaudit serve --once) served
#                                       from a private textfile dir: the same bytes, served
#                                       by the peer
#   node-exporter defaults              what a node exporter usually runs (collects /proc
#                                       and /sys on every scrape): memory reference
# plus gpuaudit serve's 3-byte /healthz at one connection: the part of the latency tail
# that is the machine (scheduling), not the exposition.
# With TLS and basic authentication (issue 17): gpuaudit serve --web.config.file with TLS
# alone and with TLS + bcrypt basic auth, next to node-exporter (the exporter toolkit
# itself) serving the same textfile behind the same web configuration; wrk speaks TLS and
# sends the Authorization header (-H). Targets there: resident memory <= 12 MiB, p99 < 1 ms
# at 1 connection with keep-alive.
# Targets: resident memory <= 10 MiB, p99 < 5 ms. The machine is shared (2 cores, other
# jobs running): the figures are medians of REPS short runs, noisy; wrk shares the CPUs.
# Writes bench/results/serve.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
reps=${2:-3}
bin=${GPUAUDIT:-build/gpuaudit}
fake=${GA_FAKE_NVML_DIR:-build/tests/fakes/nvml}
for t in wrk prometheus-node-exporter python3 openssl htpasswd; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 3; }
done
[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 3; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export GPUAUDIT_PCI_IDS=tests/fixtures/pci.ids
root=tests/fixtures/nodes/dgx-a100/root
args=(--root "$root" --no-vendor)
what="dgx-a100 fixture, sysfs only"
if [ -e "$fake/libnvidia-ml.so.1" ]; then
	export LD_LIBRARY_PATH=$fake FAKE_NVML_SCENARIO=$PWD/tests/fakes/scenarios/healthy-8xa100.json
	args=(--root "$root" --vendor --timeout 5)
	what="dgx-a100 fixture + fake NVML healthy-8xa100"
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 100); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime of the server

# gpuaudit serve
"$bin" serve "${args[@]}" --listen 127.0.0.1:0 --interval 30s 2>"$tmp/serve.err" &
pids+=($!)
gpid=$!
for _ in $(seq 100); do grep -q "listening on" "$tmp/serve.err" && break; sleep 0.1; done
gport=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$tmp/serve.err")
wait_http "http://127.0.0.1:$gport/metrics"

# node-exporter, textfile collector only, serving the same exposition
mkdir "$tmp/textfile"
"$bin" serve --once "${args[@]}" >"$tmp/textfile/gpuaudit.prom"
tport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$tport" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/ne-text.log" 2>&1 &
pids+=($!)
tpid=$!
wait_http "http://127.0.0.1:$tport/metrics"

# node-exporter with its default collectors (and the same textfile)
dport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$dport" \
	--collector.textfile.directory="$tmp/textfile" >"$tmp/ne-default.log" 2>&1 &
pids+=($!)
dpid=$!
wait_http "http://127.0.0.1:$dport/metrics"

# TLS and basic auth: a CA-signed certificate for 127.0.0.1, a bcrypt (cost 10) user, two
# web configurations; gpuaudit serve and node-exporter read the same files
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/server.key" \
	-out "$tmp/server.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
hash=$(htpasswd -nbBC 10 prom benchpass | cut -d: -f2)
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$tmp/server.pem" "$tmp/server.key" >"$tmp/tls.yml"
{ cat "$tmp/tls.yml"; printf 'basic_auth_users:\n  prom: %s\n' "$hash"; } >"$tmp/tls-auth.yml"
auth="Authorization: Basic $(printf 'prom:benchpass' | base64)"
start_serve() { # NAME WEBCONFIG: sets spid, sport
	"$bin" serve "${args[@]}" --listen 127.0.0.1:0 --interval 30s --web.config.file "$2" 2>"$tmp/$1.err" &
	pids+=($!)
	spid=$!
	for _ in $(seq 100); do grep -q "listening on" "$tmp/$1.err" && break; sleep 0.1; done
	sport=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$tmp/$1.err")
	for _ in $(seq 100); do curl -ks -o /dev/null -H "$auth" "https://127.0.0.1:$sport/metrics" && break; sleep 0.1; done
}
start_serve tls "$tmp/tls.yml"
tlspid=$spid tlsport=$sport
start_serve tls-auth "$tmp/tls-auth.yml"
tapid=$spid taport=$sport
ntport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$ntport" --web.config.file="$tmp/tls-auth.yml" \
	--collector.disable-defaults --collector.textfile --collector.textfile.directory="$tmp/textfile" \
	>"$tmp/ne-tls.log" 2>&1 &
pids+=($!)
ntpid=$!
for _ in $(seq 100); do curl -ks -o /dev/null -H "$auth" "https://127.0.0.1:$ntport/metrics" && break; sleep 0.1; done

bench_one() { # NAME PID URL [wrk and curl arguments: -H HEADER]
	local name=$1 pid=$2 url=$3
	shift 3
	local bytes
	bytes=$(curl -kfsS "$@" "$url" | wc -c)
	local idle
	idle=$(rss_kib "$pid")
	wrk -t1 -c4 -d1s "$@" "$url" >/dev/null # warm-up
	local t0
	t0=$(cpu_ticks "$pid")
	for r in $(seq "$reps"); do
		wrk -t1 -c1 -d"${secs}s" --latency "$@" "$url" >"$tmp/$name.c1.$r.wrk"
		wrk -t2 -c8 -d"${secs}s" --latency "$@" "$url" >"$tmp/$name.c8.$r.wrk"
	done
	echo "$name $idle $(rss_kib "$pid") $(hwm_kib "$pid") $bytes $(($(cpu_ticks "$pid") - t0)) $(getconf CLK_TCK)"
}
# the scheduler's share of the tail: the same server answering a 3-byte /healthz
for r in $(seq "$reps"); do
	wrk -t1 -c1 -d"${secs}s" --latency "http://127.0.0.1:$gport/healthz" >"$tmp/healthz.$r.wrk"
done
{
	bench_one gpuaudit-serve "$gpid" "http://127.0.0.1:$gport/metrics"
	bench_one node-exporter-textfile "$tpid" "http://127.0.0.1:$tport/metrics"
	bench_one node-exporter-defaults "$dpid" "http://127.0.0.1:$dport/metrics"
	bench_one gpuaudit-serve-tls "$tlspid" "https://127.0.0.1:$tlsport/metrics"
	bench_one gpuaudit-serve-tls-auth "$tapid" "https://127.0.0.1:$taport/metrics" -H "$auth"
	bench_one node-exporter-tls-auth "$ntpid" "https://127.0.0.1:$ntport/metrics" -H "$auth"
} >"$tmp/rss"

mkdir -p bench/results
python3 - "$tmp" "$reps" "$secs" "$what" bench/results/serve.txt <<'PY'
import os, re, statistics, sys, datetime, platform
tmp, reps, secs, what, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)$", v)
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]
rows = {}
for line in open(os.path.join(tmp, "rss")):
    name, idle, rss, hwm, size, ticks, hz = line.split()
    row = dict(idle=int(idle) / 1024, rss=int(rss) / 1024, hwm=int(hwm) / 1024, size=int(size), errs=0, reqs=0,
               cpu_s=int(ticks) / int(hz))
    for conc in ("c1", "c8"):
        p50, p99, rps = [], [], []
        for r in range(1, reps + 1):
            t = open(os.path.join(tmp, "%s.%s.%d.wrk" % (name, conc, r))).read()
            p50.append(ms(re.search(r"^\s+50%\s+(\S+)", t, re.M).group(1)))
            p99.append(ms(re.search(r"^\s+99%\s+(\S+)", t, re.M).group(1)))
            rps.append(float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1)))
            row["reqs"] += int(re.search(r"(\d+) requests in", t).group(1))
            m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
            row["errs"] += int(m.group(1)) if m else 0
            m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
            row["errs"] += sum(map(int, m.groups())) if m else 0
        row[conc] = dict(p50=statistics.median(p50), p99=statistics.median(p99), rps=statistics.median(rps))
    rows[name] = row
g = rows["gpuaudit-serve"]
lines = ["serve benchmark: %s (%d CPUs, shared with other jobs), %s" % (platform.node(), os.cpu_count(),
                                                                     datetime.date.today()),
         "bench/serve.sh %s %d: wrk --latency on loopback, %ss per run, median of %d runs per server and load" % (secs, reps, secs, reps),
         "exposition: %s" % what,
         "load average at the end: %s (CPU us/req: the server's user+system time over all its runs / requests;"
         " unlike the latency tail it does not depend on what else runs)" % open("/proc/loadavg").read().split()[0], "",
         "%-24s %-14s %9s %9s %9s" % ("server", "load", "p50 ms", "p99 ms", "req/s")]
for name, r in rows.items():
    for conc, label in (("c1", "1 connection"), ("c8", "8 connections")):
        x = r[conc]
        lines.append("%-24s %-14s %9.3f %9.3f %9.0f" % (name, label, x["p50"], x["p99"], x["rps"]))
hz = [open(os.path.join(tmp, "healthz.%d.wrk" % r)).read() for r in range(1, reps + 1)]
lines.append("%-24s %-14s %9.3f %9.3f %9.0f" % ("gpuaudit-serve /healthz", "1 connection",
             statistics.median(ms(re.search(r"^\s+50%\s+(\S+)", t, re.M).group(1)) for t in hz),
             statistics.median(ms(re.search(r"^\s+99%\s+(\S+)", t, re.M).group(1)) for t in hz),
             statistics.median(float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1)) for t in hz)))
lines += ["", "%-24s %9s %9s %9s %8s %11s %6s" % ("server", "RSS MiB", "peak MiB", "idle MiB", "bytes", "CPU us/req",
                                                  "errors")]
for name, r in rows.items():
    lines.append("%-24s %9.1f %9.1f %9.1f %8d %11.1f %6d" % (name, r["rss"], r["hwm"], r["idle"], r["size"],
                                                           r["cpu_s"] * 1e6 / max(r["reqs"], 1), r["errs"]))
lines.append("")
for name in ("node-exporter-textfile", "node-exporter-defaults"):
    r = rows[name]
    lines.append("gpuaudit serve vs %s: 1 connection p99 %.1fx lower; 8 connections %.1fx the req/s; %.1fx less resident memory" %
                 (name, r["c1"]["p99"] / g["c1"]["p99"], g["c8"]["rps"] / r["c8"]["rps"], r["rss"] / g["rss"]))
lines.append("gpuaudit serve CPU per scrape vs node-exporter-textfile: %.1fx less" % (
    (rows["node-exporter-textfile"]["cpu_s"] / max(rows["node-exporter-textfile"]["reqs"], 1)) /
    max(g["cpu_s"] / max(g["reqs"], 1), 1e-9)))
lines.append("targets: RSS <= 10 MiB: %s (%.1f MiB); p99 < 5 ms at 1 connection: %s (%.3f ms); at 8 connections p99 %.3f ms" %
             ("met" if g["rss"] <= 10 else "MISSED", g["rss"], "met" if g["c1"]["p99"] < 5 else "MISSED", g["c1"]["p99"],
              g["c8"]["p99"]))
ta, nt = rows["gpuaudit-serve-tls-auth"], rows["node-exporter-tls-auth"]
lines.append("gpuaudit serve vs node-exporter, both TLS + basic auth: 1 connection p99 %.1fx lower; 8 connections %.1fx the req/s; %.1fx less resident memory" %
             (nt["c1"]["p99"] / ta["c1"]["p99"], ta["c8"]["rps"] / nt["c8"]["rps"], nt["rss"] / ta["rss"]))
for name in ("gpuaudit-serve-tls", "gpuaudit-serve-tls-auth"):
    r = rows[name]
    lines.append("targets with %s: RSS <= 12 MiB: %s (%.1f MiB); p99 < 1 ms at 1 connection (keep-alive): %s (%.3f ms)" %
                 (name[len("gpuaudit-serve-"):].replace("-", " + "), "met" if r["rss"] <= 12 else "MISSED", r["rss"],
                  "met" if r["c1"]["p99"] < 1 else "MISSED", r["c1"]["p99"]))
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
