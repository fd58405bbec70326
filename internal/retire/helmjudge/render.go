package helmjudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Renderer renders the HelmReleases a gate compares (retire.Request.Helm): Charts obtains each
// chart, Options bounds and parameterises each render.
type Renderer struct {
	Charts  *charts.Getter
	Options helmrender.Options
}

// Drop says that Helm, not Flux, deletes a removal's object: helm-controller upgrades the
// release to a manifest that no longer has it, or reinstalls the release (retire.Removal.HelmDrop).
type Drop struct {
	// HelmRelease is namespace/name; Release the Helm release it upgrades.
	HelmRelease string `json:"helmRelease"`
	Release     string `json:"release"`
	// Reinstall is set when the candidate makes helm-controller uninstall the release before
	// installing it again: every object of the old manifest is deleted.
	Reinstall string `json:"reinstall,omitempty"`
	// From and To are the charts rendered at base and candidate ("app-template 4.4.0").
	From string `json:"from"`
	To   string `json:"to"`
	// Suspended is set when the candidate suspends the HelmRelease: helm-controller upgrades
	// nothing until it is resumed, and then deletes the same objects.
	Suspended bool `json:"suspended,omitempty"`
	// Installed names the deployed revision read from helm-controller's storage (live): the
	// old manifest is then its manifest, not the base render; Drift is where they disagree.
	Installed string `json:"installed,omitempty"`
	Drift     *Drift `json:"drift,omitempty"`
	// Cluster is set when the HelmRelease installs its release on another cluster through its
	// own spec.kubeConfig ("kubeConfig Secret namespace/name"): the objects it deletes are
	// there, not on the cluster the HelmRelease lives on.
	Cluster string `json:"cluster,omitempty"`
}

// Dropped is one object Helm, not Flux, deletes: an upgrade's or a reinstall's (Drop says
// which), in the Kustomization that declares its HelmRelease.
type Dropped struct {
	Object        *unstructured.Unstructured
	Kustomization string
	Drop          *Drop
	// Cluster is the cluster the object is on when it is not the one the Kustomization lives
	// on (Remote): the HelmRelease's own spec.kubeConfig, else the Kustomization's.
	Cluster string
}

// rendered is one HelmRelease's render on one side, or why there is none.
type rendered struct {
	render *helmrender.Render
	err    error
	// prepared is the render made ready, until it is rendered.
	prepared *helmrender.Prepared
	// inputs digest what the render read: the HelmRelease, its chart source and its values
	// sources, so an unchanged release is not rendered twice.
	inputs string
}

// helmSides holds the renders of both revisions, by HelmRelease inventory id.
type helmSides struct {
	base, cand map[string]*rendered
	// changed says, by HelmRelease inventory id, what the candidate changes of what its
	// render reads ("its spec.upgrade"; changedText).
	changed map[string]string
}

