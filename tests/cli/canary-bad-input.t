# canary: usage errors and unreadable or invalid results (exit 2, one clear message)
B=$FIXTURES/bench
run canary
run canary --baseline "$B/exec-base.json"
run canary --baseline "$B/exec-base.json" --candidate missing.json
run canary --baseline "$B/exec-base.json" --candidate "$B/gemm-base.json"
run canary --baseline "$B/exec-base.json" --candidate "$B/exec-base.json" --confidence 2
run canary --baseline "$B/exec-base.json" --candidate "$B/exec-base.json" --max-p99-increase x
run canary --baseline "$B/exec-base.json" --candidate "$B/exec-base.json" --plot-metric nope --plot x.svg
printf '{"schema":"gpuaudit.bench/v1","kind":"exec","metrics":[{"name":"a","unit":"s","better":"lower","samples":[1,-2]}]}' >neg.json
run canary --baseline neg.json --candidate neg.json
printf '{"schema":"gpuaudit.node/v1"}' >node.json
run canary --baseline node.json --candidate node.json
printf '{"schema":"gpuaudit.bench/v1","kind":"exec","metrics":[{"name":"a","unit":"s","better":"up","samples":[1]}]}' >better.json
run canary --baseline better.json --candidate better.json
printf '{"schema":"gpuaudit.bench/v1","kind":"exec","metrics":[{"name":"a","unit":"s","better":"lower"}]}' >empty.json
run canary --baseline empty.json --candidate empty.json
printf '{"schema":"gpuaudit.bench/v1","kind":"http","requests":5,"errors":6,"metrics":[]}' >errs.json
run canary --baseline errs.json --candidate errs.json
printf '{"schema": "gpuaudit.bench/v1", "kind": "exec", "metrics": [}' >broken.json
run canary --baseline broken.json --candidate broken.json
# a metric only in one result: INCONCLUSIVE
printf '{"schema":"gpuaudit.bench/v1","kind":"gemm","metrics":[{"name":"x","unit":"flop/s","better":"higher","samples":[1,2,3,4,5]}]}' >x.json
printf '{"schema":"gpuaudit.bench/v1","kind":"gemm","metrics":[{"name":"y","unit":"flop/s","better":"higher","samples":[1,2,3,4,5]}]}' >y.json
run canary --baseline x.json --candidate y.json
