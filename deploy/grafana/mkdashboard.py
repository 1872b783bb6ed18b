#!/usr/bin/env python3
"""mkdashboard.py - writes grafana/gpuaudit.json (run from deploy/: python3 grafana/mkdashboard.py)."""
import json
DS = {"type": "prometheus", "uid": "${datasource}"}
panels = []
added = []  # panels added after the first version: numbered after the others, so ids stay
y = 0
def panel(title, kind, exprs, w=12, h=8, x=0, unit=None, legend=None, desc="", later=False):
    global y
    p = {"type": kind, "title": title, "description": desc, "datasource": DS,
         "gridPos": {"x": x, "y": y, "w": w, "h": h},
         "targets": [{"refId": chr(65 + i), "expr": e, "legendFormat": (legend[i] if legend else "")}
                     for i, e in enumerate(exprs)],
         "fieldConfig": {"defaults": ({"unit": unit} if unit else {}), "overrides": []},
         "options": {}}
    if kind == "table":
        for t in p["targets"]:
            t["instant"] = True
            t["format"] = "table"
    (added if later else panels).append(p)
    return p
sel = 'instance=~"$instance"'
# row 1: fleet state
panel("GPUs found", "stat", ['sum(gpuaudit_gpus{%s})' % sel], w=4, h=4, x=0, desc="Accelerators the snapshot found on the selected nodes.")
panel("GPUs expected by policy", "stat", ['sum(gpuaudit_gpus_expected{%s})' % sel], w=4, h=4, x=4)
panel("Nodes failing their policy class", "stat", ['count(gpuaudit_check_passed{%s} == 0) or vector(0)' % sel], w=4, h=4, x=8)
panel("Node classes in use", "stat", ['count(count by (class) (gpuaudit_node_class_info{%s}))' % sel], w=4, h=4, x=12)
panel("Stale collectors", "stat", ['count(time() - gpuaudit_last_collection_timestamp_seconds{%s} > 3 * gpuaudit_collection_interval_seconds{%s} + 60) or vector(0)' % (sel, sel)], w=4, h=4, x=16)
panel("Degraded PCIe links", "stat", ['count(gpuaudit_gpu_pcie_link_degraded{%s} == 1) or vector(0)' % sel], w=4, h=4, x=20)
y += 4
panel("Node classes", "table", ['count by (name, class, hw, stack) (gpuaudit_node_class_info{%s})' % sel], w=12, desc="Nodes per class id; one hardware name with several ids is drift (alert GpuauditNodeClassDrift).")
panel("Findings by code and severity", "table", ['sum by (code, severity) (gpuaudit_findings{%s})' % sel], w=12, x=12)
y += 8
# the fleet's compatibility matrix and its drift (issue 20): from the recording rules of
# prometheus/recording-rules.yaml, so fleet-wide (the Node variable does not apply to them).
# The drift panels' queries are the ones prometheus/recording-rules.test.yaml tests (with
# [30m] for $__range and no Node selection; integration/serve-deploy checks they agree).
# An info series keeps the value 1, so changes() cannot see a node's class change: the
# new class is a new series, hence last_over_time() over the range, counted per node.
fleet = "From the recording rules (prometheus/recording-rules.yaml): the whole fleet, the Node selection does not apply."
panel("Compatibility matrix: nodes per class, stack and driver", "table", ['class_stack_driver:gpuaudit_nodes:count'], w=16, h=10,
      desc="Each hardware class (name, class id) with the software stacks (stack hash) and GPU drivers its nodes run, and how many nodes run each: what gpuaudit fleet prints. " + fleet, later=True)
panel("Nodes per class and stack, with error findings", "table", ['class_stack:gpuaudit_nodes:count', 'class_stack:gpuaudit_nodes_with_errors:count'], w=8, h=10, x=16,
      desc="A: nodes per matrix cell (CPU-only nodes included); B: those of them with a finding at error level or above. " + fleet, later=True)
y += 10
panel("Class or stack changed within the range", "table", ['count by (instance) (last_over_time(gpuaudit_node_class_info{%s}[$__range])) > 1' % sel],
      w=8, desc="Nodes that reported more than one class id (a stack or hardware change: a driver upgrade, a lost GPU) within the dashboard's time range; the value is how many.", later=True)
panel("Stopped reporting within the range", "table", ['count by (instance) (last_over_time(gpuaudit_node_class_info{%s}[$__range])) unless on (instance) gpuaudit_node_class_info' % sel],
      w=8, x=8, desc="Nodes that had a class within the range and have none now: the exporter stopped or the node left.", later=True)
panel("Matrix cells whose node count changed", "table", ['changes(class_stack:gpuaudit_nodes:count[$__range]) > 0'],
      w=8, x=16, desc="changes() of the recorded node count per class and stack over the range: cells that nodes joined or left. " + fleet, later=True)
