#!/usr/bin/env python3
"""fleet_scale.py - the synthetic large fleet of `bench/fleet.sh scale`, in two forms.

Why: issue 20 asks what `gpuaudit fleet --prometheus` costs against a Prometheus that
holds 100,000 nodes, next to `gpuaudit fleet DIR` over the same nodes' snapshot files,
without running 100,000 nodes. Both forms describe the same fleet, so the two runs can
be compared (and, once both work, their matrices too).

  fleet_scale.py plan WORK GPUAUDIT NODES SPAN_S STEP_S END_S FAMILIES
  fleet_scale.py openmetrics WORK OUT.om
  fleet_scale.py snapshots WORK DIR

plan: WORK/variants.jsonl and WORK/later.jsonl hold mkfleet.py's variants of the
fixture snapshots (the earlier and the later state of one seeded fleet); every distinct
variant goes through the real `gpuaudit serve --once --openmetrics --from FILE`, and its
exposition becomes a template (hostname, instance and GPU UUID left open). WORK/plan.json
records the timeline.

The fleet: node i (host node-NNNNNN, instance node-NNNNNN:9747, job gpuaudit) runs
variant i % 500 of the earlier state. Nodes 0-499 move to their later state (mkfleet
--later: the a100 driver drift mostly fixed, a newer h100 driver on a quarter of the
h100 nodes, other kernels and links) halfway through the span; nodes 0-39 are
decommissioned then (the even ones vanish, the odd ones keep an `up` of 0: scraped but
failing) and 120 new nodes appear. Samples every STEP_S seconds from END_S - SPAN_S to
END_S, with `up` as Prometheus would have recorded it. FAMILIES is a regular expression
on sample names (or "all"): the default keeps what a fleet view reads (the _info
families, GPU counts, findings, the check result, the collection time), so the backfill
stays within what this machine can hold; "all" replicates the whole exposition.

openmetrics: the fleet as OpenMetrics text with timestamps (families grouped, each
series' samples in time order, '# EOF' last), the input of `promtool tsdb
create-blocks-from openmetrics`.

snapshots: the fleet's state at END_S as node snapshot files (gpuaudit.node/v1), one per
node that still reports, in 100 directories, every 10th gzip-compressed.
"""
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys

VARIANTS = 500
GONE = 40  # nodes 0..GONE-1 stop at the midpoint
NEW = 120  # nodes that appear at the midpoint
HOST_MARK, UUID_MARK = "\x01", "\x02"
LABELS_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$')


def node_name(i):
    return "node-%06d" % i


def blank(node):
    """The variant without what differs per node (the key to deduplicate on)."""
    node["host"]["hostname"] = ""
    node["host"].pop("boot_id", None)
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def expose(gpuaudit, text, work, families):
    """A template from serve's exposition of one snapshot: [(family, [sample lines])]."""
    path = os.path.join(work, "variant.json")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([gpuaudit, "serve", "--once", "--openmetrics", "--from", path], check=True,
                         capture_output=True, text=True).stdout
    fams, meta, fam = [], {}, None
    for line in out.splitlines():
        if line.startswith("# EOF"):
            break
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if parts[2] != fam:
                fam = parts[2]
                fams.append((fam, []))
                meta[fam] = []
            meta[fam].append(line)
            continue
        m = LABELS_RE.match(line)
        if not m:
            raise SystemExit("fleet_scale: cannot read exposition line %r" % line)
        name, labels, value = m.group(1), (m.group(2) or "{}")[1:-1], m.group(3)
        if families != "all" and not re.search(families, name):
            continue
        labels = re.sub(r'hostname="[^"]*"', 'hostname="%s"' % HOST_MARK, labels)
        gpu = re.search(r'(?:^|,)gpu="(\d+)"', labels)
        labels = re.sub(r'uuid="([^"]*)[0-9a-f]{12}"',
                        lambda u: 'uuid="%s%s%04x"' % (u.group(1), UUID_MARK, int(gpu.group(1)) if gpu else 0),
                        labels)
        inst = 'instance="%s:9747",job="gpuaudit"' % HOST_MARK
        fams[-1][1].append((name, inst + ("," + labels if labels else ""), value))
    return [(f, s) for f, s in fams if s], meta


