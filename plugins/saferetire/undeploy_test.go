package saferetire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// homeOpsUndeploy is a repository laid out like the public home-ops repositories
// (https://github.com/onedr0p/home-ops, https://github.com/bjw-s-labs/home-ops): the
// Kustomization cluster-apps builds kubernetes/apps, whose <ns>/kustomization.yaml lists each
// app's ks.yaml; an app's Kustomization builds its app/ directory with the volsync-style
// component whose claim is named `${VOLSYNC_CLAIM:=${APP}}` (bjw-s-labs/home-ops
// kubernetes/components/volsync/pvc.yaml, 9013c3b915^). zigbee holds an app-template
// HelmRelease mounting that claim and a StatefulSet of its own with a claim template; echo
// holds a ConfigMap only. ns is the namespace of every Kustomization and app.
func homeOpsUndeploy(ns string, substituteFrom string) map[string]string {
	ks := func(app, components string) string {
		return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
spec:
  targetNamespace: %s
  interval: 1h
  path: ./kubernetes/apps/%s/%s/app
  prune: true
  wait: false
  sourceRef:
    kind: GitRepository
    name: flux-system
%s  postBuild:
    substitute:
      APP: %s
%s`, app, ns, ns, app, components, app, substituteFrom)
	}
	return map[string]string{
		"kubernetes/flux/cluster/ks.yaml": fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: cluster-apps
  namespace: %s
spec:
  interval: 1h
  path: ./kubernetes/apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`, ns),
		"kubernetes/apps/kustomization.yaml":                       "resources:\n- ./" + ns + "\n",
		"kubernetes/apps/" + ns + "/kustomization.yaml":            "namespace: " + ns + "\nresources:\n- ./echo/ks.yaml\n- ./zigbee/ks.yaml\n",
		"kubernetes/apps/" + ns + "/zigbee/ks.yaml":                ks("zigbee", "  components:\n  - ../../../../components/volsync\n"),
		"kubernetes/apps/" + ns + "/zigbee/app/kustomization.yaml": "resources:\n- helmrelease.yaml\n- statefulset.yaml\n",
		"kubernetes/apps/" + ns + "/zigbee/app/helmrelease.yaml":   appTemplateRelease(ns, "zigbee", "    persistence:\n      config:\n        existingClaim: zigbee\n"),
		"kubernetes/apps/" + ns + "/zigbee/app/statefulset.yaml": fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: zigbee-db
  namespace: %s
spec:
  replicas: 0
  selector:
    matchLabels: {app: zigbee-db}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete}
  template:
    metadata:
      labels: {app: zigbee-db}
    spec:
      containers:
      - {name: db, image: postgres}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`, ns),
		"kubernetes/apps/" + ns + "/echo/ks.yaml":                ks("echo", ""),
		"kubernetes/apps/" + ns + "/echo/app/kustomization.yaml": "resources:\n- configmap.yaml\n",
		"kubernetes/apps/" + ns + "/echo/app/configmap.yaml":     configMap(ns, "echo"),
		"kubernetes/components/volsync/kustomization.yaml":       "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- pvc.yaml\n",
		"kubernetes/components/volsync/pvc.yaml": `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: "${VOLSYNC_CLAIM:=${APP}}"
spec:
  accessModes: ["${VOLSYNC_ACCESSMODES:=ReadWriteOnce}"]
  resources:
    requests:
      storage: "${VOLSYNC_CAPACITY:=5Gi}"
