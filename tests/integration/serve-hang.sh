#!/bin/sh
# ctest wrapper: servetest.py hang (exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/servetest.py" hang "$1"
