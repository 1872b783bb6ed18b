#!/bin/sh
# Issue 29 point 3: a kill inside the write window of `health --state` (or
# `serve --state`, `record -o`) left `.FILE.tmp.XXXXXX` behind for ever, up
# to 16 MiB each. The atomic writer now sweeps the leftovers of the same
# target at its next write: ours, regular, one link, at least 2 s old and not
# locked by a live writer. A young one, a locked one (a writer at work), one
# of another name, a symlink and a hard-linked one stay. Inputs synthesized.
G=${1:?usage: files-leftover-tmp.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
F=${SRCDIR:?SRCDIR not set}/tests/fixtures
W=$(mktemp -d) || exit 1
trap 'kill $lockpid 2>/dev/null; rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
old() { echo junk >"$1" && touch -d '1 hour ago' "$1"; }
timeout 10 "$G" discover --root "$F/nodes/dgx-a100/root" --json >node.json 2>/dev/null || bad "discover"
old .st.json.tmp.aaaaaa
old .st.json.tmp.bbbbbb
echo young >.st.json.tmp.cccccc
old .other.json.tmp.dddddd
old .st.json.tmp.linked && ln .st.json.tmp.linked keep-link
echo secret >victim && ln -s victim .st.json.tmp.eeeeee
old .st.json.tmp.ffffff && ln .st.json.tmp.ffffff hard
locked=
if command -v flock >/dev/null; then
	old .st.json.tmp.gggggg
	flock .st.json.tmp.gggggg sleep 20 </dev/null >/dev/null 2>&1 &
	lockpid=$!
	locked=.st.json.tmp.gggggg
	sleep 0.3
fi
timeout 10 "$G" health --from node.json --kmsg "$F/kmsg/xid79.log" --state st.json >/dev/null 2>&1
[ -f st.json ] || bad "health --state: no state written"
for f in .st.json.tmp.aaaaaa .st.json.tmp.bbbbbb; do
	[ -e "$f" ] && bad "$f: an old leftover was not swept"
done
for f in .st.json.tmp.cccccc .other.json.tmp.dddddd .st.json.tmp.eeeeee .st.json.tmp.ffffff .st.json.tmp.linked $locked; do
	[ -e "$f" ] || [ -L "$f" ] || bad "$f: removed, but it is not an abandoned temporary of ours"
done
[ "$(cat victim)" = secret ] || bad "the symlink's target was touched"
# record -o: a killed recording leaves its temporary and the previous file whole
echo previous >rec.jsonl
timeout -s KILL 1 "$G" record --interval 100ms -o rec.jsonl >/dev/null 2>&1
[ "$(cat rec.jsonl)" = previous ] || bad "record -o killed: the previous recording was replaced or cut"
n=$(ls -a | grep -c '^\.rec\.jsonl\.tmp\.')
[ "$n" = 1 ] || bad "record -o killed: $n temporaries, want 1 (where the recording went)"
for t in .rec.jsonl.tmp.*; do touch -d '1 hour ago' "$t"; done
timeout 10 "$G" record --root "$F/samples/idle" -o rec.jsonl >/dev/null 2>&1 || bad "record -o after a kill"
n=$(ls -a | grep -c '^\.rec\.jsonl\.tmp\.')
[ "$n" = 0 ] || bad "record -o: the killed recording's temporary was not swept"
grep -q '"gpuaudit.sample/v1"' rec.jsonl || bad "record -o: not written"
exit $rc
