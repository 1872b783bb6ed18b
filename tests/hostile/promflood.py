#!/usr/bin/env python3
"""A hostile Prometheus HTTP API for tests/hostile/fleet-prometheus-flood.sh.

The first path component of the URL picks what it claims (synthesized
answers in the API's documented envelope, nothing recorded):
  findings  ten million drift-finding series, one per instance
  nodes     ten million gpuaudit_fleet_info series of one class
  classes   a million gpuaudit_fleet_info series, each its own class
  changed   a million nodes that changed within --since
  slow      every answer 1.8 s late; 5,000 changed nodes
  drip      a body that starts, then one byte a second
Writes the port it listens on to argv[1] once it listens.
"""
import http.server
import socketserver
import sys
import time
import urllib.parse

HEAD = b'{"status":"success","data":{"resultType":"%s","result":['
TAIL = b']}}'


def series(labels, matrix=False):
    metric = ",".join('"%s":"%s"' % kv for kv in labels)
    if matrix:
        return '{"metric":{%s},"values":[[1700000000,"1"]]}' % metric
    return '{"metric":{%s},"value":[1700000000,"1"]}' % metric


def inst(i):
    return "10.%d.%d.%d:9747" % (i >> 16 & 255, i >> 8 & 255, i & 255)


def node(i, hw="a" * 64):
    return series((("__name__", "gpuaudit_fleet_info"), ("job", "gpuaudit"), ("instance", inst(i)),
                   ("hostname", "n%d" % i), ("name", "a100-x8"), ("hw_sha256", hw), ("family", "f" * 64),
                   ("stack_sha256", "s" * 64), ("gpus", "8")))


def finding(i):
    return series((("__name__", "gpuaudit_findings"), ("job", "gpuaudit"), ("instance", inst(i)),
                   ("code", "GA-LINK-DEGRADED"), ("severity", "error")))


def changed(i):
    return series((("job", "gpuaudit"), ("instance", inst(i))))


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a):
        pass

    def stream(self, kind, n, make):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        try:
            self.wfile.write(HEAD % kind)
            chunk = []
            for i in range(n):
                chunk.append(("," if i else "") + make(i))
                if len(chunk) == 2000:
                    self.wfile.write("".join(chunk).encode())
                    chunk = []
            self.wfile.write("".join(chunk).encode() + TAIL)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        q = form.get("query", [""])[0]
        case = self.path.split("/")[1]
        rng = self.path.endswith("query_range")
        kind = b"matrix" if rng else b"vector"
        findings = "gpuaudit_findings" in q
        old = "gpuaudit_node_info" in q
        moved = "count_over_time" in q
        nodes = not (findings or old or moved or rng)
        if case == "drip":
            self.send_response(200)
            self.end_headers()
            try:
                self.wfile.write(b"{")
                self.wfile.flush()
                for _ in range(60):
                    time.sleep(1)
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if case == "slow":
            time.sleep(1.8)
        if case == "findings" and findings:
            return self.stream(kind, 10_000_000, finding)
        if case == "nodes" and nodes:
            return self.stream(kind, 10_000_000, node)
        if case == "classes" and nodes:
            return self.stream(kind, 1_000_000, lambda i: node(i, "%064x" % i))
        if case == "changed" and moved:
            return self.stream(kind, 1_000_000, changed)
        if case == "slow" and moved:
            return self.stream(kind, 5000, changed)
        if case == "slow" and nodes:
            return self.stream(kind, 1, node)
        return self.stream(kind, 0, node)


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = S(("127.0.0.1", 0), H)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


main()
