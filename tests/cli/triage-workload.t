# triage: the "GPUs are slow" playbook on healthy nodes, with recorded samples.
N=$FIXTURES/nodes
S=$FIXTURES/samples
H100=$N/dgx-h100/root
# an empty kernel log: step 1 has its evidence (without one it is unknown: triage-inconclusive.t)
: >empty.log
# compute-bound: GPUs ~95% busy, CPUs idle, disk quiet -> the workload, exit 0
run triage --root "$H100" --kmsg empty.log --samples "$S/compute-bound.jsonl"
# input-bound: GPUs ~21% busy and the CPUs saturated -> preprocessing, still the workload
run triage --root "$H100" --kmsg empty.log --samples "$S/input-bound.jsonl"
# memory-bound: compute low, memory busy > 70%
run triage --root "$H100" --kmsg empty.log --samples "$S/memory-bound.jsonl" --json
# --pid: the workload runs on node 1's CPUs while CUDA_VISIBLE_DEVICES=0,1 sit on node 0;
# NCCL_SOCKET_IFNAME names one of the node's interfaces (mlx5_0's IPoIB netdev)
cp -r "$H100" root
mkdir -p root/proc/4242
printf 'Name:\tpython3\nPid:\t4242\nCpus_allowed_list:\t56-63\n' >root/proc/4242/status
printf 'PATH=/usr/bin\0CUDA_VISIBLE_DEVICES=0,1\0NCCL_SOCKET_IFNAME=ibp24s0\0' >root/proc/4242/environ
run triage --root root --kmsg empty.log --samples "$S/compute-bound.jsonl" --pid 4242
# ... and one it does not have (ib0): communication is the problem
printf 'PATH=/usr/bin\0CUDA_VISIBLE_DEVICES=0,1\0NCCL_SOCKET_IFNAME=ib0\0' >root/proc/4242/environ
run triage --root root --kmsg empty.log --samples "$S/compute-bound.jsonl" --pid 4242 | grep -E '^(\$ |triage:|4\.|   NCCL|   Decision: NCCL|\[exit)'
