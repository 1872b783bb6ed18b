# gpuaudit fleet --prometheus: the options checked before any query (no server is
# contacted here; the real one is tests/integration/fleet-prometheus.sh).
run fleet --match 'cluster="a"' reports/
run fleet --since 1h reports/
run fleet --prometheus http://127.0.0.1:9 reports/
run fleet --prometheus http://127.0.0.1:9 --policy "$FIXTURES/policies/fleet.yaml"
run fleet --prometheus ftp://127.0.0.1:9
run fleet --prometheus http://127.0.0.1:9 --match up
run fleet --prometheus http://127.0.0.1:9 --match '{cluster="a"'
run fleet --prometheus http://127.0.0.1:9 --match '{cluster=a}'
run fleet --prometheus http://127.0.0.1:9 --at yesterday
run fleet --prometheus http://127.0.0.1:9 --at 2026-13-01T00:00:00Z
run fleet --prometheus http://127.0.0.1:9 --since 0s
run fleet --prometheus http://127.0.0.1:9 --timeout forever
run fleet --max-classes 5 reports/
run fleet --prometheus http://127.0.0.1:9 --max-series 0
run fleet --prometheus http://127.0.0.1:9 --max-bytes 12Q
run fleet --prometheus http://127.0.0.1:9 --max-tracked -1
run fleet --prometheus http://127.0.0.1:9 --deadline 0s
run fleet --prometheus http://127.0.0.1:9 --basic-auth alice
run fleet --prometheus http://127.0.0.1:9 --basic-auth alice:pw --username bob
run fleet --prometheus http://127.0.0.1:9 --bearer-token-file missing-token
: >empty-token
run fleet --prometheus http://127.0.0.1:9 --bearer-token-file empty-token
echo tok >token
run fleet --prometheus http://127.0.0.1:9 --bearer-token-file token --username bob
