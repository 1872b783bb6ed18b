#!/bin/sh
# explain-startup - the cost of one `gpuaudit explain` run on a one-line log (start-up:
# the catalogue's tables and, before 37748082, the compile of every regex), beside
# `gpuaudit --version` (a process that loads nothing), issue 27:
#
#   bench/explain-startup.sh [RUNS]      GPUAUDIT=path/to/gpuaudit (default build/gpuaudit)
#
# Prints hyperfine's median of each and the difference.
set -eu
runs=${1:-30}
bin=${GPUAUDIT:-build/gpuaudit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "INFO nothing to see" >"$tmp/one.log"
hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$tmp/r.json" \
	-n version "$bin --version" -n explain "$bin explain $tmp/one.log" >/dev/null
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"gpuaudit --version         {r['version'] * 1000:.1f} ms")
print(f"gpuaudit explain one line  {r['explain'] * 1000:.1f} ms")
print(f"explain start-up           {(r['explain'] - r['version']) * 1000:.1f} ms")
PY
