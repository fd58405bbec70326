package incident

// The platform repository is the incident team's GitOps repository as it really looks, with
// every shape a tool reading it meets (issue #9), so safe-retire and flux-chain --repo are
// tested on more than a tidy fixture:
//
//  1. the Flux source is an OCI artifact pushed from k8s/, so spec.paths are relative to k8s/;
//  2. the root Kustomization (flux-system, path clusters/prod) is created by the bootstrap
//     tool in the cluster and is not in git;
//  3. the tier Kustomizations live in a shared base with placeholder paths and timeouts that
//     the cluster's overlay patches (the patches are partial Kustomization YAML, not objects);
//  4. the claim's prune: disabled annotation arrives through a kustomize component;
//  5. the monitoring tier pulls a remote resource, so it does not build offline;
//  6. a tenant's Kustomization builds from the tenant's own GitRepository;
//  7. a SOPS-encrypted Secret;
//  8. the apps tier takes its namespace from postBuild.substituteFrom a ConfigMap that the
//     infra tier declares, and a value from a Secret that is never read;
//  9. a HelmRelease's drift-detection settings hold `kind: StatefulSet` and
//     `kind: CustomResourceDefinition` as data.
const (
	// PlatformSourceRoot is the artifact's root inside the platform repository.
	PlatformSourceRoot = "k8s"
	// PlatformEntry is the bootstrap-created root Kustomization's path.
	PlatformEntry = "clusters/prod"
	// PlatformClaimFile is the headlamp claim's manifest, from the repository's top level.
	PlatformClaimFile = "k8s/apps/headlamp/claim.yaml"
	// PlatformRemoteURL is what the monitoring tier pulls.
	PlatformRemoteURL = "https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.80.0/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"

	platformAppsKustomize       = "k8s/apps/kustomization.yaml"
	platformMonitoringKustomize = "k8s/providers/hetzner/monitoring/kustomization.yaml"
)

