package retire

import (
	"context"
	"fmt"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// Request is what one gate compares.
type Request struct {
	// RepoDir is a directory inside the GitOps repository's working tree.
	RepoDir string
	// Base and Candidate are revisions; "" base means the repo's default base, "" candidate
	// the working tree.
	Base, Candidate string
	// Entry is the path whose build declares the Kustomizations (offline; "" picks the only
	// clusters/<name>, else the source root). Live, it names the root Kustomization's path,
	// whose source is the repository's.
	Entry string
	// SourceRoot is the artifact's root inside the repository, which spec.paths are relative
	// to; "" detects it.
	SourceRoot string
	// AllowNetwork lets builds fetch remote bases and resources.
	AllowNetwork bool
	// Namespace limits the live Kustomizations to one namespace; "" reads all.
	Namespace string
	// PersistentKinds extends DefaultPersistentKinds.
	PersistentKinds []string
	// Target pins printed commands to the cluster and connection of the run.
	Target cluster.Target
	// Full builds every tier at the candidate. Without it an offline gate builds at the
	// candidate only the tiers whose inputs changed since the base (gitops.LoadIncremental);
	// the others are the base's, listed as unchanged. Full also leaves Cache unused.
	Full bool
	// Cache keeps tier builds between runs; nil builds every tier it needs.
	Cache *gitops.BuildCache
	// Helm renders the HelmReleases the candidate removes or changes; nil renders none, and
	// what their releases delete is judged from their values alone.
	Helm *helmjudge.Renderer
}

// CacheUse says how much of a run's building the build cache answered.
type CacheUse struct {
	Dir string `json:"dir"`
	// FromCache are the tier builds read from it, Built those it could not answer (stored
	// when they succeeded). Builds the cache cannot key are in neither.
	FromCache int64 `json:"fromCache"`
	Built     int64 `json:"built"`
}

// Report is what one gate found: the revisions and layout compared, every removal judged and
// planned, and everything that could not be judged.
type Report struct {
	Repo string `json:"repo,omitempty"`
	// Base and Candidate name the revisions compared; BaseHow says how the base was chosen.
	Base      gitrev.Revision `json:"base"`
	Candidate gitrev.Revision `json:"candidate"`
	BaseHow   string          `json:"baseHow,omitempty"`
	// Layout is the source root and entry path the repository was built from, and how each
	// was chosen.
	Layout *sourceroot.Layout `json:"layout,omitempty"`
	// Kustomizations are the Flux Kustomizations compared, namespace/name.
	Kustomizations []string `json:"kustomizations"`
	// NotCovered are Kustomizations built from another source than this repository (a
	// tenant's own): their removals are not judged here. Each is a gap (op build, reason
	// not-read, subject the Kustomization, error why its source is not covered).
	NotCovered []report.Gap `json:"notCovered,omitempty"`
	// Unchanged are the tiers none of whose inputs the candidate changes (offline, without
	// --full): they are the base's builds and remove nothing, whether or not they build.
	Unchanged []string `json:"unchanged,omitempty"`
	// FullBuild says why every tier was built at the candidate, "" when unchanged ones were
	// reused (or live, where every tier is built).
	FullBuild string `json:"fullBuild,omitempty"`
	// BuildCache says how many tier builds came from the build cache; nil without one.
	BuildCache *CacheUse `json:"buildCache,omitempty"`
	// RenderCache says how many HelmRelease renders came from the render cache (FromCache)
	// and how many it could not answer (Built: rendered); nil without one.
	RenderCache *CacheUse `json:"renderCache,omitempty"`
	// Unbuilt are the tiers that did not build on a side (a remote resource offline, a broken
	// kustomization): their removals are UNKNOWN, never judged unsafe.
	Unbuilt []Unbuilt `json:"unbuilt,omitempty"`
	// Removals are every object a candidate drops, sorted by Kustomization and inventory id.
	Removals []Removal `json:"removals"`
	// Incomplete lists builds and reads that failed: the verdict cannot be SAFE with any.
	Incomplete []report.Gap `json:"incomplete,omitempty"`
	// Notes are what was not judged and needs no judging, each with the evidence why (a tier
	// that deletes nothing, an unresolved variable in a tier the candidate does not change, a
	// HelmRelease whose chart is known to make no state): they never make the verdict UNKNOWN.
	Notes []report.Note `json:"notes,omitempty"`
	// Warnings are what a reviewer should read although the verdict stands (an installed
	// release that drifted from its render, a render that skipped remote schemas, a plan
	// left without a digest).
	Warnings []report.Note `json:"warnings,omitempty"`
	// Unchecked are reads and renders that failed without making the verdict UNKNOWN (a
	// Flux type the live listing could not read, a chart not available, judged by the values
	// rules instead), as gaps.
	Unchecked []report.Gap `json:"unchecked,omitempty"`
}

// Unbuilt is one Kustomization's path that did not build at one revision.
type Unbuilt struct {
	Kustomization string `json:"kustomization"`
	// Side is "base" or "candidate".
	Side  string `json:"side"`
	Path  string `json:"path"`
	Error string `json:"error"`
	// RemoteURLs are the remote resources and bases an offline build could not fetch
	// (--allow-network fetches them).
	RemoteURLs []string `json:"remoteURLs,omitempty"`
}

// Code is the gate's exit code: UNSAFE (1) as soon as one removal is unsafe — that holds
// whatever the failed reads would have shown — then UNKNOWN (2) when a build or read failed,
// else OK.
func (r *Report) Code() exitcode.Code {
	for _, rm := range r.Removals {
		if rm.Unsafe {
			return exitcode.Finding
		}
	}
	if len(r.Incomplete) > 0 || len(r.Unbuilt) > 0 {
		return exitcode.Unknown
	}
	return exitcode.OK
}

// Gate builds both revisions, decides every removal and plans the unsafe ones. live is nil
// offline: the Kustomizations then come from the repository's entry path.
func Gate(ctx context.Context, req Request, live Cluster) (*Report, error) {
	k, err := NewKinds(req.PersistentKinds...)
	if err != nil {
		return nil, err
	}
	repo, err := gitrev.OpenRepo(req.RepoDir)
	if err != nil {
		return nil, err
	}
	revs, err := gitrev.OpenRevisions(ctx, repo, req.Base, req.Candidate)
	if err != nil {
		return nil, err
	}
	defer revs.Close()
	rep := &Report{Repo: repo.Dir, Base: revs.Base, Candidate: revs.Candidate, BaseHow: revs.BaseHow}
	if req.Full {
		req.Cache = nil
		if req.Helm != nil {
			h := *req.Helm
			h.Options.Cache = nil
			req.Helm = &h
		}
	}
	hits0, misses0, _ := req.Cache.Stats()
	var b *built
	var lk *LiveKustomizations
	if live == nil {
		b, err = offlineTrees(ctx, repo, revs, req)
	} else {
		if lk, err = live.Kustomizations(ctx, req.Namespace); err != nil {
			return nil, err
		}
		rep.Unchecked = append(rep.Unchecked, lk.Unchecked...)
		b, err = liveTrees(ctx, revs, req, live, lk)
	}
	if err != nil {
		return nil, err
	}
	rep.Layout, rep.Incomplete, rep.FullBuild = b.layout, append(rep.Incomplete, b.incomplete...), b.fullBuild
	if req.Cache != nil {
		hits, misses, _ := req.Cache.Stats()
		rep.BuildCache = &CacheUse{Dir: req.Cache.Dir(), FromCache: hits - hits0, Built: misses - misses0}
	}
	if b.cand != nil {
		for _, id := range b.cand.IDs() {
			if b.cand.Tiers[id].Unchanged {
				rep.Unchanged = append(rep.Unchanged, id)
			}
		}
	}
	var goneNotes []report.Note
	if b.base != nil && b.cand != nil {
		goneNotes = substitutionGone(ctx, b.base, b.cand, live)
	}
	p, err := pairTiers(b.base, b.cand)
	if err != nil {
		return nil, err
	}
	rep.NotCovered, rep.Unbuilt, rep.Incomplete = p.notCovered, p.unbuilt, append(rep.Incomplete, p.incomplete...)
	rep.Incomplete = append(rep.Incomplete, fluxInstanceGaps(b.base, b.cand)...)
	rep.Notes = append(goneNotes, p.notes...)
	units, kept := MarkRemoved(p.units)
	rep.Incomplete = append(rep.Incomplete, kept...)
	for i := range units {
		rep.Kustomizations = append(rep.Kustomizations, units[i].Kustomization.ID())
		if lk != nil {
			units[i].Live = true
			units[i].Inventory = lk.Inventory[units[i].Kustomization.ID()]
		}
	}
	rs, unparsed := Diff(units)
	rep.Incomplete = append(rep.Incomplete, unparsed...)
	// Renders judge a changed HelmRelease object by object; the values rules judge only those
	// whose chart could not be rendered at both revisions.
	retargetUnits := helmUnits(units)
	var rendered map[string]bool
	if req.Helm != nil {
		var incomplete, unchecked []report.Gap
		var warnings, notes []report.Note
		rc := req.Helm.Options.Cache
		hits0, misses0, _ := rc.Stats()
		rs, retargetUnits, rendered, incomplete, unchecked, warnings, notes = applyHelm(ctx, req.Helm, b.base, b.cand, units, rs, live)
		rep.Incomplete, rep.Unchecked = append(rep.Incomplete, incomplete...), append(rep.Unchecked, unchecked...)
		rep.Warnings = append(rep.Warnings, warnings...)
		rep.Notes = append(rep.Notes, notes...)
		if rc != nil {
			hits, misses, _ := rc.Stats()
			rep.RenderCache = &CacheUse{Dir: rc.Dir(), FromCache: hits - hits0, Built: misses - misses0}
		}
	}
	ups, unseen, notes := helmUpgrades(units, rendered)
	rs = append(rs, ups...)
	rep.Incomplete, rep.Notes = append(rep.Incomplete, unseen...), append(rep.Notes, notes...)
	if b.base != nil {
		removalFiles(ctx, b.base, *b.layout, rs)
	}
	rep.Removals, rep.Incomplete = judgeAll(ctx, rs, units, retargetUnits, k, req.Target, live, rep.Incomplete)
	rep.Notes = append(rep.Notes, HelmStateless(rep.Removals)...)
	rep.Warnings = append(rep.Warnings, HelmDrifts(rep.Removals)...)
	sortRemovals(rep.Removals)
	return rep, nil
}

// judgeAll reads the live facts of every removal (live only), decides each one and plans the
// unsafe ones; it returns the removals and incomplete with the reads that failed added.
func judgeAll(ctx context.Context, rs []Removal, units []Unit, retargetUnits []helmjudge.Unit, k Kinds, target cluster.Target, live Cluster, incomplete []report.Gap) ([]Removal, []report.Gap) {
	if live != nil {
		for i := range rs {
			if rs[i].Outcome == Upgraded {
				continue // the release stays: its own listing is not what the upgrade deletes
			}
			if rs[i].Cluster != "" {
				// An object of the same name here is another object: reading (or acting on)
				// it would judge the wrong one.
				incomplete = append(incomplete, report.Gap{Op: report.OpGet, Subject: rs[i].Object.GapID(), Reason: report.GapNotRead,
					What:  fmt.Sprintf("reading %s", rs[i].Object),
					Error: fmt.Sprintf("it lives on %s, which this run does not read", rs[i].elsewhere())})
				continue
			}
			rs[i].Live = live.Facts(ctx, &rs[i])
			incomplete = append(incomplete, rs[i].Live.Incomplete...)
		}
	}
	Judge(rs, units, k)
	incomplete = append(append(append(incomplete, HelmUnseen(rs)...), HelmCascades(rs)...), helmjudge.Retargets(retargetUnits)...)
	incomplete = append(append(incomplete, MoveCascades(rs)...), UnknownState(rs)...)
	planner := Planner{Target: target}
	byID := map[string]Kustomization{}
	for _, u := range units {
		byID[u.Kustomization.ID()] = u.Kustomization
	}
	for i := range rs {
		if live != nil {
			AssessWedge(&rs[i], byID[rs[i].Kustomization], live.Downstream(rs[i].Kustomization))
		}
		planner.Plan(&rs[i])
	}
	return rs, incomplete
}
