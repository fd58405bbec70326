package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kubeforensics/suite/internal/report"
)

// judgeDomain ranks the candidates RBAC found for a finalizer with a domain by their ties to
// that domain (workloadTies): broad rights on the object's type are no evidence of ownership.
// Candidates with a tie come first, strongest first; those without one are never named as the
// remover while a tied one exists, and are moved to unrelated. When none is tied, the verdict
// is that no controller of the domain is installed. When no workload may update the object at
// all, the finalizer is orphaned, and the workloads of its domain that run are named.
// known are workload names a table gives for the finalizer (a tie of medium confidence);
// hints are the names noCandidate already reported.
func (x *Explainer) judgeDomain(ctx context.Context, o subject, name string, known, hints []string, a attribution) (attribution, []report.Gap) {
	domain := finalizerDomain(name)
	if domain == "" && !a.unread && !a.guessed {
		return x.judgeDomainless(ctx, o, name, known, a)
	}
	if domain == "" || a.unread || a.guessed || namedForObject(name, o.obj.GetName()) {
		return a, nil
	}
	what := o.ref().QualifiedResource()
	rr, gaps := x.readForRanking(ctx, name)
	if len(gaps) > 0 {
		return a, gaps
	}
	ws, rb, idx, byRef := rr.ws, rr.rb, rr.idx, rr.byRef
	tiesOf := func(c Controller) []tie {
		if w, ok := byRef[c.Object.String()]; ok && c.Found {
			ts := x.workloadTies(ctx, domain, w, idx, rb)
			ts = sortTies(append(ts, objectKeyTies(domain, o.obj.GetAnnotations(), o.obj.GetLabels(), w)...))
			ts = sortTies(append(ts, pathTie(name, w)...))
			if len(known) > 0 && matchScore(w, known) >= 2 {
				ts = sortTies(append(ts, tie{conf: ConfidenceMedium, evidence: "named like the finalizer's known controller (" + quote(known) + ")"}))
			}
			return ts
		}
		if c.Object.Resource == "serviceaccounts" {
			return rbacTies(domain, c.Object.Namespace, c.Object.Name, idx, rb)
		}
		return nil
	}
	a.domain = domain
	if a.dead && len(a.controllers) == 1 && a.controllers[0].Object.Name == "" {
		lines, tied := x.domainWorkloads(ctx, domain, what, ws, idx, rb, hints)
		// Orphaned only while the product runs: with none of its domain installed, reinstalling
		// it comes first and the strip stays the last resort. The same when what runs of it may
		// not even read the type: the component that removed the finalizer is gone (readerGone).
		a.orphan = len(tied) > 0
		if line, gone := readerGone(o.res.Group, o.res.Resource, what, domain, tied, rb); gone {
			a.orphan, a.readerGone = false, true
			lines = append(lines, line)
		}
		a.switchedOff = switchedOffFeatures(o.res.Resource, tied)
		for _, off := range a.switchedOff {
			lines = append(lines, off+": the feature that handles "+what+" is switched off there")
		}
		a.controllers[0].Evidence = append(a.controllers[0].Evidence, lines...)
		return a, nil
	}
	var tied, unrelated []Controller
	tiesBy := map[string][]tie{}
	for _, c := range a.controllers {
		ts := tiesOf(c)
		tiesBy[c.Object.String()] = ts
		c.Confidence, c.Ties = confidenceOf(ts), tieLines(ts)
		if c.Confidence == ConfidenceNone {
			c.Note = fmt.Sprintf("may update %s, but nothing in the cluster ties it to the finalizer's domain %s", what, domain)
			unrelated = append(unrelated, c)
			continue
		}
		tied = append(tied, c)
	}
	tied, dropped := dropCandidacyOnly(tied, tiesBy, byRef, o.res.Group, o.res.Resource, what, rb)
	unrelated = append(unrelated, dropped...)
	tied, unserved := dropUnservedDomain(tied, tiesBy, byRef, domain, idx, rb)
	unrelated = append(unrelated, unserved...)
	spec, agree, fin, path := map[string]int{}, map[string]int{}, map[string]bool{}, map[string]bool{}
	own, isOwn := idx.own[o.res.Group+"/"+o.res.Resource]
	isOwn = isOwn && ownTypeFinalizer(domain, o.res.Group, own)
	for i, c := range tied {
		if w, ok := byRef[c.Object.String()]; ok {
			spec[c.Object.String()] = specificity(domain, w)
			if said, ok := namesFinalizerPath(name, w); ok {
				path[c.Object.String()] = true
				tied[i].Evidence = append(tied[i].Evidence, "the finalizer's own name after its domain names it ("+said+"): a product names the component that handles a finalizer, which ranks it first among the product's candidates")
			}
			fin[c.Object.String()] = namesFinalizers(rb, w.ref.Namespace, w.serviceAccount, o.res.Group, o.res.Resource)
			if isOwn {
				var lines []string
				agree[c.Object.String()], lines = ownLabelAgreement(own, w)
				tied[i].Evidence = append(tied[i].Evidence, lines...)
			}
		}
	}
	sort.SliceStable(tied, func(i, j int) bool {
		if pi, pj := path[tied[i].Object.String()], path[tied[j].Object.String()]; pi != pj {
			return pi
		}
		if ri, rj := tied[i].Confidence.rank(), tied[j].Confidence.rank(); ri != rj {
			return ri > rj
		}
		if ai, aj := agree[tied[i].Object.String()], agree[tied[j].Object.String()]; ai != aj {
			return ai > aj
		}
		if fi, fj := fin[tied[i].Object.String()], fin[tied[j].Object.String()]; fi != fj {
			return fi
		}
		return spec[tied[i].Object.String()] > spec[tied[j].Object.String()]
	})
	tied = installersLast(tied, byRef, rb)
	tied, apart := apartWithoutFinalizerRight(tied, fin, what)
	unrelated = append(unrelated, apart...)
	tied, apart = apartServingPeople(tied, byRef, what)
	unrelated = append(unrelated, apart...)
	tied, shared := apartSharingAccount(tied, byRef, spec, what)
	unrelated = append(unrelated, shared...)
	tied, servers := x.apartServers(ctx, tied, byRef, path, domain, o.res.Group, o.res.Resource, what, "the finalizer's domain", idx, rb)
	unrelated = append(unrelated, servers...)
	a.unrelated = append(a.unrelated, unrelated...)
	switch {
	case len(unrelated) == 0:
		a.controllers = tied
	case len(tied) == 0 && len(servers) > 0:
		c := serversOnlyNote(domain, what, servers)
		c.Evidence = x.mutatingServers(ctx, o.res.Group, ws, idx)
		a.controllers, a.summary, a.dead, a.noTie = []Controller{c}, c.Note, true, true
		for _, s := range servers {
			a.serversOnly = append(a.serversOnly, s.Object.String())
		}
	case len(tied) > 0 && len(shared) == len(unrelated) && len(tied) == 1:
		a = withSharedApart(a, tied, shared, what)
	case len(tied) > 0:
		a = withUnrelatedApart(a, tied, len(unrelated), what, domain)
	case len(unserved) > 0:
		c := unservedDomainNote(domain, what, unserved)
		a.controllers, a.summary, a.dead, a.noTie = []Controller{c}, c.Note, true, true
		for _, u := range unserved {
			a.unservedBy = append(a.unservedBy, u.Object.String())
		}
	default:
		c := Controller{Note: fmt.Sprintf("no controller of the finalizer's domain %s is installed: %s may update %s, but nothing in the cluster (API groups it acts on or serves, product labels, image, name, namespace) ties %s to %s",
			domain, countWorkloads(len(unrelated)), what, themOrIt(len(unrelated)), domain)}
		a.controllers, a.summary, a.dead, a.noTie = []Controller{c}, c.Note, true, true
	}
	return a, nil
}

