# preflight on fixture nodes, wall times left out (--no-times) so the report is reproducible
CPU="--root $FIXTURES/nodes/cpu-vm/root --no-vendor --no-times --warmup-backend cpu"
AMD="--root $FIXTURES/nodes/mi250x/root --no-vendor --no-times"
# the built-in warm-up (a 256x256 float32 matrix product against a float64 reference)
run preflight $CPU --repeat 2
run preflight $CPU --json
# with a policy: the node's class is checked like 'gpuaudit check' does
run preflight --root "$FIXTURES/nodes/dgx-h100/root" --no-vendor --no-times --policy "$FIXTURES/policies/fleet.yaml" -- true
# warm-up commands: success with warm runs, failure exit status, output beyond the buffers
run preflight $CPU --repeat 3 -- echo ready
run preflight $CPU --shell -- 'seq 1 200000; echo done >&2; exit 3'
# timeout: SIGTERM to the process group at the deadline
run preflight $CPU --timeout 1 -- sleep 10
# a child that ignores SIGTERM is killed after the grace period
run preflight $CPU --timeout 0.5 --shell -- 'trap "" TERM; sleep 10'
# killed by a signal; SIGILL is explained as an ISA problem
run preflight $CPU --shell -- 'kill -SEGV $$'
run preflight $CPU --shell -- 'kill -ILL $$'
# a command that does not exist
run preflight $CPU -- no-such-warmup-command --flag
# the hidden-CUDA case: a CUDA build on the AMD node fails to load and is explained
cat >warmup.sh <<'SH'
echo "loading model"
echo "Traceback (most recent call last):" >&2
echo '  File "/app/warmup.py", line 1, in <module>' >&2
echo "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory" >&2
exit 1
SH
run preflight $AMD -- sh warmup.sh
# usage errors
run preflight $CPU --repeat 99
run preflight $CPU --shell
run preflight $CPU --class x
run preflight $CPU --timeout 0 -- true
run preflight $CPU --json --junit - -- true
run preflight $CPU --junit /nonexistent/dir/out.xml -- true
run preflight $CPU --policy /nonexistent/policy.yaml -- true
# JSON of a command run with a warm run: exit, output kept, times null with --no-times
run preflight $CPU --json --repeat 1 --timeout 30 -- printf 'a\nb'
# the warm-up on CPU BLAS (OpenBLAS, installed by make test) and on the best backend
# here: results vary with the host, so only the exit status is pinned
quiet preflight --root "$FIXTURES/nodes/cpu-vm/root" --no-vendor --warmup-backend cblas
quiet preflight --root "$FIXTURES/nodes/cpu-vm/root" --no-vendor
"$GPUAUDIT" preflight --root "$FIXTURES/nodes/cpu-vm/root" --no-vendor --warmup-backend cblas --json |
	python3 -c 'import json,sys; w=json.load(sys.stdin)["warmup"]; print(w["status"], w["backend"], w["max_rel_err"] < w["tolerance"])'
run preflight $CPU --warmup-backend nosuch
# a node whose PCI devices cannot be read (no sys/bus/pci): its accelerators are unknown,
# so discover is unknown, never PASS; the warning says why; exit 4 (inconclusive),
# in text, JSON and JUnit alike
cp -r "$FIXTURES/nodes/cpu-vm/root" nopci && rm -rf nopci/sys/bus/pci
run preflight --root nopci --no-vendor --no-times --warmup-backend cpu -- true
"$GPUAUDIT" preflight --root nopci --no-vendor --no-times --warmup-backend cpu --json -- true |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["result"], d["discover"]["status"], [f["code"] for f in d["discover"]["findings"]])'
"$GPUAUDIT" preflight --root nopci --no-vendor --no-times --warmup-backend cpu --junit - -- true |
	python3 -c 'import sys,xml.etree.ElementTree as E; r=E.parse(sys.stdin).getroot(); [print(c.get("name"), "failure" if c.find("failure") is not None else "error" if c.find("error") is not None else "skipped" if c.find("skipped") is not None else "pass") for c in r.iter("testcase")]'