// notes are what the renders of both sides say they did otherwise than helm-controller (the
// remote schemas they did not fetch), each once, about the first HelmRelease (by inventory id)
// whose render said it, sorted: a warning, as the render is used.
func (s *helmSides) notes() []report.Note {
	seen := map[string]bool{}
	var out []report.Note
	for _, side := range []map[string]*rendered{s.base, s.cand} {
		for _, id := range slices.Sorted(maps.Keys(side)) {
			r := side[id]
			if r == nil || r.render == nil {
				continue
			}
			for _, n := range r.render.Notes {
				if !seen[n] {
					seen[n] = true
					out = append(out, report.Note{Code: report.NoteHelmSchemaNotFetched, Subject: idSubject(id), Message: n})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b report.Note) int { return strings.Compare(a.Message, b.Message) })
	return out
}

// sideObjects is every object the tiers of one revision built.
func sideObjects(t *gitops.Tree) []*unstructured.Unstructured {
	if t == nil {
		return nil
	}
	var out []*unstructured.Unstructured
	for _, id := range t.IDs() {
		if tier := t.Tiers[id]; tier.Err == nil {
			out = append(out, tier.Objects...)
		}
	}
	return out
}

// renderHelm renders, on each side, every HelmRelease the candidate removes or whose inputs it
// changes; the others install what they installed and are not rendered. Every render is
// prepared first, so the renders that will start a render process (those the cache does not
// answer) are known and their processes start ahead (helmrender.StartAhead), each while the
// gate prepares or the render before it runs.
func (h *Renderer) renderHelm(ctx context.Context, base, cand *gitops.Tree, units []Unit) *helmSides {
	s := &helmSides{base: map[string]*rendered{}, cand: map[string]*rendered{}, changed: map[string]string{}}
	if base == nil || cand == nil {
		return s
	}
	bobjs, cobjs := sideObjects(base), sideObjects(cand)
	bside := newSide(base, bobjs, h.Options)
	cside := newSide(cand, cobjs, h.Options)
	var todo []*rendered
	for _, u := range units {
		candHR := map[string]*unstructured.Unstructured{}
		for _, o := range u.Candidate {
			if inventory.RefOf(o).GroupKind() == ReleaseKind {
				candHR[inventory.RefOf(o).ID()] = o
			}
		}
		for _, o := range u.Base {
			id := inventory.RefOf(o).ID()
			if inventory.RefOf(o).GroupKind() != ReleaseKind {
				continue
			}
			c, both := candHR[id]
			if both {
				if bside.inputs(o) == cside.inputs(c) {
					continue
				}
				s.changed[id] = changedText(changedParts(bside.parts(o), cside.parts(c)))
			}
			s.base[id] = h.prepare(ctx, bside, o)
			todo = append(todo, s.base[id])
			if both {
				s.cand[id] = h.prepare(ctx, cside, c)
				todo = append(todo, s.cand[id])
			}
		}
	}
	processes := 0
	for _, r := range todo {
		if r.prepared != nil && !r.prepared.Cached() {
			processes++
		}
	}
	stop := helmrender.StartAhead(ctx, h.Options, processes)
	defer stop()
	for _, r := range todo {
		if r.prepared != nil {
			r.render, r.err = r.prepared.Render(ctx)
			r.prepared = nil
		}
	}
	return s
}

// side is what renders on one revision read.
type side struct {
	objs []*unstructured.Unstructured
	srcs charts.Sources
	own  charts.Repository
	opts helmrender.Options
	// files are the revision's files; a chart that is a directory of it is digested and loaded
	// from them, so the revision is never written out for it.
	files   gitrev.Files
	digests map[string]string
}

func newSide(t *gitops.Tree, objs []*unstructured.Unstructured, opts helmrender.Options) *side {
	opts.APIVersions = append(slices.Clone(opts.APIVersions), helmrender.APIVersions(objs)...)
	scoped := helmrender.ClusterScopedKinds(objs)
	maps.Copy(scoped, opts.ClusterScoped)
	opts.ClusterScoped = scoped
	files := gitrev.FilesOf(t.FS, t.Root)
	return &side{objs: objs, srcs: charts.IndexSources(objs), own: charts.Repository{Source: t.Source, Root: t.Root, Files: files}, opts: opts,
		files: files, digests: map[string]string{}}
}

// dirDigest digests a chart directory of the revision, once.
func (s *side) dirDigest(dir string) string {
	d, ok := s.digests[dir]
	if !ok {
		d = charts.DirDigestIn(s.files, dir)
		s.digests[dir] = d
	}
	return d
}

// inputs digests what rendering hr reads on this side (parts).
func (s *side) inputs(hr *unstructured.Unstructured) string {
	data, err := json.Marshal(s.parts(hr))
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return string(data)
}

// prepare reads what rendering hr on side s reads (its chart, values and cache key:
// helmrender.Prepare); out.err says why it cannot be rendered.
func (h *Renderer) prepare(ctx context.Context, s *side, hr *unstructured.Unstructured) *rendered {
	out := &rendered{inputs: s.inputs(hr)}
	ref, err := charts.RefFor(hr, s.srcs, s.own)
	if err != nil {
		// The chart cannot be had, as when it is not pulled: name what the HelmRelease asks for.
		chart, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "chart")
		version, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "version")
		what := strings.TrimSpace("chart " + chart + " " + version)
		if chart == "" {
			what = "the chart of its spec.chartRef"
		}
		out.err = fmt.Errorf("%w: %s: %w", charts.ErrUnavailable, what, err)
		return out
	}
	c, err := h.Charts.GetPinned(ctx, ref)
	if err != nil {
		out.err = err
		return out
	}
	out.prepared, out.err = helmrender.Prepare(ctx, hr, c.Chart, c.Digest, s.objs, s.opts)
	return out
}

// chartText names a render's chart, "app-template 4.4.0".
func chartText(r *helmrender.Render) string { return r.Chart + " " + r.Version }

