# bench http's native HTTP/1.1 engine (the default for http://) against loopback test
# servers that answer in the ways HTTP/1.1 allows: chunked bodies, Connection: close,
# connections closed between requests or dropped as they are reused, bodies ended by
# the close, 204 and HEAD without a body, answers split into one-byte TCP writes, 5xx,
# and bytes that are not HTTP. Some cases run with --engine curl too: both engines
# must count the same.
. "$SRCDIR/tests/cli/http-test-lib.sh"
facts() {
	"$PY" - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    print(f"{e}: {eval(e, {'r': r})}")
PY
}
COMMON='r["engine"], r["requests"], r["ok"], r["errors"], r["transport_errors"], r["status_classes"]["2xx"]'

# Chunked bodies (one chunk per byte), on both engines.
server chunked --chunked
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 0.5 --connections 2 -o chunked.json
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 0.5 --connections 2 --engine curl -o chunked-curl.json
stop
facts chunked.json "$COMMON" 'r["http_version"], r["retries"]'
facts chunked-curl.json "$COMMON"

# Every answer says Connection: close: a new connection per request, no error.
server close --connection-close
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 0.5 --connections 2 -o close.json
stop
facts close.json "$COMMON"

# The server closes each keep-alive connection after its 3rd answer without saying so:
# the client sees the close while idle and reconnects.
server closeafter --close-after 3
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 1 --connections 1 -o closeafter.json
stop
facts closeafter.json "$COMMON"

# The server reads the request after the 10th answer on a connection and closes without
# answering: the request failed on a reused connection before any byte of its response,
# so it is sent again once on a new connection and counted (50 requests, one connection
# at a time: requests 11, 21, 31 and 41 are retried).
server drop --drop-after 10
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 1 --connections 1 -o drop.json
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 1 --connections 1 --engine curl -o drop-curl.json
stop
facts drop.json "$COMMON" 'r["retries"]'
facts drop-curl.json "$COMMON"

# A dropped request on a fresh connection is not retried: an error.
server drop0 --drop-after 0
q bench http "http://127.0.0.1:$PORT/" --rate 20 --duration 0.2 --connections 1 -o drop0.json
stop
facts drop0.json "$COMMON" 'r["retries"], r["first_error"]'

# Every answer written one byte at a time, 1 ms apart (a response in ~60 TCP segments),
# chunked too.
server tiny --tiny-writes --chunked
q bench http "http://127.0.0.1:$PORT/" --rate 20 --duration 0.5 --connections 4 -o tiny.json
stop
facts tiny.json "$COMMON" 'r["uncorrected_latency_s"]["p50"] > 0.03'

# HTTP/1.0 answers whose body ends at the close.
server eof --eof-body
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 0.2 -o eof.json
stop
facts eof.json "$COMMON" 'r["http_version"]'

# 204 No Content, and HEAD (Content-Length given, no body follows).
server nocontent --no-content
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 0.2 --connections 1 -o 204.json
stop
facts 204.json "$COMMON"
server head
q bench http "http://127.0.0.1:$PORT/" --rate 50 --duration 0.2 --connections 1 --method HEAD -o head.json
stop
facts head.json "$COMMON" 'r["method"]'

# 5xx: every 4th answer is a 503 (errors, exit 1), chunked.
server errors --error-every 4 --chunked
q bench http "http://127.0.0.1:$PORT/" --rate 100 --duration 0.4 --connections 2 -o 5xx.json
stop
facts 5xx.json "$COMMON" 'r["status_classes"]["5xx"], r["error_rate"]'

# Not HTTP: transport errors with the parser's reason.
server garbage --garbage
q bench http "http://127.0.0.1:$PORT/" --rate 20 --duration 0.2 --connections 1 -o garbage.json
stop
facts garbage.json "$COMMON" 'r["first_error"]'

# A name resolved once at the start (localhost), and one that does not resolve.
server name
q bench http "http://localhost:$PORT/x?y=1" --rate 50 --duration 0.2 --connections 2 -o name.json
stop
facts name.json "$COMMON"
q bench http "http://no-such-host.invalid/" --rate 20 --duration 0.1 -o nohost.json
facts nohost.json "$COMMON" 'r["first_error"].startswith("could not resolve host no-such-host.invalid")'

# The stall test of bench-http.t, on the native engine named explicitly: the open-loop
# p99.9 shows the 0.5 s stall.
server stall --stall-after 50 --stall-s 0.5
q bench http "http://127.0.0.1:$PORT/" --rate 200 --duration 2 --connections 1 --engine native -o stall.json
stop
facts stall.json "$COMMON" 'r["latency_s"]["p99.9"] > 0.3, r["uncorrected_latency_s"]["p90"] < 0.3'

# Usage
run bench http "https://127.0.0.1:1/" --rate 1 --duration 1 --engine native
run bench http "http://127.0.0.1:1/" --rate 1 --duration 1 --http2 --engine native
run bench http "http://127.0.0.1:1/" --rate 1 --duration 1 --engine fast
run bench http "http://user:pw@127.0.0.1:1/" --rate 1 --duration 1 --engine native
run bench http "http://127.0.0.1:1/" --rate 1 --duration 1 --header "X-A: 1" --method "GET /x"
