#!/usr/bin/env bash
# bench/health.sh [BUILD_DIR] - time `gpuaudit health` on a generated
# 100k-line kernel log against the recorded DGX A100 and print the median.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/kmsg.log" <<'PY'
import random, sys
random.seed(1)
gpus = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
noise = ["systemd[1]: Started session-%d.scope.", "EXT4-fs (nvme0n1p2): mounted filesystem",
         "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready", "audit: type=1400 apparmor=ALLOWED"]
with open(sys.argv[1], "w") as f:
    t = 10.0
    for i in range(100000):
        t += random.random()
        r = random.random()
        g = random.choice(gpus)
        if r < 0.01:
            line = "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python3, Ch 00000008" % (g, random.choice([13, 31, 43, 79, 48, 94]), i)
        elif r < 0.02:
            line = "pcieport 0000:00:01.0: AER: Corrected error received: 0000:%s:00.0" % g
        else:
            line = random.choice(noise).replace("%d", str(i))
        f.write("[%12.6f] %s\n" % (t, line))
PY
hyperfine -i --warmup 3 --runs 30 --export-json "$tmp/h.json" \
	"$build/gpuaudit health --kmsg $tmp/kmsg.log --root $src/tests/fixtures/nodes/dgx-a100/root --no-vendor" \
	>/dev/null
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('health, 100k-line log: median %.1f ms' % (r['median']*1000))" "$tmp/h.json"
