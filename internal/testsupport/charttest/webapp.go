package charttest

import (
	"fmt"
	"strings"
)

// WebApp is a third-party chart of the kind Renovate bumps every week (modelled on
// stefanprodan/podinfo's chart, charts/podinfo): the image from values, and a claim while
// persistence.enabled, which the Deployment mounts. From version 7 the claim is named
// <release>-storage instead of <release>-data, as charts rename their claims in a major
// version: an upgrade to 7 deletes the old claim.
func WebApp(version string) Chart {
	claim := "data"
	if strings.HasPrefix(version, "7.") {
		claim = "storage"
	}
	return Chart{Name: "webapp", Version: version, Files: map[string]string{
		"values.yaml": "image:\n  repository: ghcr.io/example/webapp\n  tag: \"1.0.0\"\npersistence:\n  enabled: false\n  size: 1Gi\n",
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  selector:
    matchLabels:
      app: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}
    spec:
      containers:
      - name: app
        image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
      {{- if .Values.persistence.enabled }}
        volumeMounts:
        - name: data
          mountPath: /data
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: {{ .Release.Name }}-` + claim + `
      {{- end }}
`,
		"templates/pvc.yaml": `{{- if .Values.persistence.enabled }}
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-` + claim + `
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: {{ .Values.persistence.size }}
{{- end }}
`,
	}}
}

// WebAppRelease is a Flux HelmRelease web/webapp that installs webapp at version (a version
// or a range) with the image tag, and a claim when persistent, from the HelmRepository
// flux-system/example.
func WebAppRelease(version, tag string, persistent bool) string {
	return fmt.Sprintf(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: webapp
  namespace: web
spec:
  interval: 1h
  chart:
    spec:
      chart: webapp
      version: %q
      sourceRef: {kind: HelmRepository, name: example, namespace: flux-system}
  values:
    image:
      tag: %q
    persistence:
      enabled: %t
`, version, tag, persistent)
}