y += 8
panel("Nodes per class and stack", "timeseries", ['class_stack:gpuaudit_nodes:count'], w=8, legend=["{{name}} {{class}}"], desc=fleet, later=True)
panel("Nodes per GPU driver version", "timeseries", ['driver_version:gpuaudit_nodes:count'], w=8, x=8, legend=["{{driver}} {{version}}"], desc=fleet, later=True)
panel("GPUs and nodes per model", "table", ['vendor_model:gpuaudit_gpus:count', 'vendor_model:gpuaudit_nodes:count'], w=8, x=16, desc="A: accelerators per vendor and model; B: nodes with at least one. " + fleet, later=True)
y += 8
# row 2: GPU telemetry
panel("GPU utilization", "timeseries", ['gpuaudit_gpu_utilization_ratio{%s}' % sel], unit="percentunit", legend=["{{instance}} gpu {{gpu}}"])
panel("GPU memory used", "timeseries", ['gpuaudit_gpu_memory_used_bytes{%s} / gpuaudit_gpu_memory_total_bytes{%s}' % (sel, sel)], x=12, unit="percentunit", legend=["{{instance}} gpu {{gpu}}"])
y += 8
panel("Temperature", "timeseries", ['gpuaudit_gpu_temperature_celsius{%s}' % sel], unit="celsius", legend=["{{instance}} gpu {{gpu}} {{sensor}}"])
panel("Power", "timeseries", ['gpuaudit_gpu_power_watts{%s}' % sel, 'gpuaudit_gpu_power_limit_watts{%s}' % sel], x=12, unit="watt", legend=["{{instance}} gpu {{gpu}}", "limit {{instance}} gpu {{gpu}}"])
y += 8
panel("SM clock", "timeseries", ['gpuaudit_gpu_clock_hertz{clock="sm",%s}' % sel], unit="hertz", legend=["{{instance}} gpu {{gpu}}"])
panel("Clock event (throttle) reasons", "table", ['gpuaudit_gpu_clock_event_reasons{%s}' % sel], x=12)
y += 8
# row 3: errors
panel("Kernel events (Xid, AER, ...)", "timeseries", ['sum by (instance, kind, code, gpu) (increase(gpuaudit_kernel_events_total{%s}[$__rate_interval]))' % sel], legend=["{{instance}} {{kind}} {{code}} gpu {{gpu}}"], desc="Counters that only grow while gpuaudit serve runs; increase() per interval.")
panel("ECC and row remapping", "table", ['gpuaudit_gpu_ecc_errors_volatile{%s} > 0' % sel, 'gpuaudit_gpu_remapped_rows{%s} > 0' % sel, 'gpuaudit_gpu_row_remap_pending{%s} == 1' % sel], x=12)
y += 8
panel("PCIe link width (current / max), NVLinks (total / active)", "table", ['gpuaudit_gpu_pcie_link_width{%s}' % sel, 'gpuaudit_gpu_pcie_link_max_width{%s}' % sel, 'gpuaudit_gpu_pcie_link_generation{%s}' % sel, 'gpuaudit_gpu_nvlinks{%s}' % sel, 'gpuaudit_gpu_nvlinks_active{%s}' % sel], w=12)
panel("Vendor libraries up", "timeseries", ['gpuaudit_vendor_library_up{%s}' % sel], x=12, legend=["{{instance}} {{library}}"])
y += 8
# row 4: the exporter
panel("Collection age", "timeseries", ['time() - gpuaudit_last_collection_timestamp_seconds{%s}' % sel], unit="s", legend=["{{instance}}"])
panel("Collection duration and errors", "timeseries", ['gpuaudit_collection_duration_seconds{%s}' % sel, 'increase(gpuaudit_collection_errors_total{%s}[$__rate_interval])' % sel, 'gpuaudit_collection_running_seconds{%s}' % sel], x=12, legend=["duration {{instance}}", "errors {{instance}}", "running {{instance}}"])
panels += added
for i, p in enumerate(panels):
    p["id"] = i + 1
dash = {
    "title": "gpuaudit: GPU nodes",
    "uid": "gpuaudit-nodes",
    "description": "Node classes, the fleet's compatibility matrix and its drift, policy checks, GPU telemetry, kernel GPU events and collector staleness from gpuaudit serve (docs/metrics.md).",
    "tags": ["gpuaudit", "gpu"],
    "schemaVersion": 39,
    "version": 1,
    "editable": True,
    "time": {"from": "now-6h", "to": "now"},
    "refresh": "1m",
    "timezone": "browser",
    "templating": {"list": [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"},
        {"name": "instance", "type": "query", "datasource": DS, "label": "Node",
         "query": {"query": "label_values(gpuaudit_node_info, instance)", "refId": "instance"},
         "definition": "label_values(gpuaudit_node_info, instance)",
         "multi": True, "includeAll": True, "allValue": ".*", "refresh": 2,
         "current": {"selected": True, "text": ["All"], "value": ["$__all"]}},
    ]},
    "annotations": {"list": []},
    "panels": panels,
}
json.dump(dash, open("grafana/gpuaudit.json", "w"), indent=2)
open("grafana/gpuaudit.json", "a").write("\n")
print(len(panels), "panels")
