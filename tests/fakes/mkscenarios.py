#!/usr/bin/env python3
"""Generate tests/fakes/scenarios/*.json for the fake NVML library (python3, stdlib only).

    python3 tests/fakes/mkscenarios.py

The GPUs mirror the dgx-a100 node fixture (tests/fixtures/nodes/dgx-a100/root): PCI
addresses, UUIDs, device minors and NUMA nodes are read from the fixture tree, and the
GPU-pair topology levels are derived from its PCI bridge tree. Edit this script, not the
JSON files; the script rewrites every scenario it knows.
"""
import copy
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "nodes", "dgx-a100", "root")
OUT = os.path.join(HERE, "scenarios")

# Topology levels (nvmlGpuTopologyLevel_t)
PIX, PXB, PHB, NODE, SYS = 10, 20, 30, 40, 50

# The fixture has 2 sockets with 4 NUMA nodes each (NPS4): nodes 0-3 socket 0, 4-7 socket 1.
def socket_of(numa):
    return numa // 4

# GPUs on different NUMA nodes: NVML's NODE means "same NUMA node, across host bridges" and
# SYS "across NUMA nodes" (shared/reference/nvml-api.md §8), so a cross-node pair is SYS even
# inside one socket. Set to True to report same-socket, cross-node pairs as NODE instead.
CROSS_NODE_SAME_SOCKET_IS_NODE = False

MIB = 1 << 20

# nvmlGpuFabricState_t
FABRIC_NOT_STARTED, FABRIC_IN_PROGRESS, FABRIC_COMPLETED = 1, 2, 3
# healthMask with every two-state field FALSE (2): degraded_bw, route_recovery, route_unhealthy,
# access_timeout_recovery; incorrect_configuration NONE (1 << 8); partition_assigned TRUE (1 << 12)
HEALTHY_MASK = (2 << 0) | (2 << 2) | (2 << 4) | (2 << 6) | (1 << 8) | (1 << 12)
CLUSTER_UUID = "5e0c1a4e-7a1d-4f0b-9c2e-0d3f6a8b1c20"


def read(path):
    with open(path) as f:
        return f.read()


def fixture_gpus():
    gdir = os.path.join(FIXTURE, "proc", "driver", "nvidia", "gpus")
    gpus = []
    for bdf in sorted(os.listdir(gdir)):
        info = read(os.path.join(gdir, bdf, "information"))
        field = lambda k: re.search(r"^%s:\s*(.*?)\s*$" % re.escape(k), info, re.M).group(1)
        sysdev = os.path.join(FIXTURE, "sys", "bus", "pci", "devices", bdf)
        real = os.path.realpath(sysdev)
        chain = real[real.index("/sys/devices/") + len("/sys/devices/"):].split("/")
        attr = lambda a: read(os.path.join(sysdev, a)).strip()
        gpus.append({
            "bdf": bdf,
            "model": field("Model"),
            "uuid": field("GPU UUID"),
            "minor": int(field("Device Minor")),
            "numa": int(attr("numa_node")),
            "chain": chain,  # ["pci0000:00", rootport, bridge..., bdf]
            "device_id": (int(attr("device"), 16) << 16) | int(attr("vendor"), 16),
            "subsys_id": (int(attr("subsystem_device"), 16) << 16) | int(attr("subsystem_vendor"), 16),
            "width": int(attr("current_link_width")),
            "max_width": int(attr("max_link_width")),
        })
    return gpus


def level(a, b):
    ca, cb = a["chain"], b["chain"]
    if ca[0] == cb[0] and ca[1] == cb[1]:
        # Same root port: count the bridges below the common ancestor on both sides.
        n = 0
        while n < min(len(ca), len(cb)) and ca[n] == cb[n]:
            n += 1
        below = max(len(ca), len(cb)) - n  # levels from the common ancestor down to a GPU
        # Common ancestor is a switch's upstream port and each GPU sits directly under one of
        # its downstream ports: one switch (PIX). Anything deeper crosses several switches (PXB).
        return PIX if below <= 2 and n >= 3 else PXB
    if ca[0] == cb[0]:
        return PHB
    if a["numa"] == b["numa"]:
        return NODE
    if CROSS_NODE_SAME_SOCKET_IS_NODE and socket_of(a["numa"]) == socket_of(b["numa"]):
        return NODE
    return SYS


def nvml_bus_id(bdf):
    dom, bus, devfn = bdf.split(":")
    dev, fn = devfn.split(".")
    return "%08X:%02X:%02X.%X" % (int(dom, 16), int(bus, 16), int(dev, 16), int(fn, 16))


def nvswitches():
    devs = os.path.join(FIXTURE, "sys", "bus", "pci", "devices")
    out = []
    for bdf in sorted(os.listdir(devs)):
        if read(os.path.join(devs, bdf, "class")).strip() == "0x068000" and \
           read(os.path.join(devs, bdf, "device")).strip() == "0x1af1":
            out.append(bdf)
    return out


