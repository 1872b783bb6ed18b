#!/usr/bin/env python3
"""mkdashboard.py - writes grafana/gpuaudit.json (run from deploy/: python3 grafana/mkdashboard.py)."""
import json
DS = {"type": "prometheus", "uid": "${datasource}"}
panels = []
y = 0
def panel(title, kind, exprs, w=12, h=8, x=0, unit=None, legend=None, desc=""):
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
    panels.append(p)
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
for i, p in enumerate(panels):
    p["id"] = i + 1
dash = {
    "title": "gpuaudit: GPU nodes",
    "uid": "gpuaudit-nodes",
    "description": "Node classes, policy checks, GPU telemetry, kernel GPU events and collector staleness from gpuaudit serve (docs/metrics.md).",
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
