package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// judgeDomainless ranks the candidates RBAC found for a finalizer without a domain
// (`eventbus-controller`) by what ties each to the object's own type, since the finalizer's
// name names no API group: rights to update the object are what made it a candidate, and rights
// that allow everything, or every type of the group, are no evidence that it set this finalizer.
// A candidate is tied when
//   - its roles name the object's resource itself (`eventbus`, `eventbus/finalizers`), not
//     through a wildcard (high);
//   - a Service that selects its pods answers the object's API group (an admission or conversion
//     webhook, an APIService) (high);
//   - it carries a product label of the object's own CustomResourceDefinition with the same value
//     (`app.kubernetes.io/part-of`, `instance`, the Helm release) (medium);
//   - a table of known controllers names it (medium);
//   - its name, image or product labels contain a word of the finalizer's name or of the
//     object's kind, or its command or arguments name the object's custom kind (low,
//     argsnamekind.go).
//
// Tied candidates are the controllers, strongest first (strongest tie against strongest tie, then
// the next, then more ties before fewer: strongerTies); the others are listed as unrelated, and so
// are servers of requests that nothing ties to reconciling the type (apartServers): when only
// such servers are tied, no controller of the finalizer runs.
// When none is tied, no controller of the finalizer is found: the verdict is that it is not
// installed, and the unrelated ones that merely could remove it are listed.
func (x *Explainer) judgeDomainless(ctx context.Context, o subject, name string, known []string, a attribution) (attribution, []report.Gap) {
	if a.dead && len(a.controllers) == 1 && a.controllers[0].Object.Name == "" {
		return a, nil
	}
	what := o.ref().QualifiedResource()
	rr, gaps := x.readForRanking(ctx, name)
	if len(gaps) > 0 {
		return a, gaps
	}
	rb, idx, byRef := rr.rb, rr.idx, rr.byRef
	own, hasOwn := idx.own[o.res.Group+"/"+o.res.Resource]
	tokens := typeWords(name, o.res.Kind, own)
	var tied, unrelated []Controller
	tiesOf := map[string][]tie{}
	for _, c := range a.controllers {
		var ts []tie
		if w, ok := byRef[c.Object.String()]; ok && c.Found {
			ts = x.typeTies(ctx, o, w, idx, rb, tokens)
			if hasOwn {
				ts = append(ts, argsNameKind(w, o.res.Kind, own)...)
			}
			if hasOwn {
				if agree, lines := ownLabelAgreement(own, w); agree > 0 {
					ts = append(ts, tie{conf: ConfidenceMedium, evidence: strings.TrimSuffix(lines[0], ", whose finalizer this is")})
				}
			}
			if len(known) > 0 && matchScore(w, known) >= 2 {
				ts = append(ts, tie{conf: ConfidenceMedium, evidence: "named like the finalizer's known controller (" + quote(known) + ")"})
			}
		} else if c.Object.Resource == "serviceaccounts" {
			ts = rolesNameType(rb, c.Object.Namespace, c.Object.Name, o.res.Group, o.res.Resource, what)
		}
		ts = sortTies(ts)
		tiesOf[c.Object.String()] = ts
		c.Confidence, c.Ties = confidenceOf(ts), tieLines(ts)
		if c.Confidence == ConfidenceNone {
			c.Note = fmt.Sprintf("may update %s, but nothing in the cluster ties it to finalizer %s: its roles do not name %s itself, it serves no webhook of %s, and neither its labels nor its name, images or arguments name the finalizer or the kind", what, name, what, groupName(o.res.Group))
			unrelated = append(unrelated, c)
			continue
		}
		tied = append(tied, c)
	}
	sort.SliceStable(tied, func(i, j int) bool {
		return strongerTies(tiesOf[tied[i].Object.String()], tiesOf[tied[j].Object.String()])
	})
	tied, shared := apartByFinalizerName(tied, byRef, name, what)
	unrelated = append(unrelated, shared...)
	tied, servers := x.apartServers(ctx, tied, byRef, namedByName(tied, byRef, name), o.res.Group, o.res.Group, o.res.Resource, what, "the object's type", idx, rb)
	unrelated = append(unrelated, servers...)
	a.unrelated = unrelated
	switch {
	case len(unrelated) == 0:
		a.controllers = tied
	case len(tied) == 0 && len(servers) > 0:
		c := serversOnlyDomainlessNote(name, what, servers)
		c.Evidence = x.mutatingServers(ctx, o.res.Group, rr.ws, idx)
		a.controllers, a.summary, a.dead, a.noTie = []Controller{c}, c.Note, true, true
		for _, s := range servers {
			a.serversOnly = append(a.serversOnly, s.Object.String())
		}
	case len(tied) == 1 && len(shared) > 0 && len(shared) == len(unrelated):
		a = withSharedApart(a, tied, shared, what)
	case len(tied) > 0:
		a = withUnrelatedApart(a, tied, len(unrelated), what, what)
	default:
		c := Controller{Note: fmt.Sprintf("no controller of finalizer %s is found: %s may update %s, but nothing in the cluster (roles naming %s itself, webhooks of its API group, product labels of its CustomResourceDefinition, names or images naming the finalizer or the kind) ties %s to it; a finalizer without a domain does not name its owner, and rights that allow everything are no evidence of one",
			name, countWorkloads(len(unrelated)), what, what, themOrIt(len(unrelated)))}
		a.controllers, a.summary, a.dead, a.noTie = []Controller{c}, c.Note, true, true
	}
	return a, nil
}

