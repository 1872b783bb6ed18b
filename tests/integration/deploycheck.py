#!/usr/bin/env python3
"""deploycheck.py GPUAUDIT - deploy/ is valid and agrees with the code and docs/metrics.md.

YAML parses (yaml.safe_load_all) with the keys each kind needs; the DaemonSet is not
privileged and mounts the host read-only except the NFD directory; its arguments and its
policy work with this gpuaudit; the node-problem-detector config runs a real check; the
Argo template declares every argument it uses; promtool checks the rules (and their unit
tests) and the Prometheus config; the Grafana dashboard and the rules only use documented
metric names, and docs/metrics.md documents every family the code writes.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

SRCDIR = os.environ.get("SRCDIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(SRCDIR, "deploy")
FIXTURES = os.path.join(SRCDIR, "tests", "fixtures")
fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1


def dig(d, path):
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def documented_metrics():
    text = open(os.path.join(SRCDIR, "docs", "metrics.md")).read()
    return set(re.findall(r"^\| `(gpuaudit_[a-z_]+)`", text, re.M))


def code_metrics():
    text = "".join(open(f).read() for f in sorted(glob.glob(os.path.join(SRCDIR, "lib", "emit", "prom*.c"))))
    return set(re.findall(r'"(gpuaudit_[a-z_]+)"', text))


def documented_records():
    """Recording rules docs/metrics.md lists (level:gpuaudit_metric:operations)."""
    text = open(os.path.join(SRCDIR, "docs", "metrics.md")).read()
    return set(re.findall(r"^\| `([a-z_]+:gpuaudit_[a-z_]+:[a-z_]+)`", text, re.M))


def names_in_expr(expr):
    """gpuaudit metric names and recorded series (with colons) an expression uses."""
    return set(n for n in re.findall(r"(?<![A-Za-z0-9_:])([a-z_]*:?gpuaudit_[a-z_]+(?::[a-z_]+)?)", expr))


def k8s_docs():
    for f in sorted(glob.glob(os.path.join(DEPLOY, "kubernetes", "*.yaml"))):
        for d in yaml.safe_load_all(open(f)):
            if d is not None:
                yield os.path.basename(f), d


def main(exe):
    docs, code = documented_metrics(), code_metrics()
    check(code <= docs, "docs/metrics.md documents every family in lib/emit/prom*.c (missing: %s)"
          % sorted(code - docs))
    check(docs <= code, "docs/metrics.md lists no family the code does not write (extra: %s)" % sorted(docs - code))

    objs = {}
    for f, d in k8s_docs():
        if isinstance(d, list):  # scrape-config.yaml: a list of scrape jobs
            for job in d:
                check(all(k in job for k in ("job_name", "kubernetes_sd_configs", "relabel_configs")),
                      "%s: scrape job %s has job_name, kubernetes_sd_configs, relabel_configs" % (f, job.get("job_name")))
            continue
        kind = d.get("kind")
        check(bool(d.get("apiVersion")) and bool(kind) and bool(dig(d, "metadata.name")),
              "%s: %s has apiVersion, kind, metadata.name" % (f, kind))
        objs.setdefault(kind, []).append(d)

    # DaemonSet
    ds = objs.get("DaemonSet", [None])[0]
    check(ds is not None, "daemonset.yaml has a DaemonSet")
    pod = dig(ds, "spec.template.spec")
    sel = dig(ds, "spec.selector.matchLabels") or {}
    tl = dig(ds, "spec.template.metadata.labels") or {}
    check(sel and all(tl.get(k) == v for k, v in sel.items()), "DaemonSet selector matches its pod labels")
    c = pod["containers"][0]
    vols = {v["name"]: v for v in pod["volumes"]}
    for m in c["volumeMounts"]:
        check(m["name"] in vols, "volumeMount %s has a volume" % m["name"])
        v = vols.get(m["name"], {})
        if "hostPath" in v:
            writable = not m.get("readOnly")
            check(not writable or m["mountPath"] == "/host-nfd",
                  "hostPath %s is read-only (only the NFD directory is writable)" % v["hostPath"]["path"])
    sc = c.get("securityContext", {})
    check(sc.get("privileged") is False and sc.get("allowPrivilegeEscalation") is False
          and sc.get("readOnlyRootFilesystem") is True, "container is not privileged, no escalation, read-only root")
    check(dig(sc, "capabilities.drop") == ["ALL"] and set(dig(sc, "capabilities.add") or []) <= {"SYSLOG"},
          "capabilities: drop ALL, add at most SYSLOG")
    check(not pod.get("hostNetwork") and not pod.get("hostPID"), "no host network or PID namespace")
    port = c["ports"][0]
    check(port["name"] == "metrics" and port["containerPort"] == 9747, "container port metrics 9747")
    check(dig(c, "livenessProbe.httpGet.path") == "/healthz", "liveness probe on /healthz")
    nfd = next(v for v in vols.values() if v.get("hostPath", {}).get("path", "").endswith("features.d"))
    check(nfd["hostPath"]["path"] == "/etc/kubernetes/node-feature-discovery/features.d",
          "NFD features.d hostPath")

    # node affinity: NFD's default PCI labels select every GPU fixture, and not the CPU-only one
    terms = dig(pod, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms") or []
    keys = {e["key"] for t in terms for e in t["matchExpressions"]}
    check(keys and all(re.fullmatch(r"feature\.node\.kubernetes\.io/pci-[0-9a-f]{4}_[0-9a-f]{4}\.present", k)
                       for k in keys), "affinity uses NFD's default pci-<class>_<vendor>.present labels")
    for fx in sorted(os.listdir(os.path.join(FIXTURES, "nodes"))):
        devs = os.path.join(FIXTURES, "nodes", fx, "root", "sys", "bus", "pci", "devices")
        if not os.path.isdir(devs):
            continue
        labels = set()
        for d in os.listdir(devs):
            try:
                cls = open(os.path.join(devs, d, "class")).read().strip()
                ven = open(os.path.join(devs, d, "vendor")).read().strip()
            except OSError:
                continue
            labels.add("feature.node.kubernetes.io/pci-%s_%s.present" % (cls[2:6], ven[2:6]))
        selected = bool(keys & labels)
        gpu = fx not in ("cpu-vm", "captured-build-vm")  # the CPU-only trees (the second a capture)
        check(selected == gpu, "DaemonSet affinity %s fixture %s" % ("selects" if gpu else "skips", fx))

    # the policy in the ConfigMap parses and matches a fixture
    cm = objs["ConfigMap"][0]
    work = tempfile.mkdtemp(prefix="ga-deploy-")
    try:
        pol = os.path.join(work, "policy.yaml")
        open(pol, "w").write(cm["data"]["policy.yaml"])
        r = subprocess.run([exe, "check", "--policy", pol, "--root", os.path.join(FIXTURES, "nodes", "dgx-a100", "root"),
                            "--no-vendor", "--json"], capture_output=True, text=True)
        check(r.returncode in (0, 1, 3) and json.loads(r.stdout)["class"] == "a100-train",
              "ConfigMap policy parses; dgx-a100 matches a100-train (exit %d %s)" % (r.returncode, r.stderr.strip()))
        # the DaemonSet's arguments work: /host -> a fixture, the NFD dir -> a temp dir, once
        args = []
        for a in c["args"]:
            a = a.replace("--root=/host", "--root=" + os.path.join(FIXTURES, "nodes", "dgx-a100", "root"))
            a = a.replace("--policy=/etc/gpuaudit/policy.yaml", "--policy=" + pol)
            a = a.replace("--nfd-dir=/host-nfd", "--nfd-dir=" + work)
            if a in ("--vendor",) or a.startswith("--listen"):
                continue
            args.append(a)
        check(args[0] == "serve", "the DaemonSet runs gpuaudit serve")
        r = subprocess.run([exe] + args + ["--no-vendor", "--once"], capture_output=True, text=True)
        check(r.returncode == 0 and "gpuaudit_node_class_info{" in r.stdout,
              "DaemonSet arguments run (serve --once): exit %d %s" % (r.returncode, r.stderr.strip()[:200]))
        feat = open(os.path.join(work, "gpuaudit")).read() if os.path.exists(os.path.join(work, "gpuaudit")) else ""
        check("gpuaudit.feature.node.kubernetes.io/class=a100-train" in feat, "the NFD feature file names the class")

        # node-problem-detector: the plugin config runs a real check with a one-line answer
        npd = json.load(open(os.path.join(DEPLOY, "node-problem-detector", "gpuaudit-plugin.json")))
        check(npd.get("plugin") == "custom" and dig(npd, "pluginConfig.timeout") and npd.get("conditions")
              and npd.get("rules"), "NPD config: custom plugin with timeout, conditions, rules")
        conds = {c2["type"] for c2 in npd["conditions"]}
        for rule in npd["rules"]:
            # permanent rules set a declared condition; temporary ones only raise events
            check(rule["type"] in ("permanent", "temporary"), "NPD rule type %s" % rule["type"])
            if rule["type"] == "permanent":
                check(rule.get("condition") in conds, "NPD rule condition %s is declared" % rule.get("condition"))
            state = os.path.join(work, "health-state.json")
            rargs = [pol if x == "/etc/gpuaudit/policy.yaml" else
                     state if x == "/var/lib/gpuaudit/health-state.json" else x for x in rule["args"]]
            base = [exe] + rargs + ["--root", os.path.join(FIXTURES, "nodes", "a10-x8", "root"), "--no-vendor"]
            # the fixture has no dev/kmsg: health rules get an (empty) log so that they can conclude
            health = rargs[:1] == ["health"]
            empty = os.path.join(work, "empty.log")
            open(empty, "w").close()
            r = subprocess.run(base + (["--kmsg", empty] if health else []), capture_output=True, text=True,
                               timeout=10)
            lines = r.stdout.splitlines()
            check(r.returncode in (0, 1) and len(lines) == 1 and len(lines[0]) <= npd["pluginConfig"]["max_output_length"],
                  "NPD rule %s gives exit 0/1 and one line within max_output_length: %r" % (rule["reason"], r.stdout))
            if health:
                # without the kernel log: NPD's Unknown (exit 2), unless a problem was found anyway
                want = 1 if r.returncode == 1 else 2
                r = subprocess.run(base, capture_output=True, text=True, timeout=10)
                lines = r.stdout.splitlines()
                check(r.returncode == want and len(lines) == 1 and (want == 1 or "unknown" in lines[0])
                      and len(lines[0]) <= npd["pluginConfig"]["max_output_length"],
                      "NPD rule %s without the kernel log: exit %d, one line: %r" % (rule["reason"], want, r.stdout))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # systemd unit: its ExecStart arguments run, and systemd-analyze accepts it
    unit = open(os.path.join(DEPLOY, "systemd", "gpuaudit-serve.service")).read()
    m = re.search(r"^ExecStart=(\S+) (.*)$", unit, re.M)
    check(m and m.group(1) == "/usr/bin/gpuaudit" and m.group(2).startswith("serve "), "systemd unit runs gpuaudit serve")
    # $ARGS comes from /etc/default/gpuaudit (deploy/systemd/gpuaudit.default)
    dflt = open(os.path.join(DEPLOY, "systemd", "gpuaudit.default")).read()
    am = re.search(r'^ARGS="([^"]*)"$', dflt, re.M)
    check(am is not None and "$ARGS" in m.group(2), "systemd unit takes ARGS from gpuaudit.default")
    uargs = m.group(2).replace("$ARGS", am.group(1) if am else "").split()
    uargs = [a for a in uargs if not a.startswith(("--listen", "--web.listen-address")) and a != "0.0.0.0:9747"]
    uargs = [os.path.join(FIXTURES, "policies", "fleet.yaml") if a == "/etc/gpuaudit/policy.yaml" else a for a in uargs]
    r = subprocess.run([exe] + uargs + ["--once", "--root", os.path.join(FIXTURES, "nodes", "cpu-vm", "root")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "systemd ExecStart arguments run (serve --once): %s" % r.stderr.strip()[:200])
    if shutil.which("systemd-analyze"):
        tmpd = tempfile.mkdtemp(prefix="ga-unit-")
        try:
            u = os.path.join(tmpd, "gpuaudit-serve.service")
            open(u, "w").write(unit.replace("/usr/bin/gpuaudit", exe))
            r = subprocess.run(["systemd-analyze", "verify", "--man=no", u], capture_output=True, text=True, timeout=60)
            check(r.returncode == 0, "systemd-analyze verify: %s" % (r.stdout + r.stderr).strip()[-300:])
        finally:
            shutil.rmtree(tmpd, ignore_errors=True)

    # Service and ServiceMonitor agree on the port name and labels
    svc = objs["Service"][0]
    sm = objs["ServiceMonitor"][0]
    check(any(p.get("name") == "metrics" for p in svc["spec"]["ports"]), "Service has port metrics")
    check(all(svc["metadata"]["labels"].get(k) == v for k, v in sm["spec"]["selector"]["matchLabels"].items()),
          "ServiceMonitor selects the Service")
    check(all(e.get("port") in {p["name"] for p in svc["spec"]["ports"]} for e in sm["spec"]["endpoints"]),
          "ServiceMonitor endpoints name a Service port")

    # Argo AnalysisTemplate: declared args, Job provider, gpuaudit canary
    at = objs["AnalysisTemplate"][0]
    declared = {a["name"] for a in at["spec"]["args"]}
    used = set(re.findall(r"\{\{args\.([a-z0-9-]+)\}\}", json.dumps(at)))
    check(used and used <= declared, "AnalysisTemplate uses only declared args (%s)" % sorted(used - declared))
    job = dig(at["spec"]["metrics"][0], "provider.job.spec.template.spec")
    check(job and job["restartPolicy"] == "Never" and "gpuaudit canary" in json.dumps(job["containers"]),
          "AnalysisTemplate: Job provider running gpuaudit canary")
    check(at["spec"]["metrics"][0].get("failureLimit") == 0, "AnalysisTemplate: failureLimit 0 (first failure rolls back)")
    # run the Job's script with a stub gpuaudit: the canary's exit status is the Job's, a failed load run fails it
    ctr = job["containers"][0]
    script = ctr["args"][0]
    defaults = {a["name"]: a.get("value", "") for a in at["spec"]["args"]}
    defaults.update({"baseline-url": "http://stable.example:8000/", "candidate-url": "http://canary.example:8000/"})
    env = {e["name"]: re.sub(r"\{\{args\.([a-z0-9-]+)\}\}", lambda m: defaults[m.group(1)], e["value"]) for e in ctr["env"]}
    stubdir = tempfile.mkdtemp(prefix="ga-argo-")
    try:
        stub = os.path.join(stubdir, "gpuaudit")
        open(stub, "w").write("""#!/bin/sh
