#!/bin/sh
# Issue 16 item 5: `gpuaudit capture` on a hostile tree finishes quickly and
# loses nothing. The tree is a copy of the a10-x8 fixture plus, where the
# capture walks: a FIFO and a socket (an open without O_NONBLOCK, or a read,
# would hang), a symlink loop and a self-referencing PCI device link, links
# that climb out of the tree (relative, past the root, and absolute), a 2 GiB
# sparse file (copied only to the 1 MiB cap), /dev nodes that are a FIFO and a
# character device (never opened: they become empty files) and, as non-root
# only, a file in a directory without x. Then discover on the capture must give
# exactly the snapshot discover gives on the tree itself.
G=${1:?usage: files-capture-tree.sh GPUAUDIT}
case $G in /*) ;; *) G=$PWD/$G ;; esac
S=${SRCDIR:?SRCDIR not set}
command -v python3 >/dev/null || exit 77
W=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$W" 2>/dev/null; rm -rf "$W"' EXIT
cd "$W" || exit 1
rc=0
bad() { echo "FAIL: $*"; rc=1; }
cp -a "$S/tests/fixtures/nodes/a10-x8/root" src || exit 1
N=src/proc/driver/nvidia
mkfifo "$N/registry" || exit 1
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$N/sock" || exit 1
ln -s loopB src/sys/class/net/loopA && ln -s loopA src/sys/class/net/loopB
ln -s ../../../../sys/bus/pci/devices/0000:ff:00.0 src/sys/bus/pci/devices/0000:ff:00.0
ln -s ../../../../../../../../../../../../etc src/sys/class/net/esc
ln -s /etc/shadow "$N/leak"
ln -s ../../../../../../../../../../etc/passwd "$N/leak2"
truncate -s 2G "$N/huge.bin" || exit 1
rm -f src/dev/nvidia-uvm && mkfifo src/dev/nvidia-uvm
if mknod src/dev/nvidia-uvm-tools c 1 3 2>/dev/null; then chardev=1; else chardev=0; echo "no mknod here: the character device case is skipped"; fi
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$N/closed" && echo secret >"$N/closed/f" && chmod 600 "$N/closed" && unreadable=1
else
	unreadable=0
	echo "running as root: the unreadable-file case is skipped (root reads every file)"
fi
start=$(date +%s)
timeout 20 "$G" capture --root src out --json >sum.json 2>err.txt
e=$?
took=$(($(date +%s) - start))
[ $e -eq 0 ] || bad "capture exit $e: $(cat err.txt)"
[ $took -le 10 ] || bad "capture took $took s"
python3 - "$unreadable" <<'PY' || rc=1
import json, os, sys
d = json.load(open("sum.json"))
why = {s["path"]: s["reason"] for s in d["skipped"]}
ok = True
def want(cond, msg):
    global ok
    if not cond:
        print("FAIL:", msg)
        ok = False
want(why.get("proc/driver/nvidia/registry") == "fifo", "FIFO not skipped as fifo: %r" % why)
want(why.get("proc/driver/nvidia/sock") == "socket", "socket not skipped as socket")
want(why.get("sys/bus/pci/devices/0000:ff:00.0", "").startswith("symlink loop"), "PCI self-link not a loop: %r" % why)
want(why.get("sys/class/net/loopA", "").startswith("symlink loop"), "loop not listed")
want(d["truncated"] == ["proc/driver/nvidia/huge.bin"], "huge file not listed as truncated: %r" % d["truncated"])
want(os.path.getsize("out/proc/driver/nvidia/huge.bin") == 1 << 20, "huge file not cut at 1 MiB")
want(not os.path.lexists("out/proc/driver/nvidia/registry"), "FIFO written")
for n in ("nvidia-uvm", "nvidia-uvm-tools"):
    p = "out/dev/" + n
    if os.path.lexists("src/dev/" + n):
        want(os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) == 0, p + " not an empty file")
if sys.argv[1] == "1":
    want(why.get("proc/driver/nvidia/closed") == "permission denied" or
         why.get("proc/driver/nvidia/closed/f") == "permission denied", "unreadable file not listed")
# no link in the capture leads out of it, and nothing outside the tree was copied
out = os.path.realpath("out")
for dp, dirs, files in os.walk("out"):
    for n in dirs + files:
        p = os.path.join(dp, n)
        if os.path.islink(p):
            t = os.path.normpath(os.path.join(dp, os.readlink(p)))
            want(os.path.realpath(t).startswith(out + "/") or os.path.realpath(t) == out or
                 not os.path.isabs(os.readlink(p)) and t.startswith("out"), "%s -> %s leaves OUTDIR" % (p, os.readlink(p)))
            want(not os.path.isabs(os.readlink(p)), "%s is an absolute link" % p)
want(not os.path.exists("out/etc/shadow"), "/etc/shadow copied")
for p in ("out/proc/driver/nvidia/leak", "out/proc/driver/nvidia/leak2", "out/sys/class/net/esc"):
    want(os.path.islink(p), p + " not recreated as a link")
    r = os.path.realpath(p)
    want(r.startswith(out + "/") or r == out, "%s resolves to %s, outside" % (p, r))
want(os.path.islink("out/sys/class/net/loopA") and os.path.islink("out/sys/class/net/loopB"), "loop links not kept")
sys.exit(0 if ok else 1)
PY
"$G" discover --no-vendor --root src --json >a.json 2>/dev/null
"$G" discover --no-vendor --root out --json >b.json 2>/dev/null
cmp -s a.json b.json || { bad "discover differs on the capture"; diff a.json b.json | head -40; }
exit $rc