// helmDrops lists the objects helm-controller deletes when it upgrades (or reinstalls) a
// HelmRelease both revisions declare, one Dropped each; a release whose render failed on a side
// is a line of incomplete (UNKNOWN) naming it, unless its chart is only unavailable, which is
// a warning: without the chart nothing is compared, as without rendering at all. Live
// (installed not nil), the old manifest is the deployed release's, read from helm-controller's
// storage; one that cannot be read is a line of incomplete, never the base render instead.
// Each release compared leaves a line of evidence: what was rendered, against what, and how
// many of its objects the upgrade deletes, so a SAFE says what it rests on.
func (s *helmSides) helmDrops(units []Unit, installed *Releases) (rs []Dropped, incomplete, unchecked []report.Gap, evidence []report.Note) {
	for _, u := range units {
		for _, c := range u.Candidate {
			id := inventory.RefOf(c).ID()
			b, rc := s.base[id], s.cand[id]
			if b == nil || rc == nil {
				continue
			}
			name := "HelmRelease " + c.GetNamespace() + "/" + c.GetName()
			why := s.changedOf(id)
			if err := sidesErr(b.err, rc.err); err != nil {
				gap := report.Gap{Op: report.OpRender, Subject: inventory.RefOf(c).GapID(), Reason: report.GapBuildFailed,
					What:  fmt.Sprintf("%s (Kustomization %s)", name, u.Kustomization),
					Error: fmt.Sprintf("%s, and it could not be rendered %v; what the upgrade deletes is not judged", why, err)}
				if errors.Is(err, charts.ErrUnavailable) {
					unchecked = append(unchecked, gap)
				} else {
					incomplete = append(incomplete, gap)
				}
				continue
			}
			drop := Drop{HelmRelease: c.GetNamespace() + "/" + c.GetName(), Release: b.render.Release, From: chartText(b.render), To: chartText(rc.render)}
			drop.Reinstall = reinstall(b.render, rc.render, c)
			drop.Suspended, _, _ = unstructured.NestedBool(c.Object, "spec", "suspend")
			old := b.render.Manifest
			where, own := Remote(c, u.Cluster)
			if own {
				drop.Cluster = where
			}
			switch {
			case installed != nil && where != "":
				// The installed release is on that cluster: the renders are still compared, and
				// what they drop is judged, but what is installed there is not known.
				incomplete = append(incomplete, remoteGap(c, u.Kustomization, where, own,
					why+", and the release it upgrades is not read: what the upgrade deletes is judged from the base render, not from what is installed there"))
			case installed != nil:
				rel, err := installed.release(c.GetNamespace(), c.GetName())
				if err != nil {
					incomplete = append(incomplete, report.Gap{Op: report.OpReadStorage, Subject: inventory.RefOf(c).GapID(), Reason: cluster.GapReason(err),
						What:  fmt.Sprintf("%s (Kustomization %s)", name, u.Kustomization),
						Error: fmt.Sprintf("%s, and the release it upgrades could not be read: %v; what the upgrade deletes is not known", why, err)})
					continue
				}
				if rel != nil {
					old, drop.Installed = rel.Objects, installedText(rel)
					drop.Drift = helmDrift(chartText(b.render)+" at base", b.render.Manifest, rel.Objects)
				}
			}
			kept := map[string]bool{}
			if drop.Reinstall == "" {
				for _, o := range rc.render.Manifest {
					kept[inventory.RefOf(o).ID()] = true
				}
			}
			deleted := 0
			for _, o := range old {
				if kept[inventory.RefOf(o).ID()] {
					continue
				}
				d := drop
				rs = append(rs, Dropped{Object: o, Kustomization: u.Kustomization, Drop: &d, Cluster: where})
				deleted++
			}
			evidence = append(evidence, report.Note{Code: report.NoteHelmReleaseCompared, Subject: inventory.RefOf(c).GapID(), Message: dropEvidence(name, u.Kustomization, drop, len(old), deleted)})
		}
	}
	return rs, incomplete, unchecked, evidence
}

// dropEvidence is the line a compared release leaves: "HelmRelease ns/web (Kustomization
// flux-system/apps): chart web 1.2.0 rendered at the candidate and compared with the installed
// release (web 1.1.0, revision 3, …): the upgrade deletes 0 of its 7 objects".
func dropEvidence(name, ks string, d Drop, objects, deleted int) string {
	against := "its base render (" + d.From + ")"
	if d.Installed != "" {
		against = "the installed release (" + d.Installed + ")"
	}
	verb := "the upgrade deletes"
	if d.Reinstall != "" {
		verb = "the reinstall deletes"
	}
	return fmt.Sprintf("%s (Kustomization %s): chart %s rendered at the candidate and compared with %s: %s %d of its %d object(s)", name, ks, d.To, against, verb, deleted, objects)
}

// reinstall says why helm-controller uninstalls the release before installing the candidate's
// (action.ReleaseTargetChanged): another release, storage namespace, or chart name under
// upgrade.chartNameChangeStrategy Reinstall (the default); "" when it upgrades in place.
func reinstall(b, c *helmrender.Render, hr *unstructured.Unstructured) string {
	switch {
	case b.Release != c.Release:
		return fmt.Sprintf("its release changes from %s to %s", b.Release, c.Release)
	case b.StorageNamespace != c.StorageNamespace:
		return fmt.Sprintf("its storage namespace changes from %s to %s", b.StorageNamespace, c.StorageNamespace)
	}
	strategy, _, _ := unstructured.NestedString(hr.Object, "spec", "upgrade", "chartNameChangeStrategy")
	if b.Chart != c.Chart && (strategy == "" || strategy == "Reinstall") {
		return fmt.Sprintf("its chart changes from %q to %q (chartNameChangeStrategy Reinstall)", b.Chart, c.Chart)
	}
	return ""
}
