package finalizers

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// maxDepth bounds recursion into blockers that are themselves Terminating.
const maxDepth = 3

// Explainer builds Explanations from live reads of one cluster. It caches what several
// explanations share (pods per namespace, the controller workloads) for the life of one command.
type Explainer struct {
	c       *cluster.Clients
	catalog *kinds.Catalog
	now     time.Time

	mu    sync.Mutex
	cache map[string]any
	// filling holds a channel per cache key being filled, closed when its value is stored.
	filling map[string]chan struct{}
	// sharedRead is set once a sweep has started the cluster-wide reads its explanations share
	// (prefetchShared): what can be derived from them is not read again.
	sharedRead bool
	// prefetched holds, by fullKey, the full reads a sweep started for the Terminating
	// objects it met (a chan fullRead each), until their explanation takes them.
	prefetched sync.Map
	// swept is what a cluster-wide sweep under way listed of namespaces, nil outside one.
	swept *sweptNamespaces
}

// New returns an Explainer for the cluster behind c, resolving kinds through catalog.
func New(c *cluster.Clients, catalog *kinds.Catalog) *Explainer {
	return &Explainer{c: c, catalog: catalog, now: time.Now(), cache: map[string]any{}}
}

// At sets the time the explanations are made as of (New takes the system clock's): ages,
// windows and grace periods are counted to it.
func (x *Explainer) At(now time.Time) *Explainer {
	x.now = now
	return x
}

// Explain reads one object and explains why it is Terminating. An object that is not
// Terminating yields an Explanation with Terminating false. A failed read of the object itself
// is returned as an error classified by cluster.ReadError (missing object: bad input).
func (x *Explainer) Explain(ctx context.Context, res kinds.Resource, namespace, name string) (*Explanation, error) {
	ri := x.c.Metadata.Resource(res.GVR())
	var obj *metav1.PartialObjectMetadata
	var err error
	if res.Namespaced {
		obj, err = ri.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	} else {
		obj, err = ri.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		ref := refFor(res, namespace, name)
		return nil, cluster.ReadError(x.c.Target, "reading "+ref.String(), err)
	}
	return x.ExplainObject(ctx, res, obj), nil
}

// ExplainObject explains an object already read (for example by a sweep's LIST).
func (x *Explainer) ExplainObject(ctx context.Context, res kinds.Resource, obj metav1.Object) *Explanation {
	return x.explain(ctx, res, obj, 0)
}

func (x *Explainer) explainOnce(ctx context.Context, res kinds.Resource, obj metav1.Object, depth int) *Explanation {
	e := &Explanation{Object: refFor(res, obj.GetNamespace(), obj.GetName()), GitOps: gitOpsOwner(obj.GetLabels())}
	ts := obj.GetDeletionTimestamp()
	if ts == nil {
		return e
	}
	t := ts.UTC()
	e.Terminating, e.DeletionTimestamp = true, &t
	// A graceful deletion (a pod's) sets deletionTimestamp to request + grace period: the
	// request is what an operator waits on.
	requested := t
	if g := obj.GetDeletionGracePeriodSeconds(); g != nil && *g > 0 {
		grace := *g
		e.GracePeriodSeconds = &grace
		requested = t.Add(-time.Duration(grace) * time.Second)
	}
	e.TerminatingFor = Age(x.now.Sub(requested))
	o := subject{res: res, obj: obj, depth: depth}
	if res.Group == "" && res.Resource == "namespaces" {
		e.Finalizers = append(e.Finalizers, x.namespaceFinalizers(ctx, o, e)...)
	}
	for _, f := range obj.GetFinalizers() {
		e.Finalizers = append(e.Finalizers, x.explainFinalizer(ctx, o, f))
	}
	x.applyOutsideClient(ctx, o, e)
	x.applyAbsentReferrers(ctx, o, e)
	if len(e.Finalizers) == 0 {
		x.explainNoFinalizers(ctx, o, e)
	}
	if res.Group != "" || res.Resource != "namespaces" {
		x.readObjectsWord(ctx, o, e, requested)
	} else {
		x.applyNamespaceStall(ctx, o, e, requested)
	}
	applyProtectsSelf(o, e)
	x.applyLeaderLogs(ctx, e)
	x.guardExplanation(ctx, e)
	setReasons(e)
	return e
}

