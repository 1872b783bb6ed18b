#!/bin/sh
# Issue 22 item 5: every file gpuaudit writes goes through one atomic writer
# (lib/core/atomic.c): a new O_EXCL|O_NOFOLLOW temporary, fsync, rename. Whoever
# can write the target's directory plants a symlink or a hard link at the
# temporary name, or a symlink or FIFO at the target itself: the victim file
# must stay untouched and nothing may block. Before the fix health --state
# wrote through FILE.tmp.PID, --nfd-dir truncated a hard link at
# .gpuaudit.tmp, bench -o / --plot followed a symlink and blocked on a FIFO.
G=${1:?usage: files-atomic.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
intact() { [ "$(cat victim)" = secret ] || bad "$1: the victim file was overwritten"; }
echo secret >victim

# health --state: a symlink at the old temporary name (the shell's pid is gpuaudit's after exec)
timeout 10 "$G" discover --root "$F/nodes/dgx-a100/root" --json >node.json 2>/dev/null || bad "discover"
timeout 10 sh -c 'ln -s victim st.json.tmp.$$; exec "$0" health --from node.json --kmsg "$1" --state st.json' \
	"$G" "$F/kmsg/xid79.log" >/dev/null 2>&1
intact "health --state (symlink at FILE.tmp.PID)"
[ -f st.json ] && [ ! -L st.json ] && grep -q "gpuaudit\." st.json ||
	bad "health --state: no state file written"
[ -z "$(find . -name '.st.json.tmp.*')" ] || bad "health --state: a temporary file was left"
# ... and a symlink or a FIFO at the state file itself: refused (exit 2), not followed, no hang
ln -s victim st2.json
timeout 10 "$G" health --from node.json --kmsg "$F/kmsg/xid79.log" --state st2.json >/dev/null 2>err.txt
e=$?
[ $e -eq 2 ] || bad "health --state SYMLINK: exit $e, want 2"
intact "health --state (symlink at FILE)"
[ -L st2.json ] || bad "health --state SYMLINK: the link was replaced"
grep -q "symbolic link" err.txt || bad "health --state SYMLINK: no clear message: $(cat err.txt)"

# check --nfd-dir: a hard link to the victim at the fixed temporary name of the old code
mkdir nfd && ln victim nfd/.gpuaudit.tmp
timeout 10 "$G" check --policy "$F/policies/fleet.yaml" --root "$F/nodes/cpu-vm/root" --nfd-dir nfd >/dev/null 2>&1
intact "check --nfd-dir (hard link at .gpuaudit.tmp)"
grep -q "gpuaudit.feature.node.kubernetes.io/class=cpu-batch" nfd/gpuaudit || bad "check --nfd-dir: no feature file"
mkdir nfd3 && ln -s ../victim nfd3/gpuaudit
timeout 10 "$G" check --policy "$F/policies/fleet.yaml" --root "$F/nodes/cpu-vm/root" --nfd-dir nfd3 >/dev/null 2>&1
e=$?
[ $e -eq 2 ] || bad "check --nfd-dir with a symlink at DIR/gpuaudit: exit $e, want 2"
intact "check --nfd-dir (symlink at DIR/gpuaudit)"

# bench -o and --plot: a symlink at the target is not followed, a FIFO does not block
ln -s victim out.json && ln -s victim plot.svg
timeout 10 "$G" bench exec --runs 2 --warmup 0 -o out.json --shell true >/dev/null 2>err.txt
e=$?
[ $e -eq 2 ] || bad "bench exec -o SYMLINK: exit $e, want 2"
intact "bench exec -o (symlink)"
timeout 10 "$G" bench exec --runs 2 --warmup 0 --plot plot.svg --shell true >/dev/null 2>&1
e=$?
[ $e -eq 2 ] || bad "bench exec --plot SYMLINK: exit $e, want 2"
intact "bench exec --plot (symlink)"
mkfifo fifo.json
timeout 10 "$G" bench exec --runs 2 --warmup 0 -o fifo.json --shell true >/dev/null 2>&1
e=$?
[ $e -eq 2 ] || bad "bench exec -o FIFO: exit $e, want 2 (124: it blocked)"
# the ordinary case still works: a regular file replaced, no temporary left
echo old >ok.json
timeout 10 "$G" bench exec --runs 2 --warmup 0 -o ok.json --plot ok.svg --shell true >/dev/null 2>&1 ||
	bad "bench exec -o FILE failed"
grep -q '"schema"' ok.json && grep -q '<svg' ok.svg || bad "bench exec -o/--plot: not written"
[ -z "$(find . -name '.ok.*.tmp.*')" ] || bad "bench exec: a temporary file was left"
exit $rc
