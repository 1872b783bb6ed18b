# --state FILE: a hardware Xid that returns on the same GPU after two earlier boots
# becomes critical with "hardware inspection" (action replace); an application Xid
# never escalates; the state file is written atomically and a damaged one is refused.
# Then the sticky conditions: raised ones survive a reboot (empty log), NPD's
# permanent and temporary rules see them apart, thresholds and --clear.
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --json >node.json
for b in 1 2 3; do
	python3 -c 'import json, sys; d = json.load(open("node.json")); d["host"]["boot_id"] = "00000000-0000-4000-8000-00000000000" + sys.argv[1]; print(json.dumps(d))' "$b" >boot$b.json
done
for b in 1 2 3; do
	echo "== boot $b"
	"$GPUAUDIT" health --from boot$b.json --kmsg "$FIXTURES/kmsg/xid79.log" --state st.json --now $((1741083400 + b * 86400)) >out.txt
	echo "[exit $?]"
	sed -n '/GA-XID-79/,/action:/p' out.txt | grep -E "critical|fix:|action:|condition:" | sed 's/^ *//'
done
# the same boot again does not count as another recurrence
"$GPUAUDIT" health --from boot3.json --kmsg "$FIXTURES/kmsg/xid79.log" --state st.json --now 1741400000 --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print([ (f["code"], f["severity"], f["evidence"].get("earlier_boots")) for f in d["findings"] if f["code"]=="GA-XID-79"])'
python3 -c 'import json; d=json.load(open("st.json")); print(d["schema"], [(e["code"], e["subject"], len(e["boots"]), e["raised"], e["action"]) for e in d["conditions"]])'
ls -A | grep -c "st.json.tmp" || true
# application Xids are not hardware: no state entry, no escalation
for b in 1 2 3; do "$GPUAUDIT" health --from boot$b.json --kmsg "$FIXTURES/kmsg/xid13-app.log" --state app.json --now 1741083400 >/dev/null; done
python3 -c 'import json; d=json.load(open("app.json")); print("app entries:", [(e["code"], e["raised"], len(e["boots"])) for e in d["conditions"]])'
# a damaged state file is refused
echo '{"schema": "something/else"}' >bad.json
run health --from boot1.json --kmsg "$FIXTURES/kmsg/xid79.log" --state bad.json

# sticky conditions: Xid 48 raised at once (critical), Xid 13 needs 5 in an hour
cat >pol.yaml <<'EOF2'
version: 1
classes: [{name: a100, match: {vendor: nvidia}}]
health:
  clear_after: 2
  clear_for: 10m
  thresholds:
    - {code: GA-XID-48, count: 1, window: 1h, action: replace}
    - {code: GA-XID-13, count: 5, window: 1h, action: investigate}
EOF2
T=1741083400
run health --from boot1.json --kmsg "$FIXTURES/kmsg/xid48-ecc.log" --policy pol.yaml --state s2.json --now $T
# after a reboot the log is empty, the condition stays: NPD's permanent rule sees it ...
: >empty.log
run health --from boot2.json --kmsg empty.log --policy pol.yaml --state s2.json --now $((T + 300)) --npd --only sticky
# ... the temporary rule (reading the state, not writing it) does not
run health --from boot2.json --kmsg empty.log --policy pol.yaml --state s2.json --now $((T + 300)) --npd --only transient --no-state-update
run health --from boot2.json --kmsg empty.log --policy pol.yaml --state s2.json --now $((T + 360)) --slurm
# an application Xid stays below its threshold: a temporary event with its count
"$GPUAUDIT" health --from boot2.json --kmsg "$FIXTURES/kmsg/xid13-app.log" --policy pol.yaml --state s2.json --now $((T + 400)) --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); [print(f["code"], f["action"], f["cause"], f["evidence"].get("condition"), f["evidence"].get("threshold")) for f in d["findings"]]'
run health --state s2.json --clear GA-XID-48
run health --from boot2.json --kmsg empty.log --policy pol.yaml --state s2.json --now $((T + 500)) --npd --only sticky
run health --state s2.json --clear all
run health --state s2.json --clear xid48
run health --clear all
