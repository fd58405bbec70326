package whyterminating_test

import (
	"context"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Argo CD's Application keeps resources-finalizer.argocd.argoproj.io while the application
// controller is scaled to 0 (replays https://github.com/argoproj/argo-cd/issues/11145 and
// https://github.com/argoproj/argo-cd/issues/9296, with the Roles of Argo CD's install.yaml).
// The finalizer's domain names no workload; RBAC does: the controller and argocd-server may
// update applications.argoproj.io, and the one that cannot run is named first.
func TestArgoCDControllerScaledToZero(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "argocd")
	gvr := applyCRD(t, crdSpec{group: "argoproj.io", kind: "Application", plural: "applications", namespaced: true, versions: []string{"v1alpha1"},
		labels:      map[string]string{"app.kubernetes.io/part-of": "argocd", "app.kubernetes.io/managed-by": "Helm"},
		annotations: map[string]string{"meta.helm.sh/release-name": "argocd", "meta.helm.sh/release-namespace": "argocd"}})
	apps := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "appprojects"}, Verbs: []string{"create", "get", "list", "watch", "update", "patch", "delete"}}}
	grantRole(t, "argocd", "argocd-application-controller", apps, "argocd-application-controller")
	grantRole(t, "argocd", "argocd-server", apps, "argocd-server")
	createWorkload(t, workloadSpec{ns: "argocd", name: "argocd-application-controller", sa: "argocd-application-controller", statefulSet: true, replicas: 0})
	createWorkload(t, workloadSpec{ns: "argocd", name: "argocd-server", sa: "argocd-server", replicas: 1, ready: true})
	createWorkload(t, workloadSpec{ns: "argocd", name: "argocd-redis", sa: "argocd-redis", replicas: 0})
	createStuck(t, gvr, "Application", "argocd", "guestbook", "resources-finalizer.argocd.argoproj.io", nil)

	out, _, code := run(t, "applications.argoproj.io", "guestbook", "-n", "argocd")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"finalizer resources-finalizer.argocd.argoproj.io",
		"controller: statefulsets.apps/argocd-application-controller -n argocd ready 0/0, scaled to 0 — one of 2 workloads whose service account may update applications.argoproj.io",
		"evidence: runs as serviceaccounts/argocd-application-controller -n argocd",
		"evidence: may update applications.argoproj.io through Role argocd-application-controller via RoleBinding argocd-application-controller -n argocd",
		"controller: deployments.apps/argocd-server -n argocd ready 1/1",
		"type: customresourcedefinitions.apiextensions.k8s.io/applications.argoproj.io was installed by Helm release argocd -n argocd",
		"fix 1: Bring statefulsets.apps/argocd-application-controller -n argocd back to ready replicas",
		"fix 2: deployments.apps/argocd-server -n argocd is running (1/1 ready) and may update applications.argoproj.io: read its logs",
	}, []string{"none found", "argocd-redis", "Reinstall", "last resort"})
	goldens.Assert(t, "argocd-controller-scaled-to-zero.txt", out)
	js, _, _ := run(t, "applications.argoproj.io", "guestbook", "-n", "argocd", "-o", "json")
	goldens.Assert(t, "argocd-controller-scaled-to-zero.json", js)
}

// Rancher's controller.cattle.io finalizers on a namespace while deployments.apps/rancher runs
// (replays https://github.com/rancher/rancher/issues/14715 and
// https://github.com/kubernetes/kubernetes/issues/125143). Rancher's chart binds cluster-admin
// to its service account: the only candidate has rights only through a rule that allows
// everything, and the output says so.
func TestRancherBroadRightsOnly(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "cattle-system")
	grantClusterRole(t, "cluster-admin", nil, "cattle-system", "rancher", "")
	createWorkload(t, workloadSpec{ns: "cattle-system", name: "rancher", sa: "rancher", replicas: 1, ready: true})
	createNamespace(t, "p-x7k2m")
	ns, err := kc.Kube.CoreV1().Namespaces().Get(ctx, "p-x7k2m", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Finalizers = []string{"controller.cattle.io/namespace-auth"}
	if _, err := kc.Kube.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	t.Cleanup(func() { release(nsGVR, "", "p-x7k2m") })
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "p-x7k2m", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "namespace", "p-x7k2m")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"finalizer controller.cattle.io/namespace-auth",
		"controller: deployments.apps/rancher -n cattle-system ready 1/1 — no service account has narrower rights on namespaces; the only workload whose service account may update it only through rules that allow everything",
		"evidence: may update namespaces through ClusterRole cluster-admin via ClusterRoleBinding rancher-cluster-admin",
		"deployments.apps/rancher -n cattle-system is running (1/1 ready) and may update namespaces: read its logs",
	}, []string{"controller: none found", "Reinstall the controller"})
}

