# gpuaudit class: help, bad options and unreadable input.
run class -h
run help class
run class --bogus
run class -x
run class --timeout
run class --timeout 0 --root /nonexistent
run class extra
run class --json --key --from /dev/null
run class --root /nonexistent-dir
run class --from /nonexistent-file.json
printf '{"schema":"gpuaudit.node/v1","host":' >truncated.json
run class --from truncated.json
printf '{"schema":"gpuaudit.node/v1","cpu":{"sockets":"two"}}' >badtype.json
run class --from badtype.json
printf '[]' >array.json
run class --from array.json
printf '{"schema":"gpuaudit.node/v1"}' >empty.json
run class --from empty.json
