package whyterminating_test

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	servicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	secretsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

// A Service keeps tailscale.com/finalizer after the Tailscale operator's chart was uninstalled
// (replays https://github.com/tailscale/tailscale/issues/15662: the chart's CRDs stay, its
// Deployment and RBAC go). The AWS Load Balancer Controller runs and its ClusterRole lets it
// update Services, but nothing ties it to tailscale.com: it is listed as unrelated, never as the
// remover, and the verdict is that no controller of tailscale.com is installed. Once the
// operator runs again (its RBAC names its own tailscale.com types), it is the remover, with
// high confidence and the evidence.
func TestRemoverByDomainNotByBroadRBAC(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "tailscale")
	ensureNamespace(t, "kube-system")
	ensureNamespace(t, "web")
	helm := map[string]string{"meta.helm.sh/release-name": "tailscale-operator", "meta.helm.sh/release-namespace": "tailscale"}
	applyCRD(t, crdSpec{group: "tailscale.com", kind: "ProxyClass", plural: "proxyclasses", versions: []string{"v1alpha1"},
		labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"}, annotations: helm})
	applyCRD(t, crdSpec{group: "elbv2.k8s.aws", kind: "TargetGroupBinding", plural: "targetgroupbindings", namespaced: true, versions: []string{"v1beta1"}})
	grantClusterRole(t, "aws-load-balancer-controller-role", []rbacv1.PolicyRule{
		{APIGroups: []string{"elbv2.k8s.aws"}, Resources: []string{"targetgroupbindings"}, Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
	}, "kube-system", "aws-load-balancer-controller", "")
	createWorkload(t, workloadSpec{ns: "kube-system", name: "aws-load-balancer-controller", sa: "aws-load-balancer-controller", replicas: 1, ready: true})
	createStuck(t, servicesGVR, "Service", "web", "grafana", "tailscale.com/finalizer", nil, map[string]any{"ports": []any{map[string]any{"port": int64(80)}}})

	out, _, code := run(t, "service", "grafana", "-n", "web")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"finalizer tailscale.com/finalizer",
		"controller: none found — no controller of the finalizer's domain tailscale.com is installed",
		"unrelated: deployments.apps/aws-load-balancer-controller -n kube-system — may update services, but nothing in the cluster ties it to the finalizer's domain tailscale.com",
		"fix 1: Reinstall the product of tailscale.com",
		"last resort 2: Only if the controller is gone for good: remove finalizer tailscale.com/finalizer by hand.",
	}, []string{"controller: deployments.apps/aws-load-balancer-controller", "read its logs", "no blocker found"})
	js, _, _ := run(t, "service", "grafana", "-n", "web", "-o", "json")
	wantAll(t, js, []string{`"domain": "tailscale.com"`, `"unrelated": [`, `"confidence": "none"`, `"code": "controller-absent"`}, nil)

	grantClusterRole(t, "tailscale-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"tailscale.com"}, Resources: []string{"connectors", "proxyclasses", "proxygroups"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
	}, "tailscale", "operator", "")
	createWorkload(t, workloadSpec{ns: "tailscale", name: "operator", sa: "operator", replicas: 1, ready: true})
	out, _, code = run(t, "service", "grafana", "-n", "web")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/operator -n tailscale ready 1/1",
		"confidence: high",
		"tie: high: its service account may act on custom resources of tailscale.com (the finalizer's domain itself) through ClusterRole tailscale-operator via ClusterRoleBinding operator-tailscale-operator",
		"unrelated: deployments.apps/aws-load-balancer-controller -n kube-system",
		"deployments.apps/operator -n tailscale is running (1/1 ready) and may update services: read its logs",
	}, []string{"controller: deployments.apps/aws-load-balancer-controller", "aws-load-balancer-controller -n kube-system is running", "last resort"})
}

