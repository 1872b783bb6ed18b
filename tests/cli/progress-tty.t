# Progress on stderr only when stderr is a terminal (cli_progress_to, shared with bench
# and deps): smoke, capture, deps and fleet --prometheus. script(1) gives the command a pty;
# in a pipe (every other test) nothing is printed. Times are replaced by T.
N=$FIXTURES/nodes
export GPUAUDIT_BACKENDS=-cuda,-hip
# onatty CMD...: run on a pseudo-terminal; the first progress line (\r and the erase
# sequence turned into line breaks), how many there were, and the exit status
onatty() {
	echo "\$ gpuaudit $* (on a terminal)"
	timeout 120 script -qec "$(printf '%q ' "$GPUAUDIT" "$@")" /dev/null >tty.out 2>&1
	local rc=$?
	sed -e 's/\r/\n/g' -e 's/\x1b\[K//g' tty.out | grep -E "^gpuaudit $1: \[" >tty.lines
	head -1 tty.lines | sed -E 's/\[ *[0-9.]+ s\]/[T s]/; s/: [0-9.]+ s\)$/: T s)/'
	echo "progress lines: $([ -s tty.lines ] && echo some || echo none)"
	echo "[exit $rc]"
}
# the same in a pipe: how many progress lines (none)
piped() {
	echo "\$ gpuaudit $* 2>&1 | (progress lines)"
	timeout 120 "$GPUAUDIT" "$@" 2>&1 >/dev/null | grep -c -E "^gpuaudit $1: \[|\] " 
}
onatty capture cap1 --root "$N/cpu-vm/root"
piped capture cap2 --root "$N/cpu-vm/root"
cp "$FIXTURES/deps/fatbin.bin" .   # a short path: the line shows its last 50 characters
onatty deps fatbin.bin
piped deps fatbin.bin
onatty smoke --root "$N/cpu-vm/root" --backends cblas --size 32
piped smoke --root "$N/cpu-vm/root" --backends cblas --size 32
# fleet --prometheus against a small stand-in for the query API (one node)
python3 - >port 2>/dev/null <<'PY' &
import http.server, json, sys
body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
    {"metric": {"job": "j", "instance": "10.0.0.1:9747", "hostname": "n1", "class": "a100-x8-f4325545",
                "name": "a100-x8", "hw_sha256": "f4325545", "family": "c0", "stack_sha256": "aa", "gpus": "8"},
     "value": [1700000000, "1"]}]}}).encode()
empty = b'{"status":"success","data":{"resultType":"vector","result":[]}}'
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        import urllib.parse
        q = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
        q = q.get("query", [""])[0]
        b = empty if (q.startswith("group") or "gpuaudit_findings" in q) else body
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
srv=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat port)
onatty fleet --prometheus "$url" | sed "s|$url|URL|g"
piped fleet --prometheus "$url" | sed "s|$url|URL|g"
kill $srv
wait $srv 2>/dev/null
