#!/bin/sh
# Issue 21, the container layer on hostile runtime configs: a tree whose containerd
# config.toml imports 4 MiB of tables, two files that import each other, a path that
# climbs out of the tree and a FIFO, whose daemon.json nests 100,000 arrays and whose CRI-O
# drop-in is binary. discover must answer within 2 s with each bad file recorded as
# config_error (FILE:LINE:COL) or a gap, never hang, crash or read outside the tree.
G=${1:?usage: ctr-configs.sh GPUAUDIT}
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
rc=0
bad() { echo "FAIL: $*"; rc=1; }
R=$W/root
mkdir -p "$R/etc/containerd/conf.d" "$R/etc/docker" "$R/etc/crio/crio.conf.d" "$R/usr/bin" "$R/dev"
python3 - "$R" <<'PY' || exit 77
import sys
r = sys.argv[1]
with open(r + "/etc/containerd/config.toml", "w") as f:
    f.write('version = 2\nimports = ["/etc/containerd/conf.d/*.toml", "../../../../../etc/passwd", "/dev/fifo"]\n')
with open(r + "/etc/containerd/conf.d/z-big.toml", "w") as f:
    i = 0
    while f.tell() < 4 * 1024 * 1024 - 64:
        f.write("[t%d]\nk = %d\n" % (i, i)); i += 1
with open(r + "/etc/containerd/conf.d/a.toml", "w") as f:
    f.write('imports = ["/etc/containerd/conf.d/b.toml"]\n')
with open(r + "/etc/containerd/conf.d/b.toml", "w") as f:
    f.write('imports = ["/etc/containerd/conf.d/a.toml"]\n[plugins."io.containerd.grpc.v1.cri".containerd]\n'
            'default_runtime_name = "nvidia"\n')
with open(r + "/etc/docker/daemon.json", "w") as f:
    f.write("[" * 100000 + "]" * 100000)
with open(r + "/etc/crio/crio.conf.d/00-bin.conf", "wb") as f:
    f.write(bytes(range(256)) * 64)
PY
mkfifo "$R/dev/fifo"
: >"$R/usr/bin/containerd"
t0=$(date +%s%N)
timeout 10 "$G" discover --root "$R" --no-vendor --json >"$W/out.json" 2>"$W/err"
e=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $e -le 1 ] || bad "discover exit $e (124: it hung): $(cat "$W/err")"
[ $ms -lt 2000 ] || bad "discover took $ms ms"
python3 - "$W/out.json" <<'PY' || bad "snapshot: see above"
import json, sys
d = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in d["container_runtime"]["engines"]}
cd, dk, cr = e["containerd"], e["docker"], e["crio"]
ok = True
def need(c, what):
    global ok
    if not c:
        print("FAIL:", what); ok = False
need(cd["config_error"] and cd["config_error"].startswith("/etc/containerd/conf.d/z-big.toml:") and
     "more than 16384 keys and tables" in cd["config_error"], "containerd config_error: %r" % cd["config_error"])
need("/etc/containerd/conf.d/a.toml" in cd["config_files"] and "/etc/containerd/conf.d/b.toml" in cd["config_files"],
     "imports read once each: %r" % cd["config_files"])
need(dk["config_error"] and dk["config_error"].startswith("/etc/docker/daemon.json:1:"), "docker: %r" % dk["config_error"])
need(cr["config_error"] and ("invalid UTF-8" in cr["config_error"] or "control character" in cr["config_error"]),
     "crio: %r" % cr["config_error"])
need(any(g["path"].endswith("/dev/fifo") for g in d["gaps"]), "the FIFO import is a gap: %r" % d["gaps"])
sys.exit(0 if ok else 1)
PY
[ $rc -eq 0 ] && echo "ctr-configs: ok ($ms ms)"
exit $rc