// A paused ThanosRuler keeps the prometheus-operator's status-cleanup finalizer: the operator
// runs, but returns before its finalizer handling while spec.paused is true (replays
// https://github.com/prometheus-operator/prometheus-operator/pull/8339). The verdict is the
// pause, the fix is the exact command that unpauses, and neither a strip nor "read its logs"
// is offered.
func TestPausedObjectIsUnpausedNotStripped(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "monitoring")
	gvr := applyCRD(t, crdSpec{group: "monitoring.coreos.com", kind: "ThanosRuler", plural: "thanosrulers", namespaced: true, versions: []string{"v1"}, status: true})
	grantClusterRole(t, "prometheus-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"thanosrulers", "thanosrulers/finalizers", "thanosrulers/status", "prometheuses", "alertmanagers"}, Verbs: []string{"*"}},
	}, "monitoring", "prometheus-operator", "")
	createWorkload(t, workloadSpec{ns: "monitoring", name: "prometheus-operator", sa: "prometheus-operator", replicas: 1, ready: true})
	createStuck(t, gvr, "ThanosRuler", "monitoring", "thanos-ruler", "monitoring.coreos.com/status-cleanup", nil, map[string]any{"paused": true})

	out, _, code := run(t, "thanosrulers.monitoring.coreos.com", "thanos-ruler", "-n", "monitoring")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/prometheus-operator -n monitoring ready 1/1",
		`paused: thanosrulers.monitoring.coreos.com/thanos-ruler -n monitoring spec.paused="true" — the remover skips this object until it is unpaused`,
		"fix 1: Unpause thanosrulers.monitoring.coreos.com/thanos-ruler -n monitoring (set spec.paused to false",
		`-n monitoring patch thanosrulers.monitoring.coreos.com thanos-ruler --type=merge -p '{"spec":{"paused":false}}'`,
	}, []string{"read its logs", "last resort", "no blocker found", "remove finalizer"})
	js, _, _ := run(t, "thanosrulers.monitoring.coreos.com", "thanos-ruler", "-n", "monitoring", "-o", "json")
	wantAll(t, js, []string{`"code": "reconcile-paused"`, `"code": "unpause"`, `"field": "spec.paused"`}, nil)
}

