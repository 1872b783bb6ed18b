# triage: bad input is exit 2.
S=$FIXTURES/samples
H100=$FIXTURES/nodes/dgx-h100/root
run triage --samples "$S/compute-bound.jsonl" --duration 5s
run triage --duration forever
run triage --pid abc
run triage --from snapshot.json
run triage --root "$H100" --samples nonexistent.jsonl
printf '{"schema":"other/v1"}\n' >bad.jsonl
run triage --root "$H100" --samples bad.jsonl
printf 'not json\n' >bad.jsonl
run triage --root "$H100" --samples bad.jsonl
run triage --root "$H100" --samples "$S/compute-bound.jsonl" --pid 99999
run triage --root "$H100" --kmsg nonexistent.log --samples "$S/compute-bound.jsonl"
run triage extra
run triage --bogus
