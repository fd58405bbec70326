package whyterminating_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// applySchemaCRD installs a CRD for s whose spec has the given properties (the rest of the
// object is kept as sent), as an operator's generated CRD describes its reference fields.
func applySchemaCRD(t *testing.T, s crdSpec, spec map[string]apiextensionsv1.JSONSchemaProps) schema.GroupVersionResource {
	t.Helper()
	preserve := true
	scope := apiextensionsv1.ClusterScoped
	if s.namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	root := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec":   {Type: "object", Properties: spec, XPreserveUnknownFields: &preserve},
		"status": {Type: "object", XPreserveUnknownFields: &preserve},
	}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: s.plural + "." + s.group, Labels: s.labels},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: s.group, Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: s.plural, Singular: strings.ToLower(s.kind), Kind: s.kind, ListKind: s.kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: s.versions[0], Served: true, Storage: true,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: root},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}}}},
	}
	if err := env.ApplyCRDs(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.Dynamic.Resource(crdGVR).Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	return schema.GroupVersionResource{Group: s.group, Version: s.versions[0], Resource: s.plural}
}

// createObject creates a custom resource with spec and removes it when the test ends.
func createObject(t *testing.T, gvr schema.GroupVersionResource, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind,
		"metadata": map[string]any{"name": name}, "spec": spec}}
	got, err := resourceIn(gvr, ns).Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release(gvr, ns, name)
		_ = resourceIn(gvr, ns).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return got
}

// recordEvent records an event about obj, as its controller would, and removes it at the end.
func recordEvent(t *testing.T, obj *unstructured.Unstructured, typ, reason, msg, source string) {
	t.Helper()
	ns := obj.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	now := metav1.Now()
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName() + "." + strings.ToLower(reason), Namespace: ns},
		InvolvedObject: corev1.ObjectReference{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()},
		Type:           typ, Reason: reason, Message: msg, Source: corev1.EventSource{Component: source}, FirstTimestamp: now, LastTimestamp: now, Count: 4}
	if _, err := kc.Kube.CoreV1().Events(ns).Create(context.Background(), ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.Kube.CoreV1().Events(ns).Delete(context.Background(), ev.Name, metav1.DeleteOptions{}) })
}

// A GatewayClass waits until no Gateway names it: Envoy Gateway holds
// gateway-exists-finalizer.gateway.networking.k8s.io while any Gateway's spec.gatewayClassName
// is the class's name (replays https://github.com/envoyproxy/gateway/issues/1362, a class whose
// Gateways were not cleaned up, and https://github.com/tigera/operator/pull/5292, "blocks that
// delete while any Gateway still uses the class"). The Gateway is the blocker, found in the
// class's own API group, with the fix to delete or repoint it and never a strip.
func TestClassHeldByReferrers(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "envoy-gateway-system")
	ensureNamespace(t, "web")
	// The project's CRDs carry the approval annotation a *.k8s.io group needs.
	approved := map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/2466"}
	classGVR := applyCRD(t, crdSpec{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", versions: []string{"v1"}, status: true, annotations: approved})
	gwGVR := applyCRD(t, crdSpec{group: "gateway.networking.k8s.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1"}, status: true, annotations: approved})
	grantClusterRole(t, "envoy-gateway-role", []rbacv1.PolicyRule{
		{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"gatewayclasses", "gateways"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"gatewayclasses/status", "gateways/status"}, Verbs: []string{"update"}},
	}, "envoy-gateway-system", "envoy-gateway", "")
	createWorkload(t, workloadSpec{ns: "envoy-gateway-system", name: "envoy-gateway", sa: "envoy-gateway", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("envoy-gateway-system").Delete(context.Background(), "envoy-gateway", metav1.DeleteOptions{})
	})
	createObject(t, gwGVR, "Gateway", "web", "eg", map[string]any{"gatewayClassName": "eg",
		"listeners": []any{map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80)}}})
	createObject(t, gwGVR, "Gateway", "web", "other", map[string]any{"gatewayClassName": "istio"})
	createStuck(t, classGVR, "GatewayClass", "", "eg", "gateway-exists-finalizer.gateway.networking.k8s.io", nil,
		map[string]any{"controllerName": "gateway.envoyproxy.io/gatewayclass-controller"})
	out, _, code := run(t, "gatewayclasses.gateway.networking.k8s.io", "eg")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/envoy-gateway -n envoy-gateway-system ready 1/1",
		"blocked by gateways.gateway.networking.k8s.io/eg -n web: refers to it by spec.gatewayClassName",
		"fix 1: Delete gateways.gateway.networking.k8s.io/eg -n web if it may go, or, if it must stay, repoint spec.gatewayClassName to another object where the field may change",
		"Never strip gateway-exists-finalizer.gateway.networking.k8s.io",
		"$ kubectl --kubeconfig",
		"verdict: STUCK (exit 1)",
	}, []string{"no blocker found", "last resort", "gateways.gateway.networking.k8s.io/other"})
}

