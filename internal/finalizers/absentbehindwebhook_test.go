package finalizers

import "testing"

// A fail-closed webhook refusing the finalizer's removal holds it only while a remover is
// installed: with every candidate absent the verdict is controller-absent, and the webhook stays
// a blocker. Any other blocker, or an installed candidate, keeps blocked-by-objects.
func TestOnlyRemovalRefusedVerdict(t *testing.T) {
	hook := Blocker{Code: ReasonWebhookRejectsUpdate, Object: ObjectRef{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Name: "v"}}
	claim := Blocker{Code: ReasonPVCProtectionPod, Object: ObjectRef{Resource: "pods", Namespace: "ns", Name: "p"}}
	absent := Controller{Object: ObjectRef{Resource: "serviceaccounts", Namespace: "gone", Name: "op"}}
	present := Controller{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "op", Name: "op"}, Found: true, Healthy: false}
	for _, tc := range []struct {
		name string
		f    Finalizer
		want string
	}{
		{"webhook, no remover installed", Finalizer{Blockers: []Blocker{hook}, Controllers: []Controller{absent}}, string(ReasonControllerAbsent)},
		{"webhook, remover installed", Finalizer{Blockers: []Blocker{hook}, Controllers: []Controller{present}}, string(ReasonBlockedByObjects)},
		{"webhook and another blocker", Finalizer{Blockers: []Blocker{hook, claim}, Controllers: []Controller{absent}}, string(ReasonBlockedByObjects)},
		{"webhook, no candidate at all", Finalizer{Blockers: []Blocker{hook}}, string(ReasonBlockedByObjects)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(finalizerReason(tc.f)); got != tc.want {
				t.Errorf("verdict %s, want %s", got, tc.want)
			}
		})
	}
}
