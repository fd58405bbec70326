// Package gitopsfixture holds the GitOps repositories and manifests that the tests of the
// build (kbuild) and of the walk (gitops) share, written after the shapes public Flux
// repositories have.
package gitopsfixture

// Repo is a GitOps repository with the shapes real ones have: a plain directory, a
// component that protects from pruning, variables, a remote resource, a SOPS Secret, and
// Flux Kustomizations rendered from a base with placeholder paths patched by an overlay.
func Repo() map[string]string {
	return map[string]string{
		"apps/plain/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.27
`,
		"apps/plain/notes.txt": "not a manifest\n",
		"apps/plain/sub/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: apps
data:
  mode: fast
`,
		"apps/protected/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- pvc.yaml
components:
- ../../components/protect
`,
		"apps/protected/pvc.yaml": PVC("data", "apps"),
		"components/protect/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
commonAnnotations:
  kustomize.toolkit.fluxcd.io/prune: disabled
`,
		"apps/subst/pvc.yaml": PVC("data-${CLUSTER}", "${APP_NS:=apps}"),
		"apps/subst/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: greeting
  namespace: apps
data:
  text: ${GREETING}
`,
		"apps/subst/literal.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: literal-${NOT_A_VAR}
  namespace: apps
  annotations:
    kustomize.toolkit.fluxcd.io/substitute: disabled
`,
		"apps/remote/kustomization.yaml": "resources:\n- local.yaml\n- ../remote-base\n",
		"apps/remote/local.yaml":         PVC("local", "apps"),
		"apps/remote-base/kustomization.yaml": `resources:
- https://raw.githubusercontent.com/example/operator/v1.0.0/deploy/crds.yaml
- github.com/example/platform//base?ref=v1
`,
		"apps/sops/secret.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: apps
type: Opaque
stringData:
  password: ENC[AES256_GCM,data:8Jq1Yw==,iv:Aq0Xx5Q5uG3zkX6bW1dQ0x7ZWbqU2r2bG0Wl3l6m3aE=,tag:kq3iYk0b8Q8y1F8QJm3V2A==,type:str]
sops:
  age:
  - recipient: age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq
    enc: |
      -----BEGIN AGE ENCRYPTED FILE-----
      YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOQ==
      -----END AGE ENCRYPTED FILE-----
  lastmodified: "2025-01-01T00:00:00Z"
  mac: ENC[AES256_GCM,data:c2VjcmV0,iv:aXY=,tag:dGFn,type:str]
  encrypted_regex: ^(data|stringData)$
  version: 3.9.0
`,
		"apps/broken/kustomization.yaml": "resources:\n- missing.yaml\n",
		// A shared base of tier Kustomizations with a placeholder path; the overlay patches it.
		"infra/base/kustomization.yaml": "resources:\n- ks.yaml\n- helmrelease.yaml\n",
		"infra/base/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: infra
  namespace: flux-system
spec:
  interval: 10m
  timeout: 1m
  path: ./clusters/__CLUSTER__/infra
  prune: true
  dependsOn:
  - name: crds
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"infra/base/helmrelease.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: db
  namespace: flux-system
spec:
  chart:
    spec:
      chart: db
  driftDetection:
    mode: enabled
    ignore:
    - paths: ["/spec/replicas"]
      target:
        kind: StatefulSet
    - paths: ["/spec"]
      target:
        kind: CustomResourceDefinition
`,
		"clusters/prod/kustomization.yaml": `resources:
- ../../infra/base
patches:
- path: ks-patch.yaml
  target:
    kind: Kustomization
    name: infra
`,
		// A partial Flux Kustomization used as a patch: not an object.
		"clusters/prod/ks-patch.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: infra
spec:
  path: ./clusters/prod/infra
  timeout: 5m
`,
		"clusters/prod/infra/pvc.yaml": PVC("infra-data", "infra"),
	}
}

func PVC(name, namespace string) string {
	return `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ` + name + `
  namespace: ` + namespace + `
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`
}

// KustomizationYAML is a Flux Kustomization in flux-system for path with extra spec lines.
func KustomizationYAML(path, spec string) string {
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: test
  namespace: flux-system
spec:
  interval: 10m
  path: ` + path + `
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
` + spec
}

// HomeOpsTop is a repository whose top level is built as a plain directory (no
// kustomization.yaml), with the non-Kubernetes YAML a home-ops repository keeps beside its
// manifests: GitHub's labels and workflows, a SOPS config, a CI file. Modelled on
// https://github.com/onedr0p/home-ops at d9078e4dd52174ad68a4408ca3398f731b2f889e and
// https://github.com/krobertson/home-ops at 405c530a0b3a3a8f965822cf7aea816fa8b52521, where
// building such a directory failed with "failed to decode Kubernetes YAML from
// .github/labels.yaml".
func HomeOpsTop() map[string]string {
	return map[string]string{
		".github/labels.yaml":             "- name: area/kubernetes\n  color: \"0e8a16\"\n",
		".github/workflows/renovate.yaml": "name: Renovate\non:\n  workflow_dispatch: {}\n",
		".circleci/config.yml":            "version: 2.1\n",
		".sops.yaml":                      "creation_rules:\n  - path_regex: talos/.*\\.sops\\.ya?ml\n",
		"cloudbuild.yaml":                 "steps:\n  - name: gcr.io/cloud-builders/docker\n",
		"apps/media/claim.yaml":           PVC("media", "media"),
		"apps/db/kustomization.yaml":      "resources: [claim.yaml]\n",
		"apps/db/claim.yaml":              PVC("db", "db"),
		"logo.png":                        "not an image",
	}
}
