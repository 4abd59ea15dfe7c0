{{/* The release's base name: the release alone when it already says crm-messaging. */}}
{{- define "crm.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "crm.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "crm.labels" -}}
{{ include "crm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "crm.image" -}}
{{ .Values.image.repository }}:{{ required "image.tag is required: the image to run" .Values.image.tag }}
{{- end -}}

{{/* The pod settings every process shares: no Kubernetes API token, a non-root user, no privilege. */}}
{{- define "crm.podSecurity" -}}
automountServiceAccountToken: false
securityContext:
  runAsNonRoot: true
  runAsUser: 1000
  runAsGroup: 1000
  seccompProfile: { type: RuntimeDefault }
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "crm.containerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities: { drop: [ALL] }
{{- end -}}

{{/* A variable from a key of the app Secret. */}}
{{- define "crm.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required "secrets.app is required: the Secret holding DATABASE_URL, SECRETS_KEY, TEMPORAL_PAYLOAD_KEYS and JWT_SECRET" .secret }}
      key: {{ .name }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/*
The Temporal connection's variables. With the worker controller, a WorkerDeployment's pods get the
address, namespace, API key and client certificate from its Connection (`managed`): only the rest here.
*/}}
{{- define "crm.temporalEnv" -}}
{{- $t := .Values.temporal -}}
{{- if and $t.apiKey.secret $t.mtls.secret -}}
{{- fail "temporal.apiKey and temporal.mtls: choose one" -}}
{{- end -}}
- name: TEMPORAL_TASK_QUEUE
  value: {{ $t.taskQueue | quote }}
{{- if not .managed }}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address is required" $t.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ $t.namespace | quote }}
{{- if $t.apiKey.secret }}
- name: TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef: { name: {{ $t.apiKey.secret }}, key: {{ $t.apiKey.key }} }
{{- end }}
{{- if $t.mtls.secret }}
- name: TEMPORAL_TLS
  value: "true"
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/temporal/tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/temporal/tls/tls.key
{{- end }}
{{- if $t.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ $t.tls.serverName | quote }}
{{- end }}
{{- end }}
{{- if $t.tls.caSecret }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/temporal/ca/{{ $t.tls.caKey }}
{{- end }}
{{- if $t.profile.secret }}
- name: TEMPORAL_CONFIG_FILE
  value: /etc/temporal/config/{{ $t.profile.key }}
- name: TEMPORAL_PROFILE
  value: {{ $t.profile.name | quote }}
{{- end }}
{{- end -}}

{{/* The files of the Temporal connection: client certificate, server CA, envconfig profile. */}}
{{- define "crm.temporalVolumes" -}}
{{- $t := .Values.temporal -}}
- name: tmp
  emptyDir: {}
{{- if and $t.mtls.secret (not .managed) }}
- name: temporal-tls
  secret: { secretName: {{ $t.mtls.secret }} }
{{- end }}
{{- if $t.tls.caSecret }}
- name: temporal-ca
  secret: { secretName: {{ $t.tls.caSecret }} }
{{- end }}
{{- if $t.profile.secret }}
- name: temporal-config
  secret: { secretName: {{ $t.profile.secret }} }
{{- end }}
{{- end -}}

{{- define "crm.temporalMounts" -}}
{{- $t := .Values.temporal -}}
- name: tmp
  mountPath: /tmp
{{- if and $t.mtls.secret (not .managed) }}
- name: temporal-tls
  mountPath: /etc/temporal/tls
  readOnly: true
{{- end }}
{{- if $t.tls.caSecret }}
- name: temporal-ca
  mountPath: /etc/temporal/ca
  readOnly: true
{{- end }}
{{- if $t.profile.secret }}
- name: temporal-config
  mountPath: /etc/temporal/config
  readOnly: true
{{- end }}
{{- end -}}

{{/* Plain settings: the chart's, then the release's (env), then the process's own. */}}
{{- define "crm.plainEnv" -}}
- name: NODE_ENV
  value: production
{{- range $name, $value := merge (dict) .own .Values.env }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}
