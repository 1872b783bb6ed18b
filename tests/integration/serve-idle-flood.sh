#!/bin/sh
# ctest wrapper: servetest.py idle (exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/servetest.py" idle "$1"
