package gitops

import "fmt"

// homeOps is a small repository laid out like onedr0p/home-ops
// (https://github.com/onedr0p/home-ops: kubernetes/apps/<namespace>/<app>/ks.yaml with the
// app in app/, shared components in kubernetes/components, cluster-wide variables from a
// ConfigMap that postBuild.substituteFrom reads) with the volsync component of
// smbonn2005/HomeOps (https://github.com/smbonn2005/HomeOps,
// kubernetes/components/volsync/readme.md: APP and VOLSYNC_CAPACITY come from
// postBuild.substitute). cluster-apps has no kustomization.yaml (the controller generates
// one), as in home-ops, and reads cluster-settings, which cluster-vars declares on the same
// level of the walk; media/remote has a remote base.
func homeOps() map[string]string {
	files := map[string]string{
		"clusters/main/kustomization.yaml": "resources:\n- flux.yaml\n- secrets.yaml\n",
		"clusters/main/flux.yaml": clusterKS("flux-system", "./clusters/main", "") +
			"---\n" + clusterKS("cluster-vars", "./kubernetes/vars", "") +
			"---\n" + clusterKS("cluster-apps", "./kubernetes/apps", `  postBuild:
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
		"kubernetes/vars/cluster-settings.yaml":               settings("main", "5Gi"),
		"kubernetes/apps/default/kustomization.yaml":          "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./db/ks.yaml\n- ./plain/ks.yaml\n",
		"kubernetes/apps/default/namespace.yaml":              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n",
		"kubernetes/apps/default/web/ks.yaml":                 appKS("web", "default", "web", []string{"common"}, "      CLUSTER_LABEL: ${CLUSTER}\n"),
		"kubernetes/apps/default/web/app/kustomization.yaml":  "resources:\n- helmrelease.yaml\n- pvc.yaml\n",
		"kubernetes/apps/default/web/app/helmrelease.yaml":    helmRelease("web", "1.0.0"),
		"kubernetes/apps/default/web/app/pvc.yaml":            pvc("${APP}-data", "default"),
		"kubernetes/apps/default/db/ks.yaml":                  appKS("db", "default", "db", []string{"common", "volsync"}, "      VOLSYNC_CAPACITY: 2Gi\n"),
		"kubernetes/apps/default/db/app/kustomization.yaml":   "resources:\n- deployment.yaml\n",
		"kubernetes/apps/default/db/app/deployment.yaml":      deployment("db", "postgres:16"),
		"kubernetes/apps/default/plain/ks.yaml":               appKS("plain", "default", "plain", []string{"common"}, ""),
		"kubernetes/apps/default/plain/app/deploy.yaml":       deployment("plain", "nginx:1.27"),
		"kubernetes/apps/default/plain/app/sub/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain-settings\ndata:\n  mode: fast\n",
		"kubernetes/apps/media/kustomization.yaml":            "resources:\n- ./remote/ks.yaml\n- ./jelly/ks.yaml\n",
		"kubernetes/apps/media/remote/ks.yaml":                appKS("remote", "media", "remote", []string{"common"}, ""),
		"kubernetes/apps/media/remote/app/kustomization.yaml": "resources:\n- local.yaml\n- github.com/example/platform//base?ref=v1\n",
		"kubernetes/apps/media/remote/app/local.yaml":         pvc("local", "media"),
		"kubernetes/apps/media/jelly/ks.yaml":                 appKS("jelly", "media", "jelly", []string{"common", "volsync"}, "      VOLSYNC_CAPACITY: 10Gi\n"),
		"kubernetes/apps/media/jelly/app/kustomization.yaml":  "resources:\n- helmrelease.yaml\n",
		"kubernetes/apps/media/jelly/app/helmrelease.yaml":    helmRelease("jelly", "10.9.0"),
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

func clusterKS(name, path, extra string) string {
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

// appKS is an app's ks.yaml: its Kustomization builds kubernetes/apps/<ns>/<dir>/app with
// the components named and APP substituted, plus the cluster's settings.
func appKS(name, ns, dir string, components []string, substitute string) string {
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

func settings(cluster, storage string) string {
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

func helmRelease(name, tag string) string {
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

func deployment(name, image string) string {
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
