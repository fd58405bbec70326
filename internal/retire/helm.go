package retire

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// helmReleaseKind is the GroupKind of a Flux HelmRelease.
const helmReleaseKind = helmjudge.ReleaseKind

// helmUnits are the units as the Helm judgement reads them.
func helmUnits(units []Unit) []helmjudge.Unit {
	out := make([]helmjudge.Unit, len(units))
	for i, u := range units {
		out[i] = helmjudge.Unit{Kustomization: u.Kustomization.ID(), Base: u.Base, Candidate: u.Candidate, Cluster: u.Kustomization.Cluster}
	}
	return out
}

// applyHelm renders the HelmReleases the candidate removes or changes (helmjudge.Renderer.Apply)
// and folds the renders into the gate: each removed HelmRelease keeps its base render, for its
// uninstall to be judged from it, and every object an upgrade or reinstall deletes becomes a
// removal. retargetUnits and judged are the renders' (helmjudge.Renders).
func applyHelm(ctx context.Context, h *helmjudge.Renderer, base, cand *gitops.Tree, units []Unit, rs []Removal, live Cluster) (out []Removal, retargetUnits []helmjudge.Unit, judged map[string]bool, incomplete, unchecked []report.Gap, warnings, notes []report.Note) {
	renders := h.Apply(ctx, base, cand, helmUnits(units), helmjudge.ReleasesOf(ctx, live))
	for i := range rs {
		r := &rs[i]
		if r.Object.GroupKind() != helmReleaseKind || r.base == nil {
			continue
		}
		r.render, r.renderGap = renders.Base[r.ID], renders.BaseGap[r.ID]
	}
	out = rs
	for _, d := range renders.Dropped {
		out = append(out, dropRemoval(d))
	}
	sortRemovals(out)
	return out, renders.RetargetUnits, renders.Judged, renders.Incomplete, renders.Unchecked, renders.Warnings, renders.Notes
}

// dropRemoval is the removal of an object Helm deletes, judged by judgeHelmDrop; it is on the
// cluster its release is installed on (helmjudge.Remote).
func dropRemoval(d helmjudge.Dropped) Removal {
	ref := RefOf(d.Object)
	return Removal{Object: ref, ID: ref.ID(), Kustomization: d.Kustomization, Cluster: d.Cluster, base: d.Object, HelmDrop: d.Drop}
}

// helmUpgrades are the Upgraded removals of the HelmReleases whose upgrade the values alone
// show deleting claims (helmjudge.Upgrades), with what else that judgement found.
func helmUpgrades(units []Unit, rendered map[string]bool) (rs []Removal, incomplete []report.Gap, notes []report.Note) {
	ups, incomplete, notes := helmjudge.Upgrades(helmUnits(units), rendered)
	for _, u := range ups {
		ref := RefOf(u.HelmRelease)
		r := Removal{Object: ref, ID: ref.ID(), Kustomization: u.Kustomization, Outcome: Upgraded, Helm: u.Uninstall, Unsafe: true, base: u.HelmRelease,
			Persistent: &Persistence{Detail: u.Loss, Count: u.Count}}
		r.addReason(ReasonHelmUpgradeDropsClaim, u.Why)
		rs = append(rs, r)
	}
	return rs, incomplete, notes
}

// judgeHelm decides what deleting the HelmRelease r does to its release
// (helmjudge.JudgeUninstall).
func judgeHelm(r *Removal, k Kinds, sources map[string]*unstructured.Unstructured) *helmjudge.Uninstall {
	in := helmjudge.Removed{Object: r.Object, Base: r.base, Render: r.render, RenderGap: r.renderGap}
	if r.Live != nil {
		in.Live, in.Exists, in.Release = true, r.Live.Exists, r.Live.Helm
	}
	return helmjudge.JudgeUninstall(in, k, sources)
}

// helmPersistence is what uninstalling the release loses, nil when nothing seen.
func helmPersistence(h *helmjudge.Uninstall) *Persistence {
	if detail, count := h.Loss(); detail != "" {
		return &Persistence{Detail: detail, Count: count}
	}
	return nil
}

