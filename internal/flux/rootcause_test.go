package flux

import (
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withReadyExpr sets the readyExpr of k's dependsOn entry on dep.
func withReadyExpr(k kustomizev1.Kustomization, dep, expr string) kustomizev1.Kustomization {
	for i := range k.Spec.DependsOn {
		if k.Spec.DependsOn[i].Name == dep {
			k.Spec.DependsOn[i].ReadyExpr = expr
		}
	}
	return k
}

func TestReadyExprCauses(t *testing.T) {
	byExpr := "dependency 'flux-system/db' is not ready according to readyExpr eval"
	labelled := func(k kustomizev1.Kustomization, v string) kustomizev1.Kustomization {
		k.Labels = map[string]string{"app/version": v}
		return k
	}
	db := labelled(ks("db", "True", "ReconciliationSucceeded", ""), "v1")
	cases := []struct {
		name   string
		api    kustomizev1.Kustomization
		reason string // "" for no root cause
		gaps   int
	}{
		{"false", withReadyExpr(labelled(ks("api", "False", "DependencyNotReady", byExpr, "db"), "v2"), "db", "dep.metadata.labels['app/version'] == self.metadata.labels['app/version']"),
			ReasonReadyExprFalse, 0},
		{"true, the built-in check replaced", withReadyExpr(labelled(ks("api", "False", "DependencyNotReady", byExpr, "db"), "v1"), "db", "dep.metadata.labels['app/version'] == self.metadata.labels['app/version']"),
			"", 0},
		{"a missing field", withReadyExpr(ks("api", "False", "DependencyNotReady", byExpr, "db"), "db", "dep.status.replicas == 3"),
			ReasonReadyExprUnevaluated, 1},
		// kustomize-controller reads dep without apiVersion and kind (its API reader's decoder
		// clears them), self from its cache with them.
		{"dep has no kind", withReadyExpr(ks("api", "False", "DependencyNotReady", byExpr, "db"), "db", "dep.kind == 'Kustomization'"),
			ReasonReadyExprUnevaluated, 1},
		{"self has its kind", withReadyExpr(ks("api", "False", "DependencyNotReady", byExpr, "db"), "db", "self.kind == 'Kustomization'"),
			"", 0},
		{"not a boolean", withReadyExpr(ks("api", "False", "DependencyNotReady", byExpr, "db"), "db", "dep.metadata.name"),
			ReasonReadyExprUnevaluated, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Build(objects(db, tc.api))
			var reasons []string
			for _, rc := range c.RootCauses {
				reasons = append(reasons, rc.Reason)
			}
			if (tc.reason == "" && len(reasons) != 0) || (tc.reason != "" && !slices.Equal(reasons, []string{tc.reason})) {
				t.Errorf("root causes %v, want %q", reasons, tc.reason)
			}
			if len(c.Unevaluated) != tc.gaps {
				t.Errorf("unevaluated = %v, want %d", c.Unevaluated, tc.gaps)
			}
		})
	}
}

func TestReadyExprValues(t *testing.T) {
	db := ks("db", "True", "ReconciliationSucceeded", "")
	db.Labels = map[string]string{"app/version": "v1"}
	api := withReadyExpr(ks("api", "False", "DependencyNotReady", "", "db"), "db",
		`dep.metadata.labels['app/version'] == "v2" && dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True')`)
	c := Build(objects(db, api))
	re := c.Node("flux-system/api").ReadyExprs
	if len(re) != 1 || re[0].Ready == nil || *re[0].Ready {
		t.Fatalf("readyExprs = %+v", re)
	}
	var paths []string
	for _, v := range re[0].Values {
		paths = append(paths, v.Path+"="+v.Value)
	}
	got := strings.Join(paths, " ")
	if !strings.Contains(got, `dep.metadata.labels['app/version']="v1"`) || !strings.Contains(got, `dep.status.conditions=[{`) || strings.Contains(got, "filter") {
		t.Errorf("values = %s", got)
	}
}

