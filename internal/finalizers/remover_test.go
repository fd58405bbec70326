package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// controllerObjects is one replayed controller: a Deployment with one ready replica running as
// a service account a ClusterRole with rules is bound to.
func controllerObjects(ns, name string, rules []rbacv1.PolicyRule) []runtime.Object {
	one := int32(1)
	labels := map[string]string{"app.kubernetes.io/name": name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{ServiceAccountName: name,
				Containers: []corev1.Container{{Name: "c", Image: "registry.example/" + name + ":v1"}}}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}}}
	return []runtime.Object{d,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: name},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: name}}}}
}

func crdObject(group, plural string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural}}}
}

// fakeExplainer is an Explainer over client-go's fakes: for the ranking rules alone, which the
// integration tests check on the real control plane.
func fakeExplainer(kube []runtime.Object, crds ...*apiextensionsv1.CustomResourceDefinition) *Explainer {
	return fakeExplainerWith(kube, crds, nil)
}

// fakeExplainerWith is fakeExplainer with custom resources served by the dynamic fake, listed
// as the kinds lists names.
func fakeExplainerWith(kube []runtime.Object, crds []*apiextensionsv1.CustomResourceDefinition, lists map[schema.GroupVersionResource]string, dyn ...runtime.Object) *Explainer {
	all := map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList", apiServiceGVR: "APIServiceList"}
	for gvr, kind := range lists {
		all[gvr] = kind
	}
	var ext []runtime.Object
	for _, c := range crds {
		ext = append(ext, c)
	}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(kube...),
		APIExtensions: apiextensionsfake.NewSimpleClientset(ext...),
		Dynamic:       dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), all, dyn...),
		Metadata:      metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())}
	return New(c, kinds.NewCatalog(nil, nil))
}

// A database operator's finalizer on a Service (Zalando's postgres-operator.acid.zalan.do) is
// never attributed to a load balancer controller that merely may update Services.
func TestJudgeDomainPrefersTheDomainsController(t *testing.T) {
	services := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "update", "patch"}}
	lb := controllerObjects("kube-system", "aws-load-balancer-controller", []rbacv1.PolicyRule{services,
		{APIGroups: []string{"elbv2.k8s.aws"}, Resources: []string{"targetgroupbindings"}, Verbs: []string{"*"}}})
	pg := controllerObjects("postgres", "postgres-operator", []rbacv1.PolicyRule{services,
		{APIGroups: []string{"acid.zalan.do"}, Resources: []string{"postgresqls"}, Verbs: []string{"*"}}})
	svcRes := kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	o := subject{res: svcRes, obj: &metav1.ObjectMeta{Name: "acid-main", Namespace: "db", Finalizers: []string{"postgres-operator.acid.zalan.do"}}}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("acid.zalan.do", "postgresqls"), crdObject("elbv2.k8s.aws", "targetgroupbindings")}
	name := "postgres-operator.acid.zalan.do"

	t.Run("the domain's controller runs", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), lb...), pg...), crds...)
		a, gaps := x.attribute(context.Background(), o, nil)
		a, more := x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(gaps)+len(more) > 0 {
			t.Fatalf("gaps: %v %v", gaps, more)
		}
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "postgres-operator" || a.controllers[0].Confidence != ConfidenceHigh {
			t.Fatalf("controllers = %+v", a.controllers)
		}
		if len(a.unrelated) != 1 || a.unrelated[0].Object.Name != "aws-load-balancer-controller" || a.dead {
			t.Fatalf("unrelated = %+v, dead %v", a.unrelated, a.dead)
		}
		if !strings.Contains(strings.Join(a.controllers[0].Ties, "\n"), "custom resources of acid.zalan.do") {
			t.Errorf("ties = %v", a.controllers[0].Ties)
		}
	})
	t.Run("no controller of the domain is installed", func(t *testing.T) {
		x := fakeExplainer(lb, crds...)
		a, _ := x.attribute(context.Background(), o, nil)
		a, _ = x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(a.controllers) != 1 || a.controllers[0].Found || !a.dead || !a.noTie {
			t.Fatalf("controllers = %+v, dead %v", a.controllers, a.dead)
		}
		if !strings.Contains(a.summary, "no controller of the finalizer's domain postgres-operator.acid.zalan.do is installed") {
			t.Errorf("summary = %q", a.summary)
		}
		if len(a.unrelated) != 1 {
			t.Errorf("unrelated = %+v", a.unrelated)
		}
	})
}