// HelmUnseen names every removed HelmRelease whose uninstall deletes objects that were not
// seen and whose values declare no persistent state: what it deletes is unknown.
func HelmUnseen(rs []Removal) []report.Gap {
	var out []report.Gap
	for i := range rs {
		r := &rs[i]
		h := r.Helm
		if h == nil || h.NoUninstall != "" || h.Rendered != "" || h.Stateless != "" || r.Persistent != nil || r.Live != nil || (r.Outcome != Pruned && r.Outcome != Moved) {
			continue
		}
		when := "deleting it"
		if r.Outcome == Moved {
			when = fmt.Sprintf("if it is pruned before %s adopts it, deleting it", Applier(r.MovedTo))
		}
		out = append(out, notJudged(r.Object.GapID(), report.GapUnsupported, fmt.Sprintf("HelmRelease %s/%s (%s)", r.Object.Namespace, r.Object.Name, Applier(r.Kustomization)),
			fmt.Sprintf("%s uninstalls release %s and every object its chart installed; its values declare no persistent state the chart creates, and not seen: %s, so what the uninstall deletes is unknown (run live, or set spec.suspend: true before removing it)",
				when, h.Release, strings.Join(h.NotSeen, "; "))))
	}
	return out
}

// HelmCascades names every removed HelmRelease whose rendered uninstall deletes Flux
// Kustomizations that prune what they applied: that is deleted too, and not judged here.
func HelmCascades(rs []Removal) []report.Gap {
	var out []report.Gap
	for i := range rs {
		r := &rs[i]
		h := r.Helm
		if h == nil || h.NoUninstall != "" || len(h.Cascades) == 0 || (r.Outcome != Pruned && r.Outcome != Moved) {
			continue
		}
		out = append(out, notJudged(r.Object.GapID(), report.GapUnsupported, fmt.Sprintf("HelmRelease %s/%s (%s)", r.Object.Namespace, r.Object.Name, Applier(r.Kustomization)),
			fmt.Sprintf("deleting it uninstalls release %s, which deletes %s: what those applied is deleted with them and is not judged here", h.Release, strings.Join(h.Cascades, "; "))))
	}
	return out
}

// HelmStateless notes every removed HelmRelease whose uninstall is shown to delete no
// chart-made state (helmjudge.Uninstall.Stateless), with that evidence.
func HelmStateless(rs []Removal) []report.Note {
	var out []report.Note
	for i := range rs {
		r := &rs[i]
		if h := r.Helm; h != nil && h.NoUninstall == "" && h.Stateless != "" && r.Persistent == nil && r.Live == nil && (r.Outcome == Pruned || r.Outcome == Moved) {
			out = append(out, report.Note{Code: report.NoteHelmUninstallStateless, Subject: r.Object.GapID(),
				Message: fmt.Sprintf("HelmRelease %s/%s (%s): deleting it uninstalls release %s; %s", r.Object.Namespace, r.Object.Name, Applier(r.Kustomization), h.Release, h.Stateless)})
		}
	}
	return out
}

// helmKeep tells how to delete a HelmRelease without uninstalling its release: helm-controller
// skips the uninstall of a suspended HelmRelease (reconcileDelete).
func (p Planner) helmKeep(r *Removal) string {
	return fmt.Sprintf("deleting HelmRelease %s uninstalls release %s and deletes what it installed; to keep those objects and their data, suspend it first: %s",
		r.Object.Namespace+"/"+r.Object.Name, r.Helm.Release,
		p.suspend(r.Object))
}

// suspend is the command that sets spec.suspend on the Flux object o (a HelmRelease before
// it is deleted, so helm-controller does not uninstall its release).
func (p Planner) suspend(o Ref) string {
	return p.kubectl(o.Namespace, "patch", o.Resource(), o.Name, "--type=merge", "-p", `{"spec":{"suspend":true}}`)
}

// HelmDrifts is one warning per HelmRelease whose installed release and render disagree, as the
// removals carry it (an uninstall's or an upgrade's): the verdict rests on what is installed.
func HelmDrifts(rs []Removal) []report.Note {
	seen := map[string]bool{}
	var out []report.Note
	for i := range rs {
		var d *helmjudge.Drift
		var who, release string
		switch r := &rs[i]; {
		case r.Helm != nil && r.Helm.Drift != nil:
			d, who, release = r.Helm.Drift, r.Object.Namespace+"/"+r.Object.Name, r.Helm.Release
		case r.HelmDrop != nil && r.HelmDrop.Drift != nil:
			d, who, release = r.HelmDrop.Drift, r.HelmDrop.HelmRelease, r.HelmDrop.Release
		default:
			continue
		}
		if seen[who] {
			continue
		}
		seen[who] = true
		ns, name, _ := strings.Cut(who, "/")
		out = append(out, report.Note{Code: report.NoteHelmReleaseDrifted, Subject: report.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: ns, Name: name},
			Message: fmt.Sprintf("HelmRelease %s (release %s): %s; the verdict rests on the installed manifest", who, release, d.Text())})
	}
	return out
}

