package finalizers

import (
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestOutsideAdder(t *testing.T) {
	ws := []workload{{ref: ObjectRef{Group: "apps", Kind: "Deployment", Resource: "deployments", Namespace: "koordinator-system", Name: "koord-manager"}}}
	if got := judgeAdder([]string{"kubectl-patch", "job-platform"}, "job-platform.acme.io", nil, ws).gone; got != "job-platform" {
		t.Errorf("judgeAdder(...).gone = %q, want job-platform (names the domain, no workload answers to it)", got)
	}
	if got := judgeAdder([]string{"koord-manager"}, "koord-manager.acme.io", nil, ws).gone; got != "" {
		t.Errorf("judgeAdder(...).gone = %q, want none: a workload answers to the manager", got)
	}
	if got := judgeAdder([]string{"kubectl-edit"}, "job-platform.acme.io", nil, ws).gone; got != "" {
		t.Errorf("judgeAdder(...).gone = %q, want none: the manager names nothing of the domain", got)
	}
	served := []kinds.Resource{{Group: "rds.services.k8s.aws", Resource: "dbinstances"}, {Group: "", Resource: "pods"}}
	for domain, want := range map[string]bool{
		"finalizers.rds.services.k8s.aws": true,
		"rds.services.k8s.aws":            true,
		"job-platform.acme.io":            false,
		"services.k8s.aws":                true,
	} {
		if got := domainServed(served, domain); got != want {
			t.Errorf("domainServed(%q) = %v, want %v", domain, got, want)
		}
	}
}
