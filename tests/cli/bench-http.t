# bench http against a loopback test server (tests/cli/http-test-server.py).
# Latencies depend on the host, so the checks print facts with wide margins.
. "$SRCDIR/tests/cli/http-test-lib.sh"
facts() { # facts FILE PYTHON-EXPRESSIONS...: print each expression's value on the result
	"$PY" - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    print(f"{e}: {eval(e, {'r': r})}")
PY
}

# A server that stalls for 0.5 s at its 100th request. Open loop at 200/s for 3 s:
# the 100 requests due during the stall all wait, so p99.9 (and p90) show it.
server stall --stall-after 100 --stall-s 0.5
q bench http "http://127.0.0.1:$PORT/" --rate 200 --duration 3 --connections 1 -o open.json
stop
# The same with a closed loop (what wrk or ab measure): the stall is one slow sample.
server stall2 --stall-after 100 --stall-s 0.5
q bench http "http://127.0.0.1:$PORT/" --rate 200 --duration 3 --connections 1 --closed-loop -o closed.json
stop
facts open.json 'r["kind"], r["requests"], r["ok"], r["errors"], r["arrivals"], r["http_version"], r["engine"]' \
	'r["latency_s"]["p99.9"] > 0.3' 'r["latency_s"]["p90"] > 0.02' \
	'r["uncorrected_latency_s"]["p90"] < r["latency_s"]["p90"]' \
	'r["generator_lag_s"]["max"] > 0.3' \
	'r["metrics"][0]["name"], r["metrics"][0]["histogram"]["total_count"]' \
	'r["cold_start"]["first_ok_s"] is not None, len(r["cold_start"]["first_latencies_s"])'
facts closed.json 'r["arrivals"], r["requests"], r["ok"]' \
	'r["latency_s"]["max"] > 0.4' 'r["latency_s"]["p99.9"] < 0.25' 'r["latency_s"]["p90"] < 0.02'

# Every 10th answer is a 503: errors and status classes counted, exit 1.
server errors --error-every 10
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 1 --poisson -o e.json
facts e.json 'r["requests"], r["errors"], r["error_rate"], r["status_classes"], r["arrivals"]'
# POST with a body and a header, HTTP/2 requested of an HTTP/1.1-only server
# (prior knowledge fails: transport errors, counted, exit 1)
printf '{"prompt":"hi"}' >body.json
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 0.2 --body-file body.json --header 'Content-Type: application/json' -o post.json
facts post.json 'r["method"], r["requests"], r["status_classes"]["2xx"] + r["status_classes"]["5xx"]'
q bench http "http://127.0.0.1:$PORT/" --rate 20 --duration 0.2 --http2 -o h2.json
facts h2.json 'r["requests"], r["transport_errors"] == r["requests"]'
# export and plot
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 0.5 --export-hdr h.txt --plot h.svg
stop
head -2 h.txt
tail -3 h.txt | cut -c1-9
"$PY" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.tag)' h.svg

# Timeouts: a server stalling 3 s at its 2nd request, 0.5 s per-request timeout.
server slow --stall-after 2 --stall-s 3
q bench http "http://127.0.0.1:$PORT/" --rate 10 --duration 0.5 --connections 2 --timeout 0.5 -o t.json
stop
facts t.json 'r["timeouts"] >= 1, r["errors"] >= r["timeouts"]'
# Nothing listening: transport errors, no successful response.
q bench http "http://127.0.0.1:$PORT/" --rate 20 --duration 0.25 -o refused.json
facts refused.json 'r["requests"], r["transport_errors"], r["ok"], r["cold_start"]["first_ok_s"]'

# Usage errors
run bench http
run bench http "http://127.0.0.1:1/" --duration 1
run bench http "ftp://127.0.0.1/" --rate 1 --duration 1
run bench http "http://127.0.0.1:1/" --rate 1e9 --duration 1h
run bench http "http://127.0.0.1:1/" --rate 1 --duration 1 --header nocolon
run bench http "http://127.0.0.1:1/" --rate 1 --duration 1 --body-file missing