// typeTies are the ties of a workload to the object's own type, for a finalizer without a
// domain (judgeDomainless).
func (x *Explainer) typeTies(ctx context.Context, o subject, w workload, idx *productIndex, rb *rbacObjects, tokens map[string]bool) []tie {
	ts := rolesNameType(rb, w.ref.Namespace, w.serviceAccount, o.res.Group, o.res.Resource, o.ref().QualifiedResource())
	if o.res.Group != "" {
		for _, s := range idx.served {
			if s.svc.namespace == w.ref.Namespace && strings.EqualFold(s.group, o.res.Group) && x.selects(ctx, s.svc, w) {
				ts = append(ts, tie{conf: ConfidenceHigh, evidence: fmt.Sprintf("serves API group %s, the object's own, behind %s, through %s", s.group, s.via, s.svc)})
				break
			}
		}
	}
	said := []string{w.ref.Name}
	for _, img := range w.images {
		said = append(said, imageName(img))
	}
	for _, k := range productLabels {
		said = append(said, w.labels[k])
	}
	for _, s := range said {
		if t, ok := namesDomain(s, tokens); ok {
			ts = append(ts, tie{conf: ConfidenceLow, evidence: fmt.Sprintf("%s names %q, as the finalizer or the object's kind does", s, t)})
			break
		}
	}
	return ts
}

// rolesNameType is the tie of a service account whose roles name the object's resource (or its
// finalizers subresource) itself, in a rule for the object's group: a controller asks for rights
// on the types it manages by name.
func rolesNameType(rb *rbacObjects, ns, sa, group, resource, what string) []tie {
	var out []tie
	rb.boundRules(ns, sa, func(rules []rbacv1.PolicyRule, via string) {
		if len(out) > 0 {
			return
		}
		for _, r := range rules {
			if anyOf(r.APIGroups, group) && anyOf(r.Resources, resource, resource+"/finalizers", resource+"/status") {
				out = append(out, tie{conf: ConfidenceHigh, evidence: fmt.Sprintf("its roles name %s itself, not through a wildcard (%s)", what, via)})
				return
			}
		}
	})
	return out
}

// typeWords are the words a finalizer without a domain and the object's kind give for matching
// a workload's name, images and labels (`eventbus` of `eventbus-controller` and `EventBus`).
func typeWords(finalizer, kind string, own ownCRD) map[string]bool {
	out := map[string]bool{}
	for _, s := range append([]string{finalizer, kind}, own.names...) {
		for _, w := range words(s) {
			out[w] = true
		}
	}
	return out
}

// groupName is an API group as prose, the core group by name.
func groupName(g string) string {
	if g == "" {
		return "the core API group"
	}
	return g
}

// rankReads are what ranking a finalizer's candidates reads, once per command: the workloads
// (by reference too), RBAC and which product serves which API group.
type rankReads struct {
	ws    []workload
	byRef map[string]workload
	rb    *rbacObjects
	idx   *productIndex
}

// readForRanking reads what the ranking needs; a failed read is a gap, and nothing is ranked.
func (x *Explainer) readForRanking(ctx context.Context, name string) (rankReads, []report.Gap) {
	var r rankReads
	var err error
	if r.ws, err = x.workloads(ctx); err != nil {
		return r, []report.Gap{listGap(workloadsID(), "listing workloads to rank who removes "+name, err)}
	}
	if r.rb, err = x.rbac(ctx); err != nil {
		return r, []report.Gap{listGap(rbacID(), "reading RBAC to rank who removes "+name, err)}
	}
	if r.idx, err = x.products(ctx); err != nil {
		return r, []report.Gap{listGap(typeID(crdsResource, ""), "reading which product serves which API group, to rank who removes "+name, err)}
	}
	r.byRef = map[string]workload{}
	for _, w := range r.ws {
		r.byRef[w.ref.String()] = w
	}
	return r, nil
}

// withUnrelatedApart makes the tied candidates the controllers, and says that n unrelated ones
// that merely could remove the finalizer are listed apart.
func withUnrelatedApart(a attribution, tied []Controller, n int, what, tiedTo string) attribution {
	s, dead := candidateSummary(tied, what, tied[0].BroadOnly)
	s += fmt.Sprintf(" and that the cluster ties to %s (%d unrelated one(s) that merely could are listed apart)", tiedTo, n)
	for i := range tied {
		if tied[i].Found && tied[i].Note == a.summary {
			tied[i].Note = s
		}
	}
	a.controllers, a.summary, a.dead = tied, s, dead
	return a
}

// strongerTies reports whether the ties a (sorted strongest first) outweigh b's: compared
// strongest against strongest, the first stronger tie decides; when every tie of the shorter
// list is matched, the candidate with more ties ranks first. Two workloads whose roles both name
// the object's type are told apart by what else ties them to it (its name naming the kind, its
// arguments naming it), rather than by their names' order.
func strongerTies(a, b []tie) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if ra, rb := a[k].conf.rank(), b[k].conf.rank(); ra != rb {
			return ra > rb
		}
	}
	return len(a) > len(b)
}

// namedByName are the tied candidates a finalizer without a domain names whole
// (finalizerNamesWorkload): a server so named stays a candidate.
func namedByName(tied []Controller, byRef map[string]workload, name string) map[string]bool {
	out := map[string]bool{}
	for _, c := range tied {
		if w, ok := byRef[c.Object.String()]; ok && c.Found && finalizerNamesWorkload(name, w) {
			out[c.Object.String()] = true
		}
	}
	return out
}
