# health on the synthesized DGX A100 with kernel logs: Xid 79 is critical and mapped
# to the GPU index, Xid 48 ECC, app-only Xid 13/31 are warnings (exit 0), NVLink5
# Fatal is an error, SXid, GPU lost without an Xid, /dev/kmsg records.
R=$FIXTURES/nodes/dgx-a100/root
K=$FIXTURES/kmsg
for l in xid79 xid48-ecc xid13-app nvlink5 nvswitch gpu-lost node-misc kmsg-records; do
	run health --root "$R" --no-vendor --kmsg "$K/$l.log"
done
