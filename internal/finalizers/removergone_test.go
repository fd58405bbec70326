package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer of a product whose operator was uninstalled while a daemon of the same domain
// stayed (sriov-network-operator#132): the daemon acts on the product's own types, so the product
// "runs", but it may not even read the stuck object's type. The component that removed the
// finalizer is gone: reinstall it first, then the strip — not orphaned. When what runs may read
// the type (and still not update it), the finalizer stays orphaned; a broad read counts as a read.
func TestReaderGoneIsNotOrphaned(t *testing.T) {
	res := kinds.Resource{Group: "net.example.io", Version: "v1", Resource: "networks", Kind: "Network", Namespaced: true}
	fin := "netdef.finalizers.net.example.io"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "net-a", Namespace: "net-system", Finalizers: []string{fin}}}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("net.example.io", "networks"), crdObject("net.example.io", "nodestates")}
	nodeStates := rbacv1.PolicyRule{APIGroups: []string{"net.example.io"}, Resources: []string{"nodestates", "nodestates/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}
	for _, tc := range []struct {
		name     string
		rules    []rbacv1.PolicyRule
		orphaned bool
	}{
		{"the daemon may not read the type: its remover is gone", []rbacv1.PolicyRule{nodeStates}, false},
		{"the daemon reads the type: orphaned", []rbacv1.PolicyRule{nodeStates,
			{APIGroups: []string{"net.example.io"}, Resources: []string{"networks"}, Verbs: []string{"get", "list", "watch"}}}, true},
		{"a wildcard read counts as a read", []rbacv1.PolicyRule{nodeStates,
			{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"list"}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(controllerObjects("net-system", "net-config-daemon", tc.rules), crds...)
			f := x.knownOrCustom(context.Background(), o, fin)
			if f.Orphaned != tc.orphaned {
				t.Fatalf("orphaned = %v, want %v; reason %s, controllers %+v", f.Orphaned, tc.orphaned, finalizerReason(f), f.Controllers)
			}
			codes := remedyCodes(f.Remedies)
			ev := strings.Join(f.Controllers[0].Evidence, "\n")
			if tc.orphaned {
				if len(codes) != 1 || codes[0] != ReasonStripFinalizer || strings.Contains(ev, "may so much as read") {
					t.Errorf("remedies = %q, evidence %s", codes, ev)
				}
				return
			}
			if finalizerReason(f) != ReasonControllerAbsent {
				t.Errorf("reason = %s, want %s", finalizerReason(f), ReasonControllerAbsent)
			}
			if len(codes) != 2 || codes[0] != ReasonReinstallController || codes[1] != ReasonStripFinalizer || !f.Remedies[1].LastResort {
				t.Errorf("remedies = %q", codes)
			}
			if !strings.Contains(f.Remedies[0].Summary, "reconciles networks.net.example.io") {
				t.Errorf("reinstall step = %q", f.Remedies[0].Summary)
			}
			if !strings.Contains(ev, "deployments.apps/net-config-daemon -n net-system) may so much as read networks.net.example.io") {
				t.Errorf("evidence = %s", ev)
			}
		})
	}
}
