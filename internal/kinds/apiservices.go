package kinds

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// DiscoverCluster is Discover plus a check of every APIService's Available condition. With
// aggregated discovery, a group whose APIService never became available is simply left out
// of the document instead of being reported as failed; reading the APIServices themselves
// is the only way to know a group is missing. A failed check is recorded, not ignored.
func DiscoverCluster(ctx context.Context, d discovery.DiscoveryInterface, dyn dynamic.Interface) (*Catalog, error) {
	// The check does not depend on discovery: both are read at once.
	type check struct {
		items []unstructured.Unstructured
		err   error
	}
	checked := make(chan check, 1)
	go func() {
		list, err := dyn.Resource(apiServiceGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			checked <- check{err: err}
			return
		}
		checked <- check{items: list.Items}
	}()
	c, err := Discover(d)
	if err != nil {
		return nil, err
	}
	chk := <-checked
	if chk.err != nil {
		c.Failed = append(c.Failed, GroupFailure{GroupVersion: "apiregistration.k8s.io/v1", Error: "could not check APIService availability: " + chk.err.Error(), Unchecked: true, Err: chk.err})
		sort.Slice(c.Failed, func(i, j int) bool { return c.Failed[i].GroupVersion < c.Failed[j].GroupVersion })
		return c, nil
	}
	c.apiServices, c.apiServicesRead = chk.items, true
	for _, a := range unavailableOf(chk.items) {
		c.addFailure(a.GroupVersion.String(), "APIService "+a.Name+" is unavailable: "+a.Reason)
	}
	return c, nil
}

// UnavailableAPIService is an APIService whose Available condition is not True.
type UnavailableAPIService struct {
	Name         string
	GroupVersion schema.GroupVersion
	// Reason is the condition's "reason: message".
	Reason string
}

// APIServices returns the APIServices DiscoverCluster read for its check, so a command that
// needs them again (who serves a group) does not list them a second time; false when the
// check did not read them (Discover alone, or the list failed).
func (c *Catalog) APIServices() ([]unstructured.Unstructured, bool) {
	return c.apiServices, c.apiServicesRead
}

// unavailableOf picks the APIServices whose Available condition is not True, in list order.
func unavailableOf(items []unstructured.Unstructured) []UnavailableAPIService {
	var out []UnavailableAPIService
	for _, item := range items {
		if reason, ok := unavailable(item); ok {
			group, _, _ := unstructured.NestedString(item.Object, "spec", "group")
			version, _, _ := unstructured.NestedString(item.Object, "spec", "version")
			out = append(out, UnavailableAPIService{Name: item.GetName(), GroupVersion: schema.GroupVersion{Group: group, Version: version}, Reason: reason})
		}
	}
	return out
}

// unavailable reports an APIService whose Available condition is not True, with its reason.
func unavailable(item unstructured.Unstructured) (string, bool) {
	conds, _, _ := unstructured.NestedSlice(item.Object, "status", "conditions")
	for _, raw := range conds {
		m, _ := raw.(map[string]any)
		if m["type"] != "Available" {
			continue
		}
		if m["status"] == "True" {
			return "", false
		}
		reason, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return reason + ": " + msg, true
	}
	return "", false
}

// addFailure records a failed group version once, keeping Failed sorted.
func (c *Catalog) addFailure(gv, reason string) {
	for _, f := range c.Failed {
		if f.GroupVersion == gv {
			return
		}
	}
	c.Failed = append(c.Failed, GroupFailure{GroupVersion: gv, Error: reason})
	sort.Slice(c.Failed, func(i, j int) bool { return c.Failed[i].GroupVersion < c.Failed[j].GroupVersion })
}
