{{/*
The worker's pod template, for the plain Deployment and for the WorkerDeployment alike (`managed`: the
controller's Connection supplies the Temporal address, namespace and credentials).
*/}}
{{- define "crm.workerPod" -}}
{{- $secret := .Values.secrets.app -}}
metadata:
  labels:
    {{- include "crm.selectorLabels" . | nindent 4 }}
    app.kubernetes.io/component: worker
spec:
  {{- include "crm.podSecurity" . | nindent 2 }}
  terminationGracePeriodSeconds: {{ .Values.worker.terminationGracePeriodSeconds }}
  containers:
    - name: worker
      image: {{ include "crm.image" . }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      command: [node, dist/main/worker.js]
      {{- include "crm.containerSecurity" . | nindent 6 }}
      ports:
        # Health, metrics and the payload codec (docs/operations.md, "The codec endpoint").
        - { name: http, containerPort: 9464 }
      env:
        {{- include "crm.plainEnv" (dict "Values" .Values "own" .Values.worker.env) | nindent 8 }}
        - name: WORKER_HTTP_HOST
          value: 0.0.0.0
        - name: WORKER_HTTP_PORT
          value: "9464"
        {{- if .managed }}
        # The controller ramps and promotes versions; the worker polls as the one it registered.
        - name: WORKER_SET_CURRENT
          value: never
        {{- end }}
        {{- include "crm.temporalEnv" . | nindent 8 }}
        {{- range list "DATABASE_URL" "SECRETS_KEY" "TEMPORAL_PAYLOAD_KEYS" }}
        {{- include "crm.secretEnv" (dict "name" . "secret" $secret) | nindent 8 }}
        {{- end }}
        {{- range list "JWT_SECRET" "CODEC_AUTH_TOKEN" "MESSAGE_WEBHOOK_SECRET" }}
        {{- include "crm.secretEnv" (dict "name" . "secret" $secret "optional" true) | nindent 8 }}
        {{- end }}
      {{- with .Values.secrets.carrier }}
      envFrom:
        - secretRef: { name: {{ . }} }
      {{- end }}
      # GET /healthz answers 200 while the worker polls its task queue, 503 once it stopped.
      readinessProbe:
        httpGet: { path: /healthz, port: http }
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 3
      livenessProbe:
        httpGet: { path: /healthz, port: http }
        initialDelaySeconds: 20
        periodSeconds: 20
        timeoutSeconds: 5
        failureThreshold: 3
      resources: {{- toYaml .Values.worker.resources | nindent 8 }}
      volumeMounts:
        {{- include "crm.temporalMounts" . | nindent 8 }}
  volumes:
    {{- include "crm.temporalVolumes" . | nindent 4 }}
{{- end -}}
