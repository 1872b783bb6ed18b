# PCIe AER by error type (docs/health.md "PCIe AER"): the detail's status word names the
# types (the kernel's names); one device with 11 RxErr is a storm (warning, investigate),
# one with 4 mixed corrected errors is info; an uncorrected non-fatal CmpltTO drains
# (error), a fatal MalfTLP (newer kernels' "Uncorrectable ... message received from")
# drains (critical).
# health and explain read the same lines with the same decision.
L=$FIXTURES/kmsg/aer-types.log
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$L"
run explain "$L" --max-matches 0
