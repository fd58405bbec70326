package floor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HomeOps writes into dir a repository of n app Kustomizations laid out like
// onedr0p/home-ops (https://github.com/onedr0p/home-ops): clusters/main is the entry and
// declares cluster-apps, whose path kubernetes/apps lists a kustomization per namespace, each
// listing its apps' ks.yaml; every app's Kustomization builds kubernetes/apps/<ns>/<app>/app
// (a HelmRelease or a Deployment, and a PersistentVolumeClaim) with the shared components
// kubernetes/components/common (every app) and volsync (every other one), APP and
// VOLSYNC_CAPACITY substituted and the cluster's settings read with substituteFrom. Every
// path has its kustomization.yaml, so plain kustomize builds each one.
//
// It returns the directory of every path a Flux controller builds (for Build) and the files
// of the first app's HelmRelease and of the common component, which benchmarks change.
func HomeOps(dir string, n int) (paths []string, release, component string, err error) {
	return HomeOpsWith(dir, n, Layout{})
}

// Layout varies what HomeOps writes.
type Layout struct {
	// DeploymentEvery makes every DeploymentEvery-th app (the last of each group) a
	// Deployment and the others HelmReleases; 0 is 3, 1 makes every app a Deployment.
	DeploymentEvery int
	// Chart, when set, are the files of a chart (Chart.yaml included) written to charts/app:
	// the HelmReleases install it from the repository itself (a GitRepository chart, which
	// needs no network), with the release's values unchanged.
	Chart map[string]string
}

