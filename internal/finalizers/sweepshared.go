package finalizers

// A sweep lists every type, metadata only. Some of those types an explanation reads again in
// full, cluster-wide, once anything is stuck (RBAC, workloads, webhook configurations, CRDs), and
// the APIServices were read in full by discovery's availability check before the sweep began.
// Here the sweep takes those full lists for its own LIST of the type rather than reading the
// same objects twice, and tells the explanations what it listed of namespaces, whose deletion
// they ask about.

import (
	"context"
	"errors"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// partialGVK is what the API server sets on each item of a metadata-only LIST.
var partialGVK = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")

// asPartial is the metadata of one object as a metadata-only LIST returns it.
func asPartial(m metav1.ObjectMeta) metav1.PartialObjectMetadata {
	p := metav1.PartialObjectMetadata{ObjectMeta: m}
	p.SetGroupVersionKind(partialGVK)
	return p
}

// sharedList tells a sweep (ScanOptions.Shared) how to get r's objects from a full list this
// command reads anyway, nil for a type there is none of. The APIServices come from the
// availability check made before the sweep; the other lists only once the sweep has met a stuck
// object and started the reads its explanations share (prefetchShared): a sweep that finds
// nothing stuck reads nothing in full. A full list that failed, or was read at another version
// than the sweep lists, answers false and the type is listed as any other.
func (x *Explainer) sharedList(ctx context.Context, r kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool) {
	read := x.fullListOf(r)
	if read == nil || r.Version != "v1" {
		return nil
	}
	always := r.Group == "apiregistration.k8s.io" && r.Resource == "apiservices"
	return func() ([]metav1.PartialObjectMetadata, bool) {
		x.mu.Lock()
		started := x.sharedRead
		x.mu.Unlock()
		if !started && !always {
			return nil, false
		}
		items, err := read(ctx)
		return items, err == nil
	}
}

// fullListOf returns how to read r's objects from the full list the explanations share, nil
// when they read none of r.
func (x *Explainer) fullListOf(r kinds.Resource) func(context.Context) ([]metav1.PartialObjectMetadata, error) {
	switch r.Group + "/" + r.Resource {
	case "apiregistration.k8s.io/apiservices":
		return func(context.Context) ([]metav1.PartialObjectMetadata, error) {
			items, ok := x.catalog.APIServices()
			if !ok {
				return nil, errNotShared
			}
			return unstructuredPartials(items)
		}
	case "apiextensions.k8s.io/customresourcedefinitions":
		return sharedFrom(x.crds)
	case "admissionregistration.k8s.io/validatingwebhookconfigurations":
		return sharedFrom(func(ctx context.Context) ([]admissionv1.ValidatingWebhookConfiguration, error) {
			w, err := x.webhookConfigs(ctx)
			if err != nil {
				return nil, err
			}
			return w.validating, nil
		})
	case "admissionregistration.k8s.io/mutatingwebhookconfigurations":
		return sharedFrom(func(ctx context.Context) ([]admissionv1.MutatingWebhookConfiguration, error) {
			w, err := x.webhookConfigs(ctx)
			if err != nil {
				return nil, err
			}
			return w.mutating, nil
		})
	case "apps/deployments":
		return sharedFrom(x.clusterDeployments)
	case "apps/statefulsets":
		return sharedFrom(x.clusterStatefulSets)
	case "apps/daemonsets":
		return sharedFrom(x.clusterDaemonSets)
	case "rbac.authorization.k8s.io/clusterroles":
		return sharedFrom(func(ctx context.Context) ([]rbacv1.ClusterRole, error) {
			o, err := x.rbac(ctx)
			if err != nil {
				return nil, err
			}
			return o.crs, nil
		})
	case "rbac.authorization.k8s.io/roles":
		return sharedFrom(func(ctx context.Context) ([]rbacv1.Role, error) {
			o, err := x.rbac(ctx)
			if err != nil {
				return nil, err
			}
			return o.rs, nil
		})
	case "rbac.authorization.k8s.io/clusterrolebindings":
		return sharedFrom(func(ctx context.Context) ([]rbacv1.ClusterRoleBinding, error) {
			o, err := x.rbac(ctx)
			if err != nil {
				return nil, err
			}
			return o.crbs, nil
		})
	case "rbac.authorization.k8s.io/rolebindings":
		return sharedFrom(func(ctx context.Context) ([]rbacv1.RoleBinding, error) {
			o, err := x.rbac(ctx)
			if err != nil {
				return nil, err
			}
			return o.rbs, nil
		})
	}
	return nil
}

// sharedFrom turns a cached full list of typed objects (each embeds its ObjectMeta) into the
// metadata of its items.
func sharedFrom[T any](list func(context.Context) ([]T, error)) func(context.Context) ([]metav1.PartialObjectMetadata, error) {
	return func(ctx context.Context) ([]metav1.PartialObjectMetadata, error) {
		items, err := list(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]metav1.PartialObjectMetadata, len(items))
		for i := range items {
			m, ok := any(&items[i]).(metav1.ObjectMetaAccessor)
			if !ok {
				return nil, errNotShared
			}
			out[i] = asPartial(*m.GetObjectMeta().(*metav1.ObjectMeta))
		}
		return out, nil
	}
}

