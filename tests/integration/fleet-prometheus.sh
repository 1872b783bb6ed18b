#!/bin/sh
# ctest wrapper: fleettest.py (fleet --prometheus against a real Prometheus; exit 77 = skipped).
# Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/fleettest.py" "$1"
