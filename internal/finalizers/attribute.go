package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kubeforensics/suite/internal/report"
)

// maxCandidates bounds the workloads listed when only broad rights qualify.
const maxCandidates = 5

// attribution is who may remove a finalizer and on what evidence.
type attribution struct {
	controllers []Controller
	summary     string
	// dead is set when the evidence proves that nothing runs that could remove the finalizer.
	dead bool
	// guessed is set when RBAC could not be read and names alone chose the controller.
	guessed bool
	// unread is set when the workloads could not be listed: nothing is known about who may
	// remove the finalizer, so no step may rest on it.
	unread bool
	// domain is the finalizer's domain when the candidates were ranked by their ties to it;
	// unrelated are the candidates with no tie, which merely could remove it.
	domain    string
	unrelated []Controller
	// noTie is set when candidates exist but none is tied to the domain (or, for a finalizer
	// without a domain, to the object's type): no controller of it is installed.
	noTie bool
	// orphan is set when no workload may update the object at all (see judgeDomain).
	orphan bool
	// readerGone is set instead when what runs of the product may not even read the object's
	// type: the component that removed the finalizer is gone (readerGone in removergone.go).
	readerGone bool
	// unservedBy are the workloads of the product left when the finalizer's domain is an API
	// group the cluster no longer serves (dropUnservedDomain): its installer, most often.
	unservedBy []string
	// switchedOff are the workloads of the finalizer's domain that run with the feature for the
	// object's type switched off by their own arguments (switchedoff.go).
	switchedOff []string
	// serversOnly are the workloads of the domain that may update the object but only serve
	// requests (apartServers) when no other is tied: no controller of the domain runs.
	serversOnly []string
}

// attribute finds who may remove a finalizer on o from what the cluster says: the service
// accounts RBAC lets update the object (or its finalizers subresource) and the workloads that
// run as them. Rules that allow everything count only when nothing narrower does. When RBAC
// cannot be read, the workloads named like hints are reported as a guess and the read as a gap.
func (x *Explainer) attribute(ctx context.Context, o subject, hints []string) (attribution, []report.Gap) {
	what := o.ref().QualifiedResource()
	ws, err := x.workloads(ctx)
	if err != nil {
		return attribution{unread: true}, []report.Gap{listGap(workloadsID(), "listing workloads to find who may update "+what, err)}
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		a := x.guessByName(ws, hints)
		return a, []report.Gap{listGap(rbacID(), "who may update "+what+" is unknown: reading RBAC", err)}
	}
	grants := rb.updaters(o.res.Group, o.res.Resource, o.obj.GetNamespace(), o.obj.GetName())
	var narrow, broad []grant
	for _, g := range grants {
		if g.broad {
			broad = append(broad, g)
		} else {
			narrow = append(narrow, g)
		}
	}
	if a, ok := candidatesFrom(ws, narrow, what, false); ok {
		if a, ok, gaps := x.withoutPodOnlyAccounts(ctx, a, what); ok {
			return withoutPeopleServers(a, ws, what), gaps
		}
	}
	if a, ok := candidatesFrom(ws, broad, what, true); ok {
		a.controllers = rankByName(a.controllers, ws, hints)
		prefix := fmt.Sprintf("no service account has narrower rights on %s; ", what)
		for i := range a.controllers {
			if a.controllers[i].Note == a.summary {
				a.controllers[i].Note = prefix + a.summary
			}
		}
		a.summary = prefix + a.summary
		return a, nil
	}
	return x.noCandidate(ws, hints, what), nil
}

// candidatesFrom turns grants into controllers: every workload whose service account a grant
// covers, and every named service account that no workload runs as (its workload is gone).
func candidatesFrom(ws []workload, grants []grant, what string, broad bool) (attribution, bool) {
	var a attribution
	byWorkload := map[string]*Controller{}
	orphan := map[string]*Controller{}
	for _, g := range grants {
		matched := false
		for _, w := range ws {
			if !g.runsAs(w) {
				continue
			}
			matched = true
			key := w.ref.String()
			c, ok := byWorkload[key]
			if !ok {
				c = w.controller()
				c.BroadOnly = broad
				c.Evidence = append(c.Evidence, "runs as "+saRef(w.ref.Namespace, w.serviceAccount))
				byWorkload[key] = c
			}
			c.Evidence = append(c.Evidence, fmt.Sprintf("may update %s through %s", what, g.via))
		}
		if !matched && g.name != "*" && !broad {
			key := g.account()
			c, ok := orphan[key]
			if !ok {
				c = &Controller{Object: ObjectRef{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespace: g.namespace, Name: g.name},
					Note: fmt.Sprintf("may update %s, but no Deployment, StatefulSet or DaemonSet runs as it: the workload that used it is gone", what)}
				orphan[key] = c
			}
			c.Evidence = append(c.Evidence, fmt.Sprintf("may update %s through %s", what, g.via))
		}
	}
	for _, c := range byWorkload {
		a.controllers = append(a.controllers, *c)
	}
	for _, c := range orphan {
		a.controllers = append(a.controllers, *c)
	}
	if len(a.controllers) == 0 {
		return a, false
	}
	sortControllers(a.controllers)
	a.summary, a.dead = candidateSummary(a.controllers, what, broad)
	for i := range a.controllers {
		if a.controllers[i].Found && a.controllers[i].Note == "" {
			a.controllers[i].Note = a.summary
		}
	}
	return a, true
}

