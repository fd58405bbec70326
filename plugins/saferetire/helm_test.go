package saferetire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
)

// appTemplateRelease is a HelmRelease as home-ops repositories write one with bjw-s'
// app-template (e.g. https://github.com/onedr0p/home-ops, kubernetes/apps/*/*/app/
// helmrelease.yaml), with the persistence values given (indented under values:).
func appTemplateRelease(ns, name, persistence string) string {
	return fmt.Sprintf(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: %s
  namespace: %s
spec:
  interval: 1h
  chart:
    spec:
      chart: app-template
      version: 4.4.0
      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}
  values:
    controllers:
      %s:
        containers:
          app:
            image: {repository: ghcr.io/example/%s, tag: 1.0.0}
%s`, name, ns, name, name, persistence)
}

// helmRepo declares, under ./k8s/apps, paperless (a claim the chart creates, the way
// app-template's persistence items do) and plex (only an existing claim), then removes those
// given in the working tree.
func helmRepo(t *testing.T, remove ...string) (*gittest.Repo, string) {
	r := gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/settings.yaml":  configMap("media", "settings"),
		"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        accessMode: ReadWriteOnce\n        size: 15Gi\n"),
		"k8s/apps/plex.yaml":      appTemplateRelease("media", "plex", "    persistence:\n      media:\n        existingClaim: media\n"),
	})
	base := r.Git("rev-parse", "HEAD")
	gone := map[string]string{}
	for _, name := range remove {
		gone["k8s/apps/"+name+".yaml"] = ""
	}
	r.Write(gone)
	return r, base
}

// Offline, removing a HelmRelease uninstalls its chart: values that declare a claim the chart
// creates make it UNSAFE, named by its values path; values that declare none leave what the
// uninstall deletes unseen, which is UNKNOWN (exit 2), never SAFE.
func TestHelmReleaseRemovalOffline(t *testing.T) {
	r, base := helmRepo(t, "paperless", "plex")
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"UNSAFE HelmRelease media/paperless (k8s/apps/paperless.yaml): Flux prunes it",
		"its values declare persistent state: spec.values.persistence.data",
		"helm: deleting it uninstalls release media/paperless",
		"not seen: the chart's objects: chart not available: chart app-template 4.4.0: its chart source HelmRepository/flux-system/bjw-s is not declared by any tier that built",
		`values spec.values.persistence.media.existingClaim: mounts the existing claim "media"`,
		"HelmRelease media/plex (Kustomization flux-system/apps): deleting it uninstalls release media/plex and every object its chart installed",
		"verdict: UNSAFE (exit 1)")

	r, base = helmRepo(t, "plex")
	out, errOut, code = invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 2 || !strings.Contains(out, "what the uninstall deletes is unknown") {
		t.Fatalf("plex alone: exit %d, want 2 (UNKNOWN)\n%s\n%s", code, out, errOut)
	}
	// A chart migration keeps the HelmRelease but reinstalls its release (chartNameChangeStrategy
	// defaults to Reinstall), as home-ops repositories do when they move an app to another chart.
	r, base = helmRepo(t)
	r.Write(map[string]string{"k8s/apps/paperless.yaml": strings.Replace(appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        accessMode: ReadWriteOnce\n        size: 15Gi\n"), "chart: app-template", "chart: paperless-ngx", 1)})
	out, errOut, code = invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 2 {
		t.Fatalf("chart change: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, `HelmRelease media/paperless (Kustomization flux-system/apps): the candidate changes its chart from "app-template" to "paperless-ngx" (chartNameChangeStrategy Reinstall), so helm-controller uninstalls release media/paperless`,
		"its values declare persistent state: spec.values.persistence.data")
}

var hrGVR = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}

// Live, on the real control plane: the release's objects carry helm-controller's origin labels
// (helm.toolkit.fluxcd.io/name and /namespace, fluxcd/helm-controller 879cf5b, v0.9.0) and
// Helm's release annotations (meta.helm.sh/release-name and /release-namespace). The claim the
// chart created is named first, with the pod that mounts it and its reclaim cost, and the
// verdict is UNSAFE; a claim with helm.sh/resource-policy: keep is left, as Helm leaves it
// (nextcloud/helm#53: "uninstalling the helm release also deletes the PVC"; the fix is that
// annotation).
func TestHelmReleaseRemovalLive(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "helmrm")
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_paperless_helm.toolkit.fluxcd.io_HelmRelease", ns+"_settings__ConfigMap")
	liveHelmRelease(t, ns, "paperless")
	owned := map[string]string{"helm.toolkit.fluxcd.io/name": "paperless", "helm.toolkit.fluxcd.io/namespace": ns, "app.kubernetes.io/managed-by": "Helm"}
	helm := map[string]string{"meta.helm.sh/release-name": "paperless", "meta.helm.sh/release-namespace": ns}
	pv := ns + "-data"
	if _, err := kc.Kube.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pv},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("15Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + pv}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	keep := map[string]string{"helm.sh/resource-policy": "keep"}
	for k, v := range helm {
		keep[k] = v
	}
	helmClaim(t, ns, "paperless-data", owned, helm, pv)
	helmClaim(t, ns, "paperless-keep", owned, keep, "")
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "paperless", Namespace: ns, Labels: owned, Annotations: helm}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mountingPod(t, ns, "paperless-0", "paperless-data")
	// The chart's database is a StatefulSet: its template claim carries no Helm annotation and
	// survives the uninstall (helm/helm#5156).
	liveStatefulSet(t, ns, "paperless-db", owned, helm, "")
	helmClaim(t, ns, "data-paperless-db-0", map[string]string{"app": "paperless-db"}, nil, "")
	// The release as helm-controller stored it: the uninstall deletes exactly its manifest's
	// objects, among them a CRD in the chart's templates/ (Helm deletes it, and with it its
	// custom resources), which carries no origin label.
	group := ns + ".example.com"
	liveWidgets(t, ns, group, 2)
	storeRelease(t, ns, "paperless", 2, claimDoc("paperless-data", "")+claimDoc("paperless-keep", "  annotations: {helm.sh/resource-policy: keep}\n")+
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: paperless\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: paperless-db\n"+crdDoc(group))

	r, base := removedRelease(t, ns, "paperless", appTemplateRelease(ns, "paperless", "    persistence:\n      data:\n        accessMode: ReadWriteOnce\n        size: 15Gi\n"))
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"UNSAFE HelmRelease "+ns+"/paperless",
		"uninstalling release "+ns+"/paperless deletes PersistentVolumeClaim "+ns+"/paperless-data",
		"helm: deleting it uninstalls release "+ns+"/paperless",
		"deletes PersistentVolumeClaim "+ns+"/paperless-data",
		"mounted by pods/paperless-0",
		"if deleted: the 15Gi of data in volume persistentvolumes/"+pv+" is lost: its reclaim policy is Delete",
		"leaves PersistentVolumeClaim "+ns+"/paperless-keep: kept by helm.sh/resource-policy: keep",
		"and the release's other objects: 1 ConfigMap",
		"deletes StatefulSet "+ns+"/paperless-db (1 volumeClaimTemplates with whenDeleted: Retain: its pods go and its claims are left orphaned)",
		"leaves PersistentVolumeClaim "+ns+"/data-paperless-db-0: a volumeClaimTemplates claim of StatefulSet "+ns+"/paperless-db (whenDeleted: Retain), not in the release's manifest: left orphaned",
		"installed: app-template 4.4.0, revision 2, Secret "+ns+"/sh.helm.release.v1.paperless.v2, read from helm-controller's storage",
		"deletes CustomResourceDefinition widgets."+group+" (in the chart's templates, so Helm deletes it, and with it its 2 custom resources on the cluster)",
		"verdict: UNSAFE (exit 1)")
	if first, rest := strings.Index(out, "deletes PersistentVolumeClaim "+ns+"/paperless-data"), strings.Index(out, "other objects"); first < 0 || first > rest {
		t.Errorf("the claim is not named before the rest of the release\n%s", out)
	}
	// Neither the text nor the JSON report carries the release's values or Secret data.
	js, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns, "-o", "json")
	if code != 1 {
		t.Fatalf("json: exit %d, want 1\n%s\n%s", code, js, errOut)
	}
	contains(t, js, `"installed": "app-template 4.4.0, revision 2, Secret `+ns+`/sh.helm.release.v1.paperless.v2"`)
	for _, o := range []string{out, js, errOut} {
		if strings.Contains(o, releaseSentinel) || strings.Contains(o, "H4sI") {
			t.Errorf("the output shows stored release data\n%s", o)
		}
	}
}

// removedRelease commits the HelmRelease manifest as k8s/<ns>/<name>.yaml beside a ConfigMap,
// then removes it in the working tree; base is the commit.
func removedRelease(t *testing.T, ns, name, manifest string) (*gittest.Repo, string) {
	t.Helper()
	r := gittest.New(t, map[string]string{
		"k8s/" + ns + "/settings.yaml":     configMap(ns, "settings"),
		"k8s/" + ns + "/" + name + ".yaml": manifest,
	})
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/" + name + ".yaml": ""})
	return r, base
}

// liveHelmRelease creates HelmRelease ns/name, installed (status.storageNamespace set).
func liveHelmRelease(t *testing.T, ns, name string) {
	t.Helper()
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"interval": "1h", "chart": map[string]any{"spec": map[string]any{"chart": "app-template",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "bjw-s", "namespace": "flux-system"}}}},
	}}
	ri := kc.Dynamic.Resource(hrGVR).Namespace(ns)
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating HelmRelease %s/%s: %v", ns, name, err)
	}
	created.Object["status"] = map[string]any{"storageNamespace": ns}
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing status of HelmRelease %s/%s: %v", ns, name, err)
	}
}

// helmClaim creates a 15Gi claim labelled and annotated as the release's, bound to volume pv
// when pv is not "".
func helmClaim(t *testing.T, ns, name string, labels, ann map[string]string, pv string) {
	t.Helper()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: ann},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("15Gi")}},
			VolumeName:  pv,
		},
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Create(context.Background(), pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// liveStatefulSet creates a StatefulSet of no replicas with one volumeClaimTemplate "data",
// selecting app=<name>, labelled and annotated as given, with the
// persistentVolumeClaimRetentionPolicy.whenDeleted given ("" leaves the default).
func liveStatefulSet(t *testing.T, ns, name string, labels, ann map[string]string, whenDeleted appsv1.PersistentVolumeClaimRetentionPolicyType) {
	t.Helper()
	zero := int32(0)
	sel := map[string]string{"app": name}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: ann},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres"}}}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}}},
		},
	}
	if whenDeleted != "" {
		sts.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: whenDeleted, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	}
	if _, err := kc.Kube.AppsV1().StatefulSets(ns).Create(context.Background(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// mountingPod creates a pod on the incident's node that mounts claim.
func mountingPod(t *testing.T, ns, name, claim string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName:    "worker-1",
			Containers:  []corev1.Container{{Name: "c", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:     []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
	}
	if _, err := kc.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Live evidence both ways: a release that owns no persistent object is uninstalled without
// loss (SAFE, its objects counted); a reader who may not list claims cannot know that, and the
// verdict is UNKNOWN naming the list that failed, never SAFE.
func TestHelmReleaseRemovalLiveReads(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "helmrd")
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_web_helm.toolkit.fluxcd.io_HelmRelease", ns+"_settings__ConfigMap")
	liveHelmRelease(t, ns, "web")
	storeRelease(t, ns, "web", 1, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n")
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns,
		Labels:      map[string]string{"helm.toolkit.fluxcd.io/name": "web", "helm.toolkit.fluxcd.io/namespace": ns},
		Annotations: map[string]string{"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r, base := removedRelease(t, ns, "web", appTemplateRelease(ns, "web", ""))
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("admin: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "pruned HelmRelease "+ns+"/web", "helm: deleting it uninstalls release "+ns+"/web", "and the release's other objects: 1 ConfigMap", "verdict: SAFE (exit 0)")

	rbac := kc.Kube.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-no-claims"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "pods", "namespaces"}, Verbs: []string{"get", "list"}},
	}}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: role.Name, APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, kc.Kube, role.Name, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "configmaps"})
	out, errOut, code = run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns, "--as="+role.Name)
	if code != 2 {
		t.Fatalf("without list on claims: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "HelmRelease "+ns+"/web: reading the deployed revision of Helm release web in storage namespace "+ns+": forbidden: ",
		"types labelled helm.toolkit.fluxcd.io/name=web,helm.toolkit.fluxcd.io/namespace="+ns+" for HelmRelease "+ns+"/web: forbidden: ", " persistentvolumeclaims,", "verdict: UNKNOWN (exit 2)")
}
