#!/bin/sh
# serve-slowloris.sh - issue 22 item 3: slow clients must never starve a scrape.
#
# Starts `gpuaudit serve` (default limits) on a free loopback port and attacks it
# with slowloris clients that send one header byte per second and never finish
# their request, reconnecting whenever the server cuts them:
#   phase 1: 64 clients from 127.0.0.1, the scraper's own address (a per-IP
#            limit alone cannot help here), plus one from 127.0.0.3 whose
#            lifetime checks the whole-request deadline (5 s by default);
#   phase 2: 200 clients from 200 addresses (127.0.1.1 ... 127.0.1.200), so no
#            per-IP limit applies and the reserved share must carry the defence;
#   then:    100 fast keep-alive clients from one address, 5 requests each, all
#            at once: the caps must not mistake them for slow ones.
# Meanwhile a client scrapes /metrics twice a second; every scrape must be
# answered (200, a full exposition) within 1 s. Loopback only, bounded in
# connections (at most 201 at a time) and in time (timeout 60).
# Argument: the gpuaudit binary. Exit 0 pass, 1 fail, 77 skip (no python3).
exe="$1"
[ -x "$exe" ] || { echo "usage: $0 GPUAUDIT" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
SRCDIR="${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
export SRCDIR
exec timeout -k 5 60 python3 - "$exe" <<'EOF'
import errno, os, re, select, signal, socket, subprocess, sys, tempfile, threading, time

exe = sys.argv[1]
root = os.path.join(os.environ["SRCDIR"], "tests", "fixtures", "nodes", "cpu-vm", "root")
work = tempfile.mkdtemp(prefix="ga-slowloris-")
err_path = os.path.join(work, "serve.err")
err = open(err_path, "w")
srv = subprocess.Popen([exe, "serve", "--listen", "127.0.0.1:0", "--root", root, "--no-vendor",
                        "--interval", "1s"], stdout=subprocess.DEVNULL, stderr=err)
failed = []


def fail(msg):
    print("FAIL:", msg)
    failed.append(msg)


port = None
t_end = time.time() + 20
while time.time() < t_end and srv.poll() is None and port is None:
    m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(err_path).read())
    port = int(m.group(1)) if m else None
    time.sleep(0.05)
if not port:
    print("FAIL: serve did not start:", open(err_path).read())
    srv.kill()
    sys.exit(1)


# 1 s per scrape, as the issue asks; 3 s in the ASan+UBSan build, whose server is
# several times slower (the attack is the same)
BUDGET = 3.0 if os.environ.get("GA_SANITIZE", "").upper() in ("ON", "1", "TRUE") else 1.0


def scrape(timeout=BUDGET):
    """(ok, seconds, what): one GET /metrics from 127.0.0.1 on a fresh connection."""
    t0 = time.monotonic()
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=("127.0.0.1", 0))
        c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                raise socket.timeout()
            c.settimeout(left)
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
        c.close()
    except OSError as e:
        return False, time.monotonic() - t0, "%s" % (e.__class__.__name__ if isinstance(e, socket.timeout) else e)
    dt = time.monotonic() - t0
    ok = data.startswith(b"HTTP/1.1 200") and b"gpuaudit_collection_running " in data and dt < BUDGET
    return ok, dt, data[:40]


# wait for the first collection
t_end = time.time() + 20
while time.time() < t_end and not scrape(5)[0]:
    time.sleep(0.1)


class Attack:
    """N slowloris clients (one header byte per second each, reconnecting when cut)."""

    REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000

    def __init__(self, sources):
        self.sources = sources
        self.conns = {}  # socket -> [source, bytes sent, connected at]
        self.cut = 0
        self.lifetimes = {}  # source -> seconds of the first connection cut by the server
        self.stop = False
        for s in sources:
            self.open(s)

    def open(self, source):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setblocking(False)
        c.bind((source, 0))
        e = c.connect_ex(("127.0.0.1", port))
        if e not in (0, errno.EINPROGRESS):
            c.close()
            return
        self.conns[c] = [source, 0, time.monotonic()]

    def close(self, c):
        source, _, t0 = self.conns.pop(c)
        c.close()
        self.cut += 1
        self.lifetimes.setdefault(source, time.monotonic() - t0)
        if not self.stop:
            self.open(source)

    def tick(self):
        """Reap the connections the server closed, then send one byte on each of the others."""
        r, _, _ = select.select(list(self.conns), [], [], 0)
        for c in r:
            try:
                if c.recv(4096):
                    continue  # an answer would mean the request was complete: it never is
            except OSError:
                pass
            self.close(c)
        for c in list(self.conns):
            st = self.conns[c]
            try:
                if c.send(self.REQ[st[1] % len(self.REQ):][:1]) == 1:
                    st[1] += 1
            except BlockingIOError:
                pass  # not connected yet (waiting in the listen queue)
            except OSError:
                self.close(c)

    def run(self, seconds, step=1.0):
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end:
            self.tick()
            time.sleep(step)

    def release(self):
        self.stop = True
        for c in list(self.conns):
            c.close()
        self.conns.clear()


