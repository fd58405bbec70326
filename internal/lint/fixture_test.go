package lint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// platform is a realistic multi-tier repository, clean: thirteen tiers (gating and leaf), Helm
// releases with long timeouts, a SOPS Secret, substitution from a ConfigMap another tier
// declares, a nested Kustomization and health checks. Each rule's failing case is a mutation.
type platform map[string]string

func ks(name, path, extra string) string {
	return fmt.Sprintf(`---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 10m
  path: ./%s
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
%s`, name, path, extra)
}

func hr(name, ns, chart, extra string) string {
	return fmt.Sprintf(`---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: %s
  namespace: %s
spec:
  interval: 30m
  chart:
    spec:
      chart: %s
      sourceRef:
        kind: HelmRepository
        name: charts
        namespace: flux-system
%s`, name, ns, chart, extra)
}

func kustomization(resources ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - " + strings.Join(resources, "\n  - ") + "\n"
}

func configMap(name, ns string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  k: v\n", name, ns)
}

func newPlatform() platform {
	p := platform{
		"clusters/prod/kustomization.yaml":             kustomization("flux-system", "tiers.yaml"),
		"clusters/prod/flux-system/kustomization.yaml": kustomization("gotk-sync.yaml"),
		"clusters/prod/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: http://gitea-http.gitea.svc.cluster.local:3000/ops/platform.git
  ref:
    branch: main
` + ks("flux-system", "clusters/prod", ""),
		"infra/cilium/kustomization.yaml":   kustomization("cilium.yaml"),
		"infra/cilium/cilium.yaml":          hr("cilium", "kube-system", "cilium", "  driftDetection:\n    mode: warn\n"),
		"infra/platform/kustomization.yaml": kustomization("cert-manager.yaml", "longhorn.yaml", "secret.sops.yaml", "cluster-vars.yaml"),
		"infra/platform/cert-manager.yaml":  hr("cert-manager", "cert-manager", "cert-manager", "  timeout: 10m\n"),
		"infra/platform/longhorn.yaml":      hr("longhorn", "longhorn-system", "longhorn", "  timeout: 15m\n"),
		"infra/platform/secret.sops.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: dns-token
  namespace: cert-manager
stringData:
  token: ENC[AES256_GCM,data:abc=,iv:x=,tag:y=,type:str]
sops:
  age:
    - recipient: age1xyz
  lastmodified: "2026-09-01T00:00:00Z"
  version: 3.9.0
`,
		"infra/platform/cluster-vars.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata:\n  DOMAIN: example.com\n",
		"infra/platform-config/kustomization.yaml": kustomization("issuer.yaml"),
		"infra/platform-config/issuer.yaml": `apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: letsencrypt
spec:
  acme:
    server: https://acme-v02.api.letsencrypt.org/directory
`,
		"infra/cdi/kustomization.yaml":   kustomization("cm.yaml"),
		"infra/cdi/cm.yaml":              configMap("cdi", "cdi"),
		"apps/wave-0/kustomization.yaml": kustomization("web.yaml"),
		"apps/wave-0/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          env:
            - name: DOMAIN
              value: ${DOMAIN}
            - name: REGION
              value: ${REGION:=eu}
`,
		"apps/wave-1/kustomization.yaml":       kustomization("child.yaml"),
		"apps/wave-1/child.yaml":               ks("wave-1-child", "apps/wave-1-child", "  dependsOn:\n    - name: platform-config\n"),
		"apps/wave-1-child/kustomization.yaml": kustomization("cm.yaml"),
		"apps/wave-1-child/cm.yaml":            configMap("child", "apps"),
		"apps/wave-2/kustomization.yaml":       kustomization("cm.yaml"),
		"apps/wave-2/cm.yaml":                  configMap("wave-2", "apps"),
		"apps/headlamp/kustomization.yaml":     kustomization("headlamp.yaml"),
		"apps/headlamp/headlamp.yaml":          hr("headlamp", "headlamp", "headlamp", ""),
		"apps/homepage/kustomization.yaml":     kustomization("route.yaml"),
		"apps/homepage/route.yaml":             route("homepage", "home.example.com"),
		"apps/gitea/kustomization.yaml":        kustomization("route.yaml"),
		"apps/gitea/route.yaml":                route("gitea", "git.example.com"),
		"apps/runbooks/kustomization.yaml":     kustomization("cm.yaml"),
		"apps/runbooks/cm.yaml":                configMap("runbooks", "runbooks"),
		"apps/backup/kustomization.yaml":       kustomization("cm.yaml"),
		"apps/backup/cm.yaml":                  configMap("backup", "velero"),
	}
	gate := "  wait: true\n"
	p["clusters/prod/tiers.yaml"] = ks("cilium", "infra/cilium", gate+"  timeout: 10m\n") +
		ks("platform", "infra/platform", gate+"  timeout: 20m\n  dependsOn:\n    - name: cilium\n  decryption:\n    provider: sops\n    secretRef:\n      name: sops-age\n") +
		ks("platform-config", "infra/platform-config", gate+"  dependsOn:\n    - name: platform\n") +
		ks("platform-config-cdi", "infra/cdi", gate+"  dependsOn:\n    - name: platform-config\n") +
		ks("apps-wave-0", "apps/wave-0", gate+"  dependsOn:\n    - name: platform-config-cdi\n  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-vars\n") +
		ks("apps-wave-1", "apps/wave-1", gate+"  dependsOn:\n    - name: apps-wave-0\n") +
		ks("apps-wave-2", "apps/wave-2", gate+"  dependsOn:\n    - name: apps-wave-1\n") +
		ks("headlamp", "apps/headlamp", "  wait: false\n  dependsOn:\n    - name: platform-config\n") +
		ks("homepage", "apps/homepage", "  wait: false\n  dependsOn:\n    - name: platform-config\n") +
		ks("gitea", "apps/gitea", "  wait: false\n  dependsOn:\n    - name: platform-config\n") +
		ks("runbooks", "apps/runbooks", "  wait: false\n  dependsOn:\n    - name: platform-config\n") +
		ks("backup", "apps/backup", "  wait: false\n  dependsOn:\n    - name: platform\n")
	return p
}

func route(name, host string) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: %s
  namespace: %s
spec:
  hostnames:
    - %s
  rules:
    - backendRefs:
        - name: %s
          port: 80
`, name, name, host, name)
}

// replace changes one file, failing the test when old is not in it.
func (p platform) replace(t testing.TB, file, old, new string) {
	t.Helper()
	if !strings.Contains(p[file], old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	p[file] = strings.Replace(p[file], old, new, 1)
}

// write commits the repository into a temporary directory and returns it.
func (p platform) write(t testing.TB) string {
	t.Helper()
	return gittest.New(t, p).Dir
}
