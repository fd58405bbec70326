package saferetire

import (
	"context"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
)

// DryRunRequest is one `safe-retire --dry-run` without the command line: the repository, the
// revisions and the layout flags. No build cache is read or written and no network is used.
type DryRunRequest struct {
	Repo, Base, Candidate, Path, SourceRoot string
	PersistentKinds                         []string
	// NetworkTimeout bounds remote fetches; without AllowNetwork none is made.
	NetworkTimeout time.Duration
}

// DryRun computes what `safe-retire --dry-run` reports, and nothing else: it never carries out
// a step. With clients nil it is the --offline gate, and flags name the connection printed
// commands carry; otherwise it reads the cluster of clients (the namespace only when
// clients.NamespaceExplicit).
func DryRun(ctx context.Context, clients *cluster.Clients, flags *genericclioptions.ConfigFlags, req DryRunRequest) (*Result, error) {
	for _, k := range req.PersistentKinds {
		if _, err := retire.NewKinds(k); err != nil {
			return nil, exitcode.UsageErrorf("persistent kind: %v", err)
		}
	}
	if req.NetworkTimeout <= 0 {
		req.NetworkTimeout = kbuild.DefaultNetworkTimeout
	}
	o := &SafeRetireOptions{ConfigFlags: flags, Repo: req.Repo, Base: req.Base, Candidate: req.Candidate,
		Path: req.Path, SourceRoot: req.SourceRoot, PersistentKinds: req.PersistentKinds, DryRun: true,
		Offline: clients == nil, clients: clients, target: cluster.Offline(flags)}
	if clients != nil {
		o.target = clients.Target
	}
	if o.Repo == "" {
		o.Repo = "."
	}
	return o.compute(kbuild.WithNetworkTimeout(ctx, req.NetworkTimeout))
}

// PrintText draws res as the command's text output does, escaped the same way.
func PrintText(w io.Writer, res *Result, p output.Palette) error { return renderText(w, res, p) }
