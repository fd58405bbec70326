package chain

import (
	"context"
	"errors"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
)

// LiveComparison is what --live found comparing the repository with a cluster: the cluster and
// the differences (each also a finding of a live-* rule in RepoResult.Lint). The reads that
// failed are RepoResult.Incomplete.
type LiveComparison struct {
	Target cluster.Target `json:"target"`
	// Namespace is the namespace compared; "" means all namespaces.
	Namespace string `json:"namespace"`
	lint.LiveDiff

	// objects are what was read, for the comparison; gaps the reads that failed.
	objects *lint.Live
	gaps    []report.Gap
}

// LiveRequest is the cluster --live compares the repository with: the clients that read it and
// the namespace compared ("" for all).
type LiveRequest struct {
	Clients   *cluster.Clients
	Namespace string
}

// readLive reads the cluster's Kustomizations and CRDs for --live. It only reads; a CRD list
// that fails makes the comparison incomplete.
func readLive(ctx context.Context, req LiveRequest) (*LiveComparison, error) {
	c := req.Clients
	objs, err := flux.Read(ctx, c.Dynamic, req.Namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("Flux is not installed on %s: %v", c.Target, err)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	lc := &LiveComparison{Target: c.Target, Namespace: req.Namespace, gaps: objs.Gaps,
		objects: &lint.Live{Namespace: req.Namespace, Kustomizations: objs.Kustomizations}}
	if lc.objects.CRDs, err = flux.ListCRDs(ctx, c.Dynamic); err != nil {
		lc.gaps = append(lc.gaps, cluster.Gap(report.OpList, report.ObjectID{Group: flux.CRDGVR.Group, Version: flux.CRDGVR.Version, Resource: flux.CRDGVR.Resource},
			"listing "+flux.CRDGVR.GroupResource().String(), err))
	}
	return lc, nil
}
