#!/bin/sh
# bench/serve-floods.sh [GPUAUDIT] - issue 29: gpuaudit serve on loopback under
# the floods of tests/integration/servetest.py: 50 and 200 clients sending wrong
# passwords (plain HTTP and TLS), and 2,000 clients that connect, send nothing
# and reconnect when cut. Prints, per flood, how many of 80 scrapes were answered
# within 1 s with p50/p90, serve's resident memory, and the known/unknown user
# timing; the tests hold the bounds, this prints the figures for docs/performance.md.
GA=${1:-build/gpuaudit}
here=$(dirname "$0")
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg); $("$GA" version 2>/dev/null | head -1)"
for t in auth idle; do
	GA_AUTH_TLS200=1 python3 "$here/../tests/integration/servetest.py" "$t" "$GA" | grep -E 'scrapes within|VmRSS|median ratio|note:|FAIL'
done
