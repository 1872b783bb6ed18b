# explain recognises the vendors' message strings after a runtime's prefix ("HIP error: the
# launch timed out and was terminated" is hipGetErrorString(hipErrorLaunchTimeOut); the same words
# after "CUDA error:" are the cuda-launch-timeout-watchdog signature's since h30-hofix, "HIP error:
# ...", "NCCL error: ...", PyTorch's "NCCL error in: FILE:LINE, ...", the CUDA driver API's
# after Triton's and PyTorch's prefixes, NVML's after nvidia-smi's and libnvidia-container's,
# pynvml's exception class per code) as the code itself
# (lib/core/errcodes/*.str.def), with the code's cause when no signature matches. The log is
# synthesized around the libraries' real strings (tests/fixtures/logs/README.md).
L=$FIXTURES/explain-codes
run explain "$L/messages.log"
run explain "$L/messages.log" --json --max-matches 2