// HomeOpsWith is HomeOps with the layout l.
func HomeOpsWith(dir string, n int, l Layout) (paths []string, release, component string, err error) {
	every := l.DeploymentEvery
	if every == 0 {
		every = 3
	}
	files := map[string]string{
		"clusters/main/kustomization.yaml":                     "resources:\n- flux.yaml\n- cluster-settings.yaml\n",
		"clusters/main/flux.yaml":                              homeOpsRoot,
		"clusters/main/cluster-settings.yaml":                  homeOpsSettings,
		"kubernetes/components/common/kustomization.yaml":      homeOpsCommon,
		"kubernetes/components/common/alerts.yaml":             homeOpsAlerts,
		"kubernetes/components/volsync/kustomization.yaml":     "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- replicationsource.yaml\n",
		"kubernetes/components/volsync/replicationsource.yaml": homeOpsVolsync,
	}
	paths = []string{"clusters/main", "kubernetes/apps"}
	namespaces := map[string][]string{}
	var nsOrder []string
	for i := range n {
		ns := fmt.Sprintf("ns-%03d", i/10)
		app := fmt.Sprintf("app-%04d", i)
		if namespaces[ns] == nil {
			nsOrder = append(nsOrder, ns)
		}
		namespaces[ns] = append(namespaces[ns], app)
		base := "kubernetes/apps/" + ns + "/" + app
		components := "  - ../../../../components/common\n"
		if i%2 == 0 {
			components += "  - ../../../../components/volsync\n"
		}
		files[base+"/ks.yaml"] = fmt.Sprintf(homeOpsApp, app, ns, base, components, app)
		workload := "helmrelease.yaml"
		files[base+"/app/helmrelease.yaml"] = homeOpsReleaseFor(l, app, "1.0.0")
		if i%every == every-1 {
			workload = "deployment.yaml"
			delete(files, base+"/app/helmrelease.yaml")
			files[base+"/app/deployment.yaml"] = fmt.Sprintf(homeOpsDeployment, app, app)
		}
		files[base+"/app/pvc.yaml"] = homeOpsClaim
		files[base+"/app/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + workload + "\n- pvc.yaml\n"
		paths = append(paths, base+"/app")
	}
	apps := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
	for _, ns := range nsOrder {
		apps += "- ./" + ns + "\n"
		list := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- namespace.yaml\n"
		for _, app := range namespaces[ns] {
			list += "- ./" + app + "/ks.yaml\n"
		}
		files["kubernetes/apps/"+ns+"/kustomization.yaml"] = list
		files["kubernetes/apps/"+ns+"/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n"
	}
	files["kubernetes/apps/kustomization.yaml"] = apps
	for name, content := range l.Chart {
		files["charts/app/"+name] = content
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, "", "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, "", "", err
		}
	}
	for i, p := range paths {
		paths[i] = filepath.Join(dir, filepath.FromSlash(p))
	}
	release = "kubernetes/apps/ns-000/app-0000/app/helmrelease.yaml"
	if every == 1 {
		release = "kubernetes/apps/ns-000/app-0000/app/deployment.yaml"
	}
	return paths, release, "kubernetes/components/common/alerts.yaml", nil
}

// HomeOpsRelease is the HelmRelease HomeOps writes for app, with the image tag given.
func HomeOpsRelease(app, tag string) string { return fmt.Sprintf(homeOpsRelease, app, tag) }

// HomeOpsReleaseWith is the HelmRelease HomeOpsWith writes for app under l, with the image
// tag given; with l.DeploymentEvery 1, the Deployment.
func HomeOpsReleaseWith(l Layout, app, tag string) string {
	if l.DeploymentEvery == 1 {
		return strings.Replace(fmt.Sprintf(homeOpsDeployment, app, app), "app:1.0.0", "app:"+tag, 1)
	}
	return homeOpsReleaseFor(l, app, tag)
}

// homeOpsReleaseFor is app's HelmRelease, its chart the repository's own when l has one.
func homeOpsReleaseFor(l Layout, app, tag string) string {
	r := fmt.Sprintf(homeOpsRelease, app, tag)
	if l.Chart == nil {
		return r
	}
	return strings.Replace(r, homeOpsChartSpec, homeOpsLocalChartSpec, 1)
}

const homeOpsChartSpec = `      chart: app-template
      version: 3.5.1
      sourceRef:
        kind: HelmRepository
        name: bjw-s
        namespace: flux-system
`

const homeOpsLocalChartSpec = `      chart: ./charts/app
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
`

// HomeOpsAlerts is the common component's ConfigMap, with one more line of data.
func HomeOpsAlerts(extra string) string {
	return strings.TrimSuffix(homeOpsAlerts, "\n") + "\n  extra: " + extra + "\n"
}

const homeOpsRoot = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/main
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: cluster-apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./kubernetes/apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
`

const homeOpsSettings = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-settings
  namespace: flux-system
data:
  CLUSTER: main
  TIMEZONE: Etc/UTC
`

const homeOpsCommon = `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- alerts.yaml
labels:
- pairs:
    app.kubernetes.io/part-of: home-ops
`

const homeOpsAlerts = `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${APP}-alerts
data:
  cluster: ${CLUSTER}
`

const homeOpsVolsync = `apiVersion: volsync.backube/v1alpha1
kind: ReplicationSource
metadata:
  name: ${APP}
spec:
  sourcePVC: ${APP}
  trigger:
    schedule: "0 * * * *"
  restic:
    copyMethod: Snapshot
    repository: ${APP}-volsync-secret
    cacheCapacity: ${VOLSYNC_CAPACITY}
`

// homeOpsApp is an app's ks.yaml: name, namespace, directory, components, APP.
const homeOpsApp = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  targetNamespace: %s
  interval: 1h
  path: ./%s/app
  prune: true
  wait: false
  sourceRef:
    kind: GitRepository
    name: flux-system
  components:
%s  postBuild:
    substitute:
      APP: %s
      VOLSYNC_CAPACITY: 5Gi
    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
`

const homeOpsRelease = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: %s
spec:
  interval: 1h
  chart:
    spec:
      chart: app-template
      version: 3.5.1
      sourceRef:
        kind: HelmRepository
        name: bjw-s
        namespace: flux-system
  values:
    controllers:
      main:
        containers:
          main:
            image:
              repository: ghcr.io/example/app
              tag: %s
            env:
              TZ: ${TIMEZONE}
            resources:
              requests:
                cpu: 10m
              limits:
                memory: 512Mi
    service:
      main:
        controller: main
        ports:
          http:
            port: 8080
    persistence:
      config:
        existingClaim: ${APP}
`

const homeOpsDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  replicas: 1
  selector:
    matchLabels:
      app: %s
  template:
    metadata:
      labels:
        app: ${APP}
    spec:
      containers:
      - name: main
        image: ghcr.io/example/app:1.0.0
        env:
        - name: TZ
          value: ${TIMEZONE}
        volumeMounts:
        - name: data
          mountPath: /data
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: ${APP}
`

const homeOpsClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${APP}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ceph-block
  resources:
    requests:
      storage: ${VOLSYNC_CAPACITY}
`
