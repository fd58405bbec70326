package lint

import (
	"context"

	"github.com/kubeforensics/suite/internal/gitops"
)

// Options controls Load.
type Options struct {
	// Entry is the path built first, relative to the root (e.g. clusters/prod).
	Entry string
	// AllowNetwork lets remote bases be fetched.
	AllowNetwork bool
	// Parallel bounds concurrent builds; 0 means GOMAXPROCS.
	Parallel int
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
	return r, nil
}
