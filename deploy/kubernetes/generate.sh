#!/bin/sh
# generate.sh [HELM] - write daemonset.yaml and servicemonitor.yaml from the Helm chart
# (deploy/helm/gpuaudit) for clusters that apply plain manifests: the chart's defaults
# plus the namespace, and its ServiceMonitor. tests/integration/helm-chart.sh checks
# that the committed files are what this script writes.
set -eu
helm=${1:-helm}
here=$(cd "$(dirname "$0")" && pwd)
chart=$here/../helm/gpuaudit
out=${GA_MANIFEST_DIR:-$here}
head='# Generated from deploy/helm/gpuaudit by deploy/kubernetes/generate.sh: do not edit; change
# the chart (values.yaml, templates/) and run the script. docs/deploy.md explains each choice.'
{
	echo "$head"
	"$helm" template gpuaudit "$chart" --namespace gpuaudit --set namespace.create=true 2>/dev/null
} >"$out/daemonset.yaml"
{
	echo "$head"
	"$helm" template gpuaudit "$chart" --namespace gpuaudit --set serviceMonitor.enabled=true \
		--show-only templates/servicemonitor.yaml 2>/dev/null
} >"$out/servicemonitor.yaml"
