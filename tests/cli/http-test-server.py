#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for the `bench http` tests.

A thread per connection (keep-alive connections stay open), but one lock around
every request: a stall holds up every client, like a process in a GC pause. Options:
  --port-file F     write the chosen port to F once listening (port 0 = any)
  --stall-after N   before answering the N-th request (1-based), sleep --stall-s
  --stall-s S       how long the stall lasts (default 1)
  --error-every K   answer every K-th request with 503
  --max-requests M  exit after M requests (a safety net for tests)
Keep-alive is on (HTTP/1.1, Content-Length), Nagle is off.
"""
import argparse
import http.server
import os
import socket
import threading
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_one(self):
        with self.server.lock:
            self.answer()

    def answer(self):
        srv = self.server
        srv.count += 1
        n = srv.count
        if n == srv.opts.stall_after:
            time.sleep(srv.opts.stall_s)
        status = 200
        if srv.opts.error_every and n % srv.opts.error_every == 0:
            status = 503
        body = b"ok\n" if status == 200 else b"unavailable\n"
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up (a timeout test)
        if srv.opts.max_requests and n >= srv.opts.max_requests:
            srv.done = True

    do_GET = handle_one
    do_POST = handle_one
    do_PUT = handle_one


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients that time out and close are part of the tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--stall-after", type=int, default=0)
    ap.add_argument("--stall-s", type=float, default=1.0)
    ap.add_argument("--error-every", type=int, default=0)
    ap.add_argument("--max-requests", type=int, default=0)
    opts = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.opts, srv.count, srv.done, srv.lock = opts, 0, False, threading.Lock()
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, opts.port_file)
    srv.timeout = 0.5
    while not srv.done:
        srv.handle_request()


if __name__ == "__main__":
    main()
