// Package chain judges a Flux Kustomization chain: Plan reads a cluster's chain for one Request
// (its tiers, root causes, what they freeze and whether the controllers behind the status are
// alive), and PlanRepo lints the chain a repository declares for one RepoRequest (the build of
// every tier, lint findings, the diff against a base revision and the comparison with a
// cluster). flux-chain's printers draw the Results (with the sections the Results add to an
// output tree, and their SARIF and GitHub forms), the MCP server returns them and fleet mode
// runs Plan per context. It parses no flags and writes to no stream.
package chain

import (
	"context"
	"errors"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
)

// Request is one reading of a cluster's chain: which Kustomizations, how to judge a
// reconciliation in progress, and the handles to read them with. The command line, the MCP
// server and fleet mode each build one.
type Request struct {
	// Namespace is the namespace whose Kustomizations are read; "" reads all namespaces.
	Namespace string
	// Name focuses the chain on one Kustomization of Namespace, with its upstream and
	// downstream; "" shows the whole chain.
	Name string
	// FailOnProgressing makes a reconciliation in progress a finding (exit 1), for gates that
	// must not pass while a release is still rolling out.
	FailOnProgressing bool
	// Clients read the cluster; their Target names it in the Result.
	Clients *cluster.Clients
	// Clock stamps the report and ages the statuses; nil is the system clock.
	Clock report.Clock
}

// Plan reads the chain req names and judges it. Flux not installed and a focused Kustomization
// that does not exist are bad input (exit 3); a list that fails is an error naming the cluster;
// the reads that fail after it are recorded in the Result.
func Plan(ctx context.Context, req Request) (*Result, error) {
	c, namespace, name, clock := req.Clients, req.Namespace, req.Name, req.Clock
	objs, err := flux.Read(ctx, c.Dynamic, namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("Flux is not installed on %s: %v", c.Target, err)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	objs.FetchOutOfScope(ctx, c.Dynamic, namespace)
	objs.FetchReferences(ctx, c.Dynamic, c.Metadata)
	objs.Now = clock.Now()
	chain := flux.Build(objs)
	res := &Result{Target: c.Target, Namespace: namespace, Incomplete: objs.Gaps, Unchecked: append([]report.Gap{}, objs.Unlisted...)}
	if name != "" {
		res.Focus = namespace + "/" + name
		if chain.Node(res.Focus) == nil {
			return nil, exitcode.UsageErrorf("Kustomization %s/%s not found on %s", namespace, name, c.Target)
		}
		chain = chain.Focus(res.Focus)
	}
	d, unchecked := flux.NewDrill(c, chain)
	res.Unchecked = append(append(res.Unchecked, unchecked...), d.Run(ctx, chain, objs)...)
	res.Incomplete = append(res.Incomplete, chain.Unevaluated...)
	res.Liveness = flux.CheckLiveness(ctx, c.Kube, chain, objs, objs.Now)
	res.Chain = *chain
	res.FailOnProgressing = req.FailOnProgressing
	res.finish(clock)
	return res, nil
}

// failOnProgressing applies --fail-on-progressing to a result already judged.
func (r *Result) failOnProgressing(on bool) {
	r.FailOnProgressing = on
	r.settle()
}