// A pause marker replaces "read its logs" and the strip with the command that unpauses.
func TestApplyPauseOffersUnpauseNeverStrip(t *testing.T) {
	x := fakeExplainer(nil)
	res := kinds.Resource{Group: "monitoring.coreos.com", Version: "v1", Resource: "thanosrulers", Kind: "ThanosRuler", Namespaced: true}
	meta := &metav1.ObjectMeta{Name: "ruler", Namespace: "monitoring", Annotations: map[string]string{"example.com/skip-reconcile": "true"}}
	body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"paused": true}}}
	e := &Explanation{Finalizers: []Finalizer{{Name: "monitoring.coreos.com/status-cleanup", Controllers: []Controller{{Found: true, Healthy: true}},
		Remedies: []Remediation{{Code: ReasonReadControllerLogs}, {Code: ReasonStripFinalizer, LastResort: true}}}}}
	x.applyPause(context.Background(), subject{res: res, obj: meta}, e, body)
	f := e.Finalizers[0]
	if len(f.Paused) != 2 || finalizerReason(f) != ReasonReconcilePaused {
		t.Fatalf("paused = %+v, reason %s", f.Paused, finalizerReason(f))
	}
	var cmds []string
	for _, r := range f.Remedies {
		if r.Code != ReasonUnpause {
			t.Errorf("remedy %s kept", r.Code)
		}
		cmds = append(cmds, r.Command)
	}
	got := strings.Join(cmds, "\n")
	for _, want := range []string{
		"kubectl --context=test -n monitoring annotate thanosrulers.monitoring.coreos.com ruler example.com/skip-reconcile-",
		`kubectl --context=test -n monitoring patch thanosrulers.monitoring.coreos.com ruler --type=merge -p '{"spec":{"paused":false}}'`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("commands lack %q:\n%s", want, got)
		}
	}
}

// A finalizer no workload may remove while its product runs is orphaned: the one fix is the
// guarded removal of that entry.
func TestOrphanedFinalizerFix(t *testing.T) {
	op := controllerObjects("giantswarm", "aws-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"infrastructure.giantswarm.io"}, Resources: []string{"awsclusters"}, Verbs: []string{"*"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}})
	x := fakeExplainer(op, crdObject("infrastructure.giantswarm.io", "awsclusters"))
	fin := "operatorkit.giantswarm.io/aws-operator-cluster-controller"
	res := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "x7k2p-api", Namespace: "x7k2p", Finalizers: []string{"other.example.com/keep", fin}}}
	f := x.knownOrCustom(context.Background(), o, fin)
	if !f.Orphaned || finalizerReason(f) != ReasonFinalizerOrphaned {
		t.Fatalf("orphaned = %v, reason %s, controllers %+v", f.Orphaned, finalizerReason(f), f.Controllers)
	}
	if len(f.Remedies) != 1 || f.Remedies[0].LastResort || f.Remedies[0].Code != ReasonStripFinalizer {
		t.Fatalf("remedies = %+v", f.Remedies)
	}
	if want := `[{"op":"test","path":"/metadata/finalizers/1","value":"` + fin + `"},{"op":"remove","path":"/metadata/finalizers/1"}]`; !strings.Contains(f.Remedies[0].Command, want) {
		t.Errorf("command %q lacks %q", f.Remedies[0].Command, want)
	}
	if ev := strings.Join(f.Controllers[0].Evidence, "\n"); !strings.Contains(ev, "deployments.apps/aws-operator -n giantswarm is of the finalizer's domain operatorkit.giantswarm.io (medium confidence") {
		t.Errorf("evidence = %s", ev)
	}
}

