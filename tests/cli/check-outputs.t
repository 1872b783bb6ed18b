# --npd: one line of at most 80 characters, exit 0 ok / 1 problem / 2 unknown;
# --slurm: a drain reason when failing, nothing when passing.
P=$FIXTURES/policies/fleet.yaml
for n in dgx-a100 a10-x8 mi250x; do
	run check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor --npd
	"$GPUAUDIT" check --policy "$P" --root "$FIXTURES/nodes/$n/root" --no-vendor --npd |
		awk '{ if (length($0) > 80) print "TOO LONG: " length($0) } END { print NR " line(s)" }'
done
# Relative policy path: the line is cut at 80 characters (checkout-independent).
(cd "$SRCDIR" && run check --policy tests/fixtures/policies/bad-type.yaml --root "$FIXTURES/nodes/a10-x8/root" --npd)
run check --policy "$P" --root "$FIXTURES/nodes/cpu-vm/root" --slurm
run check --policy "$P" --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --slurm
run check --policy "$P" --root "$FIXTURES/nodes/mi250x/root" --slurm
