# gpuaudit class on the six synthesized hosts of issue 16 (tests/fixtures/nodes, README
# "New hosts"), sysfs only: text, JSON, key.
for f in gh200 gb200-tray dgx-spark mi300x power9-v100 ws-rtx4090; do
	run class --no-vendor --root "$FIXTURES/nodes/$f/root"
	run class --no-vendor --root "$FIXTURES/nodes/$f/root" --json
	run class --no-vendor --root "$FIXTURES/nodes/$f/root" --key
done
