# record: bad options and unusable --root trees are usage errors (exit 2).
run record --interval 0
run record --interval abc
run record --interval -1s
run record --count 0
run record --count 2x
run record --duration soon
run record --count 2 --duration 10s
run record --bogus
run record --interval
run record extra
run record --root /nonexistent/dir
mkdir one && cp -a "$FIXTURES/samples/idle/t0" one/t0
run record --root one
mkdir badiv && cp -a "$FIXTURES/samples/idle/t0" "$FIXTURES/samples/idle/t1" badiv/ && echo 0 >badiv/interval_s
run record --root badiv
run record --root "$FIXTURES/samples/idle" -o nodir/out.jsonl
run record -h | head -3
