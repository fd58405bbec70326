package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A service account no workload runs as is "gone" (a candidate to reinstall) only while no pod
// runs as it: running per-object pods (a game server's, owned by its custom resource) make it
// neither gone nor a controller, and it is listed apart; a pod that is not running, or another
// account's, changes nothing.
func TestWithoutPodOnlyAccounts(t *testing.T) {
	yes := true
	pod := func(name, sa string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "games.example.io/v1", Kind: "GameServer", Name: name, Controller: &yes}}},
			Spec: corev1.PodSpec{ServiceAccountName: sa}, Status: corev1.PodStatus{Phase: phase}}
	}
	sdk := Controller{Object: ObjectRef{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespace: "default", Name: "sdk"}}
	ctrl := Controller{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "games", Name: "controller"}, Found: true, Healthy: true}
	for _, tc := range []struct {
		name     string
		pods     []runtime.Object
		cands    []Controller
		ok       bool
		kept     int
		apartMsg string
	}{
		{"its per-object pods run", []runtime.Object{pod("gs-1", "sdk", corev1.PodRunning)}, []Controller{ctrl, sdk}, true, 1, "owned by GameServer"},
		{"the only candidate", []runtime.Object{pod("gs-1", "sdk", corev1.PodRunning)}, []Controller{sdk}, false, 0, "owned by GameServer"},
		{"no pod runs as it", []runtime.Object{pod("gs-1", "sdk", corev1.PodSucceeded), pod("gs-2", "other", corev1.PodRunning)}, []Controller{ctrl, sdk}, true, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(tc.pods...)}, kinds.NewCatalog(nil, nil))
			a, ok, gaps := x.withoutPodOnlyAccounts(context.Background(), attribution{controllers: tc.cands}, "gameservers.games.example.io")
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			if ok != tc.ok || len(a.controllers) != tc.kept {
				t.Fatalf("ok %v, kept %d (%+v); want %v, %d", ok, len(a.controllers), a.controllers, tc.ok, tc.kept)
			}
			if tc.apartMsg == "" && len(a.unrelated) > 0 || tc.apartMsg != "" && (len(a.unrelated) != 1 || !strings.Contains(a.unrelated[0].Note, tc.apartMsg)) {
				t.Errorf("apart %+v, want one noting %q", a.unrelated, tc.apartMsg)
			}
		})
	}
}

// Candidates without the finalizers subresource are listed apart only when the first one has it.
func TestApartWithoutFinalizerRight(t *testing.T) {
	c := func(name string) Controller {
		return Controller{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "p", Name: name}, Found: true}
	}
	tied := []Controller{c("controller"), c("allocator"), c("webhook")}
	fin := map[string]bool{tied[0].Object.String(): true, tied[2].Object.String(): true}
	kept, apart := apartWithoutFinalizerRight(tied, fin, "things.example.io")
	if len(kept) != 2 || kept[1].Object.Name != "webhook" || len(apart) != 1 || apart[0].Object.Name != "allocator" {
		t.Errorf("kept %+v, apart %+v", kept, apart)
	}
	if kept, apart := apartWithoutFinalizerRight(tied, map[string]bool{tied[1].Object.String(): true}, "things.example.io"); len(kept) != 3 || len(apart) != 0 {
		t.Errorf("the first without the right: kept %d, apart %d; want all kept", len(kept), len(apart))
	}
}

// A UI that may edit the objects is listed apart while a reconciler of the product runs beside
// it; alone, it stays the candidate.
func TestApartServingPeople(t *testing.T) {
	mk := func(name, component string) (Controller, workload) {
		ref := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "chaos", Name: name}
		return Controller{Object: ref, Found: true}, workload{ref: ref, labels: map[string]string{"app.kubernetes.io/component": component}}
	}
	cm, cmw := mk("chaos-controller-manager", "controller-manager")
	dash, dashw := mk("chaos-dashboard", "chaos-dashboard")
	ui, uiw := mk("argo-ui", "server")
	ws := []workload{cmw, dashw, uiw}
	a := withoutPeopleServers(attribution{controllers: []Controller{dash, cm, ui}}, ws, "iochaos.chaos.example.io")
	if len(a.controllers) != 1 || a.controllers[0].Object.Name != "chaos-controller-manager" || len(a.unrelated) != 2 {
		t.Errorf("controllers %+v, unrelated %+v; want the controller manager alone", a.controllers, a.unrelated)
	}
	if a := withoutPeopleServers(attribution{controllers: []Controller{dash}}, ws, "iochaos.chaos.example.io"); len(a.controllers) != 1 || len(a.unrelated) != 0 {
		t.Errorf("a UI alone stays the candidate: %+v", a)
	}
}
