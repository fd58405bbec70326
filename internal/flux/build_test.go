package flux

import (
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ks builds a Kustomization in flux-system with a Ready condition ("" for none).
func ks(name, status, reason, msg string, deps ...string) kustomizev1.Kustomization {
	k := kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "flux-system"},
		TypeMeta: metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind}}
	k.Spec.SourceRef = kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "repo"}
	for _, d := range deps {
		k.Spec.DependsOn = append(k.Spec.DependsOn, meta.DependencyReference{Name: d})
	}
	if status != "" {
		k.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}}
	}
	k.Status.LastAppliedRevision = "main@sha1:1"
	return k
}

func objects(list ...kustomizev1.Kustomization) *Objects {
	return &Objects{Kustomizations: list, KStatus: map[string]string{},
		Sources: map[string]SourceObject{"GitRepository/flux-system/repo": {Revision: "main@sha1:1", Ready: &Condition{Status: "True"}}}}
}

const waitApps = "dependency 'flux-system/apps' is not ready"

func TestBuild(t *testing.T) {
	health := "health check failed after 20m0s: timeout waiting for: [PersistentVolumeClaim/headlamp/headlamp status: 'Terminating']"
	cases := []struct {
		name       string
		objs       *Objects
		tiers      [][]string
		causes     map[string][]string // root cause -> blast radius
		findings   []FindingKind
		unaffected []string
	}{
		{"seed chain", objects(
			ks("flux-system", "True", "ReconciliationSucceeded", ""),
			ks("infra", "True", "ReconciliationSucceeded", "", "flux-system"),
			ks("apps", "False", "HealthCheckFailed", health, "infra"),
			ks("leaf-a", "False", "DependencyNotReady", waitApps, "apps"),
			ks("leaf-b", "False", "DependencyNotReady", waitApps, "apps"),
			ks("other", "True", "ReconciliationSucceeded", "", "flux-system")),
			[][]string{{"flux-system/flux-system"}, {"flux-system/infra", "flux-system/other"}, {"flux-system/apps"}, {"flux-system/leaf-a", "flux-system/leaf-b"}},
			map[string][]string{"flux-system/apps": {"flux-system/leaf-a", "flux-system/leaf-b"}},
			nil,
			[]string{"flux-system/flux-system", "flux-system/infra", "flux-system/other"}},
		{"waiter behind waiter", objects(
			ks("a", "False", "BuildFailed", "kustomize build failed"),
			ks("b", "False", "DependencyNotReady", "dependency 'flux-system/a' is not ready", "a"),
			ks("c", "False", "DependencyNotReady", "dependency 'flux-system/b' is not ready", "b")),
			[][]string{{"flux-system/a"}, {"flux-system/b"}, {"flux-system/c"}},
			map[string][]string{"flux-system/a": {"flux-system/b", "flux-system/c"}},
			nil, []string{}},
		{"cycle", objects(
			ks("a", "False", "DependencyNotReady", "dependency 'flux-system/b' is not ready", "b"),
			ks("b", "False", "DependencyNotReady", "dependency 'flux-system/a' is not ready", "a")),
			nil,
			map[string][]string{"flux-system/a": {"flux-system/a", "flux-system/b"}},
			[]FindingKind{FindingCycle}, []string{}}, // one finding and one cause for the cycle, not one per member (issue 25)
		{"missing dependency", objects(
			ks("a", "False", "DependencyNotReady", "dependency 'flux-system/gone' not found", "gone")),
			[][]string{{"flux-system/a"}},
			map[string][]string{"flux-system/a": {}},
			[]FindingKind{FindingMissingDependency}, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Build(tc.objs)
			if tc.tiers != nil {
				if diff := cmp.Diff(tc.tiers, c.Tiers); diff != "" {
					t.Errorf("tiers (-want +got):\n%s", diff)
				}
			}
			got := map[string][]string{}
			for _, rc := range c.RootCauses {
				got[rc.Kustomization] = rc.BlastRadius
			}
			if diff := cmp.Diff(tc.causes, got); diff != "" {
				t.Errorf("root causes (-want +got):\n%s", diff)
			}
			var kinds []FindingKind
			for _, f := range c.Findings {
				kinds = append(kinds, f.Kind)
			}
			if diff := cmp.Diff(tc.findings, kinds); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.unaffected, c.Unaffected); diff != "" {
				t.Errorf("unaffected (-want +got):\n%s", diff)
			}
		})
	}
}
