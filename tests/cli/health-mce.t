# Machine checks as health and explain both read them (docs/health.md, docs/explain.md): the
# bank status word's UC bit (bit 61) or AMD's decoder's CE/UE flag. Corrected records only:
# warning, investigate; one uncorrected: error, replace the part. Synthesized logs.
K=$FIXTURES/kmsg
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/mce-mixed.log"
run explain "$K/mce-mixed.log" --max-matches 0
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/mce-uncorrected.log"
run explain "$K/mce-uncorrected.log" --max-matches 0
