package saferetire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
)

// releaseSentinel is in every stored release's values and its chart's values: no output of the
// gate may ever show it.
const releaseSentinel = "hunter2-SENTINEL-d41d8c"

// storeRelease stores revision version of Helm release ns/name, deployed, with the manifest
// given, exactly as helm-controller's Helm writes it: through Helm's own Secrets driver
// (sh.helm.release.v1.<name>.v<version>, labelled owner=helm, name, status, version), with a
// superseded revision before it (version > 1) whose manifest is another.
func storeRelease(t *testing.T, ns, name string, version int, manifest string) {
	t.Helper()
	d := driver.NewSecrets(kc.Kube.CoreV1().Secrets(ns))
	rel := func(v int, status common.Status, manifest string) *rspb.Release {
		return &rspb.Release{Name: name, Namespace: ns, Version: v, Manifest: manifest,
			Info:   &rspb.Info{Status: status, Description: "Helm install succeeded for release " + name},
			Config: map[string]any{"secret": releaseSentinel},
			Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "app-template", Version: "4.4.0", APIVersion: "v2"},
				Values: map[string]any{"password": releaseSentinel}},
		}
	}
	older := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: " + name + "-superseded\n"
	revs := []*rspb.Release{rel(version, common.StatusDeployed, manifest)}
	if version > 1 {
		revs = append(revs, rel(version-1, common.StatusSuperseded, older))
	}
	for _, r := range revs {
		if err := d.Create(fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, r.Version), r); err != nil {
			t.Fatalf("storing release %s/%s v%d: %v", ns, name, r.Version, err)
		}
	}
}

// claimDoc is a claim as a chart's template renders it, without a namespace (Helm installs it
// in the release's), with the annotations given.
func claimDoc(name, annotations string) string {
	return "---\n# Source: app-template/templates/common.yaml\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: " + name + "\n" + annotations +
		"spec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 15Gi}}\n"
}

// Live, an upgrade deletes what the new render lacks compared with the release really
// installed, not with a re-render of the base: the installed revision holds a claim the base
// render no longer has (a values change the cluster still carries), and the upgrade deletes it
// too, UNSAFE, with the drift between render and installed manifest named. A reader who may
// not list the storage Secrets cannot know what is installed: UNKNOWN, never the base render.
func TestHelmUpgradeLiveInstalled(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "helmup")
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_paperless_helm.toolkit.fluxcd.io_HelmRelease", "flux-system_bjw-s_source.toolkit.fluxcd.io_HelmRepository")
	liveHelmRelease(t, ns, "paperless")
	storeRelease(t, ns, "paperless", 3, claimDoc("paperless-cache", "")+claimDoc("paperless-old", ""))
	helmClaim(t, ns, "paperless-old", nil, nil, "")
	config := "    persistence:\n      config:\n        existingClaim: paperless\n"
	cache := "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n"
	r := renderRepo(t, offlineURL, "", map[string]string{
		"k8s/" + ns + "/repos.yaml":     helmRepository("bjw-s", offlineURL, ""),
		"k8s/" + ns + "/paperless.yaml": appTemplateRelease(ns, "paperless", config+cache),
	})
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/paperless.yaml": appTemplateRelease(ns, "paperless", config)})
	args := []string{"--dry-run", "--repo", r.Dir, "--base", base, "-n", ns, "--charts", chartsDir(t)}
	out, errOut, code := run(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	installed := "installed app-template 4.4.0, revision 3, Secret " + ns + "/sh.helm.release.v1.paperless.v3"
	contains(t, out,
		"UNSAFE PersistentVolumeClaim "+ns+"/paperless-old: Helm deletes it when helm-controller upgrades release "+ns+"/paperless (HelmRelease "+ns+"/paperless, "+installed+" to app-template 4.4.0)",
		"UNSAFE PersistentVolumeClaim "+ns+"/paperless-cache: Helm deletes it",
		"the installed release and the render of chart app-template 4.4.0 at base disagree",
		"installed but not rendered: PersistentVolumeClaim "+ns+"/paperless-old",
		"rendered but not installed: ",
		"verdict: UNSAFE (exit 1)")
	if strings.Contains(out, "paperless-superseded") || strings.Contains(out+errOut, releaseSentinel) {
		t.Errorf("a superseded revision or a stored value shows\n%s\n%s", out, errOut)
	}

	user := readerWithoutSecrets(t, ns)
	out, errOut, code = run(t, append(args, "--as="+user)...)
	if code != 2 {
		t.Fatalf("without list on Secrets: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "the release it upgrades could not be read: reading the deployed revision of Helm release paperless in storage namespace "+ns+": forbidden: ",
		"verdict: UNKNOWN (exit 2)")
	if strings.Contains(out, "UNSAFE PersistentVolumeClaim") {
		t.Errorf("the base render was judged in place of the installed release\n%s", out)
	}
}

// readerWithoutSecrets is a user who may read everything the live gate reads except Secrets.
func readerWithoutSecrets(t *testing.T, ns string) string {
	t.Helper()
	ctx := context.Background()
	rbac := kc.Kube.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-no-secrets"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io", "apps", "apiextensions.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "pods", "namespaces", "persistentvolumeclaims", "persistentvolumes", "services"}, Verbs: []string{"get", "list"}},
	}}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: role.Name, APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, kc.Kube, role.Name, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "persistentvolumeclaims"})
	return role.Name
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdDoc is a namespaced CRD widgets.<group> as a chart's templates/ (not crds/) render it.
func crdDoc(group string) string {
	return fmt.Sprintf(`---
# Source: app-template/templates/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.%s
spec:
  group: %s
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, group, group)
}

// liveWidgets creates the CRD of crdDoc on the cluster and n Widgets of it in ns.
func liveWidgets(t *testing.T, ns, group string, n int) {
	t.Helper()
	ctx := context.Background()
	var crd map[string]any
	if err := yaml.Unmarshal([]byte(crdDoc(group)), &crd); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Dynamic.Resource(crdGVR).Create(ctx, &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	for i := range n {
		w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Widget", "metadata": map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": ns}}}
		var err error
		for try := 0; try < 100; try++ { // until the CRD is established
			if _, err = kc.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, w, metav1.CreateOptions{}); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
