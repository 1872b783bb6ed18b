#!/bin/sh
# bench/fleet-hostile.sh [GPUAUDIT] - issue 29 item 2: `fleet --prometheus`
# against the fake hostile API of tests/hostile/promflood.py, case by case:
# exit, peak RSS and wall time (the test holds the bounds; this prints the
# figures for docs/performance.md). Runs the test's script with its output.
GA=${1:-build/gpuaudit}
here=$(dirname "$0")
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) CPUs; $("$GA" version 2>/dev/null | head -1)"
exec "$here/../tests/hostile/fleet-prometheus-flood.sh" "$GA"
