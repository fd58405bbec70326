package finalizers

import (
	"context"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/report"
)

// defaultLeaseDuration is client-go's leader election default, taken when a Lease records none.
const defaultLeaseDuration = 15 * time.Second

// leaseTies maps each candidate one of whose pods holds a Lease tied to the finalizer to that
// tie: a controller elects its leader with a Lease named for its product (controller-runtime's
// `<hash>.<domain>`, a `<product>-leader-election`), or takes it in the namespace it reconciles,
// and only the holder acts. A Lease counts when its holder identity names a pod of the candidate
// (client-go writes `<pod>_<uuid>`) and either its name names the finalizer's domain (or, for a
// finalizer without one, a word of the finalizer or the object's kind: words) or it lies in the
// object's namespace while the candidate runs elsewhere. Renewed within its duration, the
// candidate leads (medium); renewed longer ago, its pod took the lease and stopped renewing it
// (low): tied, but not acting. The Leases and pods of the candidates' namespaces and the
// object's are listed once per command (shared with the leader and progress evidence); a list
// that fails is a gap, and that candidate is not tied by it.
func (x *Explainer) leaseTies(ctx context.Context, objNS, domain string, words map[string]bool, cands []workload) (map[string]tie, []report.Gap) {
	out := map[string]tie{}
	var gaps []report.Gap
	for _, w := range cands {
		if len(w.podLabels) == 0 {
			continue
		}
		pods, err := x.pods(ctx, w.ref.Namespace)
		if err != nil {
			gaps = append(gaps, listGap(typeID(podsResource, w.ref.Namespace), "listing pods in namespace "+w.ref.Namespace+" to find the Leases "+w.ref.String()+" holds", err))
			continue
		}
		sel := labels.SelectorFromSet(w.podLabels)
		var mine []string
		for _, p := range pods {
			if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
				mine = append(mine, p.Name)
			}
		}
		if len(mine) == 0 {
			continue
		}
		namespaces := []string{w.ref.Namespace}
		if objNS != "" && objNS != w.ref.Namespace {
			namespaces = append(namespaces, objNS)
		}
		for _, ns := range namespaces {
			leases, err := x.namespaceLeases(ctx, ns)
			if err != nil {
				gaps = append(gaps, listGap(objectID("coordination.k8s.io", "v1", "leases", ns, ""), "listing leases in namespace "+ns+" to see which candidate leads", err))
				continue
			}
			for i := range leases {
				t, ok := x.leaseTie(&leases[i], mine, objNS, w.ref.Namespace, domain, words)
				if ok && t.conf.rank() > out[w.ref.String()].conf.rank() {
					out[w.ref.String()] = t
				}
			}
		}
	}
	return out, gaps
}

// leaseTie is the tie one Lease gives a workload whose pods are mine (leaseTies).
func (x *Explainer) leaseTie(l *coordinationv1.Lease, mine []string, objNS, ownNS, domain string, words map[string]bool) (tie, bool) {
	if l.Spec.HolderIdentity == nil {
		return tie{}, false
	}
	pod := heldBy(*l.Spec.HolderIdentity, mine)
	renewed, ok := leaseRenewed(l)
	if pod == "" || !ok {
		return tie{}, false
	}
	why := ""
	switch {
	case l.Namespace == objNS && objNS != ownNS:
		why = "in the object's own namespace, away from its own: a controller takes its lease where it reconciles"
	case domain != "" && (l.Name == domain || strings.HasSuffix(l.Name, "."+domain)):
		why = "named under the finalizer's domain " + domain
	default:
		if word, ok := namesDomain(l.Name, words); ok {
			why = fmt.Sprintf("whose name names %q, as the finalizer does", word)
		}
	}
	if why == "" {
		return tie{}, false
	}
	duration := defaultLeaseDuration
	if l.Spec.LeaseDurationSeconds != nil {
		duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	ref := ObjectRef{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespace: l.Namespace, Name: l.Name}
	ago := x.now.Sub(renewed)
	if ago <= duration+leaseGrace {
		return tie{conf: ConfidenceMedium, evidence: fmt.Sprintf("its pod %s holds %s, %s, renewed %s ago: it leads, and the leader is the one that acts", pod, ref.String(), why, Age(ago))}, true
	}
	return tie{conf: ConfidenceLow, evidence: fmt.Sprintf("its pod %s holds %s, %s, but last renewed it %s ago (lease duration %s): it took the lease and no longer renews it", pod, ref.String(), why, Age(ago), duration)}, true
}
