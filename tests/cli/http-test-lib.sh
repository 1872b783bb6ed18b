# http-test-lib.sh - shared by the bench http CLI tests (sourced, not run): starts
# tests/cli/http-test-server.py on a random loopback port and runs gpuaudit quietly.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# q ARGS...: like quiet, with the server's random port shown as PORT
q() {
	echo "\$ gpuaudit $*" | sed "s/:$PORT\//:PORT\//g"
	timeout 60 "$GPUAUDIT" "$@" >/dev/null 2>&1
	echo "[exit $?]"
}
server() { # server NAME ARGS...: start one, wait for its port, set $PORT and $SERVER
	local pf=$PWD/$1.port
	shift
	"$PY" "$SRCDIR/tests/cli/http-test-server.py" --port-file "$pf" "$@" &
	SERVER=$!
	for _ in $(seq 100); do [ -f "$pf" ] && break; sleep 0.1; done
	PORT=$(cat "$pf")
}
stop() { kill $SERVER; wait $SERVER 2>/dev/null; }
