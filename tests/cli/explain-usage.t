# explain: stdin, JSON, edge cases of the input, usage errors
L=$FIXTURES/logs
echo "\$ gpuaudit explain < nccl.log"
"$GPUAUDIT" explain <"$L/nccl.log"; echo "[exit $?]"
run explain "$L/clean.log" --json
run explain "$L/oom.log" --json --max-matches 0
# CRLF line ends, NUL bytes, a line longer than the 8 KiB window (its match past 8 KiB is not
# seen), one within it, and a last line without a newline
printf 'x\r\nRuntimeError: CUDA error: unknown error\r\n' >edge.log
printf 'a\000b Illegal instruction\n' >>edge.log
python3 -c "import sys; sys.stdout.write('A'*9000 + ' CUDA driver is a stub library\n' + 'B'*8000 + ' Found no NVIDIA driver on your system\n')" >>edge.log
printf 'last: no CUDA-capable device is detected' >>edge.log
run explain edge.log
run explain does-not-exist.log
run explain a.log b.log
run explain --max-matches x "$L/oom.log"
run explain --bogus
echo "\$ gpuaudit explain --list | head -3"
"$GPUAUDIT" explain --list | head -3