// An EC2NodeClass waits until no NodeClaim is launched from it: Karpenter holds
// karpenter.k8s.aws/termination and reports "Waiting on NodeClaim termination for …" while a
// NodeClaim whose spec.nodeClassRef names the class cannot drain (replays
// https://github.com/aws/karpenter-provider-aws/issues/6462). The NodeClaim is of another API
// group: it is found because NodeClaim's CRD schema has a reference field that points to the
// class's kind. Before, the running controller's Normal event made this DELETING.
func TestNodeClassHeldByNodeClaimFromSchema(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	eventually(t, "an earlier nodeclaims.karpenter.sh to be gone", func(ctx context.Context) (bool, error) {
		_, err := kc.Dynamic.Resource(crdGVR).Get(ctx, "nodeclaims.karpenter.sh", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	ensureNamespace(t, "karpenter")
	classGVR := applyCRD(t, crdSpec{group: "karpenter.k8s.aws", kind: "EC2NodeClass", plural: "ec2nodeclasses", versions: []string{"v1"}, status: true})
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	claimGVR := applySchemaCRD(t, crdSpec{group: "karpenter.sh", kind: "NodeClaim", plural: "nodeclaims", versions: []string{"v1"}}, map[string]apiextensionsv1.JSONSchemaProps{
		"nodeClassRef": {Type: "object", Description: "NodeClassRef is a reference to an object that defines provider specific configuration",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"group": str, "kind": str, "name": str}},
	})
	grantClusterRole(t, "karpenter-refs", []rbacv1.PolicyRule{
		{APIGroups: []string{"karpenter.k8s.aws"}, Resources: []string{"ec2nodeclasses", "ec2nodeclasses/status", "ec2nodeclasses/finalizers"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodeclaims", "nodeclaims/status"}, Verbs: []string{"get", "list", "watch", "create", "delete", "update", "patch"}},
	}, "karpenter", "karpenter", "")
	createWorkload(t, workloadSpec{ns: "karpenter", name: "karpenter", sa: "karpenter", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("karpenter").Delete(context.Background(), "karpenter", metav1.DeleteOptions{})
	})
	ref := map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
	createStuck(t, claimGVR, "NodeClaim", "", "default-4jf2r", "karpenter.sh/termination", nil, map[string]any{"nodeClassRef": ref})
	claim, err := kc.Dynamic.Resource(claimGVR).Get(ctx, "default-4jf2r", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recordEvent(t, claim, corev1.EventTypeWarning, "FailedDraining", "Failed to drain node, 1 pods are waiting to be evicted (PodDisruptionBudget kube-system/coredns)", "karpenter")
	createObject(t, claimGVR, "NodeClaim", "", "default-other", map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"}})
	createStuck(t, classGVR, "EC2NodeClass", "", "default", "karpenter.k8s.aws/termination", nil, map[string]any{"role": "KarpenterNodeRole"})
	class, err := kc.Dynamic.Resource(classGVR).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	recordEvent(t, class, corev1.EventTypeNormal, "WaitingOnNodeClaimTermination", "Waiting on NodeClaim termination for default-4jf2r", "karpenter")
	out, _, code := run(t, "ec2nodeclasses.karpenter.k8s.aws", "default")

	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"event Normal WaitingOnNodeClaimTermination from karpenter (x4): Waiting on NodeClaim termination for default-4jf2r",
		"blocked by nodeclaims.karpenter.sh/default-4jf2r: refers to it by spec.nodeClassRef; named by the object's own event WaitingOnNodeClaimTermination as what its deletion waits for",
		"nodeclaims.karpenter.sh/default-4jf2r Terminating for",
		"event Warning FailedDraining from karpenter (x4)",
		"is itself Terminating: clear what holds it",
		"verdict: STUCK (exit 1)",
	}, []string{"deleting, not stuck", "nodeclaims.karpenter.sh/default-other", "last resort 2: Only if the controller is gone for good: remove finalizer karpenter.k8s.aws/termination"})
}

// A VolumeSnapshot waits until no claim is being provisioned from it: the snapshot controller
// holds snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection while a
// PersistentVolumeClaim's dataSource names it (replays
// https://github.com/kubernetes-csi/external-snapshotter/issues/1366, a snapshot deleted while
// a claim cloned from it is still Pending, and https://github.com/velero-io/velero/issues/8120).
// The claim is the blocker, found by the built-in dataSource reference, not "no blocker found".
func TestSnapshotHeldByClonedClaim(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "db")
	snapGVR := applyCRD(t, crdSpec{group: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", plural: "volumesnapshots", namespaced: true, versions: []string{"v1"}, status: true,
		annotations: map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-csi/external-snapshotter/pull/814"}})
	grantClusterRole(t, "snapshot-controller-runner", []rbacv1.PolicyRule{
		{APIGroups: []string{"snapshot.storage.k8s.io"}, Resources: []string{"volumesnapshots"}, Verbs: []string{"get", "list", "watch", "update", "patch", "delete"}},
		{APIGroups: []string{"snapshot.storage.k8s.io"}, Resources: []string{"volumesnapshots/status"}, Verbs: []string{"update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"get", "list", "watch", "update"}},
	}, "kube-system", "snapshot-controller", "")
	createWorkload(t, workloadSpec{ns: "kube-system", name: "snapshot-controller", sa: "snapshot-controller", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("kube-system").Delete(context.Background(), "snapshot-controller", metav1.DeleteOptions{})
	})
	group := "snapshot.storage.k8s.io"
	class := "csi-rbd"
	for _, name := range []string{"restored", "unrelated"} {
		snap := "snap-1"
		if name == "unrelated" {
			snap = "snap-2"
		}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "db"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			DataSource:       &corev1.TypedLocalObjectReference{APIGroup: &group, Kind: "VolumeSnapshot", Name: snap},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
		if _, err := kc.Kube.CoreV1().PersistentVolumeClaims("db").Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kc.Kube.CoreV1().PersistentVolumeClaims("db").Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	createStuck(t, snapGVR, "VolumeSnapshot", "db", "snap-1", "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection", nil,
		map[string]any{"source": map[string]any{"persistentVolumeClaimName": "data"}, "volumeSnapshotClassName": "csi-rbdplugin-snapclass"})
	out, _, code := run(t, "volumesnapshots.snapshot.storage.k8s.io", "snap-1", "-n", "db")

	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/snapshot-controller -n kube-system ready 1/1",
		"blocked by persistentvolumeclaims/restored -n db: refers to it by spec.dataSource",
		"fix 1: Delete persistentvolumeclaims/restored -n db if it may go",
		"verdict: STUCK (exit 1)",
	}, []string{"no blocker found", "persistentvolumeclaims/unrelated", "last resort"})
}

// A virtual disk whose deletion waits for the VirtualMachine it is still attached to: the
// controller's Deleting condition names the machine (replays the DeletionBlockedByProtection
// condition of https://github.com/deckhouse/virtualization/pull/2597, "still attached to
// VirtualMachine(s) (listed in the message)"). The machine holds the disk only in its status
// (a hot-plugged disk), so no spec reference finds it: the object's own word does. Before, the
// condition's fresh transition made this DELETING.
func TestObjectNamedInOwnCondition(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "d8-virtualization")
	ensureNamespace(t, "vms")
	diskGVR := applyCRD(t, crdSpec{group: "virtualization.deckhouse.io", kind: "VirtualDisk", plural: "virtualdisks", namespaced: true, versions: []string{"v1alpha2"}, status: true})
	vmGVR := applyCRD(t, crdSpec{group: "virtualization.deckhouse.io", kind: "VirtualMachine", plural: "virtualmachines", namespaced: true, versions: []string{"v1alpha2"}, status: true})
	grantClusterRole(t, "d8-virtualization-controller", []rbacv1.PolicyRule{
		{APIGroups: []string{"virtualization.deckhouse.io"}, Resources: []string{"virtualdisks", "virtualdisks/status", "virtualmachines", "virtualmachines/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
	}, "d8-virtualization", "virtualization-controller", "")
	createWorkload(t, workloadSpec{ns: "d8-virtualization", name: "virtualization-controller", sa: "virtualization-controller", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("d8-virtualization").Delete(context.Background(), "virtualization-controller", metav1.DeleteOptions{})
	})
	createObject(t, vmGVR, "VirtualMachine", "vms", "linux-vm", map[string]any{"runPolicy": "AlwaysOn", "virtualMachineClassName": "generic"})
	createObject(t, vmGVR, "VirtualMachine", "vms", "is", map[string]any{"runPolicy": "AlwaysOn"})
	createStuck(t, diskGVR, "VirtualDisk", "vms", "linux-vm-data", "virtualization.deckhouse.io/vd-protection", nil,
		map[string]any{"persistentVolumeClaim": map[string]any{"size": "10Gi"}})
	time.Sleep(1100 * time.Millisecond)
	now := time.Now().UTC().Format(time.RFC3339)
	patch := `{"status":{"phase":"Terminating","conditions":[{"type":"Deleting","status":"True","reason":"DeletionBlockedByProtection","message":"The virtual disk is still attached to VirtualMachine(s): linux-vm","lastTransitionTime":"` + now + `"}]}}`
	if _, err := kc.Dynamic.Resource(diskGVR).Namespace("vms").Patch(ctx, "linux-vm-data", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{FieldManager: "virtualization-controller"}, "status"); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "virtualdisks.virtualization.deckhouse.io", "linux-vm-data", "-n", "vms")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"condition Deleting: The virtual disk is still attached to VirtualMachine(s): linux-vm",
		"blocked by virtualmachines.virtualization.deckhouse.io/linux-vm -n vms: named by the object's own condition Deleting as what its deletion waits for",
		"fix 1: Delete virtualmachines.virtualization.deckhouse.io/linux-vm -n vms if it may go, or, if it must stay, detach it from virtualdisks.virtualization.deckhouse.io/linux-vm-data -n vms",
		"verdict: STUCK (exit 1)",
	}, []string{"deleting, not stuck", "virtualmachines.virtualization.deckhouse.io/is ", "last resort"})
}
