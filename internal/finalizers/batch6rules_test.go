package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

func kubeOnlyExplainer(objs ...runtime.Object) *Explainer {
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(objs...)}
	return New(c, kinds.NewCatalog(nil, nil))
}

var terraforms = kinds.Resource{Group: "infra.contrib.fluxcd.io", Version: "v1alpha1", Resource: "terraforms", Kind: "Terraform", Namespaced: true, Verbs: []string{"get", "list"}}

// A custom resource names the ServiceAccount its runner pod runs as (tofu-controller#300:
// spec.serviceAccountName tf-runner, absent from the object's namespace). It is a reference to
// look up; a Pod's own, a cluster-scoped object's and one in a namespace being deleted are not.
func TestRunAsReferences(t *testing.T) {
	spec := map[string]any{"serviceAccountName": "tf-runner", "sourceRef": map[string]any{"kind": "GitRepository", "name": "repo"},
		"runner": map[string]any{"serviceAccount": "runner-sa"}, "note": map[string]any{"serviceAccountName": "Not A Name"}}
	now := metav1.Now()
	for _, tc := range []struct {
		name string
		res  kinds.Resource
		ns   *corev1.Namespace
		objN string
		want []string
	}{
		{"a custom resource", terraforms, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, "default",
			[]string{"spec.runner.serviceAccount=serviceaccounts/runner-sa -n default", "spec.serviceAccountName=serviceaccounts/tf-runner -n default"}},
		{"a pod", podsResource, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, "default", nil},
		{"a namespace being deleted", terraforms, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}, "default", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := kubeOnlyExplainer(tc.ns)
			o := subject{res: tc.res, obj: &metav1.ObjectMeta{Name: "vpc", Namespace: tc.objN}}
			var got []string
			for _, r := range x.runAsReferences(context.Background(), o, spec) {
				got = append(got, r.path+"="+r.ref().String())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("references %q, want %q", got, tc.want)
			}
		})
	}
	d := danglingFor(outRef{path: "spec.serviceAccountName", res: serviceAccountResource, ns: "default", name: "tf-runner"}, refFor(serviceAccountResource, "default", "tf-runner"))
	if !d.restorable || !strings.Contains(d.reason, "refuses a pod that runs as a missing ServiceAccount") {
		t.Errorf("dangling ServiceAccount %+v, want it restorable and worded for the pods that cannot start", d)
	}
}

// The object's own work that failed leads the stalled verdict (terraform-operator#104: the
// init-delete pod the Terraform controls exited 1); pods it does not control, or that did not
// fail, say nothing.
func TestFailedCleanup(t *testing.T) {
	yes := true
	owned := func(name, uid string, st corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "infra",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "tf.isaaguilar.com/v1alpha1", Kind: "Terraform", Name: "bucket", UID: types.UID(uid), Controller: &yes}}}, Status: st}
	}
	exited := func(code int32) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "tf",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error"}}}}}
	}
	x := kubeOnlyExplainer(
		owned("bucket-v1-init-delete-8wz4n", "u1", exited(1)),
		owned("bucket-v1-setup-abcde", "u1", corev1.PodStatus{Phase: corev1.PodSucceeded}),
		owned("other-v1-init-delete-zzzzz", "u2", exited(1)),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "loose", Namespace: "infra"}, Status: exited(2)},
	)
	tfs := kinds.Resource{Group: "tf.isaaguilar.com", Version: "v1alpha1", Resource: "terraforms", Kind: "Terraform", Namespaced: true}
	o := subject{res: tfs, obj: &metav1.ObjectMeta{Name: "bucket", Namespace: "infra", UID: "u1"}}
	ev, reasons, fixes, gaps := x.failedCleanup(context.Background(), o)
	if len(gaps) > 0 {
		t.Fatalf("gaps %v", gaps)
	}
	if len(ev) != 1 || !strings.Contains(ev[0], "pods/bucket-v1-init-delete-8wz4n -n infra") || !strings.Contains(ev[0], "exited 1") {
		t.Errorf("evidence %q, want the failed pod the object controls, alone", ev)
	}
	if len(reasons) != 1 || len(fixes) != 1 || fixes[0].Code != ReasonReadControllerLogs || !strings.Contains(fixes[0].Command, "logs pod/bucket-v1-init-delete-8wz4n") {
		t.Errorf("reasons %q, fixes %+v, want one, reading that pod's logs", reasons, fixes)
	}
	f := Finalizer{Remedies: []Remediation{{Code: ReasonReadControllerLogs, Summary: "controller logs"}, {Code: ReasonStripFinalizer}}}
	s := &Stall{LikelyReasons: []string{"its controller does not handle this finalizer any more"}}
	withFailedCleanup(&f, s, ev, reasons, fixes)
	if f.Remedies[0].Command != fixes[0].Command || !strings.Contains(s.LikelyReasons[0], "failed") {
		t.Errorf("steps %+v, reasons %q, want the failed pod's logs and reason first", f.Remedies, s.LikelyReasons)
	}
}

