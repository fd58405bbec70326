package finalizers

import "testing"

func TestFinalizerDomain(t *testing.T) {
	checkAll(t, "finalizerDomain", finalizerDomain, []expect[string, string]{
		{"tailscale.com/finalizer", "tailscale.com"},
		{"finalizers.fluxcd.io", "finalizers.fluxcd.io"},
		{"operatorkit.giantswarm.io/aws-operator-cluster-controller", "operatorkit.giantswarm.io"},
		{"foregroundDeleteVirtualMachine", ""},
		{"kubernetes", ""},
		{"wrangler/cleanup", ""},
		// Names alone, as the corpus's products write them: the whole name when it is a DNS
		// subdomain, else the labels after the first, else none.
		{"hnc.x-k8s.io", "hnc.x-k8s.io"},
		{"finalizer.flagger.app", "finalizer.flagger.app"},
		{"partitions.finalizer.fluvio.infinyon.com", "partitions.finalizer.fluvio.infinyon.com"},
		{"tunnelEndpointCreator-Finalizer.liqonet.liqo.io", "liqonet.liqo.io"},
		{"routeOperator-worker-1-Finalizer.liqonet.liqo.io", "liqonet.liqo.io"},
		{"tunnelEndpointFinalizer.liqonet.liqo.io", "liqonet.liqo.io"},
		{"Some_Finalizer.cleanup", ""},
		{"Finalizer.v1", ""},
		{"cleanup.x", ""},
		{"foo.-bad-.io", ""},
		{"UPPER.Example.COM", ""},
		// A prefix is the grammar's DNS subdomain, whatever follows.
		{"wrangler.cattle.io/VMController.UnsetOwnerOfPVCs", "wrangler.cattle.io"},
		{"kubernetes.io/pvc-protection", "kubernetes.io"},
	})
}

func TestGroupTie(t *testing.T) {
	for _, tc := range []struct {
		name, domain, group string
		want                Confidence
	}{
		{"same", "tailscale.com", "tailscale.com", ConfidenceHigh},
		{"group is a parent", "resources-finalizer.argocd.argoproj.io", "argoproj.io", ConfidenceHigh},
		{"group is a subdomain", "cnpg.io", "postgresql.cnpg.io", ConfidenceHigh},
		{"shared parent", "operatorkit.giantswarm.io", "infrastructure.giantswarm.io", ConfidenceMedium},
		{"subdomain under x-k8s.io", "cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io", ConfidenceHigh},
		{"only a shared hosting parent", "snapshot.storage.k8s.io", "metrics.k8s.io", ConfidenceNone},
		{"sibling under x-k8s.io", "karpenter.x-k8s.io", "cluster.x-k8s.io", ConfidenceNone},
		{"unrelated", "tailscale.com", "elbv2.k8s.aws", ConfidenceNone},
		{"database operator vs load balancer", "acid.zalan.do", "elbv2.k8s.aws", ConfidenceNone},
		{"no domain", "", "argoproj.io", ConfidenceNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := groupTie(tc.domain, tc.group); got != tc.want {
				t.Errorf("groupTie(%q, %q) = %q, want %q", tc.domain, tc.group, got, tc.want)
			}
		})
	}
}

func TestNamesDomain(t *testing.T) {
	tokens := domainTokens("operatorkit.giantswarm.io")
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"quay.io/giantswarm/aws-operator", true},
		{"giantswarm", true},
		{"aws-operator", false},
		{"kube-system", false},
		{"operator-v1", false},
	} {
		if _, got := namesDomain(tc.s, tokens); got != tc.want {
			t.Errorf("namesDomain(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	if got := imageName("registry.example/x/aws-operator:v1.2@sha256:abc"); got != "registry.example/x/aws-operator" {
		t.Errorf("imageName = %q", got)
	}
	if got := imageName("localhost:5000/op"); got != "localhost:5000/op" {
		t.Errorf("imageName with a port = %q", got)
	}
}

func TestIsPauseKey(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"cluster.x-k8s.io/paused", "", true},
		{"crossplane.io/paused", "true", true},
		{"crossplane.io/paused", "false", false},
		{"argocd.argoproj.io/skip-reconcile", "true", true},
		{"kustomize.toolkit.fluxcd.io/reconcile", "disabled", true},
		{"kustomize.toolkit.fluxcd.io/reconcile", "enabled", false},
		{"reconcile.fluxcd.io/requestedAt", "2026-12-02T01:00:00Z", false},
		{"ceph.rook.io/do-not-reconcile", "", true},
		{"example.com/pause-reconciliation", "yes", true},
		{"batch.example.io/suspend", "true", true},
		{"app.kubernetes.io/name", "pause", false},
		{"kubectl.kubernetes.io/last-applied-configuration", "{}", false},
	} {
		if got := isPauseKey(tc.key, tc.value); got != tc.want {
			t.Errorf("isPauseKey(%q, %q) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
}
