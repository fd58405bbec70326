package gitopsfixture

import "fmt"

// HomeOps is a small repository laid out like onedr0p/home-ops
// (https://github.com/onedr0p/home-ops: kubernetes/apps/<namespace>/<app>/ks.yaml with the
// app in app/, shared components in kubernetes/components, cluster-wide variables from a
// ConfigMap that postBuild.substituteFrom reads) with the volsync component of
// smbonn2005/HomeOps (https://github.com/smbonn2005/HomeOps,
// kubernetes/components/volsync/readme.md: APP and VOLSYNC_CAPACITY come from
// postBuild.substitute). cluster-apps has no kustomization.yaml (the controller generates
// one), as in home-ops, and reads cluster-settings, which cluster-vars declares on the same
// level of the walk; media/remote has a remote base.
func HomeOps() map[string]string {
	files := map[string]string{
		"clusters/main/kustomization.yaml": "resources:\n- flux.yaml\n- secrets.yaml\n",
		"clusters/main/flux.yaml": ClusterKS("flux-system", "./clusters/main", "") +
			"---\n" + ClusterKS("cluster-vars", "./kubernetes/vars", "") +
			"---\n" + ClusterKS("cluster-apps", "./kubernetes/apps", `  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
`),
		"clusters/main/secrets.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: cluster-secrets
  namespace: flux-system
stringData:
  SECRET_DOMAIN: ENC[AES256_GCM,data:abc=,type:str]
`,
		"kubernetes/vars/kustomization.yaml":                  "resources:\n- cluster-settings.yaml\n",
		"kubernetes/vars/cluster-settings.yaml":               Settings("main", "5Gi"),
		"kubernetes/apps/default/kustomization.yaml":          "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./db/ks.yaml\n- ./plain/ks.yaml\n",
		"kubernetes/apps/default/namespace.yaml":              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n",
		"kubernetes/apps/default/web/ks.yaml":                 AppKS("web", "default", "web", []string{"common"}, "      CLUSTER_LABEL: ${CLUSTER}\n"),
		"kubernetes/apps/default/web/app/kustomization.yaml":  "resources:\n- helmrelease.yaml\n- pvc.yaml\n",
		"kubernetes/apps/default/web/app/helmrelease.yaml":    HelmRelease("web", "1.0.0"),
		"kubernetes/apps/default/web/app/pvc.yaml":            PVC("${APP}-data", "default"),
		"kubernetes/apps/default/db/ks.yaml":                  AppKS("db", "default", "db", []string{"common", "volsync"}, "      VOLSYNC_CAPACITY: 2Gi\n"),
		"kubernetes/apps/default/db/app/kustomization.yaml":   "resources:\n- deployment.yaml\n",
		"kubernetes/apps/default/db/app/deployment.yaml":      Deployment("db", "postgres:16"),
		"kubernetes/apps/default/plain/ks.yaml":               AppKS("plain", "default", "plain", []string{"common"}, ""),
		"kubernetes/apps/default/plain/app/deploy.yaml":       Deployment("plain", "nginx:1.27"),
		"kubernetes/apps/default/plain/app/sub/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain-settings\ndata:\n  mode: fast\n",
		"kubernetes/apps/media/kustomization.yaml":            "resources:\n- ./remote/ks.yaml\n- ./jelly/ks.yaml\n",
		"kubernetes/apps/media/remote/ks.yaml":                AppKS("remote", "media", "remote", []string{"common"}, ""),
		"kubernetes/apps/media/remote/app/kustomization.yaml": "resources:\n- local.yaml\n- github.com/example/platform//base?ref=v1\n",
		"kubernetes/apps/media/remote/app/local.yaml":         PVC("local", "media"),
		"kubernetes/apps/media/jelly/ks.yaml":                 AppKS("jelly", "media", "jelly", []string{"common", "volsync"}, "      VOLSYNC_CAPACITY: 10Gi\n"),
		"kubernetes/apps/media/jelly/app/kustomization.yaml":  "resources:\n- helmrelease.yaml\n",
		"kubernetes/apps/media/jelly/app/helmrelease.yaml":    HelmRelease("jelly", "10.9.0"),
		"kubernetes/components/common/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- alerts.yaml
labels:
- pairs:
    app.kubernetes.io/part-of: home-ops
`,
		"kubernetes/components/common/alerts.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}-alerts\ndata:\n  cluster: ${CLUSTER}\n",
		"kubernetes/components/volsync/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- claim.yaml
`,
		"kubernetes/components/volsync/claim.yaml": `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${APP}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${VOLSYNC_CAPACITY}
`,
	}
	return files
}

// ClusterKS is a Kustomization in flux-system building path, with extra spec lines.
func ClusterKS(name, path, extra string) string {
	return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 10m
  path: %s
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
%s`, name, path, extra)
}

