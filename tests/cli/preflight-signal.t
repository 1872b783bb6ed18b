# a SIGTERM to preflight (a CI job's timeout) ends the warm-up's process group too:
# the group does not get the terminal's signals, so preflight forwards them
CPU="--root $FIXTURES/nodes/cpu-vm/root --no-vendor --no-times --warmup-backend cpu"
"$GPUAUDIT" preflight $CPU --shell -- 'echo $$ >child.pid; sleep 30 & sleep 30' >/dev/null 2>&1 &
gp=$!
for i in $(seq 1 100); do [ -s child.pid ] && break; sleep 0.1; done
sleep 0.2
kill -TERM $gp
wait $gp
echo "preflight: exit $? (128 + SIGTERM)"
pg=$(cat child.pid)
for i in $(seq 1 50); do pgrep -g "$pg" >/dev/null || break; sleep 0.1; done
pgrep -g "$pg" >/dev/null && echo "warm-up group still running" || echo "warm-up group gone"
