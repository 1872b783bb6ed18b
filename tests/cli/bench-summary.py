#!/usr/bin/env python3
"""bench-summary.py - the host-independent shape of a gpuaudit.bench/v1 document on stdin.

Prints schema and kind, each backend's name and status, each result's kind,
backend, what, status and the start of its reason, each metric's name, unit,
direction and sample count, the ratios' pairs and cliff flags, and the finding
codes; and asserts the canary contract (median/min present and consistent with
the samples). Timing numbers are never printed, so goldens stay stable.
"""
import json
import statistics
import sys

d = json.load(sys.stdin)
print("schema", d["schema"], "kind", d["kind"])
for b in d["backends"]:
    print("backend", b["name"], b["status"])
for r in d["results"]:
    reason = (r["reason"] or "").split(":")[0]
    print("result", r["kind"], r["backend"], r["what"], r["status"], reason)
    if r["status"] == "ok":
        assert r["median"] > 0 and r["best"] > 0 and r["cold_start_s"] > 0, r
        if r["rel_err"] is not None:
            assert r["rel_err"] <= r["tolerance"], r
for m in d["metrics"]:
    s = m["samples"]
    assert s and all(isinstance(x, (int, float)) for x in s), m
    assert abs(m["median"] - statistics.median(s)) <= 1e-9 * abs(m["median"]), m
    assert m["min"] == min(s) and m["max"] == max(s), m
    assert m["unit"] in ("flop/s", "byte/s", "s") and m["better"] in ("higher", "lower"), m
    print("metric", m["name"], m["unit"], m["better"], len(s))
for q in d["ratios"]:
    # which backend is faster, and so whether it is a cliff, depends on the host
    assert q["ratio"] >= 1 and q["cliff"] == (q["ratio"] > 2), q
    print("ratio", q["device_key"], q["what"], "/".join(sorted((q["fast"], q["slow"]))))
codes = {f["code"] for f in d["findings"]}
assert ("GA-BENCH-CLIFF" in codes) == any(q["cliff"] for q in d["ratios"])
print("findings", " ".join(sorted(codes - {"GA-BENCH-CLIFF"})))
