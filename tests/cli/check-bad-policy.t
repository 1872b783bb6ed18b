# every malformed policy is rejected with FILE:LINE:COLUMN and exit 2, before anything is collected
cd "$FIXTURES/policies"
for f in bad-*.yaml; do
	run check --policy "$f" --root "$FIXTURES/nodes/cpu-vm/root"
done
cd - >/dev/null
run check --root "$FIXTURES/nodes/cpu-vm/root"
run check --policy missing.yaml --root "$FIXTURES/nodes/cpu-vm/root"
mkdir dir.yaml
run check --policy dir.yaml --root "$FIXTURES/nodes/cpu-vm/root"
# a FIFO is refused, never waited on (issue 22); '-' is the way to stream
mkfifo fifo.yaml
run check --policy fifo.yaml --root "$FIXTURES/nodes/cpu-vm/root"
# a directive with a byte that is not UTF-8 hung libfyaml 0.7.12 (issue 22)
printf '%%\376' >hang.yaml
run check --policy hang.yaml --root "$FIXTURES/nodes/cpu-vm/root"
: >empty.yaml
run check --policy empty.yaml --root "$FIXTURES/nodes/cpu-vm/root"
printf 'version: 1\nclasses: []\n' >none.yaml
run check --policy none.yaml --root "$FIXTURES/nodes/cpu-vm/root"
run check --policy - --root "$FIXTURES/nodes/cpu-vm/root" <"$FIXTURES/policies/fleet.yaml"
run check --policy none.yaml --json --npd
run check --policy none.yaml --bogus
run check -h