// An IstioOperator keeps istio-finalizer.install.istio.io after the Istio operator was removed
// (istio/istio#18815, istio/istio#29451: the operator's namespace went first), while istiod,
// a product of the sibling groups networking.istio.io and security.istio.io, still runs and may
// update nothing of install.istio.io. The types of the finalizer's own domain are installed
// and no workload acts on them: the controller is absent (reinstall, or strip with the cost),
// not a running product's orphaned finalizer.
func TestSiblingProductDoesNotMakeTheFinalizerOrphaned(t *testing.T) {
	istiod := controllerObjects("istio-system", "istiod", []rbacv1.PolicyRule{
		{APIGroups: []string{"networking.istio.io", "security.istio.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}})
	operator := controllerObjects("istio-operator", "istio-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"install.istio.io"}, Resources: []string{"istiooperators", "istiooperators/finalizers"}, Verbs: []string{"*"}}})
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("install.istio.io", "istiooperators"), crdObject("networking.istio.io", "virtualservices"),
		crdObject("security.istio.io", "peerauthentications")}
	res := kinds.Resource{Group: "install.istio.io", Version: "v1alpha1", Resource: "istiooperators", Kind: "IstioOperator", Namespaced: true}
	fin := "istio-finalizer.install.istio.io"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "installed-state", Namespace: "istio-system", Finalizers: []string{fin}}}

	t.Run("only the sibling runs", func(t *testing.T) {
		x := fakeExplainer(istiod, crds...)
		f := x.knownOrCustom(context.Background(), o, fin)
		if f.Orphaned || finalizerReason(f) != ReasonControllerAbsent {
			t.Fatalf("orphaned = %v, reason %s, controllers %+v", f.Orphaned, finalizerReason(f), f.Controllers)
		}
		if ev := strings.Join(f.Controllers[0].Evidence, "\n"); !strings.Contains(ev, "deployments.apps/istiod -n istio-system is tied to the finalizer's domain istio-finalizer.install.istio.io only loosely") {
			t.Errorf("evidence = %s", ev)
		}
		codes := remedyCodes(f.Remedies)
		if len(codes) != 2 || codes[0] != ReasonReinstallController || codes[1] != ReasonStripFinalizer || !f.Remedies[1].LastResort {
			t.Errorf("remedies = %q", codes)
		}
	})
	t.Run("the domain's own controller is installed", func(t *testing.T) {
		// Scaled so that it may not update the object, it still shows the product is there: with
		// RBAC that lacks the rights, the finalizer is the running product's orphan.
		op := controllerObjects("istio-operator", "istio-operator", []rbacv1.PolicyRule{
			{APIGroups: []string{"install.istio.io"}, Resources: []string{"istiooperators"}, Verbs: []string{"get", "list", "watch"}}})
		x := fakeExplainer(append(append([]runtime.Object(nil), istiod...), op...), crds...)
		f := x.knownOrCustom(context.Background(), o, fin)
		if !f.Orphaned {
			t.Fatalf("orphaned = %v, reason %s, controllers %+v", f.Orphaned, finalizerReason(f), f.Controllers)
		}
	})
	t.Run("the domain's controller may remove it", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), istiod...), operator...), crds...)
		f := x.knownOrCustom(context.Background(), o, fin)
		if len(f.Controllers) != 1 || f.Controllers[0].Object.Name != "istio-operator" || !f.Controllers[0].Healthy {
			t.Fatalf("controllers = %+v", f.Controllers)
		}
	})
}

func remedyCodes(rs []Remediation) []report.Reason {
	var out []report.Reason
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

// Strimzi's cluster operator deploys each Kafka cluster's entity operator (its Deployment owned
// by the Kafka custom resource, labelled app.kubernetes.io/managed-by=strimzi-cluster-operator)
// and has every right on kafka.strimzi.io; the topic operator inside the entity operator is what
// removes strimzi.io/topic-operator (strimzi/strimzi-kafka-operator#11901). Both are tied to the
// domain with high confidence; the installed controller is the remover, the installer is ranked
// below it as "installs the remover", whatever its broader rights.
func TestInstallerRankedBelowTheControllerItInstalls(t *testing.T) {
	co := controllerObjects("kafka", "strimzi-cluster-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"kafka.strimzi.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"*"}}})
	eo := controllerObjects("kafka", "my-cluster-entity-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"kafka.strimzi.io"}, Resources: []string{"kafkatopics", "kafkatopics/status", "kafkausers", "kafkausers/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}})
	d := eo[0].(*appsv1.Deployment)
	d.Labels = map[string]string{"app.kubernetes.io/managed-by": "strimzi-cluster-operator", "strimzi.io/cluster": "my-cluster"}
	d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "kafka.strimzi.io/v1beta2", Kind: "Kafka", Name: "my-cluster", UID: "u1"}}
	res := kinds.Resource{Group: "kafka.strimzi.io", Version: "v1beta2", Resource: "kafkatopics", Kind: "KafkaTopic", Namespaced: true}
	fin := "strimzi.io/topic-operator"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "orders", Namespace: "kafka", Finalizers: []string{fin}}}
	x := fakeExplainer(append(append([]runtime.Object(nil), co...), eo...), crdObject("kafka.strimzi.io", "kafkas"), crdObject("kafka.strimzi.io", "kafkatopics"))
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, fin, nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if len(a.controllers) != 2 || a.controllers[0].Object.Name != "my-cluster-entity-operator" || a.controllers[1].Object.Name != "strimzi-cluster-operator" {
		t.Fatalf("controllers = %+v", a.controllers)
	}
	if ev := strings.Join(a.controllers[1].Evidence, "\n"); !strings.Contains(ev, "installs the remover deployments.apps/my-cluster-entity-operator -n kafka") {
		t.Errorf("installer evidence = %s", ev)
	}
	if !strings.HasPrefix(a.controllers[1].Note, "installs the remover") {
		t.Errorf("installer note = %q", a.controllers[1].Note)
	}
}
