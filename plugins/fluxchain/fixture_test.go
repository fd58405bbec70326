package fluxchain_test

import (
	"cmp"
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/flux"
)

// fixture creates Flux objects in one namespace and writes their status through the status
// subresource, the way the controllers would.
type fixture struct {
	t    testing.TB
	ns   string
	dyn  dynamic.Interface
	kube kubernetes.Interface
}

func newFixture(t testing.TB, ns string) *fixture {
	t.Helper()
	dyn, kube := clients(t)
	f := &fixture{t: t, ns: ns, dyn: dyn, kube: kube}
	f.namespace(ns)
	installControllers(t, f)
	return f
}

func (f *fixture) namespace(ns string) {
	f.t.Helper()
	_, err := f.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
}

// cond is a Ready-style condition for a status, written a minute ago: kustomize-controller
// moves a Ready Kustomization's lastTransitionTime at every reconciliation, so an older one
// would be a stale status (liveness.go).
func cond(typ, status, reason, msg string) map[string]any {
	return condAt(typ, status, reason, msg, time.Now().Add(-time.Minute))
}

// condAt is cond with its lastTransitionTime at t.
func condAt(typ, status, reason, msg string, t time.Time) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg,
		"lastTransitionTime": t.UTC().Format(time.RFC3339), "observedGeneration": int64(1)}
}

// create creates obj and then writes status through the status subresource. It reports
// failures with Errorf, not Fatalf, because the benchmark calls it from worker goroutines.
func (f *fixture) create(obj *unstructured.Unstructured, status map[string]any) {
	f.t.Helper()
	gvr := flux.KustomizationGVR
	switch obj.GetKind() {
	case "GitRepository":
		gvr = flux.SourceGVRs["GitRepository"]
	case "HelmRelease":
		gvr = flux.HelmReleaseGVR
	}
	f.createAs(gvr, obj, status)
}

// createAs is create for an object of any resource.
func (f *fixture) createAs(gvr schema.GroupVersionResource, obj *unstructured.Unstructured, status map[string]any) {
	f.t.Helper()
	ctx := context.Background()
	ri := f.dyn.Resource(gvr).Namespace(obj.GetNamespace())
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		f.t.Errorf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		return
	}
	if status == nil {
		return
	}
	if _, ok := status["observedGeneration"]; !ok {
		status["observedGeneration"] = created.GetGeneration()
	}
	created.Object["status"] = status
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		f.t.Errorf("writing status of %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
}

// gitRepo creates a Ready GitRepository at revision.
func (f *fixture) gitRepo(name, revision string) {
	f.t.Helper()
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": name, "namespace": f.ns},
		"spec":     map[string]any{"url": "https://example.com/fleet.git", "interval": "1m"},
	}}, map[string]any{
		"conditions": []any{cond("Ready", "True", "Succeeded", "stored artifact for revision '"+revision+"'")},
		"artifact": map[string]any{"revision": revision, "path": "p", "url": "http://source/p.tar.gz",
			"digest": "sha256:0", "lastUpdateTime": "2026-01-01T00:00:00Z"},
	})
}

// kspec describes one Kustomization of a fixture.
type kspec struct {
	name      string
	deps      []string
	wait      bool
	suspend   bool
	timeout   string
	ready     map[string]any // nil: no status at all
	applied   string
	inventory []string
	// source is the GitRepository it builds from ("" for fleet); labels and finalizers go on
	// its metadata; readyExprs are the readyExpr of dependsOn entries, by dependency name.
	source     string
	sourceKind string // "" for GitRepository
	labels     map[string]any
	finalizers []any
	readyExprs map[string]string
}

// ks creates a Kustomization built from the GitRepository "fleet".
func (f *fixture) ks(s kspec) {
	f.t.Helper()
	var deps []any
	for _, d := range s.deps {
		dep := map[string]any{"name": d}
		if e := s.readyExprs[d]; e != "" {
			dep["readyExpr"] = e
		}
		deps = append(deps, dep)
	}
	source := s.source
	if source == "" {
		source = "fleet"
	}
	spec := map[string]any{"interval": "10m", "prune": true, "wait": s.wait, "suspend": s.suspend,
		"path": "./" + s.name, "sourceRef": map[string]any{"kind": cmp.Or(s.sourceKind, "GitRepository"), "name": source}}
	if deps != nil {
		spec["dependsOn"] = deps
	}
	if s.timeout != "" {
		spec["timeout"] = s.timeout
	}
	var status map[string]any
	if s.ready != nil {
		status = map[string]any{"conditions": []any{s.ready}, "lastAppliedRevision": s.applied}
		if s.inventory != nil {
			var entries []any
			for _, id := range s.inventory {
				entries = append(entries, map[string]any{"id": id, "v": "v1"})
			}
			status["inventory"] = map[string]any{"entries": entries}
		}
	}
	meta := map[string]any{"name": s.name, "namespace": f.ns}
	if s.labels != nil {
		meta["labels"] = s.labels
	}
	if s.finalizers != nil {
		meta["finalizers"] = s.finalizers
	}
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": meta,
		"spec":     spec,
	}}, status)
}

// readyKS is a Kustomization that applied rev and is Ready.
func readyKS(name, rev string, deps ...string) kspec {
	return kspec{name: name, deps: deps, wait: true, applied: rev,
		ready: cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev)}
}

// waitingKS waits on dep.
func waitingKS(ns, name, rev, dep string) kspec {
	return kspec{name: name, deps: []string{dep}, applied: rev,
		ready: cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/"+dep+"' is not ready")}
}
