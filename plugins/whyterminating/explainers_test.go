package whyterminating_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/kubeforensics/suite/plugins/whyterminating"
)

const holdFinalizer = "example.com/hold"

// release removes every finalizer of a ConfigMap so the test leaves nothing stuck behind.
func releaseConfigMap(t *testing.T, ns, name string) {
	t.Helper()
	ctx := context.Background()
	cm, err := kc.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return
	}
	cm.Finalizers = nil
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Logf("releasing configmap %s/%s: %v", ns, name, err)
	}
}

func createNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := kc.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	eventuallyFor(t, 60*time.Second, what, cond)
}

// eventuallyFor polls cond until it holds or timeout passes.
func eventuallyFor(t *testing.T, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// A namespace held by one remaining object that carries a custom finalizer whose controller
// does not exist: the namespace controller's conditions are shown and verified live, the object
// is explained in turn, and stripping the finalizer is offered only as a last resort.
func TestNamespaceContentRemaining(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "legacy")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "legacy", Finalizers: []string{holdFinalizer}}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("legacy").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseConfigMap(t, "legacy", "held") })
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "legacy", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace controller to report remaining finalizers", func(ctx context.Context) (bool, error) {
		ns, err := kc.Kube.CoreV1().Namespaces().Get(ctx, "legacy", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range ns.Status.Conditions {
			if c.Type == corev1.NamespaceFinalizersRemaining && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	out, errOut, code := run(t, "namespace", "legacy")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"namespaces/legacy Terminating for",
		"condition NamespaceFinalizersRemaining:",
		"finalizer kubernetes",
		"removed by: kube-controller-manager (namespace controller)",
		"blocked by configmaps -n legacy: 1 remaining",
		"blocked by configmaps/held -n legacy: remains, held by finalizers example.com/hold",
		"finalizer example.com/hold",
		"controller: none found",
		// The namespace is being deleted and nothing names the remover: a reinstall into it is
		// refused, so the strip says why it is the way out (deletedhere.go).
		`last resort 2: Remove finalizer example.com/hold by hand: nothing left in the cluster can remove it, and namespaces/legacy, which is being deleted, refuses every new object, a controller installed into it included.`,
		`kubectl --kubeconfig=` + env.Kubeconfig + ` --context=` + env.Context + ` -n legacy patch configmaps held --type=json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/hold"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	js, _, _ := run(t, "namespace", "legacy", "-o", "json")
	var res whyterminating.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 {
		t.Errorf("listRequests = 0 for a namespace explanation that swept its content")
	}
}

// A custom finalizer whose controller exists but has no ready replica names that workload.
// Velero's Helm chart binds cluster-admin to its service account
// (https://github.com/vmware-tanzu/helm-charts/blob/main/charts/velero/templates/clusterrolebinding.yaml):
// with nothing narrower, that broad grant is the evidence, and the name breaks the tie.
func TestCustomFinalizerControllerDown(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "velero-test")
	grantClusterRole(t, "cluster-admin", nil, "velero-test", "velero", "")
	zero := int32(0)
	labels := map[string]string{"app.kubernetes.io/name": "velero"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "velero", Namespace: "velero-test"},
		Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{ServiceAccountName: "velero", Containers: []corev1.Container{{Name: "velero", Image: "velero/velero:v1.17.0"}}}}},
	}
	if _, err := kc.Kube.AppsV1().Deployments("velero-test").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "restore-data", Namespace: "velero-test", Finalizers: []string{"restores.velero.io/external-resources-finalizer"}}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("velero-test").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseConfigMap(t, "velero-test", "restore-data") })
	if err := kc.Kube.CoreV1().ConfigMaps("velero-test").Delete(ctx, "restore-data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "cm", "restore-data", "-n", "velero-test")
	for _, want := range []string{
		"removed by: Velero",
		"controller: deployments.apps/velero -n velero-test ready 0/0",
		"only through rules that allow everything",
		"evidence: may update configmaps through ClusterRole cluster-admin via ClusterRoleBinding velero-cluster-admin",
		"Bring deployments.apps/velero -n velero-test back to ready replicas",
		"left behind: backup files stay in object storage",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
}

// Foreground deletion of a Deployment waits on its ReplicaSet, which is itself held.
func TestForegroundDeletion(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "fg")
	one := int32(1)
	labels := map[string]string{"app": "fg"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "fg"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
	}
	if _, err := kc.Kube.AppsV1().Deployments("fg").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var rs *appsv1.ReplicaSet
	eventually(t, "the ReplicaSet", func(ctx context.Context) (bool, error) {
		list, err := kc.Kube.AppsV1().ReplicaSets("fg").List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		rs = &list.Items[0]
		return true, nil
	})
	// The ReplicaSet controller writes the ReplicaSet too: a conflict is retried on a fresh read.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := kc.Kube.AppsV1().ReplicaSets("fg").Get(ctx, rs.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Finalizers = append(cur.Finalizers, holdFinalizer)
		_, err = kc.Kube.AppsV1().ReplicaSets("fg").Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cur, err := kc.Kube.AppsV1().ReplicaSets("fg").Get(ctx, rs.Name, metav1.GetOptions{}); err == nil {
			cur.Finalizers = nil
			_, _ = kc.Kube.AppsV1().ReplicaSets("fg").Update(ctx, cur, metav1.UpdateOptions{})
		}
	})
	fgPolicy := metav1.DeletePropagationForeground
	if err := kc.Kube.AppsV1().Deployments("fg").Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &fgPolicy}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ReplicaSet to be Terminating", func(ctx context.Context) (bool, error) {
		cur, err := kc.Kube.AppsV1().ReplicaSets("fg").Get(ctx, rs.Name, metav1.GetOptions{})
		return err == nil && cur.DeletionTimestamp != nil, err
	})
	out, _, code := run(t, "deployments.apps", "web", "-n", "fg")
	for _, want := range []string{
		"finalizer foregroundDeletion",
		"removed by: kube-controller-manager (garbage collector)",
		"blocked by replicasets.apps/" + rs.Name + " -n fg: is a dependent with blockOwnerDeletion",
		"replicasets.apps/" + rs.Name + " -n fg Terminating for",
		"finalizer example.com/hold",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
}

// A CRD being deleted waits for its remaining custom resources, one of them held.
func TestCRDCleanup(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
	if err := env.ApplyCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default", "finalizers": []any{holdFinalizer}}}}
	if _, err := kc.Dynamic.Resource(gvr).Namespace("default").Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = kc.Dynamic.Resource(gvr).Namespace("default").Patch(ctx, "w1", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if err := kc.Dynamic.Resource(crdGVR).Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Widget to be Terminating", func(ctx context.Context) (bool, error) {
		cur, err := kc.Dynamic.Resource(gvr).Namespace("default").Get(ctx, "w1", metav1.GetOptions{})
		return err == nil && cur.GetDeletionTimestamp() != nil, nil
	})
	out, _, code := run(t, "crd", "widgets.example.com", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var res whyterminating.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	f := res.Objects[0].Finalizers[0]
	if f.Name != "customresourcecleanup.apiextensions.k8s.io" || len(f.Blockers) != 1 || f.Blockers[0].Object.String() != "widgets.example.com/w1 -n default" || f.Blockers[0].Terminating == nil {
		t.Fatalf("finalizer = %+v", f)
	}
}