// AppKS is an app's ks.yaml: its Kustomization builds kubernetes/apps/<ns>/<dir>/app with
// the components named and APP substituted, plus the cluster's settings.
func AppKS(name, ns, dir string, components []string, substitute string) string {
	comps := ""
	if len(components) > 0 {
		comps = "  components:\n"
		for _, c := range components {
			comps += "  - ../../../../components/" + c + "\n"
		}
	}
	return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  targetNamespace: %s
  interval: 1h
  path: ./kubernetes/apps/%s/%s/app
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
%s  postBuild:
    substitute:
      APP: %s
%s    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
    - kind: Secret
      name: cluster-secrets
`, name, ns, ns, dir, comps, name, substitute)
}

// Settings is the cluster-settings ConfigMap that postBuild.substituteFrom reads.
func Settings(cluster, storage string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-settings
  namespace: flux-system
data:
  CLUSTER: %s
  STORAGE: %s
`, cluster, storage)
}

// HelmRelease is a HelmRelease of name at chart version tag.
func HelmRelease(name, tag string) string {
	return fmt.Sprintf(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: %s
spec:
  interval: 1h
  chart:
    spec:
      chart: app-template
      sourceRef:
        kind: HelmRepository
        name: bjw-s
  values:
    image:
      tag: %s
    host: %s.${SECRET_DOMAIN}
`, name, tag, name)
}

// Deployment is a Deployment of name running image.
func Deployment(name, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  template:
    spec:
      containers:
      - name: main
        image: %s
`, name, image)
}

// Pair is homeOps with tiers that read files a static reader could miss: patch files
// and a component that includes another (tuned), a generator's env file and a file outside
// its directory (gen) (the layout of onedr0p/home-ops' apps with
// configMapGenerator and patches, https://github.com/onedr0p/home-ops).
func Pair() map[string]string {
	files := HomeOps()
	files["kubernetes/apps/default/kustomization.yaml"] = "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./db/ks.yaml\n- ./plain/ks.yaml\n- ./tuned/ks.yaml\n- ./gen/ks.yaml\n"
	files["kubernetes/apps/default/tuned/ks.yaml"] = AppKS("tuned", "default", "tuned", nil, "")
	files["kubernetes/apps/default/tuned/app/kustomization.yaml"] = `resources:
- deployment.yaml
components:
- ../../../../components/nested
patches:
- path: patch.yaml
- path: smp.yaml
`
	files["kubernetes/apps/default/gen/ks.yaml"] = AppKS("gen", "default", "gen", nil, "")
	files["kubernetes/apps/default/gen/app/kustomization.yaml"] = `configMapGenerator:
- name: gen-env
  envs:
  - settings.env
  files:
  - conf=../../../../shared/gen.conf
generatorOptions:
  disableNameSuffixHash: true
`
	files["kubernetes/apps/default/gen/app/settings.env"] = "MODE=fast\n"
	files["kubernetes/shared/gen.conf"] = "threads=4\n"
	files["kubernetes/apps/default/tuned/app/deployment.yaml"] = Deployment("tuned", "nginx:1.27")
	files["kubernetes/apps/default/tuned/app/patch.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tuned\nspec:\n  replicas: 2\n"
	files["kubernetes/apps/default/tuned/app/smp.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tuned\n  labels:\n    tier: web\n"
	files["kubernetes/components/nested/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncomponents:\n- ../inner\n"
	files["kubernetes/components/inner/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- extra.yaml\n"
	files["kubernetes/components/inner/extra.yaml"] = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${APP}-extra\n"
	return files
}
