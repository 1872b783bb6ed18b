#!/bin/bash
# serve with the exporter toolkit's web configuration (issue 17), against real peers:
# certificates made by openssl, bcrypt hashes made by Apache's htpasswd (its own bcrypt,
# not libxcrypt's), curl as the client, a real Prometheus scraping over TLS with basic
# auth (up == 1), and systemd-socket-activate for socket activation. Checked: the right
# password answers 200 and a wrong or missing one 401; a client that does not trust the
# CA fails; plain HTTP to the TLS port gets a 400 saying to use https; a second serve
# on the port is refused (exit 3, address already in use); with client certificates
# required, none or one from another CA gets 403 and the right one 200, also against the
# system trust store (no client_ca_file; SSL_CERT_FILE); an RSA certificate with keyUsage
# keyEncipherment only is warned about at start (no TLS 1.3); /health,
# /readyz and --web.telemetry-path; process_* self-metrics; an unknown web-config key
# fails at start with its line. Exit 0 pass, 1 fail, 77 skipped (a peer tool missing).
set -u
exe=${1:?gpuaudit}
src=${SRCDIR:?SRCDIR}
fx=$src/tests/fixtures
for t in openssl curl htpasswd; do
	command -v $t >/dev/null 2>&1 || { echo "skipped: $t not installed (scripts/install-deps)"; exit 77; }
