package gitopsfixture

// ResourceSets is a repository that drives its apps through a Flux Operator ResourceSet,
// as the operator's "app definition" guide lays one out
// (https://github.com/controlplaneio-fluxcd/flux-operator/blob/main/docs/guides/resourcesets/rset-app-definition.md):
// one Kustomization applies the ResourceSet, which renders a namespace, a claim and a Flux
// Kustomization per app from a Static ResourceSetInputProvider and its inline inputs.
func ResourceSets() map[string]string {
	return map[string]string{
		"clusters/main/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://github.com/example/home-ops
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  path: ./clusters/main
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"clusters/main/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"apps/defaults.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata:
  name: defaults
  namespace: flux-system
  labels:
    app.kubernetes.io/part-of: apps
spec:
  type: Static
  defaultValues:
    storage: 1Gi
`,
		"apps/apps.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps
  namespace: flux-system
spec:
  dependsOn:
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      name: infra
    - apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      name: helmreleases.helm.toolkit.fluxcd.io
  inputStrategy:
    name: Permute
  inputsFrom:
    - kind: ResourceSetInputProvider
      selector:
        matchLabels:
          app.kubernetes.io/part-of: apps
  resourcesTemplate: |
    <<- range $app := list "grafana" "loki" >>
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: << $app >>-data
      namespace: monitoring
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: << inputs.defaults.storage >>
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata:
      name: << $app >>
      namespace: flux-system
    spec:
      path: ./apps/<< $app >>
      prune: true
      sourceRef:
        kind: GitRepository
        name: flux-system
    <<- end >>
`,
		"apps/kustomization.yaml":  "resources:\n- defaults.yaml\n- apps.yaml\n",
		"apps/grafana/deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: grafana\n  namespace: monitoring\n",
		"apps/loki/deploy.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loki\n  namespace: monitoring\n",
	}
}

// ExternalArtifacts is a repository laid out as fluxcd/flux2-kustomize-helm-example is
// since "Update structure for Flux 2.7" (commit 2b8cffe,
// https://github.com/fluxcd/flux2-kustomize-helm-example/tree/4f1a5b1): the cluster directory
// declares an ArtifactGenerator that splits the repository's GitRepository into two
// ExternalArtifacts, and every Kustomization reads one of them with a path relative to the
// artifact. The apps tier carries a PVC so a removal has something to find; a third artifact is
// made from another repository.
func ExternalArtifacts() map[string]string {
	ks := func(name, artifact, path, deps string) string {
		return `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
` + deps + `  interval: 1h
  timeout: 5m
  sourceRef:
    kind: ExternalArtifact
    name: ` + artifact + `
  path: ` + path + `
  prune: true
  wait: true
`
	}
	return map[string]string{
		"clusters/production/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: https://github.com/example/fleet
  ref:
    branch: main
`,
		"clusters/production/flux-system/kustomization.yaml": "resources:\n- gotk-sync.yaml\n",
		"clusters/production/artifacts.yaml": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: flux-system
  namespace: flux-system
spec:
  sources:
    - alias: monorepo
      kind: GitRepository
      name: flux-system
    - alias: vendor
      kind: GitRepository
      name: vendor-configs
  artifacts:
    - name: infrastructure
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/infrastructure/**"
          to: "@artifact/"
    - name: apps
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/apps/base/**"
          to: "@artifact/base/"
        - from: "@monorepo/apps/production/**"
          to: "@artifact/production/"
    - name: vendor
      copy:
        - from: "@vendor/deploy/**"
          to: "@artifact/"
`,
		"clusters/production/apps.yaml":           ks("apps", "apps", "./production", "  dependsOn:\n    - name: infra-configs\n"),
		"clusters/production/infrastructure.yaml": ks("infra-controllers", "infrastructure", "./controllers", "") + ks("infra-configs", "infrastructure", "./configs", "  dependsOn:\n    - name: infra-controllers\n"),
		"clusters/production/vendor.yaml":         ks("vendor", "vendor", "./", ""),
		"apps/base/podinfo/kustomization.yaml":    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: podinfo\nresources:\n- namespace.yaml\n- release.yaml\n- data.yaml\n",
		"apps/base/podinfo/namespace.yaml":        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: podinfo\n",
		"apps/base/podinfo/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
spec:
  interval: 50m
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
`,
		"apps/base/podinfo/data.yaml":                   PVC("podinfo-data", "podinfo"),
		"apps/production/kustomization.yaml":            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base/podinfo\n",
		"infrastructure/controllers/kustomization.yaml": "resources:\n- cert-manager.yaml\n",
		"infrastructure/controllers/cert-manager.yaml":  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n",
		"infrastructure/configs/kustomization.yaml":     "resources:\n- cluster-issuers.yaml\n",
		"infrastructure/configs/cluster-issuers.yaml":   "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: letsencrypt\nspec:\n  acme:\n    server: https://acme-staging-v02.api.letsencrypt.org/directory\n",
	}
}

// SpecFields is a repository whose one app Kustomization uses every field of the spec that the
// controller's generator and post-build steps apply, as the Kustomization API reference shows
// them (https://fluxcd.io/flux/components/kustomize/kustomizations/: commonMetadata,
// targetNamespace, namePrefix and nameSuffix, patches, images, components, postBuild.substitute
// with defaults, and the kustomize.toolkit.fluxcd.io/substitute: disabled opt-out), laid out
// like fluxcd/flux2-kustomize-helm-example (clusters/<name>, apps/, a shared component).
func SpecFields() map[string]string {
	return map[string]string{
		"clusters/prod/kustomization.yaml": "resources:\n- apps.yaml\n",
		"clusters/prod/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: podinfo
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/podinfo
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  targetNamespace: podinfo
  namePrefix: prod-
  nameSuffix: -v1
  commonMetadata:
    labels:
      app.kubernetes.io/part-of: podinfo
      team: web
    annotations:
      owner: web-team
  components:
  - ../../components/monitoring
  images:
  - name: ghcr.io/stefanprodan/podinfo
    newTag: 6.7.1
  patches:
  - target:
      kind: Deployment
    patch: |
      - op: replace
        path: /spec/replicas
        value: 3
  postBuild:
    substitute:
      CLUSTER: prod
      REGION: eu-west-1
`,
		"apps/podinfo/kustomization.yaml": "resources:\n- deployment.yaml\n- config.yaml\n- literal.yaml\nlabels:\n- pairs:\n    team: from-kustomize\n",
		"apps/podinfo/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: podinfo
  labels:
    team: overridden
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: podinfo
        image: ghcr.io/stefanprodan/podinfo:6.0.0
        env:
        - name: CLUSTER
          value: ${CLUSTER}
        - name: ZONE
          value: ${ZONE:=a}
`,
		"apps/podinfo/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: podinfo-${CLUSTER}
data:
  region: ${REGION}
  tier: ${TIER:-standard}
`,
		"apps/podinfo/literal.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: literal
  annotations:
    kustomize.toolkit.fluxcd.io/substitute: disabled
data:
  script: echo ${HOME}
`,
		"components/monitoring/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels:
- pairs:
    monitoring: enabled
`,
	}
}
