package flux

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fluxObject is an object as its controller leaves it: spec, and a status with one Ready
// condition (omitted when ready is "").
func fluxObject(apiVersion, kind, ns, name string, spec map[string]any, ready, reason, message string) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"namespace": ns, "name": name, "generation": int64(1)}, "spec": spec}}
	if ready != "" {
		u.Object["status"] = map[string]any{"observedGeneration": int64(1), "conditions": []any{map[string]any{
			"type": "Ready", "status": ready, "reason": reason, "message": message,
			"lastTransitionTime": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "observedGeneration": int64(1)}}}
	}
	return u
}

// A source that fails for its own reason while what builds from it still says Ready at its
// last artifact (as in fluxcd/flux2#4861: the deploy key rotated, the GitRepository cannot
// fetch, every Kustomization stays Ready at the old revision for days) is the chain's root
// cause, with what builds from it waiting behind it; it used to be HEALTHY. A source its
// controller writes no Ready condition for, or one reconciling (Ready Unknown), is no cause.
func TestFailingSourceUnderReadyObjectsIsTheCause(t *testing.T) {
	ks := fluxObject("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", "apps",
		map[string]any{"interval": "10m", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "fleet"}},
		"True", "ReconciliationSucceeded", "Applied revision: main@sha1:1111111")
	for _, tc := range []struct {
		name, ready, reason string
		cause               bool
	}{
		{"failed", "False", "GitOperationFailed", true},
		{"reconciling", "Unknown", "Progressing", false},
		{"no status", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fluxObject("source.toolkit.fluxcd.io/v1", "GitRepository", "flux-system", "fleet",
				map[string]any{"interval": "1m", "url": "ssh://git@example.com/fleet.git"},
				tc.ready, tc.reason, "failed to checkout and determine revision: unable to clone: ssh: handshake failed")
			objs := &Objects{namespace: "flux-system", KStatus: map[string]string{}, Sources: map[string]SourceObject{}, Now: time.Now()}
			if err := objs.add(KustomizationGVR, "", []unstructured.Unstructured{ks}); err != nil {
				t.Fatal(err)
			}
			if err := objs.add(SourceGVRs["GitRepository"], "GitRepository", []unstructured.Unstructured{src}); err != nil {
				t.Fatal(err)
			}
			chain := Build(objs)
			var found *RootCause
			for i, rc := range chain.RootCauses {
				if strings.HasPrefix(rc.Object, "gitrepositories.source.toolkit.fluxcd.io/fleet") {
					found = &chain.RootCauses[i]
				}
			}
			switch {
			case tc.cause && found == nil:
				t.Fatalf("no root cause names the GitRepository: %+v", chain.RootCauses)
			case tc.cause && (found.Reason != "GitOperationFailed" || !strings.Contains(strings.Join(found.Waiters, " "), "kustomizations.kustomize.toolkit.fluxcd.io/apps")):
				t.Errorf("cause %+v: want reason GitOperationFailed and the Kustomization among its waiters", *found)
			case !tc.cause && len(chain.RootCauses) > 0:
				t.Errorf("root causes %+v, want none", chain.RootCauses)
			}
		})
	}
}
