#!/usr/bin/env python3
"""servetest.py - integration tests of `gpuaudit serve` against real servers on loopback.

Usage: servetest.py TEST GPUAUDIT_BINARY. Each TEST starts its own processes on
free loopback ports in a temporary directory and stops them; exit 0 pass, 1 fail,
77 skipped (a peer tool is not installed). Run by the tests/integration/*.sh
wrappers through ctest.
"""
import json
import os
import base64
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
import urllib.error
import urllib.parse
import urllib.request

SRCDIR = os.environ.get("SRCDIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SRCDIR, "tests", "fixtures")
SCENARIOS = os.path.join(SRCDIR, "tests", "fakes", "scenarios")
SKIP = 77


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, method="GET", headers=None, data=None, timeout=5):
    """(status, headers, body bytes); HTTP errors are answers too."""
    req = urllib.request.Request(url, method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def metric(text, name, labels=None):
    """Value of the first sample NAME{...} whose labels include LABELS, or None."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        if all(got.get(k) == v for k, v in (labels or {}).items()):
            return float(m.group(4))
    return None


class Serve:
    """gpuaudit serve on a free loopback port (port 0: it picks one and says which)."""

    def __init__(self, exe, args, env=None, work=None):
        self.err_path = os.path.join(work, "serve.err")
        self.err = open(self.err_path, "w")
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen([exe, "serve", "--listen", "127.0.0.1:0"] + args, stdout=subprocess.DEVNULL,
                                  stderr=self.err, env=e)
        self.port = None
        deadline = time.time() + 20
        while time.time() < deadline and self.p.poll() is None:
            m = re.search(r"listening on https?://127\.0\.0\.1:(\d+)/", open(self.err_path).read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.05)
        if not self.port:
            raise Fail("gpuaudit serve did not start: " + open(self.err_path).read())
        self.base = "http://127.0.0.1:%d" % self.port

    def get(self, path, **kw):
        return http(self.base + path, **kw)

    def metrics(self):
        st, _, body = self.get("/metrics")
        if st != 200:
            raise Fail("GET /metrics answered %d" % st)
        return body.decode()

    def wait_metric(self, name, pred, timeout=20, labels=None):
        deadline = time.time() + timeout
        v = None
        while time.time() < deadline:
            v = metric(self.metrics(), name, labels)
            if v is not None and pred(v):
                return v
            time.sleep(0.1)
        raise Fail("%s%s never satisfied the condition (last %r)" % (name, labels or "", v))

    def rss_kib(self):
        for line in open("/proc/%d/status" % self.p.pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return None

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise Fail("gpuaudit serve did not stop within 15 s of the signal")
        self.err.close()
        return rc


def class_id(exe, root):
    out = subprocess.run([exe, "class", "--root", root, "--no-vendor"], capture_output=True, text=True,
                         check=True).stdout
    return re.search(r"^id\s+(\S+)", out, re.M).group(1)


# --- the tests ---

def t_promtool(exe, work):
    """Every fixture and fake-NVML scenario gives an exposition promtool accepts."""
    if not shutil.which("promtool"):
        print("SKIP: promtool (Debian package prometheus) is not installed")
        return SKIP
    runs = []
    for fx in sorted(os.listdir(os.path.join(FIXTURES, "nodes"))):
        root = os.path.join(FIXTURES, "nodes", fx, "root")
        if os.path.isdir(root):
            runs.append((fx, ["--root", root, "--no-vendor"], {}))
    fake = os.environ.get("GA_FAKE_NVML_DIR")
    if fake:
        for sc in sorted(os.listdir(SCENARIOS)):
            env = {"LD_LIBRARY_PATH": fake, "FAKE_NVML_SCENARIO": os.path.join(SCENARIOS, sc)}
            runs.append(("nvml " + sc, ["--root", os.path.join(FIXTURES, "nodes", "dgx-a100", "root"), "--vendor",
                                        "--timeout", "1", "--policy",
                                        os.path.join(FIXTURES, "policies", "fleet.yaml"), "--kmsg",
                                        os.path.join(FIXTURES, "kmsg", "xid48-ecc.log")], env))
    for name, args, env in runs:
        e = dict(os.environ)
        e.update(env)
        out = subprocess.run([exe, "serve", "--once"] + args, capture_output=True, env=e)
        check(out.returncode == 0, "%s: serve --once exits 0" % name)
        lint = subprocess.run(["promtool", "check", "metrics"], input=out.stdout, capture_output=True)
        check(lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(),
              "%s: promtool check metrics is silent%s" % (name, (": " + (lint.stdout + lint.stderr).decode())
                                                           if lint.returncode or lint.stdout.strip() else ""))
    return 0


def t_prometheus(exe, work):
    """A real Prometheus scrapes gpuaudit serve; up is 1 and the class-info series carries the fixture's class."""
    if not shutil.which("prometheus"):
        print("SKIP: prometheus (Debian package prometheus) is not installed")
        return SKIP
    root = os.path.join(FIXTURES, "nodes", "dgx-a100", "root")
    want = class_id(exe, root)
    s = Serve(exe, ["--root", root, "--no-vendor", "--interval", "1s"], work=work)
    # a second target that records the Accept header Prometheus sends
    accepts = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self):
            accepts.append(self.headers.get("Accept", ""))
            body = b"# TYPE probe gauge\nprobe 1\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    rec = HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=rec.serve_forever, daemon=True).start()
    pport = free_port()
    cfg = os.path.join(work, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: gpuaudit\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n"
                "  - job_name: recorder\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (s.port, rec.server_address[1]))
    plog = open(os.path.join(work, "prometheus.log"), "w")
    prom = subprocess.Popen(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(work, "tsdb"),
                             "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
                            stdout=plog, stderr=subprocess.STDOUT, cwd=work)
    api = "http://127.0.0.1:%d/api/v1/query?query=" % pport
    try:
        def query(q):
            st, _, body = http(api + urllib.parse.quote(q), timeout=5)
            if st != 200:
                return []
            return json.loads(body)["data"]["result"]

        deadline = time.time() + 60
        up = []
        while time.time() < deadline:
            if prom.poll() is not None:
                raise Fail("prometheus exited: " + open(os.path.join(work, "prometheus.log")).read()[-2000:])
            try:
                up = query('up{job="gpuaudit"}')
            except (urllib.error.URLError, ConnectionError, OSError):
                up = []
            if up and up[0]["value"][1] == "1":
                break
            time.sleep(0.5)
        check(up and up[0]["value"][1] == "1", "Prometheus scraped gpuaudit serve: up == 1")
        info = query("gpuaudit_node_class_info")
        check(len(info) == 1 and info[0]["metric"].get("class") == want,
              "gpuaudit_node_class_info{class=%r} in Prometheus (got %r)" % (want, [i["metric"] for i in info]))
        gpus = query('gpuaudit_gpus{vendor="nvidia"}')
        check(gpus and gpus[0]["value"][1] == "8", "gpuaudit_gpus{vendor=\"nvidia\"} == 8 in Prometheus")
        # the scrape negotiated OpenMetrics: counters came through with their _total names
        coll = query("gpuaudit_collections_total")
        check(coll and float(coll[0]["value"][1]) >= 1, "gpuaudit_collections_total >= 1 in Prometheus")
        # which format did Prometheus get? replay its Accept header against serve
        deadline = time.time() + 20
        while not accepts and time.time() < deadline:
            time.sleep(0.2)
        check(accepts and "application/openmetrics-text" in accepts[0],
              "Prometheus asks for OpenMetrics first (Accept: %s)" % (accepts[0] if accepts else None))
        st, h, body = s.get("/metrics", headers={"Accept": accepts[0]})
        check(h.get("Content-Type", "").startswith("application/openmetrics-text") and body.endswith(b"# EOF\n"),
              "serve answers that Accept header with OpenMetrics: Prometheus parsed the OpenMetrics exposition")
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prc = prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
            prc = prom.wait()
        plog.close()
        rec.shutdown()
        src = s.stop()
    check(prc == 0, "prometheus stopped cleanly (exit %d)" % prc)
    check(src == 0, "gpuaudit serve stopped cleanly on SIGTERM (exit %d)" % src)
    return 0


def t_hang(exe, work):
    """NVML hangs in every collection: /metrics stays fast, and the staleness metrics move."""
    fake = os.environ.get("GA_FAKE_NVML_DIR")
    if not fake:
        print("SKIP: GA_FAKE_NVML_DIR is not set (the fake NVML is built by tests/fakes)")
        return SKIP
    env = {"LD_LIBRARY_PATH": fake, "FAKE_NVML_SCENARIO": os.path.join(SCENARIOS, "init-hangs.json")}
    root = os.path.join(FIXTURES, "nodes", "dgx-a100", "root")
    # a 2 s deadline: a scrape that waited for the collection would take up to 2 s, far above 0.5 s
    s = Serve(exe, ["--root", root, "--vendor", "--timeout", "2", "--interval", "1s"], env=env, work=work)
    try:
        st, _, body = s.get("/healthz")
        check(st == 503 and b"starting" in body, "/healthz is 503 before the first collection ends")
        slowest = 0.0
        running_seen = False
        samples = []
        t_end = time.time() + 7.5
        while time.time() < t_end:
            t0 = time.monotonic()
            st, _, body = s.get("/metrics", timeout=2)
            slowest = max(slowest, time.monotonic() - t0)
            if st != 200:
                raise Fail("GET /metrics answered %d during a hung collection" % st)
            text = body.decode()
            running_seen |= metric(text, "gpuaudit_collection_running") == 1
            samples.append(text)
            time.sleep(0.05)
        check(slowest < 0.5, "every scrape answered within 0.5 s while NVML hung (slowest %.3f s, %d scrapes)"
              % (slowest, len(samples)))
        check(running_seen, "gpuaudit_collection_running was 1 while the helper hung")
        last = samples[-1]
        errs = metric(last, "gpuaudit_collection_errors_total")
        tmo = metric(last, "gpuaudit_vendor_library_timeouts_total")
        check(errs is not None and errs >= 2, "gpuaudit_collection_errors_total grew (%s)" % errs)
        check(tmo is not None and tmo >= 2, "gpuaudit_vendor_library_timeouts_total grew (%s)" % tmo)
        check(metric(last, "gpuaudit_vendor_library_up", {"library": "nvml"}) == 0, "gpuaudit_vendor_library_up{nvml} 0")
        check(metric(last, "gpuaudit_last_success_timestamp_seconds") is None,
              "no successful collection: gpuaudit_last_success_timestamp_seconds absent")
        ts = [metric(x, "gpuaudit_last_collection_timestamp_seconds") for x in samples]
        ts = [t for t in ts if t is not None]
        check(len(ts) > 1 and ts[-1] > ts[0], "gpuaudit_last_collection_timestamp_seconds moved (%s -> %s)"
              % (ts[0] if ts else None, ts[-1] if ts else None))
        dur = metric(last, "gpuaudit_collection_duration_seconds")
        check(dur is not None and dur >= 1.9, "gpuaudit_collection_duration_seconds shows the 2 s deadline (%s)" % dur)
        st, _, body = s.get("/healthz")
        check(st == 200, "/healthz is 200: collections finish (at the deadline)")
        kids = subprocess.run(["pgrep", "-P", str(s.p.pid)], capture_output=True, text=True).stdout.split()
    finally:
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly during a hung collection (exit %d)" % rc)
    time.sleep(0.3)
    left = [k for k in kids if os.path.exists("/proc/" + k)]
    check(not left, "no vendor helper left behind (%s)" % left)
    return 0


def t_http(exe, work):
    """HTTP behaviour: methods, bodies, negotiation, JSON endpoints, counters that only grow, signals."""
    klog = os.path.join(work, "kmsg.log")
    lines = [
        "[  100.000001] NVRM: Xid (PCI:0000:47:00): 79, pid=1, name=a, GPU has fallen off the bus.\n",
        "[  100.000002] NVRM: Xid (PCI:0000:47:00): 79, pid=2, name=b, GPU has fallen off the bus.\n",
        "[  101.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=3, name=c, Graphics Exception\n",
        "[  102.000000] NVRM: Xid (PCI:0000:47:00): 79, pid=4, name=d, GPU has fallen off the bus.\n",
    ]
    open(klog, "w").writelines(lines[:2])
    root = os.path.join(FIXTURES, "nodes", "dgx-a100", "root")
    s = Serve(exe, ["--root", root, "--no-vendor", "--interval", "1s", "--kmsg", klog], work=work)
    xid79 = {"kind": "xid", "code": "79", "gpu": "2"}
    try:
        s.wait_metric("gpuaudit_kernel_events_total", lambda v: v == 2, labels=xid79)
        check(True, "two Xid 79 events counted")
        with open(klog, "a") as f:
            f.writelines(lines[2:])
        s.wait_metric("gpuaudit_kernel_events_total", lambda v: v == 3, labels=xid79)
        n0 = metric(s.metrics(), "gpuaudit_collections_total")
        # the ring buffer "wraps": older records disappear; nothing is counted twice or lost
        open(klog, "w").writelines(lines[3:])
        s.wait_metric("gpuaudit_collections_total", lambda v: v >= n0 + 2)
        text = s.metrics()
        check(metric(text, "gpuaudit_kernel_events_total", xid79) == 3, "Xid 79 counter stays 3 after the log shrank")
        check(metric(text, "gpuaudit_kernel_events_total", {"kind": "xid", "code": "13"}) == 1, "Xid 13 counted once")

        st, h, body = s.get("/metrics", method="POST", data=b"x=1")
        check(st == 405 and h.get("Allow") == "GET, HEAD", "POST /metrics: 405 with Allow: GET, HEAD")
        for m in ("PUT", "DELETE", "OPTIONS"):
            st, _, _ = s.get("/metrics", method=m)
            check(st == 405, "%s /metrics: 405" % m)
        st, _, _ = s.get("/metrics", headers={"Content-Length": "3"}, data=b"abc")
        check(st == 413, "GET with a body: 413")
        st, h, body = s.get("/metrics", method="HEAD")
        check(st == 200 and body == b"" and int(h.get("Content-Length", "0")) > 1000, "HEAD /metrics: headers only")
        st, _, _ = s.get("/nope")
        check(st == 404, "unknown path: 404")
        st, h, body = s.get("/metrics", headers={"Accept": "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"})
        check(st == 200 and h.get("Content-Type", "").startswith("application/openmetrics-text; version=1.0.0")
              and body.endswith(b"# EOF\n"), "Accept: OpenMetrics gives OpenMetrics ending in # EOF")
        st, h, body = s.get("/metrics")
        check(h.get("Content-Type") == "text/plain; version=0.0.4; charset=utf-8" and b"# EOF" not in body,
              "no Accept: text format 0.0.4")
        st, h, body = s.get("/v1/snapshot")
        snap = json.loads(body)
        check(st == 200 and snap.get("schema") == "gpuaudit.node/v1" and len(snap["accelerators"]) == 8,
              "/v1/snapshot: the node snapshot (gpuaudit.node/v1, 8 accelerators)")
        st, h, body = s.get("/v1/check")
        chk = json.loads(body)
        check(st == 200 and chk["schema"] == "gpuaudit.serve-check/v1" and chk["result"] is None
              and isinstance(chk["findings"], list), "/v1/check without a policy: findings, result null")
        # the snapshot reads back through discover --from
        p = subprocess.run([exe, "class", "--from", "-"], input=json.dumps(snap).encode(),
                           capture_output=True)
        check(p.returncode == 0 and class_id(exe, root).encode() in p.stdout, "/v1/snapshot reads back with --from")
    finally:
        rc = s.stop(signal.SIGINT)
    check(rc == 0, "SIGINT stops serve with exit 0 (got %d)" % rc)
    check("SIGINT: shutting down" in open(s.err_path).read(), "serve says why it stops")
    return 0


def closed_within(c, seconds):
    """True when the server closes c (end of stream or reset) within seconds."""
    c.settimeout(seconds)
    try:
        while c.recv(100):
            pass
    except socket.timeout:
        return False
    except OSError:
        pass
    return True


def answered(c, path="/healthz", timeout=2):
    c.settimeout(timeout)
    c.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    try:
        return c.recv(100).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def t_limits(exe, work):
    """The connection limits of docs/serve.md: idle timeout, whole-request deadline, caps on incomplete requests."""
    for args, msg in ((["--request-timeout", "0"], "--request-timeout wants seconds between 1 and 3600, not '0'"),
                      (["--max-connections-per-ip", "x"],
                       "--max-connections-per-ip wants a number between 1 and 4096, not 'x'")):
        r = subprocess.run([exe, "serve"] + args, capture_output=True, text=True)
        check(r.returncode == 2 and msg in r.stderr, "usage error: %s" % msg)
    root = os.path.join(FIXTURES, "nodes", "cpu-vm", "root")
    # 4 slots: 3 for incomplete requests (one kept for complete ones), 2 of them per address
    s = Serve(exe, ["--root", root, "--interval", "1s", "--max-connections", "4", "--max-connections-per-ip", "2",
                    "--request-timeout", "2", "--connection-timeout", "1"], work=work)

    def conn(src):
        return socket.create_connection(("127.0.0.1", s.port), source_address=(src, 0))

    def partial(src):
        """An incomplete request: one byte sent, so the kernel hands it over (TCP_DEFER_ACCEPT)."""
        c = conn(src)
        c.send(b"G")
        return c

    try:
        s.wait_metric("gpuaudit_collections_total", lambda v: v >= 1)
        time.sleep(1.5)  # let the connections of wait_metric time out
        idle = conn("127.0.0.1")
        t0 = time.monotonic()
        check(closed_within(idle, 6), "an idle connection is closed by the server")
        waited = time.monotonic() - t0
        # TCP_DEFER_ACCEPT: it first waits --connection-timeout in the kernel (handed over at the
        # next SYN-ACK retransmission, 1 s, then 3 s after the connect), then the idle timeout
        check(waited < 5, "an idle connection is closed after twice --connection-timeout 1 and the "
              "kernel's retransmission step (%.1f s)" % waited)
        # the deadline: one header byte every 0.3 s resets the idle timeout, not the deadline
        slow = conn("127.0.0.1")
        t0 = time.monotonic()
        cut = False
        for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 20:
            try:
                slow.send(bytes([b]))
            except OSError:
                cut = True
                break
            if closed_within(slow, 0.3):
                cut = True
                break
        lived = time.monotonic() - t0
        check(cut and 1.5 <= lived <= 3.2, "a trickled request is cut at --request-timeout 2 (%.1f s)" % lived)
        # per address: a third incomplete request from 127.0.0.1 closes the oldest of the two
        old, mid = partial("127.0.0.1"), partial("127.0.0.1")
        time.sleep(0.4)  # past the grace of a fresh connection (0.2 s)
        new = conn("127.0.0.1")
        check(answered(new), "a new request is answered while two incomplete ones hold the per-IP cap")
        check(closed_within(old, 0.5), "the oldest incomplete request of that address was closed for it")
        for c in (old, mid, new):
            c.close()
        time.sleep(1.5)
        # in all: 3 incomplete requests from 3 addresses hold the share; a fourth address is still served
        held = [partial("127.0.0.%d" % i) for i in (2, 3, 4)]
        time.sleep(0.4)
        fast = conn("127.0.0.5")
        check(answered(fast), "a request is answered while incomplete ones hold their whole share")
        check(closed_within(held[0], 0.5), "the oldest incomplete request was closed to make room")
        for c in held + [fast]:
            c.close()
        st, _, body = s.get("/healthz")
        check(st == 200, "a new connection is served afterwards")
        # what serve closed shows on /metrics: the trickled request at its deadline (and
        # maybe idle ones), the oldest incomplete requests (one per address, one in all) to
        # make room
        text = s.metrics()
        cut = metric(text, "gpuaudit_serve_connections_closed_total", {"reason": "request_deadline"})
        stalled = metric(text, "gpuaudit_serve_connections_closed_total", {"reason": "stalled"})
        check(cut is not None and cut >= 1 and stalled is not None and stalled >= 2,
              "gpuaudit_serve_connections_closed_total counts them (request_deadline %r, stalled %r)" %
              (cut, stalled))
        check(metric(text, "gpuaudit_serve_requests_refused_total", {"reason": "rate_limit"}) == 0,
              "no rate_limit refusals without a web configuration")
    finally:
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    return 0


def t_load(exe, work):
    """Bounded load with wrk: no errors, no growth in resident memory."""
    if not shutil.which("wrk"):
        print("SKIP: wrk is not installed")
        return SKIP
    root = os.path.join(FIXTURES, "nodes", "dgx-a100", "root")
    s = Serve(exe, ["--root", root, "--no-vendor", "--interval", "1s"], work=work)
    try:
        s.wait_metric("gpuaudit_collections_total", lambda v: v >= 1)
        url = s.base + "/metrics"
        subprocess.run(["wrk", "-t1", "-c8", "-d1s", url], capture_output=True, check=True)  # warm-up
        before = s.rss_kib()
        out = subprocess.run(["wrk", "-t2", "-c8", "-d3s", url], capture_output=True, text=True, check=True).stdout
        after = s.rss_kib()
        print(out)
        reqs = int(re.search(r"(\d+) requests in", out).group(1))
        check(reqs > 100, "wrk completed %d requests" % reqs)
        check("Non-2xx" not in out and "Socket errors" not in out, "no HTTP or socket errors under load")
        sanitized = os.environ.get("GA_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE")
        if sanitized:
            print("note: sanitizer build: resident memory is not compared (ASan keeps a quarantine)")
        else:
            check(after - before <= 512, "VmRSS did not grow under load (%d -> %d KiB)" % (before, after))
        st, _, _ = s.get("/healthz")
        check(st == 200, "/healthz 200 after the load")
    finally:
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    return 0


def timed_scrapes(port, auth, tls=False):
    """Seconds of 80 scrapes on new connections, 50 ms apart (99 for one not answered 200)."""
    lat = []
    for _ in range(80):
        st, dt = raw_get(port, auth, timeout=10, tls=tls)
        lat.append(dt if st == 200 else 99.0)
        time.sleep(0.05)
    return lat


def judge_scrapes(lat, what):
    """The scrape objective of issue 29: at least 90 % of them answered within 1 s."""
    within = sum(1 for d in lat if d <= 1.0)
    lat = sorted(lat)
    print("%s: %d of 80 scrapes within 1 s, p50 %.4f s, p90 %.4f s" % (what, within, lat[40], lat[72]))
    check(within >= 72, "%s: >= 90%% of scrapes within 1 s (%d of 80)" % (what, within))
    return within


def rss_bound(kib, what):
    """serve's resident memory under a flood: under 64 MiB (half the unit's MemoryMax=128M)."""
    print("%s: serve VmRSS %s KiB" % (what, kib))
    if os.environ.get("GA_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE"):
        print("note: sanitizer build: resident memory is not bounded here (ASan's shadow and quarantine)")
        return
    check(kib is not None and kib < 65536, "%s: serve's VmRSS %s KiB < 64 MiB" % (what, kib))


def bcrypt_hash(password, cost):
    """A bcrypt hash made by libxcrypt through Python's crypt module (not by gpuaudit)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import crypt
        return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << cost))


def raw_get(port, auth, src="127.0.0.1", timeout=5.0, tls=False):
    """(status, seconds) of one GET /metrics on a new connection with Authorization: Basic auth
    (over TLS without verifying the server when tls)."""
    import base64
    t0 = time.monotonic()
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(src, 0))
    except OSError:
        return 0, time.monotonic() - t0
    try:
        if tls:
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            c = ctx.wrap_socket(c, server_hostname="127.0.0.1")
        c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic " +
                  base64.b64encode(auth.encode()) + b"\r\n\r\n")
        head = c.recv(64)
        status = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
        while c.recv(65536):
            pass
    except (OSError, ValueError, IndexError):
        status = 0
    finally:
        c.close()
    return status, time.monotonic() - t0


def t_auth(exe, work):
    """Issue 29: wrong passwords do not starve scrapes; unknown users cost what known ones cost."""
    root = os.path.join(FIXTURES, "nodes", "cpu-vm", "root")
    # cost 10 for the flood, cost 9 for the timing (a bcrypt of ~25-40 ms: long enough that the
    # machine's noise is small next to it, short enough for 40 tries within the server's budget)
    results = []
    cases = [(10, 50, False), (10, 200, False)]
    key, crt = os.path.join(work, "k.pem"), os.path.join(work, "c.pem")
    if subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                       "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1", "-keyout", key, "-out", crt],
                      capture_output=True).returncode == 0:
        cases += [(10, 50, True)]
        # 200 TLS clients: bench/serve-floods.sh (GA_AUTH_TLS200=1) measures it. It made this
        # test 94-114 s instead of 57 s (bench/make-test-phases.sh), most of it the 200 Python
        # clients' own handshakes on a 2-core machine, and it failed there while other builds
        # ran (71 of 80 within 1 s).
        # What it once caught (200 handshakes filling the old default of 128 connections) is
        # now the default of 512 (docs/serve.md); serve-limits tests the caps themselves.
        if os.environ.get("GA_AUTH_TLS200") == "1":
            cases += [(10, 200, True)]
    else:
        print("note: no openssl to make a certificate: the TLS cases are skipped")
    if os.environ.get("GA_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE"):
        print("note: sanitizer build: the 50-client floods only (the 200-client ones measure time, "
              "not memory; the normal build runs them)")
        cases = [c for c in cases if c[1] == 50]
    for cost, attackers, tls in cases:
        cfg = os.path.join(work, "web-%d.yml" % cost)
        with open(cfg, "w") as f:
            if tls:
                f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n" % (crt, key))
            f.write("basic_auth_users:\n  prom: '%s'\n" % bcrypt_hash("right pass", cost))
        s = Serve(exe, ["--root", root, "--interval", "5s", "--web.config.file", cfg], work=work)
        stop = threading.Event()
        try:
            deadline = time.time() + 20
            while time.time() < deadline and raw_get(s.port, "prom:right pass", tls=tls)[0] != 200:
                time.sleep(0.2)

            def attack(i):
                src = "127.0.%d.%d" % (1 + i // 250, 1 + i % 250)
                while not stop.is_set():
                    raw_get(s.port, "prom:wrong %d" % i, src=src, timeout=10, tls=tls)

            threads = [threading.Thread(target=attack, args=(i,), daemon=True) for i in range(attackers)]
            for th in threads:
                th.start()
            time.sleep(2)
            lat = timed_scrapes(s.port, "prom:right pass", tls=tls)
            rss = s.rss_kib()
            stop.set()
            for th in threads:
                th.join(timeout=15)
            rss_bound(rss, "%d wrong-password clients" % attackers)
            results.append(judge_scrapes(lat, "%d wrong-password clients (cost %d%s)" %
                                         (attackers, cost, ", TLS" if tls else "")))
            st, _ = raw_get(s.port, "prom:wrong again", src="127.0.0.1", tls=tls)
            check(st in (401, 429), "a wrong password is still refused (%d)" % st)
        finally:
            stop.set()
            rc = s.stop()
        check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    # the web config's rate_limit, as the exporter toolkit applies it: one bucket for the server
    cfg = os.path.join(work, "web-rl.yml")
    with open(cfg, "w") as f:
        f.write("rate_limit:\n  interval: 1s\n  burst: 3\n")
    s = Serve(exe, ["--root", root, "--interval", "5s", "--web.config.file", cfg], work=work)
    try:
        codes = [raw_get(s.port, "x:y", src="127.3.0.%d" % (i + 1))[0] for i in range(5)]
        check(codes[:3] == [200, 200, 200] and codes[3:] == [429, 429],
              "rate_limit burst 3: three answered, then 429 from any address (%r)" % codes)
        time.sleep(1.2)
        st, _ = raw_get(s.port, "x:y")
        check(st == 200, "rate_limit interval 1s: a token again after a second (%d)" % st)
        time.sleep(1.2)
        text = s.metrics()
        check(metric(text, "gpuaudit_serve_requests_refused_total", {"reason": "rate_limit"}) == 2 and
              metric(text, "gpuaudit_serve_requests_refused_total", {"reason": "auth_budget"}) == 0,
              "gpuaudit_serve_requests_refused_total counts the two 429s of rate_limit")
    finally:
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    # the timing: a known user and an unknown one, wrong passwords, each try from its own address
    cfg = os.path.join(work, "web-9.yml")
    with open(cfg, "w") as f:
        f.write("basic_auth_users:\n  prom: '%s'\n" % bcrypt_hash("right pass", 9))
    s = Serve(exe, ["--root", root, "--interval", "5s", "--web.config.file", cfg], work=work)
    try:
        # up to three rounds of 20 pairs: a loaded machine can skew one round; the old fixed
        # cost-10 dummy against a cost-9 user was 2x in every round
        for rnd in range(3):
            times = {"prom": [], "nobody": []}
            for i in range(20):
                for user in ("prom", "nobody"):
                    for _ in range(20):  # a 429 (the server's budget spent on a loaded machine) is no sample
                        st, dt = raw_get(s.port, "%s:wrong" % user,
                                         src="127.1.%d.%d" % (i, (1 if user == "prom" else 2) + 2 * rnd))
                        if st != 429:
                            break
                        time.sleep(1)
                    check(st == 401, "a wrong password from a fresh address is a 401 (got %d)" % st)
                    times[user].append(dt)
                    time.sleep(0.4)  # under the server's bcrypt budget (a tenth of its time)
            known = sorted(times["prom"])[10]
            unknown = sorted(times["nobody"])[10]
            # each pair is measured back to back: the median of their ratios is robust to the
            # machine's load drifting over the 20 tries
            ratio = sorted(u / k for u, k in zip(times["nobody"], times["prom"]))[10]
            print("round %d: wrong password, median answer: known user %.1f ms, unknown user %.1f ms; "
                  "median ratio %.3f" % (rnd + 1, known * 1e3, unknown * 1e3, ratio))
            if 0.9 <= ratio <= 1.1:
                break
        check(0.9 <= ratio <= 1.1, "unknown and known users answer within 10%% (median ratio of 20 pairs %.3f)" %
              ratio)
        # the budget: one address trying again and again gets 429 without a bcrypt
        codes = [raw_get(s.port, "prom:wrong", src="127.2.0.1")[0] for _ in range(12)]
        check(429 in codes and codes.count(401) <= 6, "an address that keeps failing gets 429 (%r)" % codes)
        auth = {"Authorization": "Basic " + base64.b64encode(b"prom:right pass").decode()}
        for _ in range(10):  # the right password, once the budget has a token again
            st, _, body = s.get("/metrics", headers=auth)
            if st == 200:
                break
            time.sleep(1)
        got = metric(body.decode(), "gpuaudit_serve_requests_refused_total", {"reason": "auth_budget"})
        check(st == 200 and got is not None and got >= codes.count(429),
              "gpuaudit_serve_requests_refused_total{reason=auth_budget} counts the 429s (%r of %d, %d)" %
              (got, codes.count(429), st))
        st, _ = raw_get(s.port, "prom:right pass", src="127.2.0.1")
        check(st in (200, 429), "the right password from that address: %d" % st)
    finally:
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    return 0


def t_idle(exe, work):
    """Issue 29: 2,000 clients that connect, send nothing and reconnect when cut do not delay scrapes."""
    import selectors
    root = os.path.join(FIXTURES, "nodes", "cpu-vm", "root")
    s = Serve(exe, ["--root", root, "--interval", "5s"], work=work)
    stop = threading.Event()
    sel = selectors.DefaultSelector()

    def open_one(i):
        try:
            c = socket.socket()
            c.setblocking(False)
            c.connect_ex(("127.0.0.1", s.port))
            sel.register(c, selectors.EVENT_READ, i)
        except OSError:
            pass

    def flood():
        for i in range(2000):
            open_one(i)
        while not stop.is_set():
            for key, _ in sel.select(0.1):
                c = key.fileobj
                try:
                    d = c.recv(100)
                except OSError:
                    d = b""
                if not d:
                    sel.unregister(c)
                    c.close()
                    open_one(key.data)

    try:
        deadline = time.time() + 20  # the first collection (a loaded machine, a sanitizer build)
        while time.time() < deadline and raw_get(s.port, "x:y")[0] != 200:
            time.sleep(0.2)
        check(raw_get(s.port, "x:y")[0] == 200, "serve answers before the flood")
        th = threading.Thread(target=flood, daemon=True)
        th.start()
        time.sleep(3)
        lat = timed_scrapes(s.port, "x:y")
        rss = s.rss_kib()
        stop.set()
        th.join(timeout=10)
        rss_bound(rss, "2000 idle clients")
        judge_scrapes(lat, "2000 idle reconnecting clients")
    finally:
        stop.set()
        for key in list(sel.get_map().values()):
            key.fileobj.close()
        rc = s.stop()
    check(rc == 0, "serve stopped cleanly (exit %d)" % rc)
    return 0


TESTS = {"promtool": t_promtool, "prometheus": t_prometheus, "hang": t_hang, "http": t_http, "load": t_load,
         "limits": t_limits, "auth": t_auth, "idle": t_idle}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in TESTS:
        sys.exit("usage: servetest.py %s GPUAUDIT" % "|".join(TESTS))
    exe = os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="ga-serve-")
    try:
        rc = TESTS[sys.argv[1]](exe, work)
    except Fail as e:
        print("FAIL:", e)
        rc = 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(rc)
