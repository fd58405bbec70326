// Package kinds resolves what an operator types — `pvc`, `persistentvolumeclaims`,
// `PersistentVolumeClaim`, `backups.velero.io`, `Backup.v1.velero.io`, `deploy/headlamp`, a Flux
// inventory id — to exactly one API resource, read from the server's own discovery.
//
// Unlike kubectl's RESTMapper, which silently takes the first group when several serve the same
// name, a Catalog refuses to guess: when more than one group answers, it returns an
// *AmbiguousError listing every candidate fully qualified. A group whose discovery failed (an
// unavailable aggregated APIService) is recorded and does not stop the others from resolving.
package kinds

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Resource is one API resource as discovery describes it.
type Resource struct {
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Resource   string   `json:"resource"`
	Kind       string   `json:"kind"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Namespaced bool     `json:"namespaced"`
	Verbs      []string `json:"verbs,omitempty"`
}

// GVR returns the resource's GroupVersionResource.
func (r Resource) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// GroupKind returns the resource's GroupKind.
func (r Resource) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// QualifiedName is the fully qualified resource name operators can type back:
// `persistentvolumeclaims` for the core group, `backups.velero.io` otherwise.
func (r Resource) QualifiedName() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Can reports whether the resource supports an API verb such as "list" or "delete".
func (r Resource) Can(verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// names are the spellings a bare input may match, lower-cased.
func (r Resource) names() []string {
	n := []string{r.Resource, strings.ToLower(r.Kind)}
	if r.Singular != "" {
		n = append(n, r.Singular)
	}
	for _, s := range r.ShortNames {
		n = append(n, strings.ToLower(s))
	}
	return n
}

// GroupFailure records a group version whose discovery failed.
type GroupFailure struct {
	GroupVersion string `json:"groupVersion"`
	Error        string `json:"error"`
	// Unchecked marks a check that could not be made (APIServices could not be listed, e.g.
	// forbidden): no group is known to fail, but none is known to work either.
	Unchecked bool `json:"unchecked,omitempty"`
	// Err is the failure's error, typed (an API status, a network error), for callers that
	// classify it; nil when discovery reported no error (an APIService not Available).
	Err error `json:"-"`
}

// Catalog is the set of resources a server serves, with the groups it could not discover.
type Catalog struct {
	// resources holds every served version; preferred versions come first within a group.
	resources []Resource
	// preferred is Preferred's answer, made once: explanations ask for it per stuck object and
	// per rule, and building it each time cost a sweep of 90 stuck objects 25 MB a run.
	preferred []Resource
	// Failed lists the group versions discovery could not read, sorted.
	Failed []GroupFailure
	// apiServices are the APIServices DiscoverCluster's availability check read.
	apiServices     []unstructured.Unstructured
	apiServicesRead bool
}

// NewCatalog builds a Catalog from resources and discovery failures directly; tests and
// offline callers use it, Discover reads a server.
func NewCatalog(resources []Resource, failed []GroupFailure) *Catalog {
	c := &Catalog{resources: append([]Resource(nil), resources...), Failed: failed}
	sort.SliceStable(c.resources, func(i, j int) bool { return c.resources[i].Group < c.resources[j].Group })
	c.preferred = preferredOf(c.resources)
	return c
}

// Discover reads every group and resource the server serves. A partial failure (some group
// versions unavailable) is recorded in Failed; only a total failure is returned as an error.
func Discover(d discovery.DiscoveryInterface) (*Catalog, error) {
	groups, lists, err := d.ServerGroupsAndResources()
	var failed []GroupFailure
	if err != nil {
		var gdf *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &gdf) {
			return nil, fmt.Errorf("reading API discovery: %w", err)
		}
		for gv, gerr := range gdf.Groups {
			failed = append(failed, GroupFailure{GroupVersion: gv.String(), Error: gerr.Error(), Err: gerr})
		}
		sort.Slice(failed, func(i, j int) bool { return failed[i].GroupVersion < failed[j].GroupVersion })
	}
	preferred := map[string]string{}
	for _, g := range groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	var out []Resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, ar := range list.APIResources {
			if strings.Contains(ar.Name, "/") {
				continue // subresources such as pods/status are not types an operator names
			}
			out = append(out, Resource{
				Group: gv.Group, Version: gv.Version, Resource: ar.Name, Kind: ar.Kind,
				Singular: ar.SingularName, ShortNames: ar.ShortNames, Namespaced: ar.Namespaced,
				Verbs: ar.Verbs,
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return (a.Version == preferred[a.Group]) && (b.Version != preferred[b.Group])
	})
	return &Catalog{resources: out, preferred: preferredOf(out), Failed: failed}, nil
}

// Preferred returns one entry per group and resource: the server's preferred version of each.
// Sweeps that list every type (why-terminating -A, a namespace's remaining content) use it.
// The slice is shared by every caller and capped at its length, so that appending to it copies;
// callers must not change its elements.
func (c *Catalog) Preferred() []Resource {
	return c.preferred[:len(c.preferred):len(c.preferred)]
}

// preferredOf keeps the first entry of each group and resource in resources.
func preferredOf(resources []Resource) []Resource {
	seen := map[schema.GroupResource]bool{}
	var out []Resource
	for _, r := range resources {
		gr := schema.GroupResource{Group: r.Group, Resource: r.Resource}
		if seen[gr] {
			continue
		}
		seen[gr] = true
		out = append(out, r)
	}
	return out
}

// ForGroupKind returns the preferred resource serving a group and kind, e.g. the one an
// ownerReference or a Flux inventory entry names.
func (c *Catalog) ForGroupKind(gk schema.GroupKind) (Resource, bool) {
	for _, r := range c.resources {
		if r.Group == gk.Group && r.Kind == gk.Kind {
			return r, true
		}
	}
	return Resource{}, false
}

// GroupFailed reports whether discovery of any version of group failed (an unchecked
// APIService list is not a failure of the group it is served from).
func (c *Catalog) GroupFailed(group string) bool {
	for _, f := range c.Failed {
		gv, err := schema.ParseGroupVersion(f.GroupVersion)
		if err == nil && gv.Group == group && !f.Unchecked {
			return true
		}
	}
	return false
}

// ForKind returns the preferred resource of every group that serves kind, for messages that
// name a kind without its group (a Flux health check's `Kind/ns/name`). Callers refuse to
// guess when more than one group answers.
func (c *Catalog) ForKind(kind string) []Resource {
	var out []Resource
	for _, r := range c.Preferred() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}
