package saferetire

import (
	"context"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/retire"
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
	// Offline reads no cluster: the Kustomizations come from the repo.
	Offline bool
	// Namespace limits the live Kustomizations to one namespace; "" reads all.
	Namespace string
	// PersistentKinds extends retire.DefaultPersistentKinds.
	PersistentKinds []string
	// Target pins printed commands to the cluster and connection of the run.
	Target cluster.Target
}

// Gate builds both revisions, decides every removal and plans the unsafe ones. c is nil offline.
func Gate(ctx context.Context, req Request, c *cluster.Clients) (*Result, error) {
	k, err := retire.NewKinds(req.PersistentKinds...)
	if err != nil {
		return nil, err
	}
	repo, err := gitops.OpenRepo(req.RepoDir)
	if err != nil {
		return nil, err
	}
	res := &Result{Mode: "offline", Repo: repo.Dir}
	s, err := snapshots(repo, req.Base, req.Candidate, res)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var lv *liveView
	if c != nil {
		res.Mode, res.Target = "live", &c.Target
		if lv, err = readLive(ctx, c, req.Namespace); err != nil {
			return nil, err
		}
		res.Warnings = append(res.Warnings, lv.warnings...)
	}
	base, cand, err := trees(ctx, s, req, lv, res)
	if err != nil {
		return nil, err
	}
	units, err := pairTiers(base, cand, res)
	if err != nil {
		return nil, err
	}
	for i := range units {
		res.Kustomizations = append(res.Kustomizations, units[i].Kustomization.ID())
		if lv != nil {
			units[i].Live = true
			units[i].Inventory = lv.inventory[units[i].Kustomization.ID()]
		}
	}
	rs := retire.Diff(units)
	if base != nil {
		removalFiles(ctx, base, rs, res)
	}
	for i := range rs {
		if lv != nil {
			rs[i].Live = lv.facts(ctx, &rs[i])
			res.Incomplete = append(res.Incomplete, rs[i].Live.Incomplete...)
		}
	}
	retire.Judge(rs, units, k)
	planner := retire.Planner{Target: req.Target}
	byID := map[string]retire.Kustomization{}
	for _, u := range units {
		byID[u.Kustomization.ID()] = u.Kustomization
	}
	for i := range rs {
		if lv != nil {
			retire.AssessWedge(&rs[i], byID[rs[i].Kustomization], lv.downstream(rs[i].Kustomization))
		}
		planner.Plan(&rs[i])
	}
	res.Removals = rs
	res.finish()
	return res, nil
}

// newKinds checks one --persistent-kind value.
func newKinds(k string) (retire.Kinds, error) { return retire.NewKinds(k) }
