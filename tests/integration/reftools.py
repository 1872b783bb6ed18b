#!/usr/bin/env python3
"""reftools - differential test of `gpuaudit discover` against the reference tools.

Why: every node fixture is synthesized by tests/fixtures/nodes/mkfixtures.py from our own
understanding of sysfs. Reading the same trees with the tools everybody trusts, hwloc's
`lstopo-no-graphics --input ROOT` and pciutils' `lspci -A linux-sysfs`, checks both the trees
(they must read without an error) and discover (it must say what they say). Issue 16 item 3.

For every tree under tests/fixtures/nodes/*/root, for the live machine (root /) and for
"selftest", a tree built at test time with the generator's helpers (offline and isolated
CPUs, a CPU-less node: see selftest_tree):
  * lstopo --of xml --whole-io (stderr must be empty): Package, Core, PU and NUMANode counts
    against discover's cpu.sockets, cpu.cores, cpu.threads and len(cpu.numa_nodes); for each
    PCI function discover reports (accelerators and the pci list), the NUMA nodes of the
    object lstopo hangs it under against its numa_node (-1 = no locality, which lstopo shows
    as the whole machine: all nodes).
  * the same XML: for each device of discover's topology matrix (accelerators and NICs), its
    host bridge and the bridges above it against the Bridge objects lstopo places it under.
  * lspci -vmm -nn -D -k and -vvv (every config file must read: no message on stderr but
    libkmod's, which concerns the running kernel's module files, not the tree): for each PCI
    function discover reports, and each bridge in its upstream chain, vendor/device ids,
    subsystem ids, class and prog-if, revision, driver, and link speed and width (LnkSta,
    LnkCap) against discover's link.
  * the tree against itself as lspci reads it: every function's config-space LnkSta/LnkCap
    against its sysfs current_*/max_* link files; on the fixtures, AER on every PCIe
    function and ACS on every root and downstream port.
For each tree under tests/fixtures/cputopo (CPU topology only: offline cores, POWER packages
without ids, AMD compute units; README there), Package, Core and PU counts as above.
Functions discover does not report (host bridges, bridges off every reported path, chipset
functions) are not compared: discover lists what it audits, not the whole bus.

Every difference fails unless EXPECTED lists it with its reason. An EXPECTED entry that no
longer occurs fails too (so the table is pruned when a gap closes).

Usage: reftools.py GPUAUDIT [TREE ...]   (TREE: a fixture name, cputopo/NAME, live, selftest;
default all)
exit 0 pass, 1 differences, 77 tools absent.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
NODES = os.path.join(SRC, "tests", "fixtures", "nodes")
CPUTOPO = os.path.join(SRC, "tests", "fixtures", "cputopo")
PCI_IDS = os.path.join(SRC, "tests", "fixtures", "pci.ids")

# (tree, check, subject) -> reason. tree "live" is the machine the test runs on; subject
# None for a node-wide check, a PCI address for a per-function one. "*" matches any tree.
#
# hwloc gives every function below a host bridge the locality of that host bridge (the
# cpuset of the object it hangs the whole hierarchy under; hwloc's documentation of
# hwloc_get_hostbridge_by_pcibus: "the locality of a bus ... is the hostbridge parent
# cpuset"), taken from the first function on the root bus. discover reports each function's
# own sysfs numa_node. They differ where functions under one root bus carry different nodes.
MI250X_ONE_ROOT_BUS = ("fixture: all 8 GCDs hang below one root bus (be, an illustrative layout) but carry "
                       "the reference's per-GCD numa_node 3,3,1,1,0,0,2,2; hwloc places a whole host-bridge "
                       "hierarchy by its root bus (be:00.0, node 3), discover reports each function's numa_node")
EXPECTED = {}
for _tree in ("mi250x", "ctr-kfd-group"):
    for _gcd in ("c9", "ce", "d1", "d6", "d9", "de"):
        EXPECTED[(_tree, "numa-locality", "0000:%s:00.0" % _gcd)] = MI250X_ONE_ROOT_BUS
# The new hosts of issue 16 (tests/fixtures/nodes/mkfix_new.py, README "New hosts").
GPU_NUMA_HIDDEN = ("hwloc before 2.11 (and on POWER always) hides the NVIDIA GPU-memory NUMA nodes that "
                   "/proc/driver/nvidia/gpus/*/numa_status names unless HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1; "
                   "discover lists every node of sys/devices/system/node")
CPULESS_BY_DISTANCE = ("hwloc attaches the empty CPU-less nodes of each GPU's 8-node block to the nearest "
                       "package (by distance), so a function below that package has them all as locality; "
                       "discover reports the function's own numa_node, the CPU node among them")
for _tree in ("gh200", "gb200-tray", "power9-v100"):
    EXPECTED[(_tree, "numa-nodes", None)] = GPU_NUMA_HIDDEN
for _tree in ("gh200", "gb200-tray"):
    EXPECTED[(_tree, "numa-locality", "*")] = CPULESS_BY_DISTANCE

STATS = {"functions": 0, "bridges": 0, "topology": 0}
KMOD_NOISE = re.compile(r"^lspci: Unable to load libkmod resources: error -?\d+$")


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def bitmap(s):
    """hwloc bitmap string ("0xffffffff,,0x0000000f": 32-bit words, most significant first,
    empty = 0) -> set of indexes."""
    out = set()
    words = s.split(",")
    for i, w in enumerate(reversed(words)):
        v = int(w, 16) if w else 0
        for b in range(32):
            if v >> b & 1:
                out.add(32 * i + b)
    return out


def lstopo_facts(root):
    cmd = [LSTOPO, "--of", "xml", "--whole-io"]
    if root != "/":
        cmd[1:1] = ["--input", root]
    rc, out, err = run(cmd)
    if rc != 0 or err.strip():
        return None, "lstopo rc %d: %s" % (rc, err.strip()[:400])
    top = ET.fromstring(out.encode())
    counts = {"Package": 0, "Core": 0, "PU": 0, "NUMANode": 0}
    loc = {}
    anc = {}
    io = {"Bridge", "PCIDev", "OSDev", "Misc"}

    def walk(node, normal, chain):
        for o in node.findall("object"):
            ty = o.get("type")
            if ty in counts:
                counts[ty] += 1
            if ty == "PCIDev":
                loc[o.get("pci_busid")] = bitmap(normal.get("nodeset", "0x0"))
                anc[o.get("pci_busid")] = chain
            sub = chain
            if ty == "Bridge" and o.get("bridge_type", "").startswith("0-"):
                # a host bridge: "0000:[40-54]" is its root bus 0000:40 and the buses below
                m = re.match(r"([0-9a-f]{4}):\[([0-9a-f]{2})", o.get("bridge_pci", ""))
                sub = (m.group(1) + ":" + m.group(2) if m else o.get("bridge_pci"), [])
            elif ty == "Bridge" and o.get("pci_busid"):
                sub = (chain[0] if chain else None, (chain[1] if chain else []) + [o.get("pci_busid")])
            walk(o, normal if ty in io else o, sub)
    walk(top, top, None)
    allnodes = set()
    for o in top.iter("object"):
        if o.get("type") == "NUMANode":
            allnodes.add(int(o.get("os_index")))
    return dict(counts=counts, loc=loc, anc=anc, allnodes=allnodes), None


def hexid(field):
    m = re.search(r"\[([0-9a-f]{2,6})\]$", field.strip())
    return int(m.group(1), 16) if m else int(field.strip(), 16)


SPEED_RE = re.compile(r"Speed ([0-9.]+)GT/s(?: \(\w+\))?, Width x(\d+)")


def lspci_facts(root):
    base = [LSPCI]
    if root != "/":
        base += ["-A", "linux-sysfs", "-O", "sysfs.path=" + os.path.join(root, "sys/bus/pci")]
    rc, out, err = run(base + ["-vmm", "-nn", "-D", "-k"])
    rc2, out2, err2 = run(base + ["-vvv", "-nn", "-D"])
    noise = [l for l in (err + err2).splitlines() if l.strip() and not KMOD_NOISE.match(l)]
    if rc or rc2 or noise:
        return None, "lspci rc %d/%d: %s" % (rc, rc2, " | ".join(noise)[:400])
    # Linux lets only root read past the first 64 bytes of config space: on the live machine
    # without root lspci shows no capabilities, so the link registers are not compared there
    nocaps = root == "/" and os.geteuid() != 0
    devs = {}
    for block in out.strip().split("\n\n"):
        f = {}
        for line in block.splitlines():
            k, _, v = line.partition(":\t")
            f[k] = v
        if "Slot" not in f:
            continue
        d = dict(vendor=hexid(f["Vendor"]), device=hexid(f["Device"]),
                 svendor=hexid(f["SVendor"]) if "SVendor" in f else None,
                 sdevice=hexid(f["SDevice"]) if "SDevice" in f else None,
                 cls=(hexid(f["Class"]) << 8) | int(f.get("ProgIf", "0"), 16),
                 rev=int(f.get("Rev", "0"), 16), driver=f.get("Driver"), nocaps=nocaps)
        devs[f["Slot"]] = d
    cur = None
    for line in out2.splitlines():
        m = re.match(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", line)
        if m:
            cur = devs.get(m.group(1))
            continue
        if cur is None:
            continue
        s = line.strip()
        m = re.match(r"Capabilities: \[[0-9a-f]+\] Express \(v\d\) ([^,]+?)(?: \(Slot[+-]\))?, (?:MSI|IntMsgNum)", s)
        if m:
            cur["express"] = m.group(1)
        if re.match(r"Capabilities: \[[0-9a-f]+ v\d\] Advanced Error Reporting", s):
            cur["aer"] = True
        if re.match(r"Capabilities: \[[0-9a-f]+ v\d\] Access Control Services", s):
            cur["acs"] = True
        for tag, key in (("LnkCap:", "cap"), ("LnkSta:", "sta")):
            if s.startswith(tag):
                sm = SPEED_RE.search(s)
                if sm:
                    cur[key] = (float(sm.group(1)), int(sm.group(2)))
    return devs, None


def discover(root, ok=(0, 1)):
    env = dict(os.environ, GPUAUDIT_PCI_IDS=PCI_IDS, LC_ALL="C")
    env.pop("GPUAUDIT_ROOT", None)
    rc, out, err = run([GPUAUDIT, "discover", "--root", root, "--json", "--no-vendor"], env)
    if rc not in ok:
        return None, "discover rc %d: %s" % (rc, err.strip()[:400])
    return json.loads(out), None


def compare_cpu(name, root):
    """A CPU-only tree (tests/fixtures/cputopo): packages, cores and threads. -> diffs as compare.
    discover exits 4 on such a tree (no PCI bus, no kernel version: unknowns), with its report."""
    node, e = discover(root, ok=(0, 1, 4))
    if e:
        return [("discover", None, e, "")]
    topo, e = lstopo_facts(root)
    if e:
        return [("lstopo-read", None, "", e)]
    cpu = node.get("cpu") or {}
    c = topo["counts"]
    print("     %s: lstopo Package %d Core %d PU %d; discover sockets %s cores %s threads %s" % (
        name, c["Package"], c["Core"], c["PU"], cpu.get("sockets"), cpu.get("cores"), cpu.get("threads")))
    return [(check, None, ours, theirs) for check, ours, theirs in (
        ("packages", cpu.get("sockets"), c["Package"]), ("cores", cpu.get("cores"), c["Core"]),
        ("threads", cpu.get("threads"), c["PU"])) if ours != theirs]


def compare(name, root):
    """-> list of (check, subject, ours, theirs)."""
    if name.startswith("cputopo/"):
        return compare_cpu(name, root)
    diffs = []
    node, e = discover(root)
    if e:
        return [("discover", None, e, "")]
    topo, e = lstopo_facts(root)
    if e:
        diffs.append(("lstopo-read", None, "", e))
    pci, e = lspci_facts(root)
    if e:
        diffs.append(("lspci-read", None, "", e))
    cpu = node.get("cpu") or {}
    if topo and pci is not None:
        c = topo["counts"]
        print("     %s: lstopo Package %d Core %d PU %d NUMANode %d PCIDev %d; lspci %d functions" % (
            name, c["Package"], c["Core"], c["PU"], c["NUMANode"], len(topo["loc"]), len(pci)))
    if topo:
        c = topo["counts"]
        for check, ours, theirs in (("packages", cpu.get("sockets"), c["Package"]),
                                    ("cores", cpu.get("cores"), c["Core"]),
                                    ("threads", cpu.get("threads"), c["PU"]),
                                    ("numa-nodes", len(cpu.get("numa_nodes") or []), c["NUMANode"])):
            if ours != theirs:
                diffs.append((check, None, ours, theirs))
    funcs = {}
    for a in node.get("accelerators") or []:
        if a.get("address"):
            funcs.setdefault(a["address"], {}).update(numa_node=a.get("numa_node"))
    chain = {}
    for p in node.get("pci") or []:
        funcs.setdefault(p["address"], {}).update(p)
        for u in p.get("upstream") or []:
            chain[u["address"]] = u
    if topo:
        for addr, f in sorted(funcs.items()):
            if "numa_node" not in f:
                continue
            theirs = topo["loc"].get(addr)
            ours = f["numa_node"]
            if theirs is None:
                diffs.append(("numa-locality", addr, ours, "not in lstopo"))
                continue
            want = topo["allnodes"] if ours is None or ours < 0 else {ours}
            if theirs != want:
                diffs.append(("numa-locality", addr, ours, sorted(theirs)))
    # the topology matrix's PCI ancestry (issue 30 point 5): the host bridge (its root bus) and
    # the bridges from the root port down, against the Bridge objects lstopo hangs the function
    # under; the NUMA node of each is the numa-locality check above
    if topo:
        for d in (node.get("topology") or {}).get("devices") or []:
            addr = d.get("pci_address")
            STATS["topology"] += 1
            ours = (d.get("host_bridge"), d.get("bridges") or [])
            theirs = topo["anc"].get(addr)
            theirs = (theirs[0], theirs[1]) if theirs else "not in lstopo"
            if ours != theirs:
                diffs.append(("topology-ancestry", addr, ours, theirs))
    if pci is not None:
        diffs += tree_diffs(name, root, pci)
        for addr, f in sorted(funcs.items()):
            if "vendor_id" in f:
                STATS["functions"] += 1
            if "vendor_id" not in f:
                continue
            d = pci.get(addr)
            if d is None:
                diffs.append(("pci-present", addr, "reported", "not in lspci"))
                continue
            for check, ours, theirs in (
                    ("pci-ids", (f["vendor_id"], f["device_id"]), (d["vendor"], d["device"])),
                    ("pci-subsys", (f.get("subsystem_vendor_id"), f.get("subsystem_device_id")),
                     (d["svendor"], d["sdevice"])),
                    ("pci-class", f.get("class_code"), d["cls"]),
                    ("pci-rev", f.get("revision"), d["rev"]),
                    ("pci-driver", f.get("driver"), d["driver"])):
                if ours != theirs:
                    diffs.append((check, addr, ours, theirs))
            diffs += link_diffs(addr, f.get("link"), d)
        for addr, u in sorted(chain.items()):
            STATS["bridges"] += 1
            d = pci.get(addr)
            if d is None:
                diffs.append(("pci-present", addr, "upstream", "not in lspci"))
                continue
            if u.get("id") != "%04x:%04x" % (d["vendor"], d["device"]):
                diffs.append(("pci-ids", addr, u.get("id"), "%04x:%04x" % (d["vendor"], d["device"])))
            diffs += link_diffs(addr, u.get("link"), d)
    return diffs


def sysfs_link(root, addr):
    """The tree's own link files for one function: ((cur GT/s, width), (max GT/s, width)) or None."""
    base = os.path.join(root, "sys/bus/pci/devices", addr)
    vals = []
    for f in ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width"):
        try:
            with open(os.path.join(base, f)) as fh:
                vals.append(fh.read().strip())
        except OSError:
            return None
    try:
        return ((float(vals[0].split()[0]), int(vals[1])), (float(vals[2].split()[0]), int(vals[3])))
    except ValueError:
        return None


