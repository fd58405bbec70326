package lint

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/report"
)

// Options controls Load.
type Options struct {
	// Entry is the path built first, relative to the root (e.g. clusters/prod).
	Entry string
	// AllowNetwork lets remote bases be fetched.
	AllowNetwork bool
	// Parallel bounds concurrent builds; 0 means GOMAXPROCS.
	Parallel int
	// Top is the repository's top level, where its bootstrap files are looked for (ReadBootstrap);
	// "" is the root.
	Top string
}

// Tier is one Flux Kustomization of the repository with what its spec.path built to.
type Tier = gitops.Tier

// Undefined is a post-build variable an object references and nothing defines.
type Undefined = gitops.Undefined

// Load builds the repository's chain from the entry path (gitops.Load) and draws it as live
// mode draws a cluster's. Only a failure of the entry path itself is returned as an error; a
// tier that does not build is recorded on it.
func Load(ctx context.Context, root string, opts Options) (*Repo, error) {
	tree, err := gitops.Load(ctx, root, gitops.LoadOptions{Entry: opts.Entry, AllowNetwork: opts.AllowNetwork, Parallel: opts.Parallel})
	if err != nil {
		return nil, err
	}
	r := &Repo{Tree: tree}
	r.chain()
	r.Bootstrap = r.readBootstrap(root, opts.Top)
	return r, nil
}

// readBootstrap reads the bootstrap files of the repository (ReadBootstrap), telling them from
// what Flux builds by the tiers' paths and the files their builds read.
func (r *Repo) readBootstrap(root, top string) *Bootstrap {
	if top == "" {
		top = root
	}
	prefix, err := filepath.Rel(top, root)
	if err != nil || strings.HasPrefix(prefix, "..") {
		prefix, top = ".", root
	}
	dirs := []string{path.Join(filepath.ToSlash(prefix), r.Entry)}
	files := map[string]bool{}
	tiers := append([]*Tier{r.EntryBuild}, r.IDsTiers()...)
	for _, t := range tiers {
		if t == nil {
			continue
		}
		if t != r.EntryBuild && t.NotCovered == "" {
			dirs = append(dirs, path.Join(filepath.ToSlash(prefix), t.Kustomization.Path))
		}
		for _, f := range t.Files {
			files[path.Join(filepath.ToSlash(prefix), f)] = true
		}
	}
	return ReadBootstrap(top, dirs, files)
}

// BuildFailure is a tier whose path did not build: its objects were not judged.
type BuildFailure struct {
	Kustomization string   `json:"kustomization"`
	Path          string   `json:"path"`
	Error         string   `json:"error"`
	RemoteURLs    []string `json:"remoteURLs,omitempty"`
}

// Unjudged returns what the rules could not judge: the tiers whose path did not build (never
// nil), and the tiers built from another source than this repository, each a gap.
func (r *Repo) Unjudged() (failed []BuildFailure, notCovered []report.Gap) {
	failed = []BuildFailure{}
	for _, t := range r.BuildFailures() {
		failed = append(failed, BuildFailure{Kustomization: t.ID(), Path: t.Kustomization.Path, Error: t.Err.Error(), RemoteURLs: t.RemoteURLs})
	}
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.NotCovered != "" {
			notCovered = append(notCovered, t.NotCoveredGap())
		}
	}
	return failed, notCovered
}
