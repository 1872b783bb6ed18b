# gpuaudit class with NVML (the fake libnvidia-ml) on the dgx-a100 fixture: compute capability,
# device memory, MIG and CUDA take part. The mig scenario (GPU 0 split 3g.20gb+2g.10gb+1g.5gb)
# has another hardware hash and another cache key, the same stack hash.
export LD_LIBRARY_PATH=$GA_FAKE_NVML_DIR
export FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/healthy-8xa100.json
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root"
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root" --json
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root" --key
export FAKE_NVML_SCENARIO=$FIXTURES/../fakes/scenarios/mig.json
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root"
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root" --json --compact
run class --vendor --root "$FIXTURES/nodes/dgx-a100/root" --key