def tree_diffs(name, root, pci):
    """The tree against itself, as lspci reads it: every function's config-space link registers
    against its sysfs link files; on fixtures, AER on every PCIe function and ACS on root and
    downstream ports (what the generator promises)."""
    out = []
    for addr, d in sorted(pci.items()):
        lk = None if d.get("nocaps") else sysfs_link(root, addr)
        if lk is not None and (d.get("sta"), d.get("cap")) != lk:
            out.append(("tree-link", addr, lk, (d.get("sta"), d.get("cap"))))
        if name == "live" or "express" not in d:
            continue
        if not d.get("aer"):
            out.append(("tree-aer", addr, "PCIe function", "no AER capability"))
        if d["express"] in ("Root Port", "Downstream Port") and not d.get("acs"):
            out.append(("tree-acs", addr, d["express"], "no ACS capability"))
    return out


def link_diffs(addr, link, d):
    out = []
    if d.get("nocaps"):
        return out
    ours_sta = ours_cap = None
    if link and link.get("cur_width"):
        ours_sta = (float(link["cur_speed_gts"]), int(link["cur_width"]))
    if link and link.get("max_width"):
        ours_cap = (float(link["max_speed_gts"]), int(link["max_width"]))
    if ours_sta != d.get("sta"):
        out.append(("link-status", addr, ours_sta, d.get("sta")))
    if ours_cap != d.get("cap"):
        out.append(("link-cap", addr, ours_cap, d.get("cap")))
    return out


