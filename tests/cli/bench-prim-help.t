# Help of the primitive benchmarks and smoke.
run bench -h
run bench gemm -h
run bench stream --help
run bench transfer -h
run bench collective -h
run smoke -h
run help smoke
