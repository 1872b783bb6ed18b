#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for the `bench http` tests.

A thread per connection (keep-alive connections stay open), but one lock around
every request: a stall holds up every client, like a process in a GC pause. Options:
  --port-file F     write the chosen port to F once listening (port 0 = any)
  --stall-after N   before answering the N-th request (1-based), sleep --stall-s
  --stall-s S       how long the stall lasts (default 1)
  --error-every K   answer every K-th request with 503
  --max-requests M  exit after M requests (a safety net for tests)
  --chunked         send the body with Transfer-Encoding: chunked (one chunk per byte)
  --tiny-writes     write every response one byte at a time, 1 ms apart
  --connection-close  answer with Connection: close and close the connection
  --close-after K   close each connection after its K-th response, unannounced
  --drop-after K    on each connection, read the request after the K-th response
                    and close without answering (a keep-alive connection that
                    the server dropped as the client reused it)
  --eof-body        answer in HTTP/1.0 without Content-Length: the body ends at the close
  --garbage         answer with bytes that are not HTTP
  --no-content      answer 204 No Content (no body)
Keep-alive is on (HTTP/1.1, Content-Length), Nagle is off. HEAD gets the
headers of a GET (with its Content-Length) and no body.
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
        srv, o = self.server, self.server.opts
        self.answered = getattr(self, "answered", 0)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if o.drop_after >= 0 and self.answered >= o.drop_after:
            self.close_connection = True
            return
        srv.count += 1
        n = srv.count
        if n == o.stall_after:
            time.sleep(o.stall_s)
        status = 200
        if o.error_every and n % o.error_every == 0:
            status = 503
        if o.no_content:
            status = 204
        body = b"ok\n" if status == 200 else b"" if status == 204 else b"unavailable\n"
        reason = {200: "OK", 204: "No Content", 503: "Service Unavailable"}[status]
        head = [f"HTTP/1.1 {status} {reason}", "Content-Type: text/plain"]
        if o.eof_body:
            head[0] = f"HTTP/1.0 {status} {reason}"
        elif o.chunked and status != 204:
            head.append("Transfer-Encoding: chunked")
            body = b"".join(b"1\r\n" + body[i:i + 1] + b"\r\n" for i in range(len(body))) + b"0\r\n\r\n"
        elif status != 204:
            head.append(f"Content-Length: {len(body)}")
        close = o.connection_close or o.eof_body
        if o.connection_close:
            head.append("Connection: close")
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + (b"" if self.command == "HEAD" else body)
        if o.garbage:
            data, close = b"this is not HTTP at all\r\n\r\n", True
        self.answered += 1
        if o.close_after and self.answered >= o.close_after:
            close = True
        try:
            if o.tiny_writes:
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.001)
            else:
                self.wfile.write(data)
        except OSError:
            pass  # the client gave up (a timeout test)
        self.close_connection = close
        if o.max_requests and n >= o.max_requests:
            srv.done = True

    do_GET = handle_one
    do_POST = handle_one
    do_PUT = handle_one
    do_HEAD = handle_one


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
    ap.add_argument("--chunked", action="store_true")
    ap.add_argument("--tiny-writes", action="store_true")
    ap.add_argument("--connection-close", action="store_true")
    ap.add_argument("--close-after", type=int, default=0)
    ap.add_argument("--drop-after", type=int, default=-1)
    ap.add_argument("--eof-body", action="store_true")
    ap.add_argument("--garbage", action="store_true")
    ap.add_argument("--no-content", action="store_true")
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