`,
	}
}

// undeploy removes app's ks.yaml and its directory together, and its entry in the namespace's
// kustomization.yaml: the everyday "undeploy an app" commit of those repositories (e.g.
// onedr0p/home-ops 45fa022975, bjw-s-labs/home-ops 9013c3b915).
func undeploy(files map[string]string, ns, app string) map[string]string {
	change := map[string]string{}
	for name := range files {
		if strings.HasPrefix(name, "kubernetes/apps/"+ns+"/"+app+"/") {
			change[name] = ""
		}
	}
	change["kubernetes/apps/"+ns+"/kustomization.yaml"] = strings.Replace(files["kubernetes/apps/"+ns+"/kustomization.yaml"], "- ./"+app+"/ks.yaml\n", "", 1)
	return change
}

// undeployCluster creates what a cluster running homeOpsUndeploy holds: the parent's and the
// children's Kustomizations with their inventories, zigbee's claim mounted by a pod, its
// HelmRelease installed with one object, its StatefulSet with the claim it made.
func undeployCluster(t *testing.T, ns string, substituteFrom ...any) {
	t.Helper()
	// As the parent applied them from homeOpsUndeploy's ks.yaml files.
	spec := func(app string, components ...any) map[string]any {
		s := map[string]any{"interval": "1h", "path": "./kubernetes/apps/" + ns + "/" + app + "/app", "prune": true, "targetNamespace": ns, "wait": false,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"},
			"postBuild": map[string]any{"substitute": map[string]any{"APP": app}}}
		if len(substituteFrom) > 0 {
			s["postBuild"].(map[string]any)["substituteFrom"] = substituteFrom
		}
		if len(components) > 0 {
			s["components"] = components
		}
		return s
	}
	createKS(t, ns, "cluster-apps", map[string]any{"interval": "1h", "path": "./kubernetes/apps", "prune": true,
		"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		ns+"_echo_kustomize.toolkit.fluxcd.io_Kustomization", ns+"_zigbee_kustomize.toolkit.fluxcd.io_Kustomization")
	createKS(t, ns, "zigbee", spec("zigbee", "../../../../components/volsync"),
		ns+"_zigbee__PersistentVolumeClaim", ns+"_zigbee_helm.toolkit.fluxcd.io_HelmRelease", ns+"_zigbee-db_apps_StatefulSet")
	createKS(t, ns, "echo", spec("echo"), ns+"_echo__ConfigMap")
	liveClaim(t, ns, "zigbee", nil, true)
	liveHelmRelease(t, ns, "zigbee")
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "zigbee", Namespace: ns,
		Labels:      map[string]string{"helm.toolkit.fluxcd.io/name": "zigbee", "helm.toolkit.fluxcd.io/namespace": ns},
		Annotations: map[string]string{"meta.helm.sh/release-name": "zigbee", "meta.helm.sh/release-namespace": ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	liveStatefulSet(t, ns, "zigbee-db", nil, nil, "Delete")
	helmClaim(t, ns, "data-zigbee-db-0", map[string]string{"app": "zigbee-db"}, nil, "")
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "echo", Namespace: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Live, the most common retirement — an app's ks.yaml and its directory removed together —
// is judged from what the child Kustomization's finalizer will delete: its live inventory,
// every entry like a pruned object. The claim its pod still mounts is UNSAFE with that pod,
// the HelmRelease in it is judged as an uninstall, the StatefulSet names the claim it made and
// that whenDeleted: Delete deletes it, and the plan protects before the deletion. A stateless
// child is SAFE. Before, both were UNKNOWN: the child's path was not found at the candidate.
func TestLiveUndeployChild(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "undeploy")
	undeployCluster(t, ns)
	files := homeOpsUndeploy(ns, "")

	r := gittest.New(t, files)
	r.Commit("undeploy zigbee", undeploy(files, ns, "zigbee"))
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "-n", ns)
	if code != 1 {
		t.Fatalf("zigbee: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"Kustomization "+ns+"/zigbee",
		"UNSAFE PersistentVolumeClaim "+ns+"/zigbee (kubernetes/components/volsync/pvc.yaml): Flux prunes it",
		"the candidate deletes Kustomization "+ns+"/zigbee, and its deletionPolicy MirrorPrune (prune: true) deletes PersistentVolumeClaim "+ns+"/zigbee",
		"mounted by pods/zigbee-user",
		"helm: deleting it uninstalls release "+ns+"/zigbee",
		"and the release's other objects: 1 ConfigMap",
		"persistentvolumeclaims/data-zigbee-db-0 -n "+ns+" (deleted with it)",
		"before deleting Kustomization "+ns+"/zigbee, in git keep its manifest and its path",
		"set spec.deletionPolicy: Orphan (or spec.suspend: true)",
		"verdict: UNSAFE (exit 1)")
	if strings.Contains(out, "kustomization path not found") {
		t.Errorf("the child's absent path is reported as a gap\n%s", out)
	}

	r = gittest.New(t, files)
	r.Commit("undeploy echo", undeploy(files, ns, "echo"))
	out, errOut, code = run(t, "--dry-run", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "-n", ns)
	if code != 0 {
		t.Fatalf("echo: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "pruned ConfigMap "+ns+"/echo", "verdict: SAFE (exit 0)")
}

// Live, the children read the cluster's Secret with substituteFrom (as home-ops roots patch
// into every child), which is never read: the volsync claim `${VOLSYNC_CLAIM:=${APP}}` still
// takes its default from the inline APP, as Flux's envsubst does when no source defines
// VOLSYNC_CLAIM (issue 30, item 3), so the undeploy names it from the base build. Before, the
// name was unresolved and the child was UNKNOWN.
func TestLiveUndeploySubstituteDefault(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "undeploydef")
	undeployCluster(t, ns, map[string]any{"kind": "Secret", "name": "cluster-secrets"})
	files := homeOpsUndeploy(ns, "    substituteFrom:\n    - kind: Secret\n      name: cluster-secrets\n")
	r := gittest.New(t, files)
	r.Commit("undeploy zigbee", undeploy(files, ns, "zigbee"))
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE PersistentVolumeClaim "+ns+"/zigbee (kubernetes/components/volsync/pvc.yaml): Flux prunes it",
		"note: Kustomization "+ns+"/zigbee: base build names objects with the default of VOLSYNC_CLAIM", "verdict: UNSAFE (exit 1)")
	if strings.Contains(out, "unresolved") {
		t.Errorf("a variable with a default is reported unresolved\n%s", out)
	}
}
