package helmjudge

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Renders are what Apply found.
type Renders struct {
	// Base is the base render of each HelmRelease rendered (by inventory id), nil when it
	// failed; BaseGap says why.
	Base    map[string]*helmrender.Render
	BaseGap map[string]string
	// Dropped are the objects an upgrade or a reinstall deletes, each a removal to judge.
	Dropped []Dropped
	// RetargetUnits are the units without the candidate HelmReleases the renders judged object
	// by object (for Retargets); Judged are those HelmReleases, rendered at both revisions.
	RetargetUnits []Unit
	Judged        map[string]bool
	Incomplete    []report.Gap
	// Unchecked are the renders that failed without making the verdict UNKNOWN (a chart not
	// available: the values rules judge it instead); Warnings and Notes are typed notes.
	Unchecked []report.Gap
	Warnings  []report.Note
	Notes     []report.Note
}

// Apply renders the HelmReleases the candidate removes or changes: the base render of each
// removed HelmRelease judges its uninstall (JudgeUninstall), and every object an upgrade or
// reinstall deletes is Dropped. RetargetUnits are units without the candidate HelmReleases
// whose reinstall the renders judge object by object, so Retargets no longer calls those
// UNKNOWN; Judged are the HelmReleases rendered at both revisions. Live, a HelmRelease whose
// chart cannot be had and whose values alone the candidate changes is rendered with the chart
// of its installed release instead (onInstalled), and Notes carry that evidence.
func (h *Renderer) Apply(ctx context.Context, base, cand *gitops.Tree, units []Unit, installed *Releases) *Renders {
	sides := h.renderHelm(ctx, base, cand, units)
	out := &Renders{Base: map[string]*helmrender.Render{}, BaseGap: map[string]string{}}
	out.Notes = h.onInstalled(ctx, sides, base, cand, units, installed)
	for id, x := range sides.base {
		if x.err != nil {
			out.BaseGap[id] = x.err.Error()
		} else {
			out.Base[id] = x.render
		}
	}
	var evidence []report.Note
	out.Dropped, out.Incomplete, out.Unchecked, evidence = sides.helmDrops(units, installed)
	out.Warnings = sides.notes()
	out.Notes = append(out.Notes, evidence...)
	out.Judged = map[string]bool{}
	for id, b := range sides.base {
		if c := sides.cand[id]; c != nil && b.err == nil && c.err == nil {
			out.Judged[id] = true
		}
	}
	for _, u := range units {
		v := u
		v.Candidate = slices.DeleteFunc(slices.Clone(u.Candidate), func(o *unstructured.Unstructured) bool { return out.Judged[inventory.RefOf(o).ID()] })
		out.RetargetUnits = append(out.RetargetUnits, v)
	}
	return out
}