def selftest_tree(root):
    """A tree the committed fixtures do not have, built with the generator's helpers at test
    time: 2x EPYC 7742 with CPUs 63 and 191 (one whole core) and 255 (one thread) offline,
    8-15 isolated, a CPU-less memory node 2, one A100 on node 1 behind a root port. It checks
    the helpers new fixtures use (offline and isolated CPUs, CPU-less nodes) against lstopo,
    and shows discover's CPU gaps on them."""
    sys.path.insert(0, NODES)
    import mkfixtures as m
    t = m.Tree(root)
    offline = {63, 191, 255}
    online = [c for c in range(256) if c not in offline]
    ncpu = m.gen_cpuinfo(t, "epyc7742", 2, 2, online=online, isolated=range(8, 16))
    nodes = [[c for c in online if (c % 128) < 64], [c for c in online if (c % 128) >= 64], []]
    m.gen_numa(t, nodes, [134217728, 134217728, 16777216], ncpu, [[10, 32, 80], [32, 10, 80], [80, 80, 10]])
    m.gen_meminfo(t, 285212672, "selftest")
    pci = m.PCI(t, nodes, ncpu)
    pci.add_root("0000:40", [
        m.D("0000:40:00.0", m.AMD_HB, 0x060000, 0x00, None, 1, None),
        m.D("0000:40:01.1", m.AMD_RP, m.B, 0x00, "pcieport", 1, m.L(4, 16), irq=30, children=[
            m.D("0000:41:00.0", m.A100, 0x030200, 0xa1, "nvidia", 1, m.L(4, 16), irq=200)])])


