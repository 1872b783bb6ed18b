# --state FILE: a hardware Xid that returns on the same GPU after two earlier boots
# becomes critical with "hardware inspection"; an application Xid never escalates;
# the state file is written atomically and a damaged one is refused.
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --json >node.json
for b in 1 2 3; do
	python3 -c 'import json, sys; d = json.load(open("node.json")); d["host"]["boot_id"] = "00000000-0000-4000-8000-00000000000" + sys.argv[1]; print(json.dumps(d))' "$b" >boot$b.json
done
for b in 1 2 3; do
	echo "== boot $b"
	"$GPUAUDIT" health --from boot$b.json --kmsg "$FIXTURES/kmsg/xid79.log" --state st.json >out.txt
	echo "[exit $?]"
	grep -A3 "GA-XID-79" out.txt | grep -E "critical|fix:|^ *GA" | sed 's/^ *//'
done
# the same boot again does not count as another recurrence
"$GPUAUDIT" health --from boot3.json --kmsg "$FIXTURES/kmsg/xid79.log" --state st.json --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print([ (f["code"], f["severity"], f["evidence"].get("earlier_boots")) for f in d["findings"] if f["code"]=="GA-XID-79"])'
python3 -c 'import json; d=json.load(open("st.json")); print(d["schema"], [(e["xid"], e["device"], len(e["boots"])) for e in d["seen"]])'
ls -A | grep -c "st.json.tmp" || true
# application Xids are not hardware: no state entry, no escalation
for b in 1 2 3; do "$GPUAUDIT" health --from boot$b.json --kmsg "$FIXTURES/kmsg/xid13-app.log" --state app.json >/dev/null; done
python3 -c 'import json; d=json.load(open("app.json")); print("app entries:", len(d["seen"]))'
# a damaged state file is refused
echo '{"schema": "something/else"}' >bad.json
run health --from boot1.json --kmsg "$FIXTURES/kmsg/xid79.log" --state bad.json
