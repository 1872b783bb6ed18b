# deploy/slurm/gpuaudit-healthcheck.sh with a stub scontrol that logs its arguments and answers
# `show node` from $STUB_REASON: fail drains; pass resumes only a node gpuaudit drained.
mkdir bin
cat >bin/scontrol <<'STUB'
#!/bin/sh
echo "scontrol $*" >>"$SCONTROL_LOG"
if [ "$1" = show ]; then
	echo "NodeName=gpu01 Arch=x86_64 CoresPerSocket=32"
	echo "   State=IDLE+DRAIN ThreadsPerCore=2"
	[ -n "${STUB_REASON:-}" ] && echo "   Reason=$STUB_REASON [root@2025-01-01T00:00:00]"
fi
exit 0
STUB
chmod +x bin/scontrol
export PATH=$PWD/bin:$PATH SCONTROL_LOG=$PWD/scontrol.log GPUAUDIT GPUAUDIT_NODENAME=gpu01
export GPUAUDIT_POLICY=$FIXTURES/policies/fleet.yaml
hc() {
	echo "\$ healthcheck ($1, reason: ${STUB_REASON:-none})"
	: >"$SCONTROL_LOG"
	GPUAUDIT_CHECK_ARGS="--root $FIXTURES/nodes/$1/root --no-vendor" "$SRCDIR/deploy/slurm/gpuaudit-healthcheck.sh" 2>&1
	echo "[exit $?]"
	cat "$SCONTROL_LOG"
}
# fail -> drain with gpuaudit's reason
STUB_REASON= hc a10-x8
# fail, already drained by gpuaudit -> drained again with the new reason
STUB_REASON="gpuaudit: GA-EXPECT-PCIE old" hc a10-x8
# fail, drained by an admin -> the admin's reason stays
STUB_REASON="RMA ticket 1234" hc a10-x8
# pass + drained by gpuaudit -> resume
STUB_REASON="gpuaudit: GA-PIN-DRIVER nvidia: old driver" hc dgx-a100
# pass + drained by someone else -> untouched
STUB_REASON="maintenance window" hc dgx-a100
# pass + not drained -> nothing
STUB_REASON= hc cpu-vm
# bad policy -> exit 2, node untouched
GPUAUDIT_POLICY=$FIXTURES/policies/bad-type.yaml STUB_REASON= hc cpu-vm
# a sticky health condition (Xid 48) drains a node whose check passes, and keeps it
# drained on the next run after a reboot (empty log); --clear lets it resume
"$GPUAUDIT" discover --root "$FIXTURES/nodes/dgx-a100/root" --json >n1.json
sed 's/"boot_id": "[^"]*"/"boot_id": "b2"/' n1.json >n2.json
: >empty.log
export GPUAUDIT_HEALTH_STATE=$PWD/hs.json
GPUAUDIT_HEALTH_ARGS="--from n1.json --kmsg $FIXTURES/kmsg/xid48-ecc.log --now 1741083400" STUB_REASON= hc dgx-a100
GPUAUDIT_HEALTH_ARGS="--from n2.json --kmsg empty.log --now 1741083700" STUB_REASON= hc dgx-a100
"$GPUAUDIT" health --state hs.json --clear all
GPUAUDIT_HEALTH_ARGS="--from n2.json --kmsg empty.log --now 1741083800" STUB_REASON="gpuaudit: replace GA-XID-48 old" hc dgx-a100
# health without its kernel log (--from without --kmsg) is unknown: exit 4, the reason
# logged, the node neither drained nor resumed
GPUAUDIT_HEALTH_ARGS="--from n2.json --now 1741083900" STUB_REASON= hc dgx-a100
GPUAUDIT_HEALTH_ARGS="--from n2.json --now 1741084000" STUB_REASON="gpuaudit: replace GA-XID-48 old" hc dgx-a100
