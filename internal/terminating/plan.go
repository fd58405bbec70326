// Package terminating explains what holds Terminating objects: Plan reads the cluster for one
// Request (an object, a type, or a sweep of a namespace or the cluster) and returns the Result
// that why-terminating's printers draw, the MCP server returns and fleet mode runs per context.
// It parses no flags and prints nothing.
package terminating

import (
	"context"
	"errors"
	"sort"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Request is what to explain: one object, one type in a namespace, or a sweep; and the
// handles to read it with. The command line, the MCP server and fleet mode each build one.
type Request struct {
	Arg           kinds.ObjectArg
	Sweep         bool
	AllNamespaces bool
	Namespace     string
	// Clients read the cluster; their Target names it in the Result.
	Clients *cluster.Clients
	// Clock stamps the report; nil is the system clock.
	Clock report.Clock
}

// Plan reads the cluster and explains the request. Bad input (an unknown or ambiguous type,
// a missing object) is returned as an error; incomplete reads are recorded in the Result.
func Plan(ctx context.Context, req Request) (*Result, error) {
	c := req.Clients
	catalog, err := kinds.DiscoverCluster(ctx, c.Discovery, c.Dynamic)
	if err != nil {
		return nil, cluster.ReadError(c.Target, "reading API discovery", err)
	}
	res := &Result{Target: c.Target}
	for _, f := range catalog.Failed {
		if f.Unchecked {
			// A check that could not be made (APIServices forbidden) is no discovery failure.
			res.Unchecked = append(res.Unchecked, report.Gap{Op: report.OpCheck, Subject: apiServicesID(), Reason: discoveryReason(f),
				What: "whether every APIService is available", Error: f.Error})
			continue
		}
		res.DiscoveryFailures = append(res.DiscoveryFailures, f)
	}
	x := finalizers.New(c, catalog).At(req.Clock.Now())
	ns := req.Namespace
	if req.Arg.FromInventory && req.Arg.Namespace != "" {
		ns = req.Arg.Namespace
	}
	switch {
	case req.Sweep:
		err = sweep(ctx, c, catalog, x, req, res)
	default:
		var r kinds.Resource
		r, err = resolveType(ctx, c, catalog, req, res, ns)
		var amb *kinds.AmbiguousError
		if err != nil && !errors.As(err, &amb) && !req.Arg.FromInventory {
			if def, ok := x.DefinitionResource(ctx, req.Arg.Type); ok {
				r, err = def, nil
			}
		}
		if err != nil {
			return nil, err
		}
		if req.Arg.Name == "" {
			err = sweepType(ctx, c, x, r, req, ns, res)
			break
		}
		var e *finalizers.Explanation
		e, err = x.Explain(ctx, r, ns, req.Arg.Name)
		if err == nil {
			res.Scope = e.Object.String()
			res.Objects = []*finalizers.Explanation{e}
		}
	}
	if err != nil {
		return nil, err
	}
	res.Requests += x.ListRequests()
	linkFlux(ctx, c, res, req.Clock.Now())
	res.finish(req.Clock)
	return res, nil
}

// resolveType resolves the typed type (or inventory kind); an ambiguous name is refused with
// the object count of every candidate in the command's scope.
func resolveType(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, req Request, res *Result, ns string) (kinds.Resource, error) {
	if req.Arg.FromInventory {
		return catalog.ResolveGroupKind(kindOf(req.Arg))
	}
	resolved, err := catalog.Resolve(req.Arg.Type)
	var amb *kinds.AmbiguousError
	if errors.As(err, &amb) {
		scope := ns
		if req.AllNamespaces {
			scope = ""
		}
		amb.CountCandidates(ctx, c.Metadata, scope)
		return kinds.Resource{}, err
	}
	if err != nil {
		return kinds.Resource{}, err
	}
	for _, s := range resolved.Shadowed {
		res.Shadowed = append(res.Shadowed, s.QualifiedName())
	}
	return resolved.Resource, nil
}

// sweep explains every Terminating object in the namespace (and the namespace itself), or in
// the whole cluster with -A.
func sweep(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, x *finalizers.Explainer, req Request, res *Result) error {
	scope := req.Namespace
	res.Scope = "namespace " + scope
	if req.AllNamespaces {
		scope, res.Scope = "", "cluster"
	}
	// Terminating objects are explained while the sweep lists the other types; Plan counts
	// the sweep's requests with the Explainer's.
	s, explained := x.SweepAndExplain(ctx, scope)
	res.swept = true
	for _, f := range s.Failed {
		res.Incomplete = append(res.Incomplete, f.Gap(scope, "listing "+f.Resource))
	}
	for _, d := range res.DiscoveryFailures {
		gv, _ := schema.ParseGroupVersion(d.GroupVersion)
		res.Incomplete = append(res.Incomplete, report.Gap{Op: report.OpDiscover, Subject: report.ObjectID{Group: gv.Group, Version: gv.Version},
			Reason: discoveryReason(d), What: "discovery of " + d.GroupVersion, Error: d.Error})
	}
	for _, g := range res.Unchecked {
		// Aggregated discovery leaves out a group whose APIService is unavailable: without
		// the check, a sweep cannot claim it saw every type. Each check not made is its own
		// gap, with its own subject, reason and error.
		g.What = "checking that every APIService is available (a group whose APIService is down is missing from discovery)"
		res.Incomplete = append(res.Incomplete, g)
	}
	res.Unchecked = nil
	if len(s.Types) > 0 && len(s.Failed) == len(s.Types) {
		// The typed error, not its wording: fleet mode classifies it (a sweep RBAC refuses
		// for every type is `forbidden`, not `read-failed`).
		err := s.Failed[0].Err
		if err == nil {
			err = errors.New(s.Failed[0].Reason)
		}
		return cluster.ReadError(c.Target, "listing every resource type", err)
	}
	res.Objects = explained
	if !req.AllNamespaces {
		if nsRes, ok := catalog.ForGroupKind(kindOf(kinds.ObjectArg{Kind: "Namespace"})); ok {
			e, err := x.Explain(ctx, nsRes, "", scope)
			if err != nil {
				return err
			}
			if e.Terminating {
				res.Objects = append(res.Objects, e)
			}
		}
	}
	sortObjects(res.Objects)
	return nil
}

// terminatingItems are the listed objects that have a deletionTimestamp: the only ones whose
// evidence is read.
func terminatingItems(r kinds.Resource, items []metav1.PartialObjectMetadata) []finalizers.Item {
	var out []finalizers.Item
	for i := range items {
		if items[i].DeletionTimestamp != nil {
			out = append(out, finalizers.Item{Resource: r, Object: &items[i]})
		}
	}
	return out
}

// sweepType explains every Terminating object of one type in the namespace (all with -A).
func sweepType(ctx context.Context, c *cluster.Clients, x *finalizers.Explainer, r kinds.Resource, req Request, ns string, res *Result) error {
	res.Scope = r.QualifiedName() + " in namespace " + ns
	if req.AllNamespaces || !r.Namespaced {
		res.Scope, ns = r.QualifiedName()+" in the cluster", ""
	}
	var requests atomic.Int64
	items, err := finalizers.ListMetadata(ctx, c.Metadata, r, ns, &requests)
	res.Requests += requests.Load()
	if err != nil {
		return cluster.ReadError(c.Target, "listing "+r.QualifiedName(), err)
	}
	res.Objects = x.ExplainItems(ctx, terminatingItems(r, items))
	sortObjects(res.Objects)
	return nil
}

func sortObjects(objs []*finalizers.Explanation) {
	sort.Slice(objs, func(i, j int) bool { return objs[i].Object.String() < objs[j].Object.String() })
}

func kindOf(a kinds.ObjectArg) schema.GroupKind {
	return schema.GroupKind{Group: a.Group, Kind: a.Kind}
}
