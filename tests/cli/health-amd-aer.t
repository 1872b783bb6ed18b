# amdgpu ring timeouts, resets and RAS on the MI250X; an AER storm on the A10.
K=$FIXTURES/kmsg
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg "$K/amdgpu.log"
run health --root "$FIXTURES/nodes/a10-x8/root" --no-vendor --kmsg "$K/aer-storm.log"
# amdgpu VM faults in vmid 0 only (the driver's or firmware's, synthesized from the
# gmc_v9 wordings): class driver, fix_config, as explain decides on the same log; a
# fault in another vmid on the same device keeps it the job's
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg "$FIXTURES/logs/amdgpu-vm-fault-vmid0.log" --json
run explain --json "$FIXTURES/logs/amdgpu-vm-fault-vmid0.log"
printf '%s\n' '[ 5.0] amdgpu 0000:03:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)' '[ 6.0] amdgpu 0000:03:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:0 vmid:0 pasid:0)' >mixed.log
run health --root "$FIXTURES/nodes/mi250x/root" --no-vendor --kmsg mixed.log
run explain mixed.log
