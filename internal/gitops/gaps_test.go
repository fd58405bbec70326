package gitops

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
)

// A Kustomization of a build that does not decode is a gap typed where kbuild finds it: its
// subject is the Kustomization, and its line is the error kbuild gave, word for word.
func TestUndecodedGapsAreTyped(t *testing.T) {
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"namespace": "flux-system", "name": "broken"},
		"spec":     map[string]any{"path": "./x", "prune": true, "interval": "1m", "timeout": "soon", "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
	}}
	_, err := kbuild.KustomizationsWithFiles([]*unstructured.Unstructured{bad}, nil)
	if err == nil {
		t.Fatal("a timeout that is no duration decoded")
	}
	gaps := undecodedGaps(errors.Join(err, errors.New("something else")))
	if len(gaps) != 2 {
		t.Fatalf("gaps %+v, want one per error", gaps)
	}
	g := gaps[0]
	want := report.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: "flux-system", Name: "broken"}
	if g.Op != report.OpDecode || g.Reason != report.GapDecodeError || g.Subject != want || g.String() != err.Error() {
		t.Errorf("gap %+v (line %q), want subject %v and the line %q", g, g.String(), want, err.Error())
	}
	if o := gaps[1]; o.Subject != (report.ObjectID{}) || o.String() != "something else" {
		t.Errorf("an error kbuild did not type: %+v", o)
	}
	if undecodedGaps(nil) != nil {
		t.Error("no error, yet gaps")
	}
}

// A tier not covered is a build not made, about its Kustomization; its line is "id: why".
func TestNotCoveredGap(t *testing.T) {
	tier := &Tier{Kustomization: kbuild.Kustomization{Namespace: "flux-system", Name: "tenant"}, NotCovered: "its source GitRepository/flux-system/tenant is not the repository's"}
	g := tier.NotCoveredGap()
	if g.Op != report.OpBuild || g.Reason != report.GapNotRead || g.Subject.Kind != "Kustomization" || g.Subject.Name != "tenant" ||
		g.String() != "flux-system/tenant: its source GitRepository/flux-system/tenant is not the repository's" {
		t.Errorf("gap %+v (line %q)", g, g.String())
	}
}