done
work=$(mktemp -d /tmp/ga-tls.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a CA, a server certificate for 127.0.0.1, a client certificate; a second CA and its client
ossl() { openssl "$@" >/dev/null 2>&1 || { echo "openssl $1 failed"; exit 1; }; }
for ca in ca other; do
	ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $ca.key -out $ca.pem \
		-days 2 -subj "/CN=gpuaudit test $ca"
done
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
ossl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext
for c in client:ca stranger:other; do
	n=${c%%:*} ca=${c##*:}
	ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $n.key -out $n.csr -subj "/CN=$n"
	ossl x509 -req -in $n.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial -out $n.pem -days 2
done
hash=$(htpasswd -nbBC 10 prom 's3cret pass' | cut -d: -f2)
mkdir conf
cp server.pem server.key ca.pem conf/
cat >conf/web.yml <<YML
# relative paths are taken from this file's directory, as the toolkit does
tls_server_config:
  cert_file: server.pem
  key_file: server.key
  min_version: TLS12
http_server_config:
  headers:
    X-Frame-Options: deny
basic_auth_users:
  prom: '$hash'
YML
cat >conf/mtls.yml <<YML
tls_server_config:
  cert_file: server.pem
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.pem
YML

# start: serve ... ; prints the port it bound (port 0)
start() {
	local log=$1
	shift
	"$exe" serve --web.listen-address 127.0.0.1:0 --interval 1s --root "$fx/nodes/dgx-a100/root" --no-vendor "$@" 2>"$log" &
	pids+=($!)
	for _ in $(seq 100); do
		port=$(sed -n 's|.*listening on https\?://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log" | head -1)
		[ -n "$port" ] && return 0
		sleep 0.05
	done
	cat "$log"
	return 1
}
# a port that is free now; another process may take it before it is used, so callers retry
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
# until the first collection has finished (/healthz 200), 30 s at most (a loaded machine, ASan)
collected() {
	for _ in $(seq 300); do
		[ "$(code "$@")" = 200 ] && return 0
		sleep 0.1
	done
	return 1
}

start tls.log --web.config.file conf/web.yml --policy "$fx/policies/fleet.yaml" || { fail "serve with TLS did not start"; exit 1; }
tls=$port
collected --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls/healthz" || fail "no first collection in 30 s"
c=$(code --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls/metrics")
[ "$c" = 200 ] && ok "TLS + basic auth: 200" || fail "TLS + basic auth: $c"
c=$(code --cacert ca.pem -u 'prom:wrong' "https://127.0.0.1:$tls/metrics")
[ "$c" = 401 ] && ok "wrong password: 401" || fail "wrong password: $c"
c=$(code --cacert ca.pem -u 'nobody:s3cret pass' "https://127.0.0.1:$tls/metrics")
[ "$c" = 401 ] && ok "unknown user: 401" || fail "unknown user: $c"
h=$(curl -s -D - -o /dev/null --cacert ca.pem "https://127.0.0.1:$tls/metrics" | tr -d '\r')
grep -q '^HTTP/1.1 401' <<<"$h" && grep -qi '^WWW-Authenticate: Basic realm="gpuaudit"' <<<"$h" &&
	ok "no credentials: 401 with WWW-Authenticate: Basic" || fail "no credentials: $h"
grep -qi '^X-Frame-Options: deny' <<<"$h" && ok "security header from http_server_config" || fail "no X-Frame-Options"
curl -s --max-time 5 -o /dev/null "https://127.0.0.1:$tls/metrics" && fail "a client without the CA connected" ||
	ok "a client that does not trust the CA fails (curl exit $?)"
# plain HTTP to the TLS port: a 400 in the clear that says to use https (as Go's server answers)
out=$(curl -s --max-time 5 -D plain.h "http://127.0.0.1:$tls/metrics")
rc=$?
[ $rc -eq 0 ] && grep -q '^HTTP/1.0 400 Bad Request' plain.h && grep -q 'Use https://' <<<"$out" &&
	ok "plain HTTP to the TLS port: 400 with a hint ($out)" || fail "plain HTTP: curl exit $rc, $(cat plain.h) $out"
# the port still speaks TLS after that (the guard is per connection)
c=$(code --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls/metrics")
[ "$c" = 200 ] && ok "TLS after a plain request: 200" || fail "TLS after a plain request: $c"
# a second serve on a port in use is refused: exit 3, the address and the reason
"$exe" serve --web.listen-address 127.0.0.1:$tls --root "$fx/nodes/cpu-vm/root" --no-vendor 2>inuse.txt &
p2=$!
pids+=($p2)
for _ in $(seq 100); do kill -0 $p2 2>/dev/null || break; sleep 0.05; done
kill $p2 2>/dev/null # still running after 5 s: it listened (a failure)
wait $p2
rc=$?
grep -q "cannot listen on 127.0.0.1:$tls: address already in use" inuse.txt && [ $rc -eq 3 ] &&
	! grep -q listening inuse.txt && ok "port in use: exit 3, $(cat inuse.txt)" ||
	fail "port in use: exit $rc, $(cat inuse.txt)"
curl -s --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls/metrics" >metrics.txt
for m in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes process_open_fds \
	process_max_fds process_start_time_seconds; do
	grep -q "^$m [0-9]" metrics.txt || fail "no $m"
done
ok "process_* self-metrics"
rss=$(sed -n 's/^process_resident_memory_bytes //p' metrics.txt)
awk -v r="$rss" -v p="$(awk '/VmRSS/ {print $2 * 1024}' /proc/${pids[0]}/status)" 'BEGIN { d = r - p; if (d < 0) d = -d; exit !(d < 8 * 1048576) }' &&
	ok "process_resident_memory_bytes agrees with /proc/PID/status" || fail "process_resident_memory_bytes $rss"
for p in /health /healthz; do
	c=$(code --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls$p")
	[ "$c" = 200 ] && ok "$p: 200" || fail "$p: $c"
done
c=$(code --cacert ca.pem -u 'prom:s3cret pass' "https://127.0.0.1:$tls/readyz")
[ "$c" = 200 ] && ok "/readyz: 200 (8 of 8 GPUs)" || fail "/readyz: $c"

# a real Prometheus over TLS with basic auth
if command -v prometheus >/dev/null 2>&1; then
	printf 's3cret pass' >pw
	pport=$(free_port)
	cat >prometheus.yml <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: gpuaudit
    scheme: https
    tls_config: {ca_file: $work/ca.pem}
    basic_auth: {username: prom, password_file: $work/pw}
    static_configs: [{targets: ['127.0.0.1:$tls']}]
  - job_name: gpuaudit-badpw
    scheme: https
    tls_config: {ca_file: $work/ca.pem}
    basic_auth: {username: prom, password: wrong}
    static_configs: [{targets: ['127.0.0.1:$tls']}]
YML
	prometheus --config.file=prometheus.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$pport >prom.log 2>&1 &
	pids+=($!)
	up=""
	for _ in $(seq 120); do
		up=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=up" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(" ".join("%s=%s" % (x["metric"]["job"], x["value"][1]) for x in sorted(r, key=lambda x: x["metric"]["job"])))
except Exception:
    pass' 2>/dev/null)
		case "$up" in *"gpuaudit=1"*"gpuaudit-badpw=0"*) break ;; esac
		sleep 0.5
	done
	[[ "$up" == *"gpuaudit=1"*"gpuaudit-badpw=0"* ]] && ok "Prometheus scrapes over TLS with basic auth: up $up" ||
		{ fail "Prometheus: up '$up'"; tail -5 prom.log; }
else
	echo "skipped part: prometheus not installed"
fi

# client certificates required
start mtls.log --web.config.file conf/mtls.yml || { fail "serve with mTLS did not start"; exit 1; }
m=$port
c=$(code --cacert ca.pem "https://127.0.0.1:$m/metrics")
[ "$c" = 403 ] && ok "mTLS: no client certificate: 403" || fail "mTLS: no client certificate: $c"
c=$(code --cacert ca.pem --cert stranger.pem --key stranger.key "https://127.0.0.1:$m/metrics")
[ "$c" = 403 ] || [ "$c" = 000 ] && ok "mTLS: a certificate from another CA is refused ($c)" || fail "mTLS: stranger: $c"
c=$(code --cacert ca.pem --cert client.pem --key client.key "https://127.0.0.1:$m/metrics")
[ "$c" = 200 ] && ok "mTLS: the CA's client certificate: 200" || fail "mTLS: client: $c"

# client certificates without client_ca_file: the system's trust store, as the toolkit (here
# SSL_CERT_FILE names it, as Go's crypto/x509 reads it): the CA's client 200, another 403
sed '/client_ca_file/d' conf/mtls.yml >conf/mtls-system.yml
SSL_CERT_FILE=$work/ca.pem start sys.log --web.config.file conf/mtls-system.yml ||
	{ fail "serve with the system's trust store did not start"; exit 1; }
m=$port
c=$(code --cacert ca.pem --cert client.pem --key client.key "https://127.0.0.1:$m/metrics")
[ "$c" = 200 ] && ok "system trust store: the CA's client certificate: 200" || fail "system store: client: $c"
c=$(code --cacert ca.pem --cert stranger.pem --key stranger.key "https://127.0.0.1:$m/metrics")
[ "$c" = 403 ] || [ "$c" = 000 ] && ok "system trust store: another CA's certificate refused ($c)" ||
	fail "system store: stranger: $c"
SSL_CERT_FILE=$work/none.pem "$exe" serve --web.config.file conf/mtls-system.yml --once >/dev/null 2>err.txt
rc=$?
[ $rc = 2 ] && grep -q "SSL_CERT_FILE.*none.pem" err.txt && ok "a missing system trust store: exit 2 naming it" ||
	fail "missing system store: exit $rc: $(cat err.txt)"

# an RSA certificate whose keyUsage is keyEncipherment only: TLS 1.3 cannot sign with it
ossl req -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=127.0.0.1"
printf 'subjectAltName=IP:127.0.0.1\nkeyUsage=critical,keyEncipherment\n' >ku.ext
ossl x509 -req -in rsa.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out rsa.pem -days 2 -extfile ku.ext
printf 'tls_server_config:\n  cert_file: %s/rsa.pem\n  key_file: %s/rsa.key\n' "$work" "$work" >conf/ku.yml
start ku.log --web.config.file conf/ku.yml || { fail "serve with a keyEncipherment certificate did not start"; exit 1; }
grep -q "keyUsage has no digitalSignature.*TLS 1.3-only clients fail" ku.log &&
	ok "keyEncipherment-only certificate: warned at start" || fail "no keyUsage warning: $(cat ku.log)"
grep -q "keyUsage" tls.log && fail "a certificate with digitalSignature got the keyUsage warning" ||
	ok "no keyUsage warning for an EC certificate"

# telemetry path, and /readyz while the class's GPU count is not met (8 GPUs, the class wants 9)
printf 'version: 1\nclasses:\n  - name: nine-gpus\n    match: {}\n    expect: {gpu_count: 9}\n' >nine.yaml
start path.log --web.telemetry-path /gpu-metrics --policy nine.yaml || { fail "serve did not start"; exit 1; }
p=$port
collected "http://127.0.0.1:$p/healthz" || fail "no first collection in 30 s"
c=$(code "http://127.0.0.1:$p/gpu-metrics")
[ "$c" = 200 ] && ok "--web.telemetry-path /gpu-metrics: 200" || fail "telemetry path: $c"
c=$(code "http://127.0.0.1:$p/metrics")
[ "$c" = 404 ] && ok "/metrics moved: 404" || fail "/metrics with a telemetry path: $c"
body=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$p/readyz")
[[ "$body" == "not ready: "*" 503" ]] && ok "/readyz while the GPU count is not met: ${body//$'\n'/ }" || fail "/readyz: $body"

# /readyz when the PCI devices cannot be read (no sys/bus/pci): a class that expects GPUs
# cannot be met by a bus nobody saw (503), and without such a class there is nothing to gate on
cp -r "$fx/nodes/dgx-a100/root" nopci && rm -rf nopci/sys/bus/pci
printf 'version: 1\nclasses:\n  - name: eight-gpus\n    match: {}\n    expect: {gpu_count: 8}\n' >eight.yaml
start nopci.log --root nopci --policy eight.yaml --class eight-gpus || { fail "serve did not start"; exit 1; }
p=$port
collected "http://127.0.0.1:$p/healthz" || fail "no first collection in 30 s"
body=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$p/readyz")
[[ "$body" == "not ready: the PCI devices could not be read"*" 503" ]] &&
	ok "/readyz with the PCI devices unread and a class expecting 8 GPUs: ${body//$'\n'/ }" ||
	fail "/readyz with the PCI devices unread: $body"
start nopci2.log --root nopci || { fail "serve did not start"; exit 1; }
p=$port
collected "http://127.0.0.1:$p/healthz" || fail "no first collection in 30 s"
c=$(code "http://127.0.0.1:$p/readyz")
[ "$c" = 200 ] && ok "/readyz with the PCI devices unread and no policy: 200" || fail "/readyz without a policy: $c"

# socket activation
if command -v systemd-socket-activate >/dev/null 2>&1; then
	# a random port can be taken by a test running beside this one: try up to five
	for _ in 1 2 3 4 5; do
		sport=$(free_port)
		systemd-socket-activate -l 127.0.0.1:$sport "$exe" serve --web.systemd-socket --interval 1s \
			--root "$fx/nodes/cpu-vm/root" --no-vendor >sa.log 2>&1 &
		sapid=$!
		pids+=($sapid)
		for _ in $(seq 20); do
			grep -q 'Address already in use' sa.log && break
			kill -0 $sapid 2>/dev/null || break
			sleep 0.05
		done
		grep -q 'Address already in use' sa.log || break
		kill $sapid 2>/dev/null; wait $sapid 2>/dev/null
	done
	c=000
	for _ in $(seq 300); do
		c=$(code "http://127.0.0.1:$sport/metrics")
		[ "$c" = 200 ] && break
		sleep 0.1
	done
	# the startup line is flushed after the daemons start: a first answer can come before it
	for _ in $(seq 50); do grep -q 'systemd socket' sa.log && break; sleep 0.1; done
	[ "$c" = 200 ] && grep -q 'systemd socket' sa.log && ok "socket activation (systemd-socket-activate): 200" ||
		{ fail "socket activation: $c"; cat sa.log; }
else
	echo "skipped part: systemd-socket-activate not installed"
fi
"$exe" serve --web.systemd-socket --once >/dev/null 2>&1
"$exe" serve --web.systemd-socket 2>err.txt
[ $? -eq 2 ] && grep -q 'LISTEN_PID' err.txt && ok "--web.systemd-socket without systemd: exit 2" || fail "$(cat err.txt)"

# bad configurations fail at start, with the line
printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  cipher_suite: [x]\n' >conf/bad.yml
"$exe" serve --web.config.file conf/bad.yml --once --root "$fx/nodes/cpu-vm/root" >/dev/null 2>err.txt
rc=$?
[ $rc -eq 2 ] && grep -q "conf/bad.yml:4:3: unknown key 'cipher_suite' in tls_server_config" err.txt &&
	ok "unknown key: exit 2, $(cat err.txt)" || fail "unknown key: exit $rc $(cat err.txt)"
printf 'basic_auth_users:\n  prom: plaintext\n' >conf/bad2.yml
"$exe" serve --web.config.file conf/bad2.yml --once --root "$fx/nodes/cpu-vm/root" >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q 'bad2.yml:2:9: basic_auth_users.prom: expected a bcrypt hash' err.txt &&
	ok "a password that is not a bcrypt hash is refused" || fail "plaintext password: $(cat err.txt)"
printf 'tls_server_config:\n  cert_file: server.pem\n  key_file: ca.pem\n' >conf/bad3.yml
"$exe" serve --web.config.file conf/bad3.yml --once --root "$fx/nodes/cpu-vm/root" >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q 'cert_file .*server.pem and key_file .*ca.pem' err.txt &&
	ok "a key that is not the certificate's: $(cat err.txt)" || fail "bad key: $(cat err.txt)"
[ $fails -eq 0 ] && echo PASS || { echo "$fails failed"; exit 1; }