// TestSharedCauses: tiers that fail on one source, Secret or ServiceAccount share one cause
// with the object; a tier failing for its own reason while its source is unready keeps its own.
func TestSharedCauses(t *testing.T) {
	artifact := "Source artifact not found, retrying in 30s"
	sopsMissing := `secrets "sops-age" not found`
	unready := func(o *Objects) *Objects {
		o.Sources["GitRepository/flux-system/repo"] = SourceObject{Ready: &Condition{Status: "False", Reason: "GitOperationFailed", Message: "authentication required"}}
		return o
	}
	cases := []struct {
		name   string
		objs   *Objects
		causes map[string][]string // cause -> tiers
	}{
		{"one source", unready(objects(
			ks("infra", "False", meta.ArtifactFailedReason, artifact),
			ks("apps", "False", meta.ArtifactFailedReason, artifact, "infra"),
			ks("leaf", "False", "DependencyNotReady", "dependency 'flux-system/apps' is not ready", "apps"))),
			map[string][]string{"gitrepositories.source.toolkit.fluxcd.io/repo -n flux-system": {"flux-system/apps", "flux-system/infra"}}},
		{"one Secret", objects(
			ks("a", "False", meta.BuildFailedReason, sopsMissing),
			ks("b", "False", meta.BuildFailedReason, sopsMissing)),
			map[string][]string{"secrets/sops-age -n flux-system": {"flux-system/a", "flux-system/b"}}},
		{"the controller's own SOPS Secret", objects(
			ks("a", "False", meta.BuildFailedReason, `cannot get sops SOPS age decryption Secret 'kube-system/sops-age': secrets "sops-age" is forbidden, secrets "sops-age" not found`),
			ks("b", "False", meta.BuildFailedReason, `cannot get sops SOPS age decryption Secret 'kube-system/sops-age': secrets "sops-age" not found`)),
			map[string][]string{"secrets/sops-age -n kube-system": {"flux-system/a", "flux-system/b"}}},
		{"a health check names no shared object", objects(
			ks("a", "False", meta.HealthCheckFailedReason, `health check failed after 5m0s: timeout waiting for: [Deployment/x/y status: 'InProgress': secrets "tls" not found]`)),
			map[string][]string{"flux-system/a": nil}},
		{"own reason beside an unready source", unready(objects(
			ks("a", "False", meta.HealthCheckFailedReason, "health check failed"))),
			map[string][]string{"flux-system/a": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Build(tc.objs)
			got := map[string][]string{}
			for _, rc := range c.RootCauses {
				got[causeName(rc)] = rc.Tiers
			}
			if len(got) != len(tc.causes) {
				t.Fatalf("causes %v, want %v", got, tc.causes)
			}
			for k, v := range tc.causes {
				if !slices.Equal(got[k], v) {
					t.Errorf("cause %s: tiers %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// TestSuspendedDependency: a suspended dependency blocks only when it is not ready or lags.
func TestSuspendedDependency(t *testing.T) {
	suspended := func(applied string) kustomizev1.Kustomization {
		k := ks("infra", "True", "ReconciliationSucceeded", "")
		k.Spec.Suspend, k.Status.LastAppliedRevision = true, applied
		return k
	}
	waits := ks("apps", "False", "DependencyNotReady", "dependency 'flux-system/infra' revision is not up to date", "infra")
	c := Build(objects(suspended("main@sha1:0"), waits))
	if len(c.RootCauses) != 1 || c.RootCauses[0].Message != "suspended at main@sha1:0; dependents wait for main@sha1:1" {
		t.Errorf("lagging: root causes %+v", c.RootCauses)
	}
	c = Build(objects(suspended("main@sha1:1"), ks("apps", "False", "DependencyNotReady", "dependency 'flux-system/infra' is not ready", "infra")))
	if len(c.RootCauses) != 0 {
		t.Errorf("at its source's revision: root causes %+v", c.RootCauses)
	}
	deleting := ks("infra", "True", "ReconciliationSucceeded", "")
	deleting.DeletionTimestamp, deleting.Generation = &metav1.Time{}, 2
	c = Build(objects(deleting))
	if n := c.Node("flux-system/infra"); n.State != Terminating || len(c.Findings) != 1 || c.Findings[0].Kind != FindingTerminating {
		t.Errorf("deleting: state %s, findings %+v", n.State, c.Findings)
	}
}
