package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxAddresses bounds the in-cluster addresses checked per referent.
const maxAddresses = 4

// serviceAddress is an in-cluster Service address a spec field holds (`zk.zookeeper:2181`,
// `http://api.team.svc.cluster.local/v1`).
type serviceAddress struct{ path, name, namespace string }

// serviceAddresses walks spec (bounded) for string values shaped like an in-cluster Service
// address: `<service>.<namespace>` followed by a port, or `<service>.<namespace>.svc[...]`,
// optionally behind a scheme and before a path, several comma-separated in one value. Sorted by
// path, at most maxAddresses.
func serviceAddresses(spec map[string]any) []serviceAddress {
	var out []serviceAddress
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		if depth > maxDanglingDepth {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(c, path+"."+k, depth+1)
			}
		case []any:
			for _, c := range t {
				walk(c, path, depth+1)
			}
		case string:
			for _, part := range strings.Split(t, ",") {
				if a, ok := parseServiceAddress(strings.TrimSpace(part)); ok {
					a.path = path
					out = append(out, a)
				}
			}
		}
	}
	walk(spec, "spec", 0)
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].name < out[j].path+out[j].name })
	if len(out) > maxAddresses {
		out = out[:maxAddresses]
	}
	return out
}

// parseServiceAddress reads one address; false when it is none.
func parseServiceAddress(s string) (serviceAddress, bool) {
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	host, port, hasPort := strings.Cut(s, ":")
	labels := strings.Split(host, ".")
	if len(labels) < 2 || !validLabel(labels[0]) || !validLabel(labels[1]) {
		return serviceAddress{}, false
	}
	switch {
	case len(labels) == 2 && hasPort && port != "" && strings.Trim(port, "0123456789") == "":
	case len(labels) >= 3 && labels[2] == "svc":
	default:
		return serviceAddress{}, false
	}
	return serviceAddress{name: labels[0], namespace: labels[1]}, true
}

// validLabel reports a DNS label (a Service or namespace name).
func validLabel(s string) bool { return len(s) <= 63 && validName(s) && !strings.Contains(s, ".") }

// missingServices returns, in words, the in-cluster addresses a referent's spec holds whose
// Service does not exist in a namespace that does: what the referent needed to do its work
// (a ZooKeeper, a database) is gone. A namespace that does not exist says nothing (a
// `host.tld:port` outside the cluster has the same shape), nor does a failed read.
func (x *Explainer) missingServices(ctx context.Context, ref ObjectRef, gvr schema.GroupVersionResource) []string {
	obj, err := x.c.Dynamic.Resource(gvr).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	var out []string
	for _, a := range serviceAddresses(spec) {
		if _, read := x.namespaceGoing(ctx, a.namespace, nil); !read {
			continue
		}
		_, err := x.c.Kube.CoreV1().Services(a.namespace).Get(ctx, a.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			out = append(out, fmt.Sprintf("its %s names services/%s -n %s, which does not exist", a.path, a.name, a.namespace))
		}
	}
	return out
}
