#!/bin/sh
# ctest wrapper: servetest.py auth (exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/servetest.py" auth "$1"