// judgeHelmDrop decides a removal Helm makes: an object with helm.sh/resource-policy: keep is
// left in place, unmanaged; any other is deleted, which is unsafe when it holds persistent
// state. Flux's prune settings play no part: Helm deletes what its new manifest drops.
func judgeHelmDrop(r *Removal, k Kinds, all []*unstructured.Unstructured) {
	d := r.HelmDrop
	r.Persistent = k.Persistence(r, all)
	r.Unsafe = false
	r.resetReasons()
	how := fmt.Sprintf("helm-controller upgrades release %s (HelmRelease %s, chart %s to %s) and Helm deletes %s, which the new manifest no longer has", d.Release, d.HelmRelease, d.FromText(), d.To, r.Object)
	if d.Reinstall != "" {
		how = fmt.Sprintf("the candidate reinstalls release %s (HelmRelease %s: %s): helm-controller uninstalls it first, deleting %s of its old manifest", d.Release, d.HelmRelease, d.Reinstall, r.Object)
	}
	if d.Suspended {
		how += " once the HelmRelease is resumed (the candidate sets spec.suspend: true, which only postpones it)"
	}
	if v := r.base.GetAnnotations()[helm.ResourcePolicyAnnotation]; helm.IsKeep(v) {
		r.Outcome, r.OptOut = Retained, helm.ResourcePolicyAnnotation+": keep (Helm leaves it in place, no longer managed by the release)"
		r.classify()
		return
	}
	r.Outcome = Pruned
	if r.Persistent == nil {
		r.classify()
		return
	}
	r.Unsafe = true
	code := ReasonHelmUpgradeDeletesPersistent
	if d.Reinstall != "" {
		code = ReasonHelmReinstallPersistent
	}
	r.addReason(code, fmt.Sprintf("%s; it holds persistent state (%s), and nothing protects it", how, r.Persistent.Detail))
}

// planHelmDrop is the plan of an unsafe object Helm deletes: protect it with
// helm.sh/resource-policy: keep through the chart before the change, then drain and delete by
// hand. Commands on the object go through on (Planner.on); those on the HelmRelease too,
// unless it installs through its own spec.kubeConfig: it then lives on p's cluster.
func (p Planner) planHelmDrop(r *Removal, on Planner) {
	d := r.HelmDrop
	hr := on
	if d.Cluster != "" {
		hr = p
	}
	hrNS, hrName, _ := strings.Cut(d.HelmRelease, "/")
	protect := Stage{Number: 1, Title: "protect",
		Do: []string{
			fmt.Sprintf("in git, before this change, make the chart put the annotation %s: keep on %s (chart values that set it, e.g. app-template's retain: true, or a spec.postRenderers kustomize patch on HelmRelease %s)", helm.ResourcePolicyAnnotation, r.Object, d.HelmRelease),
			"merge that change alone",
			fmt.Sprintf("wait until HelmRelease %s has upgraded to it", d.HelmRelease),
		},
		Commands: []string{hr.kubectl(hrNS, "get", "helmrelease.helm.toolkit.fluxcd.io", hrName)},
		Check:    on.kubectl(r.Object.Namespace, "get", r.Object.Resource(), r.Object.Name, "-o", `jsonpath={.metadata.annotations.helm\.sh/resource-policy}`),
		Expect:   "keep",
	}
	remove := Stage{Number: 3, Title: "change the release",
		Do: []string{"merge this change: Helm leaves " + r.Object.String() + " in place, no longer in the release"},
	}
	r.Plan = []Stage{protect, on.drain(r), remove, on.delete(r)}
}

// helmReader reads, live, what a HelmRelease's release owns.
func (lc *LiveCluster) helmReader() *helmjudge.Reader {
	return &helmjudge.Reader{Clients: lc.c, Catalog: lc.catalog, Explainer: lc.explainer}
}

// Installed reads the deployed release of the live HelmRelease namespace/name
// (helmjudge.Reader.Installed).
func (lc *LiveCluster) Installed(ctx context.Context, namespace, name string) (*helmstorage.Release, error) {
	return lc.helmReader().Installed(ctx, namespace, name)
}

// InstalledChart is Installed with the chart Helm stored for it.
func (lc *LiveCluster) InstalledChart(ctx context.Context, namespace, name string) (*helmstorage.Release, error) {
	return lc.helmReader().InstalledChart(ctx, namespace, name)
}

// Capabilities are the server's version and the API versions it serves, as Helm reads them.
func (lc *LiveCluster) Capabilities(ctx context.Context) (string, []string, error) {
	return lc.helmReader().Capabilities(ctx)
}