// readObjectsWord adds what the object and its controllers say (conditions, status, events),
// turns the dependents it names into blockers, and decides whether its deletion progresses.
func (x *Explainer) readObjectsWord(ctx context.Context, o subject, e *Explanation, requested time.Time) {
	w, gaps := x.readOwnWord(ctx, o, requested)
	e.Conditions, e.Status, e.Events = w.conditions, w.status, w.events
	e.Unchecked = append(e.Unchecked, gaps...)
	x.applyFinalizerAdder(ctx, e, w)
	x.applyOutsideAdder(ctx, o, e, w.obj)
	x.applyObjectTies(ctx, o, e, w)
	nameLeftovers(e, w.obj)
	reinstallForRecordedCleanup(e, w.obj)
	nameSpecStore(e, w.obj)
	x.leftDeployed(ctx, e, w.obj)
	x.leftLabelled(ctx, e)
	x.leftGenerated(ctx, e, o, w.obj)
	x.leftNamedType(ctx, e, o, w.obj)
	x.applyPause(ctx, o, e, w.obj)
	if deps := w.namedDependents(); len(deps) > 0 && len(e.Finalizers) > 0 {
		blockers, gaps := x.dependentBlockers(ctx, o, deps)
		i := slices.IndexFunc(e.Finalizers, func(f Finalizer) bool { return len(f.Controllers) > 0 })
		if i < 0 {
			i = 0
		}
		f := &e.Finalizers[i]
		f.Blockers = append(f.Blockers, blockers...)
		f.Incomplete = append(f.Incomplete, gaps...)
		f.Remedies = append([]Remediation{{Summary: "The object's own status names the dependents its controller waits for: clear each one (delete it if what it holds may go; if it is itself Terminating, its explanation is below). The controller then removes " + f.Name + " itself."}}, f.Remedies...)
	}
	x.applyOwnNamespaces(ctx, o, e, requested)
	x.applyMissing(ctx, o, e, w)
	x.applyDangling(ctx, o, e, w)
	x.applyPodNodeSilent(ctx, o, e, w)
	x.applyPodNeverScheduled(ctx, o, e, w)
	x.applyReasonNotFound(o, e, w)
	x.applyGoingReferents(ctx, o, e, w, requested)
	x.applyMissingInputs(ctx, o, e, w)
	x.applyReferrers(ctx, o, e, w)
	x.applyGeneratedInUse(ctx, o, e)
	x.applyAwaitedNames(ctx, o, e, w)
	x.applyRestoreRefused(ctx, e)
	applyRestoreClaim(e)
	if e.Deleting {
		return
	}
	ok, ev := x.controllerProgress(ctx, e, w)
	if ok {
		e.Deleting = true
		e.recordProgress(ev)
		dropLastResorts(e)
		return
	}
	// Evidence against a deletion that would otherwise progress is shown; the rest says
	// nothing new when nothing progresses.
	for _, p := range ev {
		if p.Against {
			e.recordProgress([]ProgressEvidence{p})
		}
	}
	if ok, ev := blockersShuttingDown(e); ok {
		e.Deleting = true
		e.recordProgress(ev)
		for i := range e.Finalizers {
			e.Finalizers[i].Remedies = []Remediation{{Summary: "Nothing to do: what holds " + e.Finalizers[i].Name + " is shutting down on its own (see below), and the finalizer goes once it is gone."}}
		}
		e.Remedies = nil
		return
	}
	x.applyStalled(ctx, o, e, w, requested)
	x.applyForeignUnreferenced(ctx, o, e)
	applyStatusFailure(e, w)
	x.applyCompletedWork(ctx, o, e, w)
	x.applyBackgroundDependents(ctx, o, e, w)
	x.applyOwnerHeld(ctx, o, e)
	x.applyReportedFailure(ctx, e, w, requested)
	x.applyNeverSucceeded(e, w, requested)
	applyNeverRecorded(o, e, w)
	x.applyOwnValueRejected(o, e, w, requested)
	x.applyOwnWayOut(ctx, o, e, w)
	x.nameOwnedClaims(ctx, o, e)
}

// dropLastResorts removes every step that bypasses a controller whose work is on course.
func dropLastResorts(e *Explanation) {
	keep := func(rs []Remediation) []Remediation {
		return slices.DeleteFunc(rs, func(r Remediation) bool { return r.LastResort })
	}
	e.Remedies = keep(e.Remedies)
	for i := range e.Finalizers {
		e.Finalizers[i].Remedies = keep(e.Finalizers[i].Remedies)
	}
}

// blockersShuttingDown reports an object whose every finalizer waits only on blockers whose
// own deletion progresses (a claim held by pods that are shutting down within their grace
// period), with no failed read and no controller that cannot run.
func blockersShuttingDown(e *Explanation) (bool, []ProgressEvidence) {
	if len(e.Finalizers) == 0 {
		return false, nil
	}
	var ev []ProgressEvidence
	for _, f := range e.Finalizers {
		if len(f.Blockers) == 0 || len(f.Incomplete) > 0 || blockedByController(f) {
			return false, nil
		}
		for _, b := range f.Blockers {
			if b.Terminating == nil || !b.Terminating.Deleting {
				return false, nil
			}
			obj := b.Object
			ev = append(ev, ProgressEvidence{Kind: ProgressBlockersDeleting, Object: &obj, Detail: b.Object.String() + " is shutting down on its own, and " + f.Name + " goes once it is gone"})
		}
	}
	return true, ev
}

