package finalizers

import (
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestLabelKeyTies(t *testing.T) {
	idx := &productIndex{crdGroups: map[string]bool{"core.oam.dev": true, "argoproj.io": true}}
	mk := func(name string, labels map[string]string) workload {
		return workload{ref: refFor(kindsDeployment(), "ns", name), labels: labels}
	}
	for _, c := range []struct {
		name   string
		w      workload
		domain string
		want   bool
	}{
		{"labels itself under a sibling of the domain", mk("kubevela-vela-core", map[string]string{"app.kubernetes.io/name": "vela-core", "controller.oam.dev/name": "vela-core"}), "app.oam.dev", true},
		{"the value names something else", mk("kubevela-vela-core", map[string]string{"app.kubernetes.io/name": "vela-core", "controller.oam.dev/name": "other"}), "app.oam.dev", false},
		{"a GitOps instance label under an installed group", mk("argocd", map[string]string{"argocd.argoproj.io/instance": "argocd"}), "resources-finalizer.argocd.argoproj.io", false},
		{"a key under a shared parent", mk("web", map[string]string{"app.kubernetes.io/name": "web"}), "kubernetes.io", false},
		{"a key outside the domain family", mk("web", map[string]string{"example.org/name": "web"}), "app.oam.dev", false},
	} {
		got := len(labelKeyTies(c.domain, c.w, idx)) > 0
		if got != c.want {
			t.Errorf("%s: tied %v, want %v", c.name, got, c.want)
		}
	}
}

func kindsDeployment() kinds.Resource {
	return kinds.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
}
