#!/usr/bin/env python3
"""fleet --prometheus against a real Prometheus (tests/integration/fleet-prometheus.sh).

Several `gpuaudit serve` on loopback, each on a fixture tree (tests/fixtures/nodes/*/root), some
with a policy, one on a copy whose driver is later upgraded in place; a real Prometheus scrapes
them every second into a temporary TSDB. `fleet --prometheus` must give the matrix `fleet` gives
over the same nodes' snapshot files (`discover --json`); after the driver upgrade and a node that
stops, the drift in time (--since) and --diff must say so. Errors: the server's own message for a
query it refuses, exit 3 for an unreachable server, exit 4 for one that does not answer in time.
Exit 77 = skipped.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
POLICY = os.path.join(FIXTURES, "policies", "fleet.yaml")
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Serve:
    def __init__(self, exe, root, work, name, policy):
        self.err_path = os.path.join(work, name + ".err")
        self.err = open(self.err_path, "w")
        args = [exe, "serve", "--listen", "127.0.0.1:0", "--interval", "1s", "--root", root, "--no-vendor"]
        if policy:
            args += ["--policy", POLICY]
        self.p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err)
        self.port = None
        deadline = time.time() + 15
        while time.time() < deadline and self.p.poll() is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(self.err_path).read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.05)
        if not self.port:
            raise RuntimeError("gpuaudit serve did not start: " + open(self.err_path).read())

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.err.close()


def run(exe, *args):
    p = subprocess.run([exe] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def api(base, path, **params):
    url = base + path + "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())["data"]


def matrix(rep):
    """What must be equal whichever way the nodes came: classes, stacks, counts, drift."""
    classes = []
    for k in rep.get("classes", []):
        stacks = sorted((s["stack_sha256"], s["driver"], s["cuda"], s["rocm"], s["kernel"], s["os"], s["nodes"],
                         s["links_degraded"], s["failing"], s["majority"], s["drift"]) for s in k["stacks"])
        classes.append((k["id"], k["name"], k["hw_sha256"], k["pool"], k["gpus"], k["expected_gpus"], k["nodes"],
                        stacks))
    # the detail's codes as a set: files list them in finding order, Prometheus in label order;
    # a pin's message is not in the series (its code is)
    drift = sorted((d["host"], d["class_id"], d["stack_sha256"], tuple(d["reasons"]),
                    frozenset(w for w in (d["detail"] or "").replace(";", " ").split()
                              if w.startswith("GA-") and not w.startswith("GA-PIN-")))
                   for d in rep.get("drift", []))
    return {"nodes": rep.get("nodes"), "classes": sorted(classes), "drift": drift, "drift_nodes": rep.get("drift_nodes")}


def same_matrix(files, prom, what):
    a, b = matrix(files), matrix(prom)
    if a == b:
        return check(True, what)
    for key in a:
        if a[key] != b[key]:
            print("  %s differs:\n    files:      %r\n    prometheus: %r" % (key, a[key], b[key]))
    return check(False, what)


def fleet_json(exe, *args):
    rc, out, err = run(exe, "fleet", "--json", *args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err


def wait(pred, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if pred():
                return True
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.25)
    return check(False, what + " within %d s" % timeout)


def t_tls_auth(exe, work):
    """--ca-file, --insecure-skip-verify, --bearer-token-file and --basic-auth against a small HTTPS API."""
    import base64
    import http.server
    import ssl
    import threading
    if not shutil.which("openssl"):
        print("skip: TLS and auth (openssl not installed)")
        return
    key, crt = os.path.join(work, "tls.key"), os.path.join(work, "tls.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt, "-days",
                    "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    with open(os.path.join(work, "token"), "w") as f:
        f.write("s3cret-token\n")
    with open(os.path.join(work, "password"), "w") as f:
        f.write("pa55\n")
    body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": {"job": "j", "instance": "10.0.0.1:9747", "hostname": "n1", "class": "a100-x8-f4325545",
                    "name": "a100-x8", "hw_sha256": "f4325545", "family": "c0", "stack_sha256": "aa", "gpus": "8"},
         "value": [1700000000, "1"]},
        # a node whose PCI devices could not be read: serve writes no gpus label
        {"metric": {"job": "j", "instance": "10.0.0.2:9747", "hostname": "n2",
                    "class": "unknown-accelerators-1139a2cb", "name": "unknown-accelerators",
                    "hw_sha256": "1139a2cb", "family": "1139a2cb", "stack_sha256": "aa"},
         "value": [1700000000, "1"]}]}}).encode()
    seen = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
            q = form.get("query", [""])[0]
            auth = self.headers.get("Authorization", "")
            seen.append(auth)
            ok = auth in ("Bearer s3cret-token", "Basic " + base64.b64encode(b"alice:pa55").decode())
            b = body if ok else b'{"status":"error","errorType":"unauthorized","error":"no such token"}'
            if ok and (q.startswith("group") or "gpuaudit_findings" in q):
                b = b'{"status":"success","data":{"resultType":"vector","result":[]}}'
            self.send_response(200 if ok else 401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = "https://127.0.0.1:%d" % srv.server_address[1]
    try:
        rc, out, err = run(exe, "fleet", "--prometheus", url, "--bearer-token-file", os.path.join(work, "token"))
        check(rc == 3 and "certificate" in err.lower(), "TLS: an unknown CA is refused, exit 3 (%s)" % err.strip()[:160])
        rc, out, err = run(exe, "fleet", "--prometheus", url, "--ca-file", crt, "--bearer-token-file",
                           os.path.join(work, "token"))
        check(rc == 0 and "a100-x8-f4325545" in out and "Bearer s3cret-token" in seen,
              "--ca-file and --bearer-token-file: the server answers (rc %d %s)" % (rc, err.strip()[:160]))
        check("unknown-accelerators-1139a2cb: 1 node, GPUs UNKNOWN" in out and "0 GPU" not in out,
              "a series without the gpus label: the class's GPU count is unknown, not 0")
        rc, out, err = run(exe, "fleet", "--prometheus", url, "--insecure-skip-verify", "--basic-auth",
                           "alice:" + os.path.join(work, "password"))
        check(rc == 0 and "a100-x8-f4325545" in out and seen[-1].startswith("Basic "),
              "--insecure-skip-verify and --basic-auth (rc %d %s)" % (rc, err.strip()[:160]))
        rc, out, err = run(exe, "fleet", "--prometheus", url, "--ca-file", crt, "--username", "bob",
                           "--password-file", os.path.join(work, "password"))
        check(rc == 3 and "unauthorized" in err and "no such token" in err and not out,
              "a refused login: exit 3 with the server's message (%s)" % err.strip()[:160])
    finally:
        srv.shutdown()


def main(exe):
    if not shutil.which("prometheus"):
        print("SKIP: prometheus (Debian package prometheus) is not installed")
        return 77
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="fleet-prom-")
    serves, prom = {}, None
    try:
        # the node whose driver is upgraded: a copy of dgx-a100 (15 MB)
        up_root = os.path.join(work, "a100-up")
        shutil.copytree(os.path.join(FIXTURES, "nodes", "dgx-a100", "root"), up_root, symlinks=True)
        nodes = {  # name: (root, policy)
            "dgx-a100": (up_root, True),
            "dgx-h100": (os.path.join(FIXTURES, "nodes", "dgx-h100", "root"), True),
            "a10-x8": (os.path.join(FIXTURES, "nodes", "a10-x8", "root"), True),
            "cpu-vm": (os.path.join(FIXTURES, "nodes", "cpu-vm", "root"), True),
            # without a policy: drift against the pool's majority (two A100 stacks, one H100)
            "plain-a100": (os.path.join(FIXTURES, "nodes", "dgx-a100", "root"), False),
            "plain-h100": (os.path.join(FIXTURES, "nodes", "dgx-h100", "root"), False),
            "plain-mi250x": (os.path.join(FIXTURES, "nodes", "mi250x", "root"), False),
        }
        for name, (root, pol) in nodes.items():
            serves[name] = Serve(exe, root, work, name, pol)
        pport = free_port()
        base = "http://127.0.0.1:%d" % pport
        cfg = os.path.join(work, "prometheus.yml")
        tg = lambda pol: ", ".join("'127.0.0.1:%d'" % serves[n].port for n in nodes if nodes[n][1] == pol)
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n"
                    "  - job_name: gpuaudit\n    static_configs:\n      - targets: [%s]\n"
                    "  - job_name: plain\n    static_configs:\n      - targets: [%s]\n" % (tg(True), tg(False)))
        plog = open(os.path.join(work, "prometheus.log"), "w")
        prom = subprocess.Popen(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(work, "tsdb"),
                                 "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
                                stdout=plog, stderr=subprocess.STDOUT, cwd=work)

        def all_up():
            t = api(base, "/api/v1/targets")["activeTargets"]
            return len(t) == len(nodes) and all(x["health"] == "up" for x in t)

        if not wait(all_up, 30, "Prometheus scrapes every serve (/api/v1/targets: all up)"):
            return 1
        if not wait(lambda: len(api(base, "/api/v1/query", query="gpuaudit_fleet_info")["result"]) == len(nodes), 15,
                    "gpuaudit_fleet_info of every node in Prometheus"):
            return 1

        # snapshot files of the same nodes
        snaps = os.path.join(work, "snaps")
        os.mkdir(snaps)

        def discover(name):
            rc, out, err = run(exe, "discover", "--root", nodes[name][0], "--no-vendor", "--json")
            with open(os.path.join(snaps, name + ".json"), "w") as f:
                f.write(out)
            return os.path.join(snaps, name + ".json")

        files = {n: discover(n) for n in nodes}
        pol_files = [files[n] for n in nodes if nodes[n][1]]
        plain_files = [files[n] for n in nodes if not nodes[n][1]]

        # 1. with a policy (serve --policy / fleet --policy)
        _, f_pol, _ = fleet_json(exe, "--policy", POLICY, *pol_files)
        rc, p_pol, err = fleet_json(exe, "--prometheus", base, "--match", '{job="gpuaudit"}')
        check(p_pol is not None, "fleet --prometheus --json answers (rc %d, %s)" % (rc, err.strip()[:300]))
        if p_pol is None:
            return 1
        same_matrix(f_pol, p_pol, "with a policy: the same matrix and drift as fleet --policy over the snapshots")
        check(p_pol["policy"] == "fleet.yaml" and p_pol["prometheus"] == base,
              "the report names the policy (%r) and the server" % p_pol["policy"])
        check(rc == (1 if p_pol["drift_nodes"] else 0), "exit %d with %d drifting nodes" % (rc, p_pol["drift_nodes"]))
        # 2. without one: pools are families, drift is off the majority
        _, f_plain, _ = fleet_json(exe, *plain_files)
        rc, p_plain, err = fleet_json(exe, "--prometheus", base, "--match", 'job="plain"')
        check(p_plain is not None, "without a policy: fleet --prometheus answers (rc %d, %s)" % (rc, err.strip()[:300]))
        same_matrix(f_plain, p_plain or {"classes": [], "drift": []},
                    "without a policy: the same matrix and drift as fleet over the snapshots")
        # text and Markdown carry the same classes
        _, text, _ = run(exe, "fleet", "--prometheus", base, "--match", '{job="gpuaudit"}')
        check(all(k["id"] in text for k in p_pol["classes"]) and "from: " + base in text,
              "text output lists every class and the server")
        _, mdown, _ = run(exe, "fleet", "--prometheus", base, "--markdown", "--match", '{job="gpuaudit"}')
        check(mdown.startswith("# Fleet compatibility matrix") and all(k["id"] in mdown for k in p_pol["classes"]),
              "Markdown output lists every class")
        # the union of two selectors is the whole fleet
        _, both, _ = fleet_json(exe, "--prometheus", base, "--match", '{job="plain"}', "--match", '{job="gpuaudit"}')
        check(both and both["nodes"] == len(nodes), "two --match selectors: their union (%s nodes)" %
              (both and both["nodes"]))
        before = os.path.join(work, "before.json")
        with open(before, "w") as f:
            json.dump(p_pol, f)

        t_before = time.time()
        # 3. a driver upgrade on one node (550.135 -> 565.57.01, outside the pool's pin <560)
        t_change = time.time()
        for dirpath, _, fnames in os.walk(up_root):
            for fn in fnames:
                p = os.path.join(dirpath, fn)
                if os.path.islink(p) or not (fn == "version" and ("nvidia" in dirpath)):
                    continue
                s = open(p, encoding="latin-1").read()
                if "550.135" in s:
                    with open(p, "w", encoding="latin-1") as f:
                        f.write(s.replace("550.135", "565.57.01"))
        if not wait(lambda: api(base, "/api/v1/query", query='gpuaudit_fleet_info{driver=~".*565.57.01.*"}')["result"],
                    15, "Prometheus sees the upgraded driver"):
            return 1
        # and one node stops reporting
        serves["a10-x8"].stop()
        wait(lambda: not api(base, "/api/v1/query", query='gpuaudit_fleet_info{hostname=~"a10.*"}')["result"], 10,
             "the stopped node's series go stale")
        since = "%ds" % (int(time.time() - t0) + 5)
        rc, after, err = fleet_json(exe, "--prometheus", base, "--match", '{job="gpuaudit"}', "--since", since,
                                    "--diff", before)
        check(after is not None, "fleet --prometheus --since --diff answers (%s)" % err.strip()[:300])
        if after is None:
            return 1
        hist = {h["host"]: h for h in after.get("history", [])}
        a100 = hist.get("dgx-a100-01")
        check(a100 is not None and a100["status"] == "changed" and len(a100["states"]) == 2 and
              a100["states"][0]["driver"].startswith("nvidia 550.135") and
              a100["states"][1]["driver"].startswith("nvidia 565.57.01") and
              a100["states"][0]["last_seen_s"] <= a100["states"][1]["first_seen_s"] and
              a100["states"][1]["first_seen_s"] >= t_change - 2,
              "drift in time: the upgraded node changed, 550.135 then 565.57.01, with first and last seen (%r)" % a100)
        a10 = [h for h in after.get("history", []) if h["host"].startswith("a10")]
        check(len(a10) == 1 and a10[0]["status"] == "stopped" and a10[0]["last_seen_s"] < after["at_s"],
              "the node that stopped is listed as stopped, with its last seen (%r)" % a10)
        check(after["history_nodes"] == 2 and rc == 1, "two nodes in the history, exit 1 (rc %d)" % rc)
        kinds = sorted((c["kind"], c.get("host") or "") for c in after["diff"]["changes"])
        check(("stack-added", "") in kinds and ("stack-removed", "") in kinds,
              "--diff: the A100 class lost its old stack and gained the new one (%r)" % kinds)
        drifted = [d for d in after["drift"] if d["host"] == "dgx-a100-01"]
        check(drifted and "stack" in drifted[0]["reasons"],
              "the upgraded node drifts: its driver is outside the pool's pin (%r)" % drifted)
        # the same nodes' snapshots now: the same matrix again
        discover("dgx-a100")
        _, f_now, _ = fleet_json(exe, "--policy", POLICY, *[files[n] for n in nodes if nodes[n][1] and n != "a10-x8"])
        same_matrix(f_now, after, "after the upgrade: the same matrix as fleet over the new snapshots")
        # --at: the fleet as it was before the upgrade
        _, then, _ = fleet_json(exe, "--prometheus", base, "--match", '{job="gpuaudit"}', "--at", "%.3f" % t_before)
        same_matrix(p_pol, then or {}, "--at before the upgrade: the matrix of then")
        if os.environ.get("FLEET_PROM_SAVE"):  # the model's example (tests/fixtures/models/fleet.json)
            _, out, _ = run(exe, "fleet", "--json", "--prometheus", base, "--match", '{job="gpuaudit"}', "--since",
                            since)
            with open(os.environ["FLEET_PROM_SAVE"], "w") as f:
                f.write(out)
        _, text, _ = run(exe, "fleet", "--prometheus", base, "--match", '{job="gpuaudit"}', "--since", since, "--diff",
                         before)
        check("drift in time" in text and "stopped" in text and "stack-added" in text,
              "text output: drift in time and the diff")
        _, csvt, _ = run(exe, "fleet", "--prometheus", base, "--match", '{job="gpuaudit"}', "--since", since, "--csv")
        check(len([l for l in csvt.splitlines() if l.startswith("history,")]) == 3,
              "CSV output: one history row per state (2 + 1)")
        _, mdown, _ = run(exe, "fleet", "--prometheus", base, "--match", '{job="gpuaudit"}', "--since", since,
                          "--markdown")
        check("## Drift in time" in mdown and "565.57.01" in mdown, "Markdown output: the drift in time")

        # 4. errors: the server's own message, never a partial matrix
        rc, out, err = run(exe, "fleet", "--prometheus", base, "--match", '{job=~"("}')
        check(rc == 2 and "bad_data" in err and not out, "a query the server refuses: exit 2, its message (%s)" %
              err.strip()[:200])
        rc, out, err = run(exe, "fleet", "--prometheus", "http://127.0.0.1:%d" % free_port())
        check(rc == 3 and not out, "an unreachable server: exit 3 (%s)" % err.strip()[:200])
        mute = socket.socket()
        mute.bind(("127.0.0.1", 0))
        mute.listen(4)
        rc, out, err = run(exe, "fleet", "--prometheus", "http://127.0.0.1:%d" % mute.getsockname()[1], "--timeout",
                           "1s")
        mute.close()
        check(rc == 4 and not out, "a server that does not answer in time: exit 4 (%s)" % err.strip()[:200])
        rc, out, err = run(exe, "fleet", "--prometheus", base, "--match", "job=")
        check(rc == 2 and "--match" in err, "a malformed --match: exit 2 (%s)" % err.strip()[:200])
        t_tls_auth(exe, work)
    finally:
        for s in serves.values():
            s.stop()
        if prom:
            prom.send_signal(signal.SIGTERM)
            try:
                prom.wait(timeout=20)
            except subprocess.TimeoutExpired:
                prom.kill()
                prom.wait()
        if FAILED:
            print("work dir kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("%.1f s" % (time.time() - t0))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