def expected_reason(name, check, subject):
    for key in ((name, check, subject), ("*", check, subject), (name, check, "*"), ("*", check, "*")):
        if key in EXPECTED:
            return key, EXPECTED[key]
    return None, None


def main(argv):
    global GPUAUDIT, LSTOPO, LSPCI
    if len(argv) < 2:
        sys.exit("usage: reftools.py GPUAUDIT [FIXTURE ...]")
    GPUAUDIT = os.path.abspath(argv[1])
    LSTOPO = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
    LSPCI = shutil.which("lspci") or (os.path.exists("/usr/bin/lspci") and "/usr/bin/lspci")
    if not LSTOPO or not LSPCI:
        print("reftools: skipped: needs lstopo-no-graphics (hwloc-nox, libhwloc-plugins) and lspci "
              "(pciutils): scripts/install-deps installs them")
        return 77
    names = argv[2:] or sorted(n for n in os.listdir(NODES) if os.path.isdir(os.path.join(NODES, n, "root")))
    targets = [(n, os.path.join(NODES, n, "root")) for n in names
               if n not in ("live", "selftest", "cputopo") and not n.startswith("cputopo/")]
    topos = sorted(n for n in os.listdir(CPUTOPO) if os.path.isdir(os.path.join(CPUTOPO, n)))
    targets += [("cputopo/" + n, os.path.join(CPUTOPO, n)) for n in topos
                if not argv[2:] or "cputopo" in argv[2:] or "cputopo/" + n in argv[2:]]
    if not argv[2:] or "live" in argv[2:]:
        targets.append(("live", "/"))
    tmp = None
    if not argv[2:] or "selftest" in argv[2:]:
        tmp = tempfile.mkdtemp(prefix="reftools-")
        selftest_tree(tmp)
        targets.append(("selftest", tmp))
    targets = [(n, r) for n, r in targets if n != "selftest" or tmp]
    used = set()
    bad = 0
    for name, root in targets:
        diffs = compare(name, root)
        shown = 0
        for check, subject, ours, theirs in diffs:
            key, why = expected_reason(name, check, subject)
            if key:
                used.add(key)
                continue
            bad += 1
            shown += 1
            print("FAIL %s %s %s: discover %r, reference %r" % (name, check, subject or "-", ours, theirs))
        print("%s %s: %d difference(s), %d expected" % ("ok  " if not shown else "FAIL", name, len(diffs),
                                                         len(diffs) - shown))
    print("compared %d trees, %d PCI functions, %d upstream bridges and %d topology devices" % (
        len(targets), STATS["functions"], STATS["bridges"], STATS["topology"]))
    # an expected difference that no longer occurs in a tree that was compared: prune it
    compared = {n for n, _ in targets}
    for key, why in sorted(EXPECTED.items(), key=str):
        if key not in used and (key[0] in compared or (key[0] == "*" and not argv[2:])):
            bad += 1
            print("FAIL stale expected difference %r (%s): it no longer occurs" % (key, why))
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