def plan(work, gpuaudit, nodes, span_s, step_s, end_s, families):
    times = [end_s - span_s + k * step_s for k in range(span_s // step_s + 1)]
    mid = len(times) // 2
    states = {}  # variant key -> template index
    templates, meta, order = [], {}, []

    def template(line):
        node = json.loads(line)
        key = blank(json.loads(line))
        if key not in states:
            t, m = expose(gpuaudit, line, work, families)
            for fam, _ in t:
                if fam not in meta:
                    meta[fam] = m[fam]
                    order.append(fam)
            states[key] = len(templates)
            templates.append({"families": dict(t), "snapshot": node})
        return states[key]

    early = [template(line) for line in open(os.path.join(work, "variants.jsonl"))]
    later = [template(line) for line in open(os.path.join(work, "later.jsonl"))]
    # mkfleet --later numbers its nodes GONE..VARIANTS+NEW-1: later[k] is node GONE+k
    p = {"nodes": nodes, "times": times, "mid": mid, "early": early, "later": later, "order": order,
         "meta": meta, "families": families, "variants": len(templates)}
    with open(os.path.join(work, "templates.json"), "w") as f:
        json.dump(templates, f)
    with open(os.path.join(work, "plan.json"), "w") as f:
        json.dump(p, f)
    drifting = sum(1 for i in range(GONE, min(nodes, VARIANTS)) if early[i] != later[i - GONE])
    print("fleet_scale: %d nodes, %d distinct expositions, %d samples per series (every %d s), "
          "%d nodes change state at %d, %d stop, %d appear" % (nodes, len(templates), len(times), step_s, drifting,
                                                              times[mid], GONE, NEW))


def timeline(p):
    """(host index, [(first sample, last sample, template or None for up=0 only)])."""
    n, mid, last = p["nodes"], p["mid"], len(p["times"]) - 1
    early, later = p["early"], p["later"]
    for i in range(n):
        e = early[i % VARIANTS]
        if i < GONE:
            yield i, [(0, mid - 1, e)] + ([(mid, last, None)] if i % 2 else [])
        elif i < VARIANTS:
            yield i, [(0, mid - 1, e), (mid, last, later[i - GONE])]
        else:
            yield i, [(0, last, e)]
    for k in range(NEW):
        yield n + k, [(mid, last, later[VARIANTS - GONE + k])]


def openmetrics(work, out):
    p = json.load(open(os.path.join(work, "plan.json")))
    templates = json.load(open(os.path.join(work, "templates.json")))
    times = ["%d" % t for t in p["times"]]
    nodes = list(timeline(p))
    series = 0
    with open(out, "w", buffering=1 << 22) as f:
        for fam in p["order"] + ["up"]:
            f.write("\n".join(p["meta"].get(fam, ["# TYPE up gauge"])) + "\n")
            # per (template, first, last): the block of lines with the host left open
            cache = {}
            for i, segs in nodes:
                host = node_name(i)
                uid = "%08x" % i
                seen = {}  # series -> its lines, so a series kept across states stays in one run
                for first, last, t in segs:
                    key = (t, first, last)
                    if key not in cache:
                        if fam == "up":
                            v = "1" if t is not None else "0"
                            rows = [("up", 'instance="%s:9747",job="gpuaudit"' % HOST_MARK, v)]
                        elif t is None:
                            rows = []
                        else:
                            rows = templates[t]["families"].get(fam, [])
                        cache[key] = [(name + "{" + labels + "}",
                                       "".join("%s %s %s\n" % (name + "{" + labels + "}",
                                                               times[k] if "timestamp_seconds" in name else value,
                                                               times[k]) for k in range(first, last + 1)))
                                      for name, labels, value in rows]
                    for sid, block in cache[key]:
                        seen[sid] = seen.get(sid, "") + block
                for block in seen.values():
                    f.write(block.replace(HOST_MARK, host).replace(UUID_MARK, uid))
                    series += 1
        f.write("# EOF\n")
    print("fleet_scale: %d series, %d bytes" % (series, os.path.getsize(out)))


def snapshots(work, d):
    p = json.load(open(os.path.join(work, "plan.json")))
    templates = json.load(open(os.path.join(work, "templates.json")))
    last = len(p["times"]) - 1
    count = 0
    texts = {}
    for i, segs in timeline(p):
        first, end, t = segs[-1]
        if end != last or t is None:
            continue  # not reporting at the end
        if t not in texts:
            node = templates[t]["snapshot"]
            node["host"]["hostname"] = "@HOST@"  # marks that JSON does not escape
            node["host"]["boot_id"] = "@BOOT@"
            texts[t] = json.dumps(node, separators=(",", ":"))
        host = node_name(i)
        data = texts[t].replace('"@HOST@"', '"%s"' % host).replace(
            '"@BOOT@"', '"%s"' % hashlib.md5(host.encode()).hexdigest()).encode()
        sub = os.path.join(d, "%02d" % (i % 100))
        os.makedirs(sub, exist_ok=True)
        if i % 10 == 7:
            with gzip.GzipFile(os.path.join(sub, host + ".json.gz"), "wb", mtime=0, compresslevel=1) as f:
                f.write(data)
        else:
            with open(os.path.join(sub, host + ".json"), "wb") as f:
                f.write(data)
        count += 1
    print("fleet_scale: %d snapshot files" % count)


def main(argv):
    if len(argv) == 9 and argv[1] == "plan":
        plan(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]), int(argv[7]), argv[8])
    elif len(argv) == 4 and argv[1] == "openmetrics":
        openmetrics(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "snapshots":
        snapshots(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
