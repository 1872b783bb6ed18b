{{/* The name of every object: the release name, or "gpuaudit" for a release of that name. */}}
{{- define "gpuaudit.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Selector labels: stable across upgrades. */}}
{{- define "gpuaudit.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels. */}}
{{- define "gpuaudit.labels" -}}
{{ include "gpuaudit.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gpuaudit.policyConfigMap" -}}
{{- .Values.policy.existingConfigMap | default (printf "%s-policy" (include "gpuaudit.fullname" .)) -}}
{{- end -}}
