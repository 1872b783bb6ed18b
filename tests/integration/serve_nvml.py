#!/usr/bin/env python3
"""serve_nvml.py - `gpuaudit serve` with the fake NVML over several collections:
NVML events as the only Xid source (no dev/kmsg under the fixture root), NVLink
error counters that rise between collections, and a helper whose event wait hangs
(killed at its deadline; shutdown is not held up). Usage: serve_nvml.py GPUAUDIT.
Exit 0 pass, 1 fail, 77 skipped (no fake NVML built)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servetest import FIXTURES, SCENARIOS, SKIP, Fail, Serve, check, metric  # noqa: E402

ROOT = os.path.join(FIXTURES, "nodes", "dgx-a100", "root")


def check_json(s):
    st, _, body = s.get("/v1/check")
    if st != 200:
        raise Fail("GET /v1/check answered %d" % st)
    return json.loads(body)


def wait_finding(s, code, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        d = check_json(s)
        hit = [f for f in d["findings"] if f["code"] == code]
        if hit:
            return d, hit
        time.sleep(0.2)
    raise Fail("%s never appeared in /v1/check" % code)


def helpers(scenario):
    """Event helpers still running for this test's scenario file (other tests run theirs)."""
    out = subprocess.run(["pgrep", "-f", "__vendor-helper nvml-events"], capture_output=True, text=True)
    mine = []
    for pid in out.stdout.split():
        try:
            env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if ("FAKE_NVML_SCENARIO=" + scenario).encode() in env:
            mine.append(pid)
    return mine


def t_events_and_rise(exe, work):
    sc = os.path.join(work, "scenario.json")
    d = json.load(open(os.path.join(SCENARIOS, "nvlink-errors.json")))
    d["events"] = json.load(open(os.path.join(SCENARIOS, "events-xid.json")))["events"]
    json.dump(d, open(sc, "w"))
    env = {"LD_LIBRARY_PATH": os.environ["GA_FAKE_NVML_DIR"], "FAKE_NVML_SCENARIO": sc}
    s = Serve(exe, ["--root", ROOT, "--vendor", "--interval", "1s", "--nvml-events", "2s"], env=env, work=work)
    try:
        s.wait_metric("gpuaudit_xid_source_up", lambda v: v == 1, labels={"source": "nvml_events"})
        check(metric(s.metrics(), "gpuaudit_xid_source_up", {"source": "kmsg"}) == 0,
              "kmsg is not a live Xid source (no dev/kmsg under the fixture root)")
        s.wait_metric("gpuaudit_kernel_events_total", lambda v: v >= 1,
                      labels={"kind": "xid", "code": "79", "gpu": "3"})
        check(True, "Xid 79 from NVML events counted as a kernel-log Xid on GPU 3")
        s.wait_metric("gpuaudit_kernel_events_total", lambda v: v >= 1,
                      labels={"kind": "xid", "code": "48", "gpu": "6"})
        check(True, "Xid 48 from NVML events counted on GPU 6")
        j = check_json(s)
        check(j["xid_sources"] == {"kmsg": False, "nvml_events": True}, "/v1/check names the live Xid sources")
        check(not [f for f in j["findings"] if f["code"] == "GA-XID-NO-SOURCE"], "no GA-XID-NO-SOURCE")
        check(not [f for f in j["findings"] if f["code"] == "GA-NVLINK-ERRORS-RISING"],
              "no NVLink rise while the counters stand still")
        # the counters of GPU 4 link 3 rise at the next collection
        shutil.copy(os.path.join(SCENARIOS, "nvlink-errors-rising.json"), sc + ".new")
        os.replace(sc + ".new", sc)
        j, hit = wait_finding(s, "GA-NVLINK-ERRORS-RISING")
        ev = hit[0]["evidence"]
        check(hit[0]["subject"] == "0000:87:00.0" and ev["link"] == "3" and ev["replay_delta"] == "260"
              and ev["crc_flit_delta"] == "55" and ev["recovery_delta"] == "2",
              "GA-NVLINK-ERRORS-RISING on GPU 4 link 3 with the deltas")
        check(hit[0]["severity"] == "error", "a recovery among the rises makes it an error")
        time.sleep(2.5)
        _, hit = wait_finding(s, "GA-NVLINK-ERRORS-RISING")
        check(True, "the rise stays raised after counters stop (hold)")
        check(metric(s.metrics(), "gpuaudit_gpu_nvlink_errors_total",
                     {"gpu": "4", "link": "3", "counter": "replay"}) == 410, "the counter itself in metrics")
    finally:
        t0 = time.time()
        rc = s.stop()
    check(rc == 0 and time.time() - t0 < 5, "SIGTERM stops serve during an event wait (%.1f s)" % (time.time() - t0))
    time.sleep(0.3)
    check(not helpers(sc), "no event helper left behind")


def t_hang(exe, work):
    sc = os.path.join(work, "events-hang.json")
    shutil.copy(os.path.join(SCENARIOS, "events-hang.json"), sc)
    env = {"LD_LIBRARY_PATH": os.environ["GA_FAKE_NVML_DIR"], "FAKE_NVML_SCENARIO": sc}
    s = Serve(exe, ["--root", ROOT, "--vendor", "--interval", "1s", "--nvml-events", "1s", "--timeout", "1"],
              env=env, work=work)
    try:
        s.wait_metric("gpuaudit_xid_source_up", lambda v: v == 0, labels={"source": "nvml_events"}, timeout=20)
        check(True, "a hung event wait is killed at its deadline and reported as not live")
        _, hit = wait_finding(s, "GA-XID-NO-SOURCE")
        check(hit[0]["severity"] == "warning", "GA-XID-NO-SOURCE when neither source is live")
    finally:
        t0 = time.time()
        rc = s.stop()
    check(rc == 0 and time.time() - t0 < 5, "SIGTERM stops serve while NVML hangs (%.1f s)" % (time.time() - t0))
    err = open(os.path.join(work, "serve.err")).read()
    check("NVML events are not live" in err and "nvmlEventSetWait" in err, "the hung call is named on stderr")
    time.sleep(0.3)
    check(not helpers(sc), "no event helper left behind")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = os.path.abspath(sys.argv[1])
    if not os.environ.get("GA_FAKE_NVML_DIR") or not os.path.exists(
            os.path.join(os.environ["GA_FAKE_NVML_DIR"], "libnvidia-ml.so.1")):
        print("skipped: no fake NVML", file=sys.stderr)
        return SKIP
    for t in (t_events_and_rise, t_hang):
        work = tempfile.mkdtemp(prefix="gpuaudit-serve-nvml-")
        try:
            t(exe, work)
        except Fail as e:
            print("FAIL:", e, file=sys.stderr)
            print(open(os.path.join(work, "serve.err")).read() if os.path.exists(
                os.path.join(work, "serve.err")) else "", file=sys.stderr)
            return 1
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