echo "$*" >>"$STUB_LOG"
case "$1 $2" in
"bench http") [ "$3" = "$FAIL_URL" ] && exit 2; echo '{"schema":"stub"}'; exit 0 ;;
"canary --baseline") exit "$CANARY_RC" ;;
esac
exit 70
""")
        os.chmod(stub, 0o755)
        tmpdir = os.path.join(stubdir, "tmp")
        os.mkdir(tmpdir)
        for canary_rc, fail_url, want in ((0, "", 0), (1, "", 1), (4, "", 4), (0, env["CANDIDATE_URL"], None)):
            log = os.path.join(stubdir, "log")
            open(log, "w").close()
            e = dict(os.environ, PATH=stubdir + ":" + os.environ["PATH"], STUB_LOG=log, CANARY_RC=str(canary_rc),
                     FAIL_URL=fail_url, **env)
            r = subprocess.run(ctr["command"] + [script.replace("/tmp/", tmpdir + "/")], env=e, capture_output=True,
                               text=True, timeout=20)
            calls = open(log).read().splitlines()
            if want is None:
                check(r.returncode != 0 and not any(c.startswith("canary") for c in calls),
                      "Argo Job: a failed load run fails the Job before the judge (exit %d)" % r.returncode)
            else:
                check(r.returncode == want and len(calls) == 3 and calls[-1].startswith("canary --baseline")
                      and "--max-p99-increase 10" in calls[-1],
                      "Argo Job: canary exit %d -> Job exit %d (%s)" % (canary_rc, r.returncode, calls))
    finally:
        shutil.rmtree(stubdir, ignore_errors=True)

    # Prometheus: rules, their unit tests, config
    if shutil.which("promtool"):
        for cmd in (["check", "rules", "rules.yaml"], ["test", "rules", "rules.test.yaml"],
                    ["check", "rules", "recording-rules.yaml"], ["test", "rules", "recording-rules.test.yaml"],
                    ["check", "config", "prometheus.yml"]):
            r = subprocess.run(["promtool"] + cmd, cwd=os.path.join(DEPLOY, "prometheus"), capture_output=True, text=True)
            check(r.returncode == 0, "promtool %s: %s" % (" ".join(cmd), (r.stdout + r.stderr).strip()[-300:]))
    else:
        print("note: promtool is not installed; rules not checked")
    rules = yaml.safe_load(open(os.path.join(DEPLOY, "prometheus", "rules.yaml")))
    alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"]}
    for want in ("GpuauditNodeClassDrift", "GpuauditPcieLinkDegraded", "GpuauditXidCritical", "GpuauditXidRate",
                 "GpuauditGpuMissing", "GpuauditCollectionStale"):
        check(want in alerts, "alert %s exists" % want)
    for name, r in alerts.items():
        unk = names_in_expr(r["expr"]) - docs
        check(not unk, "alert %s uses documented metrics only (%s)" % (name, sorted(unk)))

    # recording rules: the convention's form, documented, using documented metrics or
    # rules recorded before them in the same group (evaluated in order)
    recfile = yaml.safe_load(open(os.path.join(DEPLOY, "prometheus", "recording-rules.yaml")))
    prom = yaml.safe_load(open(os.path.join(DEPLOY, "prometheus", "prometheus.yml")))
    check("recording-rules.yaml" in prom.get("rule_files", []), "prometheus.yml loads recording-rules.yaml")
    drecs = documented_records()
    records = set()
    for g in recfile["groups"]:
        for r in g["rules"]:
            rec = r.get("record")
            check(rec and re.fullmatch(r"[a-z_]+:gpuaudit_[a-z_]+:[a-z_]+", rec),
                  "recording rule %s is named level:gpuaudit_metric:operations" % rec)
            unk = names_in_expr(r["expr"]) - docs - records
            check(not unk, "recording rule %s uses documented metrics and earlier rules only (%s)" % (rec, sorted(unk)))
            records.add(rec)
    for want in ("class_stack:gpuaudit_nodes:count", "class_stack_driver:gpuaudit_nodes:count",
                 "driver_version:gpuaudit_nodes:count", "vendor_model:gpuaudit_gpus:count",
                 "class_stack:gpuaudit_nodes_with_errors:count"):
        check(want in records, "recording rule %s exists" % want)
    check(records == drecs, "docs/metrics.md lists exactly the recording rules (missing: %s, extra: %s)"
          % (sorted(records - drecs), sorted(drecs - records)))
    rtest = yaml.safe_load(open(os.path.join(DEPLOY, "prometheus", "recording-rules.test.yaml")))
    tested = set()
    for t in rtest["tests"]:
        for e in t.get("promql_expr_test", []):
            tested |= names_in_expr(e["expr"]) & records
    check(tested == records, "recording-rules.test.yaml tests every rule (untested: %s)" % sorted(records - tested))

    # Grafana dashboard
    dash = json.load(open(os.path.join(DEPLOY, "grafana", "gpuaudit.json")))
    check(dash.get("title") and dash.get("uid") and dash.get("panels"), "dashboard has title, uid, panels")
    ids = [p["id"] for p in dash["panels"]]
    check(len(ids) == len(set(ids)), "dashboard panel ids are unique")
    for p in dash["panels"]:
        exprs = [t["expr"] for t in p.get("targets", [])]
        check(exprs, "panel %r has queries" % p["title"])
        unk = set().union(*[names_in_expr(e) for e in exprs]) - docs - records
        check(not unk, "panel %r uses documented metrics and recording rules only (%s)" % (p["title"], sorted(unk)))
    titles = {p["title"]: p for p in dash["panels"]}
    matrix = next((p for t, p in titles.items() if t.startswith("Compatibility matrix")), None)
    check(matrix is not None and matrix["type"] == "table"
          and any("class_stack_driver:gpuaudit_nodes:count" in t["expr"] for t in matrix["targets"]),
          "dashboard: a matrix table from class_stack_driver:gpuaudit_nodes:count")
    drift = next((p for t, p in titles.items() if t.startswith("Class or stack changed")), None)
    check(drift is not None and any("gpuaudit_node_class_info{instance=~\"$instance\"}[$__range]" in t["expr"]
                                    for t in drift["targets"]), "dashboard: a drift panel over the dashboard's range")
    # the drift panels' queries are those the recording-rule tests evaluate (30m for the range)
    test_exprs = {e["expr"] for t in rtest["tests"] for e in t.get("promql_expr_test", [])}
    for t, p in titles.items():
        for tg in p["targets"]:
            if "[$__range]" in tg["expr"] and "gpuaudit_node_class_info" in tg["expr"]:
                e = tg["expr"].replace('{instance=~"$instance"}', "").replace("$__range", "30m")
                check(e in test_exprs, "panel %r: its query is tested in recording-rules.test.yaml (%s)" % (t, e))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1])))
