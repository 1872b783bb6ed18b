#!/bin/sh
# ctest wrapper: servetest.py limits (exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/servetest.py" limits "$1"
