package flux

import (
	"testing"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubeforensics/suite/internal/report"
)

// Every reason code this package declares is a row of docs/report.md's table, and every row
// of flux-chain's is still declared: a code added without its line, or renamed, fails.
func TestReasonsDocumented(t *testing.T) {
	problems, err := report.CheckDocumented(".", "../../docs/report.md", "flux-chain")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestEveryFindingKindHasACode(t *testing.T) {
	for _, k := range []FindingKind{FindingCycle, FindingMissingDependency, FindingSuspended, FindingRevisionLag,
		FindingGenerationLag, FindingMissingSource, FindingStaleWait, FindingTerminating} {
		if c := findingCode(k); c == "" {
			t.Errorf("finding kind %s has no reason code", k)
		}
	}
}

func TestCauseCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		rc   RootCause
		want report.Reason
	}{
		{"source missing", RootCause{Object: "gitrepositories.source.toolkit.fluxcd.io/fleet -n flux-system", Reason: ReasonNotFound}, CodeSourceNotFound},
		{"source not ready", RootCause{Object: "gitrepositories.source.toolkit.fluxcd.io/fleet -n flux-system", Reason: "GitOperationFailed"}, CodeSourceNotReady},
		{"secret missing", RootCause{Object: "secrets/sops-age -n flux-system", Reason: ReasonNotFound}, CodeSecretNotFound},
		{"service account missing", RootCause{Object: "serviceaccounts/deployer -n apps", Reason: ReasonNotFound}, CodeServiceAccountNotFound},
		{"CR before its CRD", RootCause{Kustomization: "flux-system/apps", Reason: meta.ReconciliationFailedReason, Failure: Failure{MissingKinds: []MissingKind{{Kind: "ServiceMonitor"}}}}, CodeCRDMissing},
		{"health check", RootCause{Kustomization: "flux-system/apps", Reason: meta.HealthCheckFailedReason}, CodeHealthCheckFailed},
		{"cycle", RootCause{Kustomization: "flux-system/apps", Reason: ReasonDependencyCycle}, CodeDependencyCycle},
		{"suspended", RootCause{Kustomization: "flux-system/apps", Reason: meta.SuspendedReason}, CodeSuspendedDependency},
		{"progressing", RootCause{Kustomization: "flux-system/apps", Reason: string(Progressing)}, CodeNotReady},
		{"helmrelease install failed", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/cert-manager -n cert-manager", Reason: "InstallFailed"}, CodeHelmReleaseFailed},
		{"helmrelease missing", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/postgres -n db", Reason: ReasonNotFound}, CodeHelmReleaseNotFound},
		{"helmrelease unread", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/postgres -n db", Reason: ReasonDependencyUnread}, CodeHelmReleaseUnread},
		{"helmrelease generation", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/postgres -n db", Reason: ReasonGenerationNotObserved}, CodeHelmReleaseGenerationBehind},
		{"helmrelease readyExpr", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/app -n apps", Reason: ReasonReadyExprFalse}, CodeReadyExprFalse},
		{"helmrelease deleting", RootCause{Object: "helmreleases.helm.toolkit.fluxcd.io/app -n apps", Reason: "UninstallFailed", HelmReleases: []HelmRelease{{Deleting: true}}}, CodeDependencyTerminating},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := causeCode(&tc.rc); got != tc.want {
				t.Errorf("causeCode = %s, want %s", got, tc.want)
			}
		})
	}
}
