# canary on committed synthetic results (tests/fixtures/bench/make-fixtures.py):
# deterministic, the bootstrap is seeded.
B=$FIXTURES/bench
W=$PWD
cd "$B"
# an independent run of the same program (5000 runs each): PASS
run canary --baseline exec-base.json --candidate exec-same.json
# the very same result: PASS
run canary --baseline exec-base.json --candidate exec-base.json
# a planted tail regression: the slowest 5% are 20% slower, the median is unchanged.
# Mann-Whitney sees nothing (bulk Pass); the p99 bootstrap does: ROLLBACK
run canary --baseline exec-base.json --candidate exec-tail.json
# the same with a generous p99 limit: the CI (1.16-1.24) now straddles 1.20: INCONCLUSIVE
run canary --baseline exec-base.json --candidate exec-tail.json --max-p99-increase 20
# every run 10% slower: the bulk test fails
run canary --baseline exec-base.json --candidate exec-slow.json
# 50 runs per side: too few for p99: INCONCLUSIVE; --no-tail judges the bulk only
run canary --baseline exec-50-base.json --candidate exec-50-cand.json
run canary --baseline exec-50-base.json --candidate exec-50-cand.json --no-tail
# http results with histograms and error counts
run canary --baseline http-base.json --candidate http-same.json
run canary --baseline http-base.json --candidate http-errors.json
run canary --baseline http-base.json --candidate http-same.json --max-error-rate 0.1
# gemm-kind results (throughput, higher is better)
run canary --baseline gemm-base.json --candidate gemm-same.json
run canary --baseline gemm-base.json --candidate gemm-slow.json --json
# a plot of baseline vs candidate is an SVG document
quiet canary --baseline exec-base.json --candidate exec-tail.json --plot "$W/c.svg"
"${PY:-/usr/bin/python3}" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.tag, len(r.findall("{http://www.w3.org/2000/svg}polyline")), "polylines")' "$W/c.svg"
# A/A pairs measured on the loaded 2-core test VM (bench/canary-aa.sh; both arms the same
# command, one batch of 10 runs after the other): each was a ROLLBACK before issue 26's
# minimum practical effect. `true`: peak RSS +6.6 % (190 KB, the same in every run of a
# batch, so p = 1.6e-05) is under the 1 MiB floor; `true`: CPU time +20 % (0.65 ms) is
# below the 10 ms resolution, not judged; `sleep 0.1`: wall +51 ms is under 200 ms/sqrt(10)
run canary --no-tail --baseline aa-true-a.json --candidate aa-true-b.json
run canary --no-tail --baseline aa-cpu-a.json --candidate aa-cpu-b.json
run canary --no-tail --baseline aa-sleep100-a.json --candidate aa-sleep100-b.json --json
# the floors are options: with the wall floor at 5 ms the same pair rolls back, and
# --min-effect exec.cpu=0 judges the CPU time again (relative effect only)
run canary --no-tail --baseline aa-sleep100-a.json --candidate aa-sleep100-b.json --min-effect exec.wall=0.005 --min-effect exec.cpu=0
run canary --baseline exec-base.json --candidate exec-slow.json --min-effect exec.wall=0.01 --min-effect exec.cpu=0.01
run canary --baseline exec-base.json --candidate exec-slow.json --min-effect exec.wall
run canary --baseline exec-base.json --candidate exec-slow.json --min-effect =1
# results without values (every run failed to start, say): no median, so the change is
# "-" (not "+nan%"), every metric NoData, INCONCLUSIVE, exit 4
python3 -c 'import json, sys; d = json.load(open("exec-base.json")); [m.update(samples=[]) for m in d["metrics"]]; json.dump(d, open(sys.argv[1], "w"))' "$W/exec-none.json"
cd "$W"
run canary --baseline exec-none.json --candidate exec-none.json