// A Secret keeps a Giant Swarm aws-operator finalizer while aws-operator runs, but its
// ClusterRole only lets it read Secrets (replays
// https://github.com/giantswarm/aws-operator/pull/1661, "The operator needs permissions to
// update finalizers in secrets"; the finalizer is named the way operatorkit names them,
// operatorkit.giantswarm.io/<operator>-<controller>). No running workload may update the Secret
// while the finalizer's product runs: the finalizer is orphaned, and the fix is to remove that
// one entry by hand, guarded by a test of its value.
func TestOrphanedFinalizerWhileProductRuns(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "giantswarm")
	ensureNamespace(t, "x7k2p")
	applyCRD(t, crdSpec{group: "infrastructure.giantswarm.io", kind: "AWSCluster", plural: "awsclusters", namespaced: true, versions: []string{"v1alpha3"}})
	grantClusterRole(t, "aws-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"infrastructure.giantswarm.io"}, Resources: []string{"awsclusters", "awscontrolplanes", "awsmachinedeployments"}, Verbs: []string{"*"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
	}, "giantswarm", "aws-operator", "")
	createWorkload(t, workloadSpec{ns: "giantswarm", name: "aws-operator", sa: "aws-operator", replicas: 1, ready: true})
	fin := "operatorkit.giantswarm.io/aws-operator-cluster-controller"
	createStuck(t, secretsGVR, "Secret", "x7k2p", "x7k2p-api", fin, nil)

	out, _, code := run(t, "secret", "x7k2p-api", "-n", "x7k2p")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: none found — no service account outside Kubernetes' own controllers may update secrets",
		"evidence: deployments.apps/aws-operator -n giantswarm is of the finalizer's domain operatorkit.giantswarm.io (medium confidence: its service account may act on custom resources of infrastructure.giantswarm.io (under giantswarm.io, as the finalizer's domain operatorkit.giantswarm.io is) through ClusterRole aws-operator via ClusterRoleBinding aws-operator-aws-operator) and runs, but serviceaccounts/aws-operator -n giantswarm may not update secrets",
		"orphaned: no running workload may update the object, so nothing will ever remove " + fin,
		"fix 1: Remove finalizer " + fin + " by hand: no running workload may update secrets",
		`patch secrets x7k2p-api --type=json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"` + fin + `"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
		"cost: left behind:",
	}, []string{"last resort", "Reinstall", "read its logs"})
	js, _, _ := run(t, "secret", "x7k2p-api", "-n", "x7k2p", "-o", "json")
	wantAll(t, js, []string{`"code": "finalizer-orphaned"`, `"orphaned": true`}, nil)
}

// An ACK DBInstance keeps finalizers.rds.services.k8s.aws/DBInstance after the ACK RDS
// controller was uninstalled before the resources it manages (replays
// https://github.com/awslabs/kubeflow-manifests/pull/437, "Uninstall ACK last"; the finalizer
// as https://github.com/aws-controllers-k8s/community/issues/2799 quotes it). No product of the
// domain is installed, and nothing of its install is left but the CRD: the product was uninstalled,
// not stopped (docs/why-terminating.md, "A product uninstalled, not stopped"); its status records
// the RDS instance the controller made (status.ackResourceMetadata.arn), which its cleanup
// deletes, so the reinstall comes first ("An uninstalled product's cleanup of what it made") and
// the strip after it, its cost naming the instance, read by rule, not from a table of products.
func TestStripCostNamesRecordedExternalResource(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "kubeflow")
	gvr := applyCRD(t, crdSpec{group: "rds.services.k8s.aws", kind: "DBInstance", plural: "dbinstances", namespaced: true, versions: []string{"v1alpha1"}})
	fin := "finalizers.rds.services.k8s.aws/DBInstance"
	arn := "arn:aws:rds:us-west-2:123456789012:db:kubeflow-db"
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rds.services.k8s.aws/v1alpha1", "kind": "DBInstance",
		"metadata": map[string]any{"name": "kubeflow-db", "finalizers": []any{fin}},
		"spec":     map[string]any{"dbInstanceIdentifier": "kubeflow-db", "engine": "mysql"},
		"status":   map[string]any{"ackResourceMetadata": map[string]any{"arn": arn, "ownerAccountID": "123456789012", "region": "us-west-2"}}}}
	if _, err := kc.Dynamic.Resource(gvr).Namespace("kubeflow").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(gvr, "kubeflow", "kubeflow-db") })
	if err := kc.Dynamic.Resource(gvr).Namespace("kubeflow").Delete(ctx, "kubeflow-db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "dbinstances.rds.services.k8s.aws", "kubeflow-db", "-n", "kubeflow")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"evidence: no workload in the cluster is tied to the finalizer's domain finalizers.rds.services.k8s.aws",
		"fix 1: Reinstall the product first, though it was uninstalled",
		"last resort 2: If the product is not to be installed again: Remove finalizer " + fin + " by hand: nothing of the product's install is left but its type definitions",
		"cost: left behind: what the controller would have cleaned up; the object records, and would leave behind with nothing to remove them: external resource " + arn + " (status.ackResourceMetadata.arn)",
	}, []string{"123456789012 (status.ackResourceMetadata.ownerAccountID)"})
}

// An IstioOperator keeps istio-finalizer.install.istio.io after the Istio operator was removed
// with its namespace (https://github.com/istio/istio/issues/18815,
// https://github.com/istio/istio/issues/29451), while istiod, of the sibling groups
// networking.istio.io and security.istio.io, still runs. The finalizer's own types are installed
// and no workload acts on them: its controller is absent (reinstall, or remove it by hand with
// its cost), not a running product's orphan.
func TestSiblingProductLeavesControllerAbsent(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "istio-system")
	gvr := applyCRD(t, crdSpec{group: "install.istio.io", kind: "IstioOperator", plural: "istiooperators", namespaced: true, versions: []string{"v1alpha1"}})
	applyCRD(t, crdSpec{group: "networking.istio.io", kind: "VirtualService", plural: "virtualservices", namespaced: true, versions: []string{"v1beta1"}})
	grantClusterRole(t, "istiod-clusterrole-istio-system", []rbacv1.PolicyRule{
		{APIGroups: []string{"networking.istio.io", "security.istio.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "get", "list", "watch", "update"}},
	}, "istio-system", "istiod", "")
	createWorkload(t, workloadSpec{ns: "istio-system", name: "istiod", sa: "istiod", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("istio-system").Delete(context.Background(), "istiod", metav1.DeleteOptions{})
	})
	fin := "istio-finalizer.install.istio.io"
	createStuck(t, gvr, "IstioOperator", "istio-system", "installed-state", fin, nil, map[string]any{"profile": "default"})

	js, _, code := run(t, "istiooperators.install.istio.io", "installed-state", "-n", "istio-system", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, js)
	}
	wantAll(t, js, []string{`"code": "controller-absent"`, "deployments.apps/istiod -n istio-system is tied to the finalizer's domain " + fin + " only loosely",
		`"code": "reinstall-controller"`, `"code": "strip-finalizer"`}, []string{`"orphaned": true`, `"code": "finalizer-orphaned"`})
}