// A Crossplane managed resource whose provider was uninstalled (replays
// https://github.com/crossplane/crossplane/issues/4251): the garbage collector deletes the
// provider's CRD, the CRD waits for the resource, and nothing may remove
// finalizer.managedresource.crossplane.io. The running Crossplane core is named like the
// finalizer but may not update the type, so it is not blamed; the way out names the gone owner.
func TestCrossplaneProviderGone(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "crossplane-system")
	revGVR := applyCRD(t, crdSpec{group: "pkg.crossplane.io", kind: "ProviderRevision", plural: "providerrevisions", versions: []string{"v1"}})
	grantClusterRole(t, "crossplane", []rbacv1.PolicyRule{
		{APIGroups: []string{"pkg.crossplane.io", "apiextensions.crossplane.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"*"}},
	}, "crossplane-system", "crossplane", "")
	createWorkload(t, workloadSpec{ns: "crossplane-system", name: "crossplane", sa: "crossplane", replicas: 1, ready: true})
	rev := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "pkg.crossplane.io/v1", "kind": "ProviderRevision", "metadata": map[string]any{"name": "provider-aws-s3-9f3c2a"}}}
	created, err := kc.Dynamic.Resource(revGVR).Create(ctx, rev, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	gvr := applyCRD(t, crdSpec{group: "s3.aws.upbound.io", kind: "Bucket", plural: "buckets", versions: []string{"v1beta1"},
		labels: map[string]string{"pkg.crossplane.io/package": "provider-aws-s3"},
		owner:  &metav1.OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: created.GetName(), UID: created.GetUID(), Controller: &yes}})
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
		"metadata": map[string]any{"name": "tenant-logs", "finalizers": []any{"finalizer.managedresource.crossplane.io"}}}}
	if _, err := kc.Dynamic.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(gvr, "", "tenant-logs") })
	if err := kc.Dynamic.Resource(revGVR).Delete(ctx, created.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The garbage collector learns new types on its discovery resync (30s), so allow for two.
	eventuallyFor(t, 150*time.Second, "the garbage collector to delete the provider's CRD and the CRD to delete the bucket", func(ctx context.Context) (bool, error) {
		cur, err := kc.Dynamic.Resource(gvr).Get(ctx, "tenant-logs", metav1.GetOptions{})
		return err == nil && cur.GetDeletionTimestamp() != nil, nil
	})
	out, _, code := run(t, "buckets.s3.aws.upbound.io", "tenant-logs")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"finalizer finalizer.managedresource.crossplane.io",
		"controller: none found — no service account outside Kubernetes' own controllers may update buckets.s3.aws.upbound.io",
		"evidence: deployments.apps/crossplane -n crossplane-system is named like the finalizer, but serviceaccounts/crossplane -n crossplane-system may not update buckets.s3.aws.upbound.io",
		"type: customresourcedefinitions.apiextensions.k8s.io/buckets.s3.aws.upbound.io is owned by providerrevisions.pkg.crossplane.io/provider-aws-s3-9f3c2a, which no longer exists",
		"type: customresourcedefinitions.apiextensions.k8s.io/buckets.s3.aws.upbound.io is itself being deleted",
		"fix 1: Reinstall providerrevisions.pkg.crossplane.io/provider-aws-s3-9f3c2a (it installed this type)",
		"last resort 2: Only if the controller is gone for good: remove finalizer finalizer.managedresource.crossplane.io by hand.",
	}, []string{"read its logs", "no blocker found"})
	goldens.Assert(t, "crossplane-provider-gone.txt", out)
}

