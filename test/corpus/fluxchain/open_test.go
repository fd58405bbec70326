//go:build corpusopen

package fluxchain_test

// Development cases of the Flux corpus on which flux-chain was wrong on its first run
// (SELECTION.txt; docs/flux-chain.md, "Corpus"). They stay out of `make test` until flux-chain
// diagnoses them right; run them with `go test -tags corpusopen ./test/corpus/fluxchain/`. The
// failure class each one shows is in the comment above it, after "Open:". Replays and
// expectations are as written before the first run; controller sources as in
// development_test.go.

import (
	"testing"
	"time"
)

// C03 https://github.com/fluxcd/kustomize-controller/issues/701: a Kustomization with wait and
// a 15m timeout applies HelmReleases; one's upgrade failed for good ("upgrade retries
// exhausted", helm-controller v0.22, v2beta1 status), while the Kustomization keeps "running
// health checks with a timeout of 15m0s" (Ready=Unknown, Progressing; today's message is
// kustomization_controller.go:1052-1053, "Running health checks for revision %s with a timeout
// of %s") until its timeout. The report names no HelmRelease; "app" here.
// Diagnosis: not progress: the HelmRelease failed (UpgradeFailed, retries exhausted) and is
// the root cause; the Kustomization is held only by it. FAILING, exit 1.
// Open (first run: PROGRESSING, exit 0, "10m59s remaining"): a Kustomization in progress is
// taken at its word while a HelmRelease it health-checks has already failed for good; the child's
// terminal failure does not turn the parent's progress into a failure.
func TestC03HealthCheckOnExhaustedRelease(t *testing.T) {
	const ns = "c03-flux-system"
	r := newReplay(t, ns)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	started := 4 * time.Minute
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "somekustomization",
		spec: map[string]any{"interval": "10m", "path": "./apps", "prune": true, "wait": true, "timeout": "15m",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(
			cond("Reconciling", "True", "Progressing", "running health checks with a timeout of 15m0s", started, 1),
			cond("Ready", "Unknown", "Progressing", "running health checks with a timeout of 15m0s", started, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: ns, name: "app",
		labels: appliedBy(ns, "somekustomization"),
		spec: map[string]any{"interval": "5m", "chart": map[string]any{"spec": map[string]any{"chart": "app",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}},
			"upgrade": map[string]any{"remediation": map[string]any{"retries": int64(3)}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedReleaseAction": "upgrade", "upgradeFailures": int64(4), "failures": int64(4), "conditions": conds(
			cond("Ready", "False", "UpgradeFailed", "upgrade retries exhausted", 2*time.Minute, 1),
			cond("Released", "False", "UpgradeFailed", "Helm upgrade failed: timed out waiting for the condition", 2*time.Minute, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	wantObjectCause(t, res, ref(helmReleases, ns, "app"), "UpgradeFailed")
	for _, p := range res.Progressing {
		if p.Kustomization == ns+"/somekustomization" && p.Object == "" {
			t.Errorf("the Kustomization is reported as progressing; it waits on a release that failed for good")
		}
	}
}