// candidateSummary says how many workloads qualify, and whether none of them can run.
func candidateSummary(cs []Controller, what string, broad bool) (string, bool) {
	running, found := 0, 0
	for _, c := range cs {
		if c.Found {
			found++
		}
		if c.Healthy {
			running++
		}
	}
	rights := "whose service account may update " + what
	if broad {
		rights = "whose service account may update it only through rules that allow everything (" + what + " included)"
	}
	var s string
	switch found {
	case 0:
		s = "service accounts that may update " + what + " exist, but no workload runs as them"
	case 1:
		s = "the only workload " + rights
	default:
		s = fmt.Sprintf("one of %d workloads %s", found, rights)
	}
	return s, running == 0
}

// sortControllers puts the ones that cannot run first (the likely blockers), then by name.
func sortControllers(cs []Controller) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Healthy != cs[j].Healthy {
			return !cs[i].Healthy
		}
		if cs[i].Found != cs[j].Found {
			return cs[i].Found
		}
		return cs[i].Object.String() < cs[j].Object.String()
	})
}

// rankByName moves broad candidates named like the finalizer first and keeps at most
// maxCandidates: with cluster-admin bound to many workloads, the name is the tie-breaker.
func rankByName(cs []Controller, ws []workload, hints []string) []Controller {
	score := map[string]int{}
	for _, w := range ws {
		score[w.ref.String()] = matchScore(w, hints)
	}
	sort.SliceStable(cs, func(i, j int) bool { return score[cs[i].Object.String()] > score[cs[j].Object.String()] })
	if len(cs) > maxCandidates {
		cs = cs[:maxCandidates]
	}
	return cs
}

// noCandidate is the proven absence: RBAC was read and no workload may update the object.
// Workloads named like the finalizer are named, with why they do not count.
func (x *Explainer) noCandidate(ws []workload, hints []string, what string) attribution {
	c := Controller{Note: fmt.Sprintf("no service account outside Kubernetes' own controllers may update %s, so nothing running can remove the finalizer", what)}
	for _, w := range ws {
		if matchScore(w, hints) >= 2 {
			c.Evidence = append(c.Evidence, fmt.Sprintf("%s is named like the finalizer, but %s may not update %s", w.ref.String(), saRef(w.ref.Namespace, w.serviceAccount), what))
		}
	}
	sort.Strings(c.Evidence)
	return attribution{controllers: []Controller{c}, summary: c.Note, dead: true}
}

// guessByName is the fallback when RBAC cannot be read: the best name match, marked a guess.
func (x *Explainer) guessByName(ws []workload, hints []string) attribution {
	best, score := workload{}, 0
	for _, w := range ws {
		if s := matchScore(w, hints); s > score || (s == score && s > 0 && w.ref.String() < best.ref.String()) {
			best, score = w, s
		}
	}
	if score == 0 {
		return attribution{guessed: true, unread: true, controllers: []Controller{{Note: "RBAC could not be read, and no Deployment, StatefulSet or DaemonSet is named like " + quote(hints)}}}
	}
	c := best.controller()
	c.Note = "a guess by name (" + quote(hints) + "): RBAC could not be read to check that it may update the object"
	return attribution{guessed: true, controllers: []Controller{*c}, summary: c.Note}
}

// controller describes a workload as a controller candidate with its readiness.
func (w workload) controller() *Controller {
	return &Controller{Object: w.ref, Found: true, Ready: fmt.Sprintf("%d/%d", w.health.Ready, w.health.Wanted), Healthy: w.health.Running(), ScaledToZero: w.health.Wanted == 0}
}

func saRef(namespace, name string) string {
	if name == "" {
		name = "default"
	}
	return "serviceaccounts/" + name + " -n " + namespace
}

// noDomain reports a finalizer without a domain (`foregroundDeleteVirtualMachine`): its name
// says nothing about who removes it.
func noDomain(name string) bool { return !strings.ContainsAny(name, "./") }