A100_PROFILES = [
    # id, slices, instances, SMs, memory MiB, copy engines, decoders, jpeg, ofa
    (0, 1, 7, 14, 4864, 1, 0, 0, 0, "MIG 1g.5gb"),
    (1, 2, 3, 28, 9856, 2, 1, 0, 0, "MIG 2g.10gb"),
    (2, 3, 2, 42, 19968, 3, 2, 0, 0, "MIG 3g.20gb"),
    (3, 4, 1, 56, 19968, 4, 2, 0, 0, "MIG 4g.20gb"),
    (4, 7, 1, 98, 40192, 7, 5, 1, 1, "MIG 7g.40gb"),
]


def profiles():
    return [{
        "id": pid, "name": name, "slice_count": sl, "instance_count": inst,
        "multiprocessor_count": sms, "memory_size_mb": mem, "copy_engine_count": ce,
        "decoder_count": dec, "encoder_count": 0, "jpeg_count": jpeg, "ofa_count": ofa,
        "is_p2p_supported": 0,
    } for pid, sl, inst, sms, mem, ce, dec, jpeg, ofa, name in A100_PROFILES]


def healthy():
    gpus = fixture_gpus()
    switches = nvswitches()
    assert len(gpus) == 8 and len(switches) == 6, (len(gpus), len(switches))
    total = 42949672960  # 40 GiB
    used = 567 * MIB     # reserved + driver, as an idle A100 40GB shows in v1 GetMemoryInfo
    out = []
    for i, g in enumerate(gpus):
        out.append({
            "name": g["model"],
            "uuid": g["uuid"],
            "serial": "15647200046%02d" % (31 + i),
            "pci_bus_id": nvml_bus_id(g["bdf"]),
            "pci_device_id": "0x%08X" % g["device_id"],
            "pci_subsystem_id": "0x%08X" % g["subsys_id"],
            "minor": g["minor"],
            "memory": {"total": total, "used": used, "free": total - used},
            "cuda_compute_capability": [8, 0],
            "persistence_mode": 1,
            "mig": {"current": 0, "pending": 0, "max_devices": 7, "profiles": profiles()},
            "ecc": {"current": 1, "pending": 1,
                    "corrected_volatile": 0, "corrected_aggregate": 0,
                    "uncorrected_volatile": 0, "uncorrected_aggregate": 0},
            "retired_pages": {"multiple_single_bit": [], "double_bit": [], "pending": 0},
            "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": 0, "failure": 0},
            "clocks": {"graphics": 1410, "sm": 1410, "mem": 1215, "video": 1275},
            "max_clocks": {"graphics": 1410, "sm": 1410, "mem": 1215, "video": 1275},
            "clocks_event_reasons": 1,
            "temperature": 31 + i % 3,
            "power_usage": 52000 + 750 * i,
            "power_limit": 400000,
            "utilization": {"gpu": 0, "memory": 0},
            "pcie": {"gen": 4, "max_gen": 4, "width": g["width"], "max_width": g["max_width"],
                     "tx_kbps": 1000, "rx_kbps": 2000, "replay_counter": 0},
            # 12 NVLink 3.0 links, two to each of the six NVSwitches.
            "nvlinks": [{
                "active": True,
                "remote_type": 2,
                "remote_pci_bus_id": nvml_bus_id(switches[link // 2]),
                "remote_pci_device_id": "0x1AF110DE",
                "version": 4,
            } for link in range(12)],
            "topology": [None if j == i else level(g, h) for j, h in enumerate(gpus)],
        })
    return {
        "init": "ok",
        "driver_version": "550.135",
        "nvml_version": "12.550.135",
        "cuda_driver_version": 12040,
        "gpus": out,
    }


def mig_uuid(n):
    return "MIG-%08x-%04x-5%03x-8%03x-%012x" % (0x3b1c5a00 + n, 0x1d2e + n, n, n, 0x9a7b00c0ffee + n)


def scenarios():
    s = {}
    base = healthy()
    s["healthy-8xa100"] = base

    lost = copy.deepcopy(base)
    lost["gpus"][3]["lost"] = True
    s["gpu3-lost"] = lost

    vm = copy.deepcopy(base)
    vm["init"] = 18
    s["version-mismatch"] = vm

    hang = copy.deepcopy(base)
    hang["init"] = "hang"
    s["init-hangs"] = hang

    s["old-driver"] = copy.deepcopy(base)

    mig = copy.deepcopy(base)
    g0 = mig["gpus"][0]
    g0["mig"]["current"] = 1
    g0["mig"]["pending"] = 1
    name = g0["name"]
    # A valid A100-40GB layout (8 memory slices, 7 compute slices):
    # 3g.20gb at placement 4:4 (GI 1), 2g.10gb at 0:2 (GI 3), 1g.5gb at 2:1 (GI 9).
    g0["mig"]["devices"] = [
        {"index": 0, "name": name + " MIG 3g.20gb", "uuid": mig_uuid(0),
         "gpu_instance_id": 1, "compute_instance_id": 0,
         "memory": {"total": 19968 * MIB, "used": 13 * MIB}},
        {"index": 1, "name": name + " MIG 2g.10gb", "uuid": mig_uuid(1),
         "gpu_instance_id": 3, "compute_instance_id": 0,
         "memory": {"total": 9856 * MIB, "used": 7 * MIB}},
        {"index": 2, "name": name + " MIG 1g.5gb", "uuid": mig_uuid(2),
         "gpu_instance_id": 9, "compute_instance_id": 0,
         "memory": {"total": 4864 * MIB, "used": 4 * MIB}},
    ]
    s["mig"] = mig

    rr = copy.deepcopy(base)
    g6 = rr["gpus"][6]
    g6["remapped_rows"] = {"correctable": 0, "uncorrectable": 2, "pending": 1, "failure": 0}
    g6["ecc"]["uncorrected_volatile"] = 2
    g6["ecc"]["uncorrected_aggregate"] = 2
    rr["gpus"][7]["remapped_rows"]["failure"] = 1
    s["row-remap-pending"] = rr

    x8 = copy.deepcopy(base)
    g5 = x8["gpus"][5]
    g5["pcie"]["width"] = 8
    g5["pcie"]["max_width"] = 16
    g5["pcie"]["replay_counter"] = 120
    g5["clocks_event_reasons"] = 8
    s["pcie-x8"] = x8

    # GPU fabric (NVSwitch registration). A100 NVML answers NOT_SUPPORTED, so these scenarios
    # give the DGX A100 GPUs the fabric info a Hopper NVSwitch system reports (reference §9).
    def with_fabric(state, status=0, summary=1, mask=HEALTHY_MASK):
        sc = copy.deepcopy(base)
        for g in sc["gpus"]:
            g["fabric"] = {"state": state, "status": status, "clique_id": 32766,
                           "cluster_uuid": CLUSTER_UUID, "health_mask": mask,
                           "health_summary": summary}
        return sc
    s["fabric-completed"] = with_fabric(FABRIC_COMPLETED)
    s["fabric-in-progress"] = with_fabric(FABRIC_IN_PROGRESS, summary=0, mask=0)
    failed = with_fabric(FABRIC_COMPLETED)
    # GPU 2: registration finished with an error; GPU 5: degraded bandwidth, unhealthy
    failed["gpus"][2]["fabric"]["status"] = 999
    failed["gpus"][2]["fabric"]["health_summary"] = 2
    failed["gpus"][5]["fabric"]["health_mask"] = (HEALTHY_MASK & ~0x3) | 0x1
    failed["gpus"][5]["fabric"]["health_summary"] = 3
    s["fabric-failed"] = failed
    # a driver from 550.40-575 (V accepts only the v2 struct) and one from 525-535 (only v1)
    v2 = with_fabric(FABRIC_COMPLETED)
    for g in v2["gpus"]:
        g["fabric"]["max_version"] = 2
    s["fabric-v2"] = v2
    # V refuses both struct versions: the unversioned call (28 bytes, no health) answers
    v1 = with_fabric(FABRIC_COMPLETED)
    for g in v1["gpus"]:
        g["fabric"]["max_version"] = 1
    s["fabric-v1"] = v1

    # NVLink: GPU 0 link 5 down while its other 11 links are up
    down = copy.deepcopy(base)
    down["gpus"][0]["nvlinks"][5]["active"] = False
    s["nvlink-down"] = down
    # NVLink error counters: GPU 4 link 3 with replays and CRC flit errors; the "-rising"
    # file is the same link a collection later, with more of both
    errs = copy.deepcopy(base)
    errs["gpus"][4]["nvlinks"][3]["errors"] = {"replay": 150, "recovery": 1, "crc_flit": 40, "crc_data": 2}
    s["nvlink-errors"] = errs
    rising = copy.deepcopy(errs)
    rising["gpus"][4]["nvlinks"][3]["errors"] = {"replay": 410, "recovery": 3, "crc_flit": 95, "crc_data": 2}
    s["nvlink-errors-rising"] = rising

    # NVML events (nvmlEventSetWait_v2): Xid 79 on GPU 3, Xid 48 and a double-bit ECC event on GPU 6
    ev = copy.deepcopy(base)
    ev["events"] = [{"gpu": 3, "type": "xid", "data": 79},
                    {"gpu": 6, "type": "xid", "data": 48, "delay_ms": 20},
                    {"gpu": 6, "type": "dbe"}]
    s["events-xid"] = ev
    # the wait never returns: the helper's deadline kills it
    hang = copy.deepcopy(base)
    hang["hang_in"] = ["nvmlEventSetWait"]
    s["events-hang"] = hang
    return s


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, sc in scenarios().items():
        path = os.path.join(OUT, name + ".json")
        with open(path, "w") as f:
            json.dump(sc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
