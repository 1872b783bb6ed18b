# explain recognises the vendors' error codes by name (CUDA driver and runtime API, cuBLAS, HIP,
# HSA, Level Zero, OpenCL, NVML, NCCL) and by number after a runtime's name ("CUDA error code
# 209"), and reports each code's group as the cause when no hand-written signature matches
# (lib/core/errcodes). The log is synthesized: lines written after the shape of real ones.
L=$FIXTURES/explain-codes
run explain "$L/codes.log"
run explain "$L/codes.log" --json --max-matches 2
echo "\$ gpuaudit explain --list-codes | grep -E '^(cu|hip|ze) '"
"$GPUAUDIT" explain --list-codes | grep -E '^(cu|hip|ze) ' | head -8
echo "\$ gpuaudit explain --list-codes | wc -l"
"$GPUAUDIT" explain --list-codes | wc -l | tr -d ' '
