#!/bin/sh
# ctest wrapper: deploycheck.py (deploy/ YAML, rules, dashboard, docs/metrics.md). Argument: the gpuaudit binary.
exec python3 "$(dirname "$0")/deploycheck.py" "$1"