// PlatformRepoFiles is the platform repository at the commit before the removal: the claim is
// in git and unprotected.
func PlatformRepoFiles() map[string]string {
	return map[string]string{
		"README.md": "# platform\n\nFlux reads the OCI artifact pushed from k8s/.\n",

		// 3: the shared base declares the tiers with placeholders.
		"k8s/base/tiers/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- infra.yaml
- apps.yaml
- monitoring.yaml
- tenants.yaml
`,
		"k8s/base/tiers/infra.yaml": platformTier("infra", "clusters/__CLUSTER__/infra", "5m", nil, `  decryption:
    provider: sops
    secretRef:
      name: sops-age
`),
		"k8s/base/tiers/apps.yaml": platformTier("apps", "apps", "5m", []string{"infra"}, `  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-vars
    - kind: Secret
      name: cluster-secrets
`),
		"k8s/base/tiers/monitoring.yaml": platformTier("monitoring", "providers/__PROVIDER__/monitoring", "5m", []string{"infra"}, ""),
		// 6: a tenant with its own repository.
		"k8s/base/tiers/tenants.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: tenant-a
  namespace: flux-system
spec:
  interval: 10m
  url: https://git.example.com/tenant-a/deploy.git
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tenant-a
  namespace: flux-system
spec:
  interval: 10m
  path: ./deploy
  prune: true
  sourceRef:
    kind: GitRepository
    name: tenant-a
`,
		// 3: the overlay renders paths and timeouts; the patch files are not objects.
		"k8s/clusters/prod/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../base/tiers
patches:
- path: patches/infra.yaml
- path: patches/monitoring.yaml
`,
		"k8s/clusters/prod/patches/infra.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: infra
  namespace: flux-system
spec:
  path: ./clusters/prod/infra
  timeout: 20m
`,
		"k8s/clusters/prod/patches/monitoring.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: monitoring
  namespace: flux-system
spec:
  path: ./providers/hetzner/monitoring
  timeout: 10m
`,
		"k8s/clusters/prod/infra/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- cluster-vars.yaml
- cluster-secrets.sops.yaml
- cilium.yaml
`,
		// 8: the variables apps substitutes.
		"k8s/clusters/prod/infra/cluster-vars.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  APP_NAMESPACE: headlamp
  CLUSTER_NAME: prod
`,
		// 7: encrypted with SOPS; the values are ciphertext and must never be printed.
		"k8s/clusters/prod/infra/cluster-secrets.sops.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: cluster-secrets
  namespace: flux-system
type: Opaque
stringData:
  OIDC_CLIENT_SECRET: ENC[AES256_GCM,data:c2VjcmV0LXZhbHVl,iv:aXZpdml2aXZpdml2,tag:dGFndGFndGFn,type:str]
sops:
  age:
  - recipient: age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq
    enc: |
      -----BEGIN AGE ENCRYPTED FILE-----
      ZmFrZQ==
      -----END AGE ENCRYPTED FILE-----
  lastmodified: "2026-10-01T00:00:00Z"
  mac: ENC[AES256_GCM,data:bWFj,iv:aXY=,tag:dGFn,type:str]
  version: 3.9.0
`,
		// 9: kind: StatefulSet and kind: CustomResourceDefinition are data here.
		"k8s/clusters/prod/infra/cilium.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: cilium
  namespace: flux-system
spec:
  interval: 1h
  url: https://helm.cilium.io
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: cilium
  namespace: kube-system
spec:
  interval: 30m
  timeout: 10m
  chart:
    spec:
      chart: cilium
      version: 1.18.2
      sourceRef:
        kind: HelmRepository
        name: cilium
        namespace: flux-system
  driftDetection:
    mode: warn
    ignore:
    - paths: ["/spec/replicas"]
      target:
        kind: StatefulSet
    - paths: ["/spec/conversion"]
      target:
        kind: CustomResourceDefinition
`,
		// 4 and 8: the apps tier, its namespace substituted.
		platformAppsKustomize: `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- headlamp/namespace.yaml
- headlamp/deployment.yaml
- headlamp/claim.yaml
`,
		"k8s/apps/headlamp/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${APP_NAMESPACE}\n",
		"k8s/apps/headlamp/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: headlamp
  namespace: ${APP_NAMESPACE}
spec:
  selector:
    matchLabels: {app: headlamp}
  template:
    metadata:
      labels: {app: headlamp}
    spec:
      containers:
      - name: headlamp
        image: ghcr.io/headlamp-k8s/headlamp:v0.30.0
        env:
        - name: OIDC_CLIENT_SECRET
          value: ${OIDC_CLIENT_SECRET}
        - name: CLUSTER
          value: ${CLUSTER_NAME}
      volumes:
      - name: plugins-dir
        persistentVolumeClaim:
          claimName: headlamp
`,
		PlatformClaimFile: ClaimManifest("${APP_NAMESPACE}", Claim),
		// 4: the component that protects the claim, not yet used.
		"k8s/components/retain-claims/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
- target:
    kind: PersistentVolumeClaim
  patch: |-
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: any
      annotations:
        kustomize.toolkit.fluxcd.io/prune: disabled
`,
		// 5: a remote resource.
		platformMonitoringKustomize: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + PlatformRemoteURL + "\n",
	}
}

// PlatformProtect is stage 1 of the two-stage retirement: the apps tier uses the component
// that marks its claims prune: disabled.
func PlatformProtect() map[string]string {
	return map[string]string{platformAppsKustomize: `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- headlamp/namespace.yaml
- headlamp/deployment.yaml
- headlamp/claim.yaml
components:
- ../components/retain-claims
`}
}

// PlatformClaimRemoval removes the claim's manifest and its entry, keeping the component when
// protect is set.
func PlatformClaimRemoval(protect bool) map[string]string {
	k := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- headlamp/namespace.yaml\n- headlamp/deployment.yaml\n"
	if protect {
		k += "components:\n- ../components/retain-claims\n"
	}
	return map[string]string{PlatformClaimFile: "", platformAppsKustomize: k}
}

// PlatformVendorMonitoring replaces the monitoring tier's remote resource with a vendored copy.
func PlatformVendorMonitoring() map[string]string {
	return map[string]string{
		platformMonitoringKustomize: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- servicemonitors.yaml\n",
		"k8s/providers/hetzner/monitoring/servicemonitors.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  names:
    kind: ServiceMonitor
    listKind: ServiceMonitorList
    plural: servicemonitors
    singular: servicemonitor
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`,
	}
}

// platformTier is a tier Kustomization of the shared base.
func platformTier(name, path, timeout string, dependsOn []string, extra string) string {
	deps := ""
	if len(dependsOn) > 0 {
		deps = "  dependsOn:\n"
		for _, d := range dependsOn {
			deps += "  - name: " + d + "\n"
		}
	}
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
  interval: 10m
  timeout: ` + timeout + `
  path: ./` + path + `
  prune: true
  wait: true
  sourceRef:
    kind: OCIRepository
    name: flux-system
` + deps + extra
}
