package finalizers

import (
	"strings"
	"testing"
)

// A domainless finalizer whose whole name is one candidate's name (or app label) ranks that
// candidate first and lists apart the ones sharing its service account; a candidate with its own
// account stays, and with no candidate named, or two, nothing changes.
func TestApartByFinalizerName(t *testing.T) {
	dep := func(name, sa string, labels map[string]string) (Controller, workload) {
		ref := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "kube-system", Name: name}
		return Controller{Object: ref, Found: true, Healthy: true, Confidence: ConfidenceHigh}, workload{ref: ref, serviceAccount: sa, labels: labels}
	}
	central, wc := dep("ovn-central", "ovn", map[string]string{"app": "ovn-central"})
	ctrl, wk := dep("kube-ovn-controller", "ovn", map[string]string{"app": "kube-ovn-controller"})
	cni, wn := dep("kube-ovn-cni", "kube-ovn-cni", map[string]string{"app": "kube-ovn-cni"})
	labelled, wl := dep("controller-7f9", "ovn", map[string]string{"app.kubernetes.io/name": "kube-ovn-controller"})
	byRef := map[string]workload{central.Object.String(): wc, ctrl.Object.String(): wk, cni.Object.String(): wn, labelled.Object.String(): wl}
	for _, tc := range []struct {
		name      string
		finalizer string
		tied      []Controller
		kept      string
		apart     string
	}{
		{"named by its name, co-tenant apart", "kube-ovn-controller", []Controller{central, ctrl}, "kube-ovn-controller", "ovn-central"},
		{"another account stays", "kube-ovn-controller", []Controller{cni, central, ctrl}, "kube-ovn-controller,kube-ovn-cni", "ovn-central"},
		{"named by its app label", "kube-ovn-controller", []Controller{central, labelled}, "controller-7f9", "ovn-central"},
		{"named by none", "subnet-protection", []Controller{central, ctrl}, "ovn-central,kube-ovn-controller", ""},
		{"named by two", "kube-ovn-controller", []Controller{ctrl, labelled}, "kube-ovn-controller,controller-7f9", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, apart := apartByFinalizerName(tc.tied, byRef, tc.finalizer, "subnets.kubeovn.io")
			names := func(cs []Controller) string {
				var out []string
				for _, c := range cs {
					out = append(out, c.Object.Name)
				}
				return strings.Join(out, ",")
			}
			if names(kept) != tc.kept || names(apart) != tc.apart {
				t.Fatalf("kept %q apart %q, want %q and %q", names(kept), names(apart), tc.kept, tc.apart)
			}
			for _, a := range apart {
				if !strings.Contains(a.Note, "shares its account") {
					t.Errorf("%s apart without saying why: %q", a.Object.Name, a.Note)
				}
			}
		})
	}
}
