#!/bin/sh
# bench/capture-kill.sh [GPUAUDIT] [KILLS] - issue 29: a capture killed at random
# moments is never read as a machine. Runs tests/hostile/files-capture-kill.sh
# (CI runs it with 25 kills) with KILLS kills (default 100) and prints its summary.
GA=${1:-build/gpuaudit}
here=$(cd "$(dirname "$0")/.." && pwd)
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
SRCDIR=$here KILLS=${2:-100} "$here/tests/hostile/files-capture-kill.sh" "$GA"
