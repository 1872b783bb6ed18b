# bench exec on small commands. Timings vary by host: the checks print facts
# about the JSON result with wide margins, and exit statuses.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
facts() { # facts FILE PYTHON-EXPRESSIONS...
	"$PY" - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    print(f"{e}: {eval(e, {'r': r})}")
PY
}
# sleep with jitter (1-3 ms more or less) through the shell: 12 warm runs after 2 warm-ups
quiet bench exec --runs 12 --warmup 2 -o j.json --shell 'sleep 0.0$((RANDOM % 3 + 2))'
facts j.json 'r["schema"], r["kind"], r["shell"], r["warmup_runs"], len(r["runs"])' \
	'[m["name"] for m in r["metrics"]], [len(m["samples"]) for m in r["metrics"]]' \
	'all(0.015 < x["wall_s"] < 2 for x in r["runs"])' \
	'all(x["exit_status"] == 0 and not x["timed_out"] for x in r["runs"])' \
	'r["summary"]["wall_s"]["p50"] <= r["summary"]["wall_s"]["p99"] <= r["summary"]["wall_s"]["max"]' \
	'r["metrics"][0]["median"] > 0.015, r["wall_histogram"]["total_count"]' \
	'r["cold_start"]["exit_status"], r["summary"]["failed_runs"]'
# a command that fails: every run counted as failed, exit 1
# (the outlier warning depends on timing: only the failed-runs warning is pinned)
run bench exec --runs 3 -- sh -c 'exit 3' | grep -E '^(warning: [0-9]+ of|\$|\[exit)'
quiet bench exec --runs 3 -o f.json -- false
facts f.json '[x["exit_status"] for x in r["runs"]], r["summary"]["failed_runs"]'
# a run killed at the timeout (and its whole process group)
quiet bench exec --runs 2 --timeout 0.3 -o t.json --shell 'sleep 5 & sleep 5'
facts t.json '[x["timed_out"] for x in r["runs"]], [x["signal"] for x in r["runs"]], all(x["wall_s"] < 2 for x in r["runs"])'
# --prepare runs before every run; a failing --prepare stops the benchmark
quiet bench exec --runs 2 --prepare 'echo x >>prep.log' -- true
wc -l <prep.log
run bench exec --runs 2 --prepare false -- true
# no such command: exit 2 at once
run bench exec --runs 5 -- /nonexistent/command
# the histogram export and the plot
quiet bench exec --runs 5 --export-hdr h.txt --plot p.svg -- true
head -1 h.txt
grep -c '^#\[' h.txt
"$PY" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.tag)' p.svg
# text output: the sections are there (numbers vary; outlier and slow-first-run warnings depend on the host)
run bench exec --runs 3 -- true | grep -v '^warning: ' | sed -E 's/[0-9.]+ (ms|us|s|MiB|KiB)/N/g; s/  +/ /g'
# usage errors
run bench exec
run bench exec --runs 0 -- true
run bench exec --shell -- echo a b
run bench exec --timeout soon -- true
run bench exec --compact -- true
run bench exec --bogus -- true
