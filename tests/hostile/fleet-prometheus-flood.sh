#!/bin/sh
# fleet-prometheus-flood.sh GPUAUDIT - issue 29 item 2: `fleet --prometheus`
# against a hostile server (tests/hostile/promflood.py, a fake Prometheus
# HTTP API on loopback that claims whatever the case asks for). Before the
# bounds, 1,000,000 finding series for distinct instances cost ~360 MB, ten
# million 4.2 GB in 110 s, a million one-node classes 1.4 GB, and with
# --since a server claiming many changed nodes got one query per 500 nodes,
# each allowed the whole --timeout. Now each case stops at its bound: exit 3
# (4 for the deadline), the bound named, no report on stdout, peak RSS under
# 100 MiB (not compared under ASan: its shadow memory and 256 MB quarantine
# measure the sanitizer, not gpuaudit), and within the deadline (doubled
# under a sanitizer, whose instrumentation makes every case 2-4x slower: on 2
# shared cores the million-class case took 43.6 s under ASan against a bound
# of 40; a case without its bound, 110 s in a normal build, still overruns).
set -u
GA=$1
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
[ -x /usr/bin/time ] || { echo "skipped: no /usr/bin/time"; exit 77; }
here=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
python3 "$here/promflood.py" "$tmp/port" &
srv=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || { echo "FAIL: the fake server did not start"; exit 1; }
port=$(cat "$tmp/port")
limit=102400
tscale=1
if [ "${GA_SANITIZE:-OFF}" = ON ]; then
	echo "note: sanitizer build: peak RSS is printed, not compared; time bounds doubled"
	limit=
	tscale=2
fi
fail=0

# case NAME WANT_EXIT WANT_TEXT MAX_SECONDS [fleet options...]: the case's
# name is the URL's path prefix, which tells the server what to claim.
case_() {
	name=$1 want=$2 text=$3 maxs=$(($4 * tscale))
	shift 4
	timeout $((60 * tscale)) /usr/bin/time -o "$tmp/rss" -f '%M %e' "$GA" fleet --prometheus "http://127.0.0.1:$port/$name" \
		"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -- $(tail -1 "$tmp/rss")
	rss=${1:-0} secs=${2:-0}
	echo "$name: exit $rc, peak RSS $rss KiB, $secs s"
	[ $rc -eq "$want" ] || { echo "FAIL: $name: exit $rc, want $want"; cat "$tmp/err"; fail=1; }
	grep -q -- "$text" "$tmp/err" || { echo "FAIL: $name: no '$text' in:"; cat "$tmp/err"; fail=1; }
	grep -q 'no report: it would be partial' "$tmp/err" || { echo "FAIL: $name: partial?"; fail=1; }
	[ ! -s "$tmp/out" ] || { echo "FAIL: $name: printed a report"; head -5 "$tmp/out"; fail=1; }
	[ -z "$limit" ] || [ "$rss" -lt "$limit" ] || { echo "FAIL: $name: peak RSS $rss KiB (want < $limit)"; fail=1; }
	awk -v s="$secs" -v m="$maxs" 'BEGIN { exit !(s <= m) }' || { echo "FAIL: $name: $secs s > $maxs s"; fail=1; }
}

# ten million drift-finding series, one per instance: held per node, so the
# tracking bound stops it (default 100000)
case_ findings 3 'max-tracked' 40
# ten million gpuaudit_fleet_info series of one class: streamed, the series bound
case_ nodes 3 'max-series' 40 --max-series 100000
# the same answer, the byte bound
case_ nodes 3 'max-bytes' 40 --max-bytes 8M
# a million one-node classes (default bound 10000)
case_ classes 3 'max-classes' 40
# a million changed nodes within --since (default tracking bound)
case_ changed 3 'max-tracked' 40 --since 1h
# 5,000 changed nodes, every answer just under the timeout: ten range queries
# of 500 nodes; the run's deadline stops it
case_ slow 4 'deadline' 8 --since 1h --timeout 2s --deadline 4s
# a drip: one byte a second; the request's timeout (within the deadline)
case_ drip 4 'no answer within' 8 --timeout 2s
exit $fail
