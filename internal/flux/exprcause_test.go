package flux

import (
	"slices"
	"strings"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lockstepHR is the readyExpr of helm-controller's documentation and of the pull request that
// introduced it (https://github.com/fluxcd/helm-controller/pull/1271).
const lockstepHR = `dep.spec.values.app.version == self.spec.values.app.version &&
dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') &&
dep.metadata.generation == dep.status.observedGeneration`

// helmRelease is a HelmRelease in flux-system applied by the Kustomization apps, at app
// version v, with a Ready condition ("" for none).
func helmRelease(name, version, status, reason, msg string) helmv2.HelmRelease {
	hr := helmv2.HelmRelease{
		TypeMeta: metav1.TypeMeta{APIVersion: helmv2.GroupVersion.String(), Kind: helmv2.HelmReleaseKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "flux-system", Generation: 1,
			Labels: map[string]string{ownerNameLabel: "apps", ownerNamespaceLabel: "flux-system"}},
	}
	hr.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(`{"app":{"version":"` + version + `"}}`)}
	hr.Status.ObservedGeneration = 1
	if status != "" {
		hr.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}}
	}
	return hr
}

func dependsOn(hr helmv2.HelmRelease, dep, expr string) helmv2.HelmRelease {
	hr.Spec.DependsOn = append(hr.Spec.DependsOn, meta.DependencyReference{Name: dep, ReadyExpr: expr})
	return hr
}

func TestHelmReleaseReadyExpr(t *testing.T) {
	byExpr := "dependency 'flux-system/backend' is not ready according to readyExpr eval"
	health := "health check failed after 5m0s: timeout waiting for: [HelmRelease/flux-system/frontend status: 'InProgress']"
	backend := helmRelease("backend", "v1.2.3", "True", "UpgradeSucceeded", "")
	cases := []struct {
		name     string
		apps     string // the Ready reason of the Kustomization that applies both
		frontend helmv2.HelmRelease
		reason   string   // of the one root cause, "" for none
		tiers    []string // of that cause
		gaps     int
	}{
		{"false, the tier's health check waits for it", "HealthCheckFailed",
			dependsOn(helmRelease("frontend", "v1.2.4", "False", "DependencyNotReady", byExpr), "backend", lockstepHR),
			ReasonReadyExprFalse, []string{"flux-system/apps"}, 0},
		{"false, the tier does not wait", "ReconciliationSucceeded",
			dependsOn(helmRelease("frontend", "v1.2.4", "False", "DependencyNotReady", byExpr), "backend", lockstepHR),
			ReasonReadyExprFalse, nil, 0},
		{"true: no cause", "ReconciliationSucceeded",
			dependsOn(helmRelease("frontend", "v1.2.3", "False", "DependencyNotReady", byExpr), "backend", lockstepHR),
			"", nil, 0},
		{"not waiting: not evaluated", "ReconciliationSucceeded",
			dependsOn(helmRelease("frontend", "v1.2.4", "True", "UpgradeSucceeded", ""), "backend", lockstepHR),
			"", nil, 0},
		{"a dependency that was not read", "ReconciliationSucceeded",
			dependsOn(helmRelease("frontend", "v1.2.4", "False", "DependencyNotReady", "unable to get 'flux-system/gone' dependency"), "gone", lockstepHR),
			ReasonReadyExprUnevaluated, nil, 1},
		{"a missing field", "HealthCheckFailed",
			dependsOn(helmRelease("frontend", "v1.2.4", "False", "DependencyNotReady", "no such key: replicas"), "backend", "dep.status.replicas == 3"),
			ReasonReadyExprUnevaluated, []string{"flux-system/apps"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			apps := ks("apps", "True", tc.apps, "")
			if tc.apps == "HealthCheckFailed" {
				apps = ks("apps", "False", tc.apps, health)
			}
			objs := objects(apps)
			objs.HelmReleases = []helmv2.HelmRelease{backend, tc.frontend}
			c := Build(objs)
			if tc.reason == "" {
				if len(c.RootCauses) != 0 {
					t.Errorf("root causes %+v, want none", c.RootCauses)
				}
				return
			}
			if len(c.RootCauses) != 1 {
				t.Fatalf("root causes %+v, want the frontend alone", c.RootCauses)
			}
			rc := c.RootCauses[0]
			if rc.Object != "helmreleases.helm.toolkit.fluxcd.io/frontend -n flux-system" || rc.Reason != tc.reason || rc.AppliedBy != "flux-system/apps" || !slices.Equal(rc.Tiers, tc.tiers) {
				t.Errorf("root cause = %+v", rc)
			}
			if len(c.Unevaluated) != tc.gaps {
				t.Errorf("unevaluated = %v, want %d", c.Unevaluated, tc.gaps)
			}
			if tc.reason == ReasonReadyExprFalse {
				saw := strings.Join(rc.Explanation, " ")
				for _, want := range []string{`dep.spec.values.app.version = "v1.2.3"`, `self.spec.values.app.version = "v1.2.4"`, "helm-controller waits", "helmreleases.helm.toolkit.fluxcd.io/backend -n flux-system"} {
					if !strings.Contains(saw, want) {
						t.Errorf("explanation %q lacks %s", saw, want)
					}
				}
			}
			if f := c.Focus("flux-system/apps"); len(f.RootCauses) != 1 {
				t.Errorf("focused on apps, root causes = %+v", f.RootCauses)
			}
		})
	}
}
