package whyterminating_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// crdSpec is the little a replayed operator's CRD needs: names, scope and served versions.
type crdSpec struct {
	group, kind, plural string
	namespaced          bool
	versions            []string // the first is the storage version
	labels, annotations map[string]string
	owner               *metav1.OwnerReference
	conversion          *apiextensionsv1.CustomResourceConversion
	// status serves status as a subresource, as operators' CRDs do.
	status bool
}

// applyCRD installs a schemaless CRD for s and removes it when the test ends.
func applyCRD(t *testing.T, s crdSpec) schema.GroupVersionResource {
	t.Helper()
	preserve := true
	scope := apiextensionsv1.ClusterScoped
	if s.namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: s.plural + "." + s.group, Labels: s.labels, Annotations: s.annotations},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: s.group, Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: s.plural, Singular: strings.ToLower(s.kind), Kind: s.kind, ListKind: s.kind + "List"},
		},
	}
	crd.Spec.Conversion = s.conversion
	if s.owner != nil {
		crd.OwnerReferences = []metav1.OwnerReference{*s.owner}
	}
	for i, v := range s.versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true, Storage: i == 0,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}})
		if s.status {
			crd.Spec.Versions[i].Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
		}
	}
	if err := env.ApplyCRDs(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Dynamic.Resource(crdGVR).Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
	})
	return schema.GroupVersionResource{Group: s.group, Version: s.versions[0], Resource: s.plural}
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// createStuck creates a custom resource carrying finalizer (with spec, if given), deletes it,
// and strips the finalizer when the test ends so that nothing stays Terminating.
func createStuck(t *testing.T, gvr schema.GroupVersionResource, kind, ns, name, finalizer string, labels map[string]string, spec ...map[string]any) {
	t.Helper()
	ctx := context.Background()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind,
		"metadata": map[string]any{"name": name, "finalizers": []any{finalizer}}}}
	if len(spec) > 0 {
		obj.Object["spec"] = spec[0]
	}
	obj.SetLabels(labels)
	if _, err := resourceIn(gvr, ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(gvr, ns, name) })
	if err := resourceIn(gvr, ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// release strips every finalizer of a custom resource.
func release(gvr schema.GroupVersionResource, ns, name string) {
	_, _ = resourceIn(gvr, ns).Patch(context.Background(), name, "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
}

// resourceIn is the dynamic client of gvr in ns, or cluster-wide when ns is "".
func resourceIn(gvr schema.GroupVersionResource, ns string) interface {
	Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
	Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*unstructured.Unstructured, error)
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
} {
	if ns == "" {
		return kc.Dynamic.Resource(gvr)
	}
	return kc.Dynamic.Resource(gvr).Namespace(ns)
}

// ensureNamespace creates a namespace unless it exists.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := kc.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// grantClusterRole creates a ClusterRole with rules (unless rules is nil: an existing role such
// as cluster-admin) and binds it to the service account, cluster-wide, or in bindNS when set.
func grantClusterRole(t *testing.T, role string, rules []rbacv1.PolicyRule, saNS, sa, bindNS string) {
	t.Helper()
	ctx := context.Background()
	rbac := kc.Kube.RbacV1()
	if rules != nil {
		if _, err := rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(ctx, role, metav1.DeleteOptions{}) })
	}
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: saNS, Name: sa}}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}
	name := sa + "-" + role
	if bindNS == "" {
		if _, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subjects}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}) })
		return
	}
	if _, err := rbac.RoleBindings(bindNS).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: bindNS}, RoleRef: ref, Subjects: subjects}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// grantRole creates a namespaced Role with rules and binds it to the service account.
func grantRole(t *testing.T, ns, role string, rules []rbacv1.PolicyRule, sa string) {
	t.Helper()
	ctx := context.Background()
	rbac := kc.Kube.RbacV1()
	if _, err := rbac.Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: ns}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}}
	if _, err := rbac.RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// workloadSpec is a controller replayed as a Deployment or StatefulSet.
type workloadSpec struct {
	ns, name, sa string
	statefulSet  bool
	replicas     int32
	// ready makes its one pod Running and Ready, as a kubelet would (Deployments only).
	ready bool
}

// createWorkload creates the workload; with ready it binds and runs the pod the controllers
// create and waits until the workload reports one ready replica.
func createWorkload(t *testing.T, w workloadSpec) {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: w.sa, Namespace: w.ns}}
	if _, err := kc.Kube.CoreV1().ServiceAccounts(w.ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	labels := map[string]string{"app.kubernetes.io/name": w.name}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{ServiceAccountName: w.sa, Containers: []corev1.Container{{Name: "c", Image: "registry.example/" + w.name + ":v1"}}}}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	var err error
	if w.statefulSet {
		_, err = kc.Kube.AppsV1().StatefulSets(w.ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: w.ns},
			Spec: appsv1.StatefulSetSpec{Replicas: &w.replicas, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	} else {
		_, err = kc.Kube.AppsV1().Deployments(w.ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: w.ns},
			Spec: appsv1.DeploymentSpec{Replicas: &w.replicas, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if !w.ready {
		return
	}
	eventually(t, w.name+" to have a ready pod", func(ctx context.Context) (bool, error) {
		pods, err := kc.Kube.CoreV1().Pods(w.ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + w.name})
		if err != nil || len(pods.Items) == 0 {
			return false, err
		}
		p := &pods.Items[0]
		if p.Spec.NodeName == "" {
			b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}, Target: corev1.ObjectReference{Kind: "Node", Name: incident.NodeName}}
			if err := kc.Kube.CoreV1().Pods(w.ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
				return false, nil
			}
			return false, nil
		}
		now := metav1.Now()
		p.Status.Phase, p.Status.StartTime = corev1.PodRunning, &now
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		if _, err := kc.Kube.CoreV1().Pods(w.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return false, nil
		}
		d, err := kc.Kube.AppsV1().Deployments(w.ns).Get(ctx, w.name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas > 0, nil
	})
}

// wantAll fails the test for every wanted line missing from out, and every unwanted one present.
func wantAll(t *testing.T, out string, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(out, u) {
			t.Errorf("output has %q", u)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
