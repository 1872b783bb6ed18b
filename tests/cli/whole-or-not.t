# Issue 29 point 3, "whole or clearly not": what a kill, a full disk or a
# planted link leaves behind is refused, never read as something whole.
# All inputs are synthesized here from the fixtures.
R=$FIXTURES/nodes/cpu-vm/root
# a capture is complete only with its marker, written last, and renamed into place
timeout 60 "$GPUAUDIT" capture --root "$R" cap >/dev/null 2>&1; echo "capture: exit $?"
cat cap/.gpuaudit-capture-complete | sed 's/^version .*/version V/'
ls -a | grep -c partial
# a cut capture: the metadata file without the completion marker (what a kill leaves)
cp -a cap cut && rm cut/.gpuaudit-capture-complete
run discover --root cut
run class --root cut
run check --root cut --policy "$FIXTURES/policies/fleet.yaml"
run capture --root cut again
# a partial directory by its name (a kill before the metadata file was written)
mkdir cap.partial-abc123
run discover --root cap.partial-abc123
# a tree that is no capture at all is read as before
mkdir plain
quiet discover --root plain
# OUTDIR a symlink, or an empty OUTDIR with a link planted in it: refused, the target untouched
mkdir victim
ln -s victim linked
run capture --root "$R" linked
mkdir planted && ln -s ../victim planted/proc
run capture --root "$R" planted
ls victim | wc -l
# record -o: a hard link at FILE is refused; the previous recording stays until the new one is whole
echo previous >rec.jsonl && ln rec.jsonl other-name
run record --root "$FIXTURES/samples/idle" -o rec.jsonl
cat rec.jsonl other-name
rm other-name
run record --root "$FIXTURES/samples/idle" -o rec.jsonl
wc -l <rec.jsonl
ls -a | grep -c '\.tmp\.'
# triage --samples: a cut last line (no newline) is skipped with a warning, the rest kept
{ cat "$FIXTURES/samples/compute-bound.jsonl"; head -c 150 "$FIXTURES/samples/compute-bound.jsonl"; } >cut.jsonl
run triage --samples cut.jsonl --json >cut.out
grep -v '^{' cut.out | grep -E '^(\$|gpuaudit triage|\[exit)'
"$GPUAUDIT" triage --samples "$FIXTURES/samples/compute-bound.jsonl" --json >whole.json 2>&1
sed -n '/^{/,/^}/p' cut.out | cmp -s - whole.json && echo "triage of the cut recording = triage of the whole lines"
# ... a cut line that is not the last is still an error
{ head -c 150 "$FIXTURES/samples/compute-bound.jsonl"; echo; cat "$FIXTURES/samples/compute-bound.jsonl"; } >mid.jsonl
run triage --samples mid.jsonl
# serve --once: a --state file that cannot be written is a failed run (exit 2), as --nfd-dir
run serve --once --root "$R" --no-vendor --state no-such-dir/state.json | grep -Ev '^(#|gpuaudit_)'
# a bcrypt cost above 14 is refused at start with the reason
printf 'basic_auth_users:\n  prom: $2y$15$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n' >web.yml
run serve --once --root "$R" --no-vendor --web.config.file web.yml | grep -Ev '^(#|gpuaudit_)'
# ... 14 is still accepted
printf 'basic_auth_users:\n  prom: $2y$14$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n' >web14.yml
quiet serve --once --root "$R" --no-vendor --web.config.file web14.yml