// subject is the object being explained, as each finalizer's explainer sees it.
type subject struct {
	res   kinds.Resource
	obj   metav1.Object
	depth int
}

func (s subject) ref() ObjectRef { return refFor(s.res, s.obj.GetNamespace(), s.obj.GetName()) }

// explainFinalizer dispatches one finalizer to the explainer that knows it, then adds every
// fail-closed admission webhook that would reject the UPDATE that removes it.
func (x *Explainer) explainFinalizer(ctx context.Context, o subject, name string) Finalizer {
	f := x.dispatchFinalizer(ctx, o, name)
	hooks, gaps := x.webhookBlockers(ctx, admissionv1.Update, o.res, o.obj.GetNamespace(), o.obj.GetLabels())
	var fixes []Remediation
	for _, b := range hooks {
		fixes = append(fixes, x.webhookRemedies(ctx, b)...)
	}
	f.Blockers = append(f.Blockers, hooks...)
	f.Remedies = append(fixes, f.Remedies...)
	x.behindOwnWebhook(ctx, &f, hooks)
	if len(f.Blockers) > 0 || blockedByController(f) {
		// A blocker is already proven: what the webhooks would add cannot change the verdict.
		f.Unchecked = append(f.Unchecked, gaps...)
	} else {
		f.Incomplete = append(f.Incomplete, gaps...)
	}
	return f
}

// blockedByController reports a finalizer whose controller candidates are all absent or unready.
func blockedByController(f Finalizer) bool {
	if len(f.Controllers) == 0 {
		return false
	}
	for _, c := range f.Controllers {
		if c.Healthy {
			return false
		}
	}
	return true
}

// refFor builds the fully qualified reference of an object of res.
func refFor(res kinds.Resource, namespace, name string) ObjectRef {
	r := ObjectRef{Group: res.Group, Version: res.Version, Resource: res.Resource, Kind: res.Kind, Name: name}
	if res.Namespaced {
		r.Namespace = namespace
	}
	return r
}

// gitOpsOwner reads the labels Flux controllers put on what they apply.
// An object that carries both (a chart's object whose HelmRelease a Kustomization applies, with
// labels propagated) was installed by helm-controller: the HelmRelease is its real owner.
func gitOpsOwner(labels map[string]string) *GitOpsOwner {
	if n := labels["helm.toolkit.fluxcd.io/name"]; n != "" {
		return &GitOpsOwner{Kind: "HelmRelease", Namespace: labels["helm.toolkit.fluxcd.io/namespace"], Name: n}
	}
	if n := labels["kustomize.toolkit.fluxcd.io/name"]; n != "" {
		return &GitOpsOwner{Kind: "Kustomization", Namespace: labels["kustomize.toolkit.fluxcd.io/namespace"], Name: n}
	}
	return nil
}

// resource resolves a core or built-in kind the explainers need, e.g. pods.
func (x *Explainer) resource(group, kind string) (kinds.Resource, bool) {
	return x.catalog.ForGroupKind(schema.GroupKind{Group: group, Kind: kind})
}

// kubectl renders a kubectl command pinned to this cluster's connection, every word
// shell-quoted: `kubectl --context=X -n ns verb ...` (cluster.Target.Command).
func (x *Explainer) kubectl(namespace string, args ...string) string {
	if namespace != "" {
		args = append([]string{"-n", namespace}, args...)
	}
	return x.c.Target.Command(args...)
}

// shellQuote quotes one word for a POSIX shell, as every printed command's words are
// (cluster.Quote): for the pieces of a pipeline built around kubectl commands.
func shellQuote(s string) string {
	return cluster.Quote(s)
}

// cached returns the value stored under key, computing it once with fill. Concurrent callers
// of one key wait for the first one's fill rather than repeat its reads (explanations of a
// sweep run in parallel and share the RBAC, workload and event lists).
func cached[T any](x *Explainer, key string, fill func() (T, error)) (T, error) {
	x.mu.Lock()
	if v, ok := x.cache[key]; ok {
		x.mu.Unlock()
		r := v.(cacheEntry[T])
		return r.v, r.err
	}
	if x.filling == nil {
		x.filling = map[string]chan struct{}{}
	}
	if wait, ok := x.filling[key]; ok {
		x.mu.Unlock()
		<-wait
		x.mu.Lock()
		r := x.cache[key].(cacheEntry[T])
		x.mu.Unlock()
		return r.v, r.err
	}
	done := make(chan struct{})
	x.filling[key] = done
	x.mu.Unlock()
	v, err := fill()
	x.mu.Lock()
	x.cache[key] = cacheEntry[T]{v, err}
	delete(x.filling, key)
	x.mu.Unlock()
	close(done)
	return v, err
}

type cacheEntry[T any] struct {
	v   T
	err error
}

func sortBlockers(bs []Blocker) {
	sort.Slice(bs, func(i, j int) bool { return bs[i].Object.String() < bs[j].Object.String() })
}
