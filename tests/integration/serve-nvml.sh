#!/bin/sh
# ctest wrapper: serve_nvml.py (NVML events, NVLink counter rises; exit 77 = skipped). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/serve_nvml.py" "$1"
