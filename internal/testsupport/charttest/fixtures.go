package charttest

// AppTemplate is a chart modelled on bjw-s' app-template (https://github.com/bjw-s-labs/helm-charts,
// charts/other/app-template and its common library, lib/pod/fields/_volumes.tpl and
// classes/_pvc.tpl): every item of `persistence` is enabled unless `enabled: false`, of type
// persistentVolumeClaim unless `type` says otherwise; a claim item creates its claim unless it
// names an `existingClaim`, and `retain: true` puts helm.sh/resource-policy: keep on it. The
// controllers' pods mount every item. Names are the release's name, then the item's.
func AppTemplate(version string) Chart {
	return Chart{Name: "app-template", Version: version, Files: map[string]string{
		"values.yaml": `controllers: {}
service: {}
persistence: {}
`,
		"templates/_helpers.tpl": `{{- define "app.claimName" -}}
{{- $id := index . 0 -}}{{- $item := index . 1 -}}{{- $root := index . 2 -}}
{{- if $item.existingClaim -}}{{ $item.existingClaim }}{{- else -}}{{ $root.Release.Name }}-{{ $id }}{{- end -}}
{{- end -}}
`,
		"templates/pvc.yaml": `{{- range $id, $item := .Values.persistence }}
{{- if ne (toString $item.enabled) "false" }}
{{- if and (eq (default "persistentVolumeClaim" $item.type) "persistentVolumeClaim") (not $item.existingClaim) }}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ $.Release.Name }}-{{ $id }}
  {{- if $item.retain }}
  annotations:
    helm.sh/resource-policy: keep
  {{- end }}
spec:
  accessModes: [{{ default "ReadWriteOnce" $item.accessMode }}]
  {{- with $item.storageClass }}
  storageClassName: {{ . }}
  {{- end }}
  resources:
    requests:
      storage: {{ default "1Gi" $item.size }}
{{- end }}
{{- end }}
{{- end }}
`,
		"templates/deployment.yaml": `{{- range $name, $ctrl := .Values.controllers }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $.Release.Name }}{{ if ne $name "main" }}-{{ $name }}{{ end }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ $.Release.Name }}
      app.kubernetes.io/controller: {{ $name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ $.Release.Name }}
        app.kubernetes.io/controller: {{ $name }}
    spec:
      containers:
      {{- range $cname, $c := $ctrl.containers }}
      - name: {{ $cname }}
        image: {{ $c.image.repository }}:{{ $c.image.tag }}
        volumeMounts:
        {{- range $id, $item := $.Values.persistence }}
        {{- if ne (toString $item.enabled) "false" }}
        - name: {{ $id }}
          mountPath: /{{ $id }}
        {{- end }}
        {{- end }}
      {{- end }}
      volumes:
      {{- range $id, $item := $.Values.persistence }}
      {{- if ne (toString $item.enabled) "false" }}
      - name: {{ $id }}
        {{- if eq (default "persistentVolumeClaim" $item.type) "persistentVolumeClaim" }}
        persistentVolumeClaim:
          claimName: {{ include "app.claimName" (list $id $item $) }}
        {{- else }}
        emptyDir: {}
        {{- end }}
      {{- end }}
      {{- end }}
{{- end }}
`,
		"templates/service.yaml": `{{- range $name, $svc := .Values.service }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $.Release.Name }}{{ if ne $name "main" }}-{{ $name }}{{ end }}
spec:
  selector:
    app.kubernetes.io/instance: {{ $.Release.Name }}
    app.kubernetes.io/controller: {{ default "main" $svc.controller }}
  ports:
  {{- range $pname, $p := $svc.ports }}
  - name: {{ $pname }}
    port: {{ $p.port }}
  {{- end }}
{{- end }}
`,
	}}
}

// StatefulDB is a chart whose StatefulSet keeps its data in volumeClaimTemplates, modelled on
// bitnami's postgresql (https://github.com/bitnami/charts, bitnami/postgresql/templates/primary/
// statefulset.yaml): `primary.persistence.enabled` (default true) adds the template `data`, and
// `primary.persistentVolumeClaimRetentionPolicy` sets whenDeleted and whenScaled.
func StatefulDB(version string) Chart {
	return Chart{Name: "statefuldb", Version: version, Files: map[string]string{
		"values.yaml": `primary:
  persistence:
    enabled: true
    size: 8Gi
  persistentVolumeClaimRetentionPolicy:
    enabled: false
    whenDeleted: Retain
    whenScaled: Retain
`,
		"templates/statefulset.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .Release.Name }}
spec:
  serviceName: {{ .Release.Name }}
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  {{- if .Values.primary.persistentVolumeClaimRetentionPolicy.enabled }}
  persistentVolumeClaimRetentionPolicy:
    whenDeleted: {{ .Values.primary.persistentVolumeClaimRetentionPolicy.whenDeleted }}
    whenScaled: {{ .Values.primary.persistentVolumeClaimRetentionPolicy.whenScaled }}
  {{- end }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
    spec:
      containers:
      - name: db
        image: docker.io/library/postgres:17
        volumeMounts:
        - name: data
          mountPath: /var/lib/postgresql
  {{- if .Values.primary.persistence.enabled }}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: {{ .Values.primary.persistence.size }}
  {{- end }}
`,
		"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  clusterIP: None
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
  - name: db
    port: 5432
`,
	}}
}

// Widgets is an operator chart modelled on cert-manager's and CloudNativePG's
// (https://github.com/cert-manager/cert-manager, deploy/charts/cert-manager with crds.enabled;
// https://github.com/cloudnative-pg/charts, charts/cloudnative-pg/templates/crds): the CRD
// gizmos.example.com is in crds/ (Helm installs it and never deletes it), and widgets.example.com
// is a template while `crds.enabled` (default true), so it is in the release's manifest and an
// uninstall deletes it with every Widget.
func Widgets(version string) Chart {
	return Chart{Name: "widgets", Version: version, Files: map[string]string{
		"values.yaml":         "crds:\n  enabled: true\n",
		"crds/gizmos.yaml":    crd("gizmos", "Gizmo", "Namespaced"),
		"templates/crds.yaml": "{{- if .Values.crds.enabled }}\n" + crd("widgets", "Widget", "Namespaced") + "{{- end }}\n",
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-operator
spec:
  selector:
    matchLabels:
      app: {{ .Release.Name }}-operator
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}-operator
    spec:
      containers:
      - name: operator
        image: ghcr.io/example/widgets-operator:{{ .Chart.AppVersion }}
`,
	}}
}

func crd(plural, kind, scope string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.example.com
spec:
  group: example.com
  names:
    kind: ` + kind + `
    plural: ` + plural + `
  scope: ` + scope + `
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
}