// domainWorkloads names the workloads tied to the domain when none may update the object:
// the product runs (or is installed) but cannot remove the finalizer. Those named like the
// finalizer (hints) are already named by noCandidate.
//
// When the cluster serves types of the domain itself (a CRD whose group is the domain, a parent
// or a subdomain of it), only a workload tied to those types (high confidence: it acts on them or
// serves them) shows that the product runs: a workload tied only through a sibling group that
// shares a parent domain, its image or its labels belongs to another product of that family, and
// the finalizer's own controller is gone (controller-absent, not orphaned).
func (x *Explainer) domainWorkloads(ctx context.Context, domain, what string, ws []workload, idx *productIndex, rb *rbacObjects, hints []string) ([]string, []workload) {
	var out []string
	var tied []workload
	own := idx.ownGroups(domain)
	for _, w := range ws {
		ts := x.workloadTies(ctx, domain, w, idx, rb)
		if len(ts) == 0 {
			continue
		}
		if line, ok := siblingOnly(domain, w, idx, rb); ok {
			out = append(out, line)
			continue
		}
		if len(own) > 0 && ts[0].conf != ConfidenceHigh {
			out = append(out, fmt.Sprintf("%s is tied to the finalizer's domain %s only loosely (%s confidence: %s), and is not the controller of its own types (%s), which no workload acts on or serves", w.ref.String(), domain, ts[0].conf, ts[0].evidence, strings.Join(own, ", ")))
			continue
		}
		if tied = append(tied, w); matchScore(w, hints) >= 2 {
			continue
		}
		state := "runs"
		if !w.health.Running() {
			state = "is installed but not running (" + w.controller().Ready + " ready)"
		}
		out = append(out, fmt.Sprintf("%s is of the finalizer's domain %s (%s confidence: %s) and %s, but %s may not update %s", w.ref.String(), domain, ts[0].conf, ts[0].evidence, state, saRef(w.ref.Namespace, w.serviceAccount), what))
	}
	sort.Strings(out)
	if len(tied) == 0 {
		out = append(out, "no workload in the cluster is tied to the finalizer's domain "+domain)
	}
	return out, tied
}

// ownGroups are the API groups of the cluster's CRDs that are the domain itself, a parent or a
// subdomain of it (a high tie), sorted.
func (idx *productIndex) ownGroups(domain string) []string {
	var out []string
	for g := range idx.crdGroups {
		if c, _ := groupTie(domain, g); c == ConfidenceHigh {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

func countWorkloads(n int) string {
	if n == 1 {
		return "1 workload"
	}
	return fmt.Sprintf("%d workloads", n)
}

func themOrIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