// A child the object controls and that is not being deleted is not what its remover waits
// for (argo-workflows#13499: the WorkflowArtifactGCTask the Workflow owns); a child being
// deleted, a non-controller owner reference and a spec reference stay referrers.
func TestDropControlledChildren(t *testing.T) {
	yes, no := true, false
	now := metav1.Now()
	ref := func(name string, controller *bool, deleting bool, paths ...string) referrer {
		u := &unstructured.Unstructured{}
		u.SetName(name)
		u.SetOwnerReferences([]metav1.OwnerReference{{Name: "wf", UID: "u1", Controller: controller}})
		if deleting {
			u.SetDeletionTimestamp(&now)
		}
		return referrer{obj: u, paths: paths}
	}
	refs := []referrer{
		ref("task", &yes, false, "metadata.ownerReferences"),
		ref("terminating-child", &yes, true, "metadata.ownerReferences"),
		ref("not-controller", &no, false, "metadata.ownerReferences"),
		ref("by-spec-too", &yes, false, "metadata.ownerReferences", "spec.workflowRef"),
	}
	var got []string
	for _, r := range dropControlledChildren(refs, "u1") {
		got = append(got, r.obj.GetName())
	}
	if strings.Join(got, ",") != "terminating-child,not-controller,by-spec-too" {
		t.Errorf("kept %q", got)
	}
}

// Another component of the family (shipwright/operator#70: the Build controller, on
// shipwright.io) does not show that the controller of operator.shipwright.io runs; the
// workload acting on the own group does, and so does one that names the own group's
// distinctive label (tekton-triggers-controller for triggers.tekton.dev); a two-label own group
// (chains.tekton.dev's own group is tekton.dev) has no sibling.
func TestSiblingOnly(t *testing.T) {
	idx := &productIndex{crdGroups: map[string]bool{"operator.shipwright.io": true, "shipwright.io": true, "triggers.tekton.dev": true, "tekton.dev": true}}
	rb := &rbacObjects{clusterRoles: map[string][]rbacv1.PolicyRule{
		"build":     {{APIGroups: []string{"shipwright.io"}, Resources: []string{"buildruns"}, Verbs: []string{"update"}}},
		"operator":  {{APIGroups: []string{"operator.shipwright.io"}, Resources: []string{"shipwrightbuilds"}, Verbs: []string{"get"}}},
		"pipelines": {{APIGroups: []string{"tekton.dev"}, Resources: []string{"taskruns"}, Verbs: []string{"update"}}},
	}, roles: map[string][]rbacv1.PolicyRule{}}
	for _, n := range []string{"build", "operator", "pipelines"} {
		rb.crbs = append(rb.crbs, rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: n}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "sw", Name: n}}})
	}
	w := func(name, sa string) workload {
		return workload{ref: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "sw", Name: name}, serviceAccount: sa}
	}
	for _, tc := range []struct {
		name, domain string
		w            workload
		want         bool
	}{
		{"the Build controller", "finalizer.operator.shipwright.io", w("shipwright-build-controller", "build"), true},
		{"a workload acting on the own group", "finalizer.operator.shipwright.io", w("shipwright-build-controller", "operator"), false},
		{"a workload named for the own group's distinctive label", "triggers.tekton.dev", w("tekton-triggers-controller", "pipelines"), false},
		{"a two-label own group", "chains.tekton.dev", w("tekton-pipelines-controller", "build"), false},
	} {
		if line, got := siblingOnly(tc.domain, tc.w, idx, rb); got != tc.want || (got && !strings.Contains(line, "not on operator.shipwright.io itself")) {
			t.Errorf("%s: siblingOnly = %v (%q), want %v", tc.name, got, line, tc.want)
		}
	}
}

// The strip of an object whose spec names a target namespace leaves what its controller
// deployed there running (shipwright/operator#70); no target, or its own namespace, adds
// nothing.
func TestLeftDeployed(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "shipwright-build-controller", Namespace: "shipwright-build"}}
	for _, tc := range []struct {
		name string
		spec map[string]any
		ns   string
		want string
	}{
		{"a target namespace", map[string]any{"targetNamespace": "shipwright-build"}, "", "deployments.apps/shipwright-build-controller -n shipwright-build"},
		{"no target", map[string]any{}, "", ""},
		{"its own namespace", map[string]any{"targetNamespace": "shipwright-build"}, "shipwright-build", ""},
	} {
		x := kubeOnlyExplainer(dep)
		obj := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
		obj.SetNamespace(tc.ns)
		base := "left behind: whatever the controller would have cleaned up outside the cluster"
		e := &Explanation{Finalizers: []Finalizer{{Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: base}}}}}
		x.leftDeployed(context.Background(), e, obj)
		x.leftDeployed(context.Background(), e, obj)
		cost := e.Finalizers[0].Remedies[0].Cost
		switch {
		case tc.want == "" && cost != base:
			t.Errorf("%s: cost %q, want it unchanged", tc.name, cost)
		case tc.want != "" && (!strings.Contains(cost, tc.want) || strings.Count(cost, tc.want) != 1):
			t.Errorf("%s: cost %q, want %s named once", tc.name, cost, tc.want)
		}
	}
}
