#!/bin/sh
# Issue 22 item 9: check on a snapshot in which nothing of /proc or /sys was
# read (an empty --root, an empty --from document) is INCOMPLETE, exit 2, with
# a GA-CHECK-INCOMPLETE finding naming what is missing; never PASS. Before the
# fix an empty root printed "class cpu-batch: PASS" and exited 0.
G=${1:?usage: files-empty-root.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
P=$F/policies/fleet.yaml
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
mkdir empty
timeout 10 "$G" check --policy "$P" --root empty >out.txt 2>&1
e=$?
[ $e -eq 2 ] || bad "check --root EMPTY: exit $e, want 2"
grep -q "PASS" out.txt && bad "check --root EMPTY: says PASS"
# no PCI read: no class matches (issue 26), and the verdict is still INCOMPLETE
grep -q "^class -: INCOMPLETE" out.txt || bad "check --root EMPTY: not INCOMPLETE: $(head -1 out.txt)"
grep -q "GA-CHECK-INCOMPLETE snapshot: .*/proc/cpuinfo (missing).*/sys/bus/pci/devices (missing)" out.txt ||
	bad "check --root EMPTY: no finding naming the missing files"
timeout 10 "$G" check --policy "$P" --root empty --json >out.json 2>/dev/null
e=$?
[ $e -eq 2 ] || bad "check --root EMPTY --json: exit $e, want 2"
grep -q '"result": "incomplete"' out.json || bad "check --json: result is not incomplete"
timeout 10 "$G" check --policy "$P" --root empty --npd >npd.txt 2>&1
e=$?
[ $e -eq 2 ] || bad "check --npd: exit $e, want 2"
grep -q "incomplete" npd.txt || bad "check --npd: $(cat npd.txt)"
# an empty snapshot document: the same
echo '{"schema": "gpuaudit.node/v1"}' >empty.json
timeout 10 "$G" check --policy "$P" --from empty.json >/dev/null 2>&1
e=$?
[ $e -eq 2 ] || bad "check --from EMPTY-DOCUMENT: exit $e, want 2"
# a complete snapshot is unaffected, and one essential file is enough to be checked
timeout 10 "$G" check --policy "$P" --root "$F/nodes/cpu-vm/root" >/dev/null 2>&1
e=$?
[ $e -eq 0 ] || bad "check cpu-vm: exit $e, want 0"
mkdir -p partial/proc && cp "$F/nodes/cpu-vm/root/proc/meminfo" partial/proc/
timeout 10 "$G" check --policy "$P" --root partial >out.txt 2>&1
e=$?
grep -q "INCOMPLETE" out.txt && bad "check with /proc/meminfo only: INCOMPLETE"
# ...but its PCI devices were not read: INCONCLUSIVE, exit 4, never PASS (issue 26)
grep -q "^class -: INCONCLUSIVE" out.txt || bad "check with /proc/meminfo only: $(head -1 out.txt)"
[ $e -eq 4 ] || bad "check with /proc/meminfo only: exit $e, want 4"
exit $rc
