package terminating

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
)

// When the Flux objects cannot be read, the link a remover's labels name is UNKNOWN with the
// reason, and a remover without labels says that the inventories were not searched: never
// nothing. Without Flux installed, a label names an object nothing reconciles.
func TestFluxLinkWhenFluxUnreadable(t *testing.T) {
	ref := finalizers.ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ops", Name: "op"}
	ks := map[string]string{kustomizeNameLabel: "apps", kustomizeNamespaceLabel: "flux-system"}
	hr := map[string]string{helmNameLabel: "op", helmNamespaceLabel: "ops", kustomizeNameLabel: "apps", kustomizeNamespaceLabel: "flux-system"}
	forbidden := &fluxState{err: apierrors.NewForbidden(schema.GroupResource{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"}, "", nil)}
	for _, tc := range []struct {
		name                      string
		state                     *fluxState
		labels                    map[string]string
		wantKind, wantState, want string // want: in the link's reason, or in the gap without a link
	}{
		{"forbidden, kustomize labels", forbidden, ks, "Kustomization", "Unknown", "the Flux objects could not be read: forbidden"},
		{"forbidden, helm labels win", forbidden, hr, "HelmRelease", "Unknown", "the Flux objects could not be read"},
		{"forbidden, no labels", forbidden, map[string]string{}, "", "", "whether a Flux Kustomization's inventory lists deployments.apps/op -n ops: listing Kustomizations: forbidden"},
		{"not installed, labels", &fluxState{absent: true}, ks, "Kustomization", "NotFound", "Flux is not installed"},
		{"not installed, no labels", &fluxState{absent: true}, map[string]string{}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link, gap := tc.state.linkFor(ref, tc.labels)
			if tc.wantKind == "" {
				if link != nil || !strings.Contains(gapText(gap), tc.want) || (tc.want == "") != (gap == nil) {
					t.Fatalf("link %+v, gap %q; want no link and gap %q", link, gapText(gap), tc.want)
				}
				return
			}
			if link == nil || link.Kind != tc.wantKind || link.State != tc.wantState || !strings.Contains(link.Reason, tc.want) || gap != nil {
				t.Fatalf("link %+v, gap %q; want %s %s with %q", link, gapText(gap), tc.wantKind, tc.wantState, tc.want)
			}
		})
	}
}

// gapText is the gap's line, "" for none.
func gapText(g *report.Gap) string {
	if g == nil {
		return ""
	}
	return g.String()
}

// A HelmRelease the labels name that is not among those read, while some reads failed, is
// UNKNOWN, and the reads that failed stay typed on the link: its reason does not carry them.
func TestFluxLinkKeepsFailedReadsTyped(t *testing.T) {
	ref := finalizers.ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ops", Name: "op"}
	failed := report.Gap{Op: report.OpList, Subject: report.ObjectID{Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases", Namespace: "ops"},
		Reason: report.GapForbidden, What: "listing helmreleases.helm.toolkit.fluxcd.io", Error: "forbidden: no"}
	s := &fluxState{objs: &flux.Objects{Incomplete: true, Gaps: []report.Gap{failed}}}
	link, gap := s.linkFor(ref, map[string]string{helmNameLabel: "op", helmNamespaceLabel: "ops"})
	if gap != nil || link == nil || link.State != "Unknown" {
		t.Fatalf("link %+v, gap %q; want an Unknown HelmRelease link", link, gapText(gap))
	}
	if link.Reason != "not among the HelmReleases read, and some reads failed" {
		t.Errorf("reason %q carries more than what is unknown", link.Reason)
	}
	if len(link.Unchecked) != 1 || link.Unchecked[0] != failed {
		t.Errorf("unchecked %+v, want the failed list %+v", link.Unchecked, failed)
	}
}
