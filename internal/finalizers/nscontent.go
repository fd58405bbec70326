package finalizers

import (
	"context"
	"fmt"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

func isPods(r kinds.Resource) bool { return r.Group == "" && r.Resource == "pods" }

// waitsForPods reports ordered namespace deletion in progress (the default since Kubernetes
// 1.33): pods remain, and no object of another type is being deleted yet, because the namespace
// controller deletes the rest only once every pod is gone.
func waitsForPods(s *Scan) bool {
	pods := false
	for _, t := range s.Types {
		for i := range t.Items {
			if isPods(t.Resource) {
				pods = true
			} else if t.Items[i].DeletionTimestamp != nil {
				return false
			}
		}
	}
	return pods
}

// waitingBlocker summarises the objects of one type that wait for the namespace's pods.
func waitingBlocker(t TypeObjects) Blocker {
	b := contentBlocker(t)
	b.Reason = fmt.Sprintf("%d waiting: the namespace controller deletes them once the namespace's pods are gone (ordered namespace deletion)", len(t.Items))
	return b
}

// podsState counts a namespace's remaining pods and those shutting down on their own.
type podsState struct{ total, shuttingDown int }

// namespacePods decides for each remaining pod whether it is shutting down on its own (grace
// period left, node Ready, kubelet posting). The others are explained as blockers, at most
// maxNamesShown of them; pods with finalizers are left to the caller.
func (x *Explainer) namespacePods(ctx context.Context, o subject, ns string, t TypeObjects, f *Finalizer) podsState {
	st := podsState{total: len(t.Items)}
	typed, err := x.pods(ctx, ns)
	if err != nil {
		f.Incomplete = append(f.Incomplete, listGap(typeID(podsResource, ns), "listing pods in namespace "+ns, err))
		return st
	}
	shown := 0
	for i := range typed {
		p := &typed[i]
		if ok, _ := x.podShuttingDown(ctx, p); ok {
			st.shuttingDown++
			continue
		}
		if len(p.Finalizers) > 0 || p.DeletionTimestamp == nil || shown >= maxNamesShown || o.depth >= maxDepth {
			continue
		}
		shown++
		b := Blocker{Object: x.podRef(p), Code: ReasonPodNotShuttingDown, Reason: "is Terminating and not shutting down on its own", labels: p.Labels}
		b.Terminating = x.explain(ctx, t.Resource, p, o.depth+1)
		f.Blockers = append(f.Blockers, b)
	}
	return st
}

// tally counts what a namespace's remaining content holds, across its types.
type tally struct {
	stuck, explainedBelow, remaining int
	pods                             podsState
}

// addContent adds one type's remaining objects to the namespace's finalizer: as waiting under
// ordered deletion, else as a blocker, with the fail-closed webhooks that reject their DELETE,
// the pods' shutdown state, and every object held by finalizers (explained when Terminating).
// note is added to the reasons of objects listed behind a broken conversion webhook.
func (x *Explainer) addContent(ctx context.Context, o subject, ns string, t TypeObjects, note string, ordered bool, f *Finalizer, c *tally) {
	if len(t.Items) == 0 {
		return
	}
	c.remaining += len(t.Items)
	switch b := contentBlocker(t); {
	case ordered && !isPods(t.Resource):
		f.Waiting = append(f.Waiting, waitingBlocker(t))
	case note != "":
		b.Reason += " behind the broken conversion webhook" + note
		f.Blockers = append(f.Blockers, b)
	default:
		f.Blockers = append(f.Blockers, b)
	}
	hooks, gaps := x.webhookBlockers(ctx, admissionv1.Delete, t.Resource, ns, t.Items[0].Labels)
	f.Blockers = append(f.Blockers, hooks...)
	f.Incomplete = append(f.Incomplete, gaps...)
	if ordered && !isPods(t.Resource) {
		return
	}
	if isPods(t.Resource) {
		c.pods = x.namespacePods(ctx, o, ns, t, f)
	}
	var held []Blocker
	var terminating []int
	for i := range t.Items {
		item := &t.Items[i]
		if len(item.Finalizers) == 0 || o.depth >= maxDepth {
			continue
		}
		c.stuck++
		held = append(held, Blocker{Object: refFor(t.Resource, item.Namespace, item.Name), Code: ReasonNamespaceContentHeld, Reason: "remains, held by finalizers " + strings.Join(item.Finalizers, ", ") + note, GitOps: gitOpsOwner(item.Labels)})
		if item.DeletionTimestamp != nil {
			terminating = append(terminating, i)
		}
	}
	// Held objects are explained in parallel: each reads its own status, events and evidence.
	explained := x.explainAll(ctx, t, terminating, o.depth+1)
	j := 0
	for i := range t.Items {
		if len(t.Items[i].Finalizers) == 0 || o.depth >= maxDepth {
			continue
		}
		if e, ok := explained[i]; ok {
			held[j].Terminating = e
			c.explainedBelow++
		}
		j++
	}
	f.Blockers = append(f.Blockers, held...)
}

// explainWorkers bounds the held objects explained at once.
const explainWorkers = 8

// explainAll explains the items of t at the given indices, at most explainWorkers at a time,
// and returns the explanations by index.
func (x *Explainer) explainAll(ctx context.Context, t TypeObjects, indices []int, depth int) map[int]*Explanation {
	out := make(map[int]*Explanation, len(indices))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, explainWorkers)
	for _, i := range indices {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			e := x.explain(ctx, t.Resource, &t.Items[i], depth)
			mu.Lock()
			out[i] = e
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}