// A Strimzi KafkaTopic whose Kafka cluster no longer runs a topic operator (replays
// https://github.com/strimzi/strimzi-kafka-operator/issues/11901). The cluster operator's
// delegation RoleBinding lets it update KafkaTopics, but the topic operator that removes
// strimzi.io/topic-operator runs in the entity operator the Kafka resource declares.
func TestStrimziTopicOperatorGone(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "kafka")
	kafkaGVR := applyCRD(t, crdSpec{group: "kafka.strimzi.io", kind: "Kafka", plural: "kafkas", namespaced: true, versions: []string{"v1beta2"}})
	topicGVR := applyCRD(t, crdSpec{group: "kafka.strimzi.io", kind: "KafkaTopic", plural: "kafkatopics", namespaced: true, versions: []string{"v1beta2"}})
	grantClusterRole(t, "strimzi-entity-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"kafka.strimzi.io"}, Resources: []string{"kafkatopics", "kafkatopics/status", "kafkausers", "kafkausers/status"}, Verbs: []string{"get", "list", "watch", "create", "patch", "update", "delete"}},
	}, "kafka", "strimzi-cluster-operator", "kafka")
	createWorkload(t, workloadSpec{ns: "kafka", name: "strimzi-cluster-operator", sa: "strimzi-cluster-operator", replicas: 1, ready: true})
	k := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "Kafka",
		"metadata": map[string]any{"name": "my-cluster"}, "spec": map[string]any{"entityOperator": map[string]any{"userOperator": map[string]any{}}}}}
	if _, err := kc.Dynamic.Resource(kafkaGVR).Namespace("kafka").Create(ctx, k, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createStuck(t, topicGVR, "KafkaTopic", "kafka", "orders", "strimzi.io/topic-operator", map[string]string{"strimzi.io/cluster": "my-cluster"})
	out, _, code := run(t, "kafkatopics.kafka.strimzi.io", "orders", "-n", "kafka")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/my-cluster-entity-operator -n kafka — the topic operator of Kafka cluster my-cluster runs in deployments.apps/my-cluster-entity-operator -n kafka, which does not exist",
		"evidence: kafkas.kafka.strimzi.io/my-cluster -n kafka declares no spec.entityOperator.topicOperator, so no topic operator runs for it",
		"fix 1: Restore deployments.apps/my-cluster-entity-operator -n kafka",
		"last resort 2:",
	}, []string{"controller: deployments.apps/strimzi-cluster-operator", "read its logs"})
	goldens.Assert(t, "strimzi-topic-operator-gone.txt", out)
}

// KubeVirt's foregroundDeleteVirtualMachine has no domain (replays
// https://github.com/kubevirt/kubevirt/issues/10407): it is never "the controller of
// foregroundDeleteVirtualMachine"; RBAC names virt-controller, here scaled to 0.
func TestKubeVirtFinalizerWithoutDomain(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "kubevirt")
	ensureNamespace(t, "vms")
	gvr := applyCRD(t, crdSpec{group: "kubevirt.io", kind: "VirtualMachine", plural: "virtualmachines", namespaced: true, versions: []string{"v1"}})
	grantClusterRole(t, "kubevirt-controller", []rbacv1.PolicyRule{
		{APIGroups: []string{"kubevirt.io"}, Resources: []string{"virtualmachines", "virtualmachineinstances"}, Verbs: []string{"get", "list", "watch", "update", "patch", "delete"}},
		{APIGroups: []string{"kubevirt.io"}, Resources: []string{"virtualmachines/finalizers"}, Verbs: []string{"update"}},
	}, "kubevirt", "kubevirt-controller", "")
	createWorkload(t, workloadSpec{ns: "kubevirt", name: "virt-controller", sa: "kubevirt-controller", replicas: 0})
	createStuck(t, gvr, "VirtualMachine", "vms", "win2k22", "foregroundDeleteVirtualMachine", nil)
	out, _, code := run(t, "virtualmachines.kubevirt.io", "win2k22", "-n", "vms")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"removed by: whichever controller added it: a finalizer without a domain does not name its owner",
		"controller: deployments.apps/virt-controller -n kubevirt ready 0/0, scaled to 0 — the only workload whose service account may update virtualmachines.kubevirt.io",
		"evidence: may update virtualmachines.kubevirt.io through ClusterRole kubevirt-controller via ClusterRoleBinding kubevirt-controller-kubevirt-controller",
		"fix 1: Bring deployments.apps/virt-controller -n kubevirt back to ready replicas",
	}, []string{"the controller of foregroundDeleteVirtualMachine", "no blocker found"})
}