// errNotShared is a full list this command did not read: the sweep lists the type itself.
var errNotShared = errors.New("not read in full by this command")

// unstructuredPartials is the metadata of each unstructured item.
func unstructuredPartials(items []unstructured.Unstructured) ([]metav1.PartialObjectMetadata, error) {
	out := make([]metav1.PartialObjectMetadata, len(items))
	for i := range items {
		raw, _ := items[i].Object["metadata"].(map[string]any)
		var m metav1.ObjectMeta
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &m); err != nil {
			return nil, err
		}
		out[i] = asPartial(m)
	}
	return out, nil
}

// sweptNamespaces is what a cluster-wide sweep listed of namespaces: when each one's deletion
// was requested (nil when it was not), once the LIST is done.
type sweptNamespaces struct {
	done    chan struct{}
	once    sync.Once
	deleted map[string]*time.Time
	ok      bool
}

// fill records the sweep's LIST of namespaces (ok false when it failed) and lets the
// explanations waiting for it go on; only the first call counts.
func (s *sweptNamespaces) fill(items []metav1.PartialObjectMetadata, ok bool) {
	s.once.Do(func() {
		if ok {
			s.deleted = make(map[string]*time.Time, len(items))
			for i := range items {
				var t *time.Time
				if d := items[i].DeletionTimestamp; d != nil {
					u := d.UTC()
					t = &u
				}
				s.deleted[items[i].Name] = t
			}
		}
		s.ok = ok
		close(s.done)
	})
}

// sweepNamespaces starts recording the namespaces a cluster-wide sweep lists, and returns the
// hook (ScanOptions.Listed) that records them.
func (x *Explainer) sweepNamespaces() func(kinds.Resource, []metav1.PartialObjectMetadata, error) {
	s := &sweptNamespaces{done: make(chan struct{})}
	x.mu.Lock()
	x.swept = s
	x.mu.Unlock()
	return func(r kinds.Resource, items []metav1.PartialObjectMetadata, err error) {
		if r.Group == "" && r.Resource == "namespaces" {
			s.fill(items, err == nil)
		}
	}
}

// sweptDone lets any explanation still waiting for the sweep's namespaces go on when the sweep
// is over without having listed them (namespaces could not be listed).
func (x *Explainer) sweptDone() {
	x.mu.Lock()
	s := x.swept
	x.mu.Unlock()
	if s != nil {
		s.fill(nil, false)
	}
}

// sweptNamespaceDeleted answers namespaceDeleted from the cluster-wide sweep's LIST of
// namespaces, waiting for that LIST (one of the first the sweep makes); false outside such a
// sweep, when the LIST failed, or for a namespace it did not hold (read alone, as before).
func (x *Explainer) sweptNamespaceDeleted(ctx context.Context, name string) (*time.Time, bool) {
	x.mu.Lock()
	s := x.swept
	x.mu.Unlock()
	if s == nil {
		return nil, false
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, false
	}
	t, found := s.deleted[name]
	return t, s.ok && found
}
