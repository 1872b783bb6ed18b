#!/bin/sh
# ctest wrapper: servetest.py http (exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/servetest.py" http "$1"
