#!/bin/sh
# ctest wrapper: reftools.py compares discover with lstopo and lspci on every node fixture
# and the live machine (exit 77 = skipped: the tools are absent). Argument: the gpuaudit binary.
command -v python3 >/dev/null 2>&1 || exit 77
exec python3 "$(dirname "$0")/reftools.py" "$1"