def phase(name, sources, seconds):
    atk = Attack(sources)
    results = []

    def scraper():
        time.sleep(1.0)  # the attack is in place
        t_end = time.monotonic() + seconds - 1.5
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            results.append(scrape())
            time.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))

    th = threading.Thread(target=scraper)
    th.start()
    # the attacker ticks twice a second but each connection still sends one byte per second
    t_end = time.monotonic() + seconds
    flip = False
    while time.monotonic() < t_end:
        if not flip:
            atk.tick()
        else:
            r, _, _ = select.select(list(atk.conns), [], [], 0)
            for c in r:
                try:
                    if c.recv(4096):
                        continue
                except OSError:
                    pass
                atk.close(c)
        flip = not flip
        time.sleep(0.5)
    th.join()
    good = sum(1 for ok, _, _ in results if ok)
    worst = max((dt for _, dt, _ in results), default=0)
    print("%s: %d of %d scrapes answered within %g s (slowest %.3f s); %d slow connections open at the end, "
          "%d cut by the server" % (name, good, len(results), BUDGET, worst, len(atk.conns), atk.cut))
    for ok, dt, what in results:
        if not ok:
            print("  failed scrape after %.3f s: %r" % (dt, what))
    if not results or good != len(results):
        fail("%s: %d of %d scrapes succeeded" % (name, good, len(results)))
    lifetimes = dict(atk.lifetimes)
    atk.release()
    return lifetimes


try:
    # phase 1: 64 from the scraper's own address, one more from 127.0.0.3 for the deadline
    life = phase("64 slow clients from 127.0.0.1", ["127.0.0.1"] * 64 + ["127.0.0.3"], 7)
    lone = life.get("127.0.0.3")
    if lone is None or not 4.0 <= lone <= 7.0:
        fail("a slow request (one byte a second) is cut at the 5 s deadline (%s)" %
             ("lived %.1f s" % lone if lone is not None else "still open after 7 s"))
    else:
        print("ok: a slow request was cut after %.1f s (deadline 5 s)" % lone)
    time.sleep(0.5)
    # phase 2: 200 from 200 addresses
    phase("200 slow clients from 200 addresses", ["127.0.1.%d" % i for i in range(1, 201)], 5.5)
    ok, dt, what = scrape()
    if not ok:
        fail("a scrape after the attack (%r after %.3f s)" % (what, dt))
    # fast clients: 100 keep-alive connections from 127.0.0.1 at once (more than the per-IP cap)
    bar = threading.Barrier(100)
    done = []

    def fast():
        n = 0
        try:
            bar.wait(10)
            c = socket.create_connection(("127.0.0.1", port), timeout=5)
            for _ in range(5):
                c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                d = b""
                while b"gpuaudit_collection_running " not in d:
                    x = c.recv(65536)
                    if not x:
                        break
                    d += x
                n += b"gpuaudit_collection_running " in d
            c.close()
        except (OSError, threading.BrokenBarrierError):
            pass
        done.append(n)

    ths = [threading.Thread(target=fast) for _ in range(100)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    print("100 fast keep-alive clients: %d of 500 requests answered" % sum(done))
    if sum(done) != 500:
        fail("fast clients were cut: %d of 500 requests answered" % sum(done))
finally:
    srv.send_signal(signal.SIGTERM)
    try:
        rc = srv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = srv.wait()
        fail("serve did not stop within 10 s of SIGTERM")
    err.close()
    if rc != 0:
        fail("serve exited %d after SIGTERM" % rc)
    import shutil
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
EOF
