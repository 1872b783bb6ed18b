# canary on live bench exec results (issue 26): a planted regression still rolls back
# on the loaded test machine. 10 runs of `sleep 0.01` against 10 of `sleep 0.2`: +190 ms,
# over the 63 ms wall-time floor of 10-run batches (200 ms/sqrt(10)); exit status only,
# the numbers vary. The A/A side (no false rollback) is bench/canary-aa.sh under ctest.
"$GPUAUDIT" bench exec --runs 10 -o base.json -- sleep 0.01 >/dev/null 2>&1; echo "bench exec sleep 0.01: $?"
"$GPUAUDIT" bench exec --runs 10 -o slow.json -- sleep 0.2 >/dev/null 2>&1; echo "bench exec sleep 0.2: $?"
quiet canary --no-tail --baseline base.json --candidate slow.json
"$GPUAUDIT" canary --no-tail --baseline base.json --candidate slow.json | grep -o '^  - exec.wall: median +[0-9.]*%' | sed 's/[0-9.]*%/N%/'
# and the other way round is an improvement: PASS
quiet canary --no-tail --baseline slow.json --candidate base.json
