package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// rankByObjectLinks ranks a finalizer's candidates, when there are two or more to rank, by
// what else ties each to the stuck object beyond the object naming it or its events (primary:
// objectties.go): the object's conditions naming it in a message (conditionNameTies), the
// object's owner chain holding an object it reconciles (ownerTies), and a Lease its pod holds
// for the finalizer's domain or in the object's namespace (leaseTies). Each such tie is shown
// first among the candidate's ties (`ties[]`), raising its confidence to the tie's; the
// candidates so tied come first, strongest ties first (strongerTies), after those the object
// itself names or reports on and after one the finalizer's own name names or that added the
// finalizer (pinned: the finalizer says who it is); an installer of another candidate is not
// raised by them (installersOf); the others keep their order, and the steps
// that read a candidate's logs follow the new order. Nothing is read for one candidate alone.
func (x *Explainer) rankByObjectLinks(ctx context.Context, o subject, f *Finalizer, w ownWord, primary map[string]string) {
	ws, err := x.workloads(ctx)
	if err != nil {
		return
	}
	byRef := map[string]workload{}
	for _, wl := range ws {
		byRef[wl.ref.String()] = wl
	}
	var cands []workload
	for _, c := range f.Controllers {
		if wl, ok := byRef[c.Object.String()]; ok && c.Found {
			cands = append(cands, wl)
		}
	}
	if len(cands) < 2 {
		return
	}
	links := map[string][]tie{}
	add := func(m map[string]tie) {
		for ref, t := range m {
			links[ref] = append(links[ref], t)
		}
	}
	if w.obj != nil {
		add(conditionNameTies(w.conditions, cands, w.obj.GetUID()))
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		return
	}
	if idx, err := x.products(ctx); err == nil {
		ts, gaps := x.ownerTies(ctx, o, cands, byRef, idx, rb)
		add(ts)
		f.Unchecked = append(f.Unchecked, gaps...)
	}
	domain := finalizerDomain(f.Name)
	tokens := domainTokens(domain)
	if domain == "" {
		tokens = typeWords(f.Name, o.res.Kind, ownCRD{})
	}
	ts, gaps := x.leaseTies(ctx, o.obj.GetNamespace(), domain, tokens, cands)
	add(ts)
	f.Unchecked = append(f.Unchecked, gaps...)
	if len(links) == 0 {
		return
	}
	pinned := pinnedCandidates(f, w, domain, ws, byRef)
	installer := installersOf(cands, rb)
	for i := range f.Controllers {
		c := &f.Controllers[i]
		lt := sortTies(links[c.Object.String()])
		if len(lt) == 0 {
			continue
		}
		links[c.Object.String()] = lt
		if lt[0].conf.rank() > c.Confidence.rank() {
			c.Confidence = lt[0].conf
		}
		c.Ties = capTieLines(append(tieLines(lt), c.Ties...))
	}
	slices.SortStableFunc(f.Controllers, func(a, b Controller) int {
		_, pa := primary[a.Object.String()]
		_, pb := primary[b.Object.String()]
		if r := rankFirst(pa, pb); r != 0 {
			return r
		}
		if r := rankFirst(pinned[a.Object.String()], pinned[b.Object.String()]); r != 0 {
			return r
		}
		la, lb := links[a.Object.String()], links[b.Object.String()]
		if installer[a.Object.String()] {
			la = nil
		}
		if installer[b.Object.String()] {
			lb = nil
		}
		return rankFirst(strongerTies(la, lb), strongerTies(lb, la))
	})
	logsFollowControllers(f)
}

// installersOf are the candidates that installed another candidate (installs, and not the
// other way round): their ties to the object are shown but rank them above nothing, since an
// installer reconciles the product's own objects (the owners of what its controllers make) and
// may hold a Lease of the product, while the controller it installed removes the finalizer.
func installersOf(cands []workload, rb *rbacObjects) map[string]bool {
	out := map[string]bool{}
	for _, a := range cands {
		for _, b := range cands {
			if _, ok := installs(a, b, rb); ok {
				if _, back := installs(b, a, rb); !back {
					out[a.ref.String()] = true
				}
			}
		}
	}
	return out
}

// pinnedCandidates are the candidates the finalizer itself says remove it: named by its own name
// (after its domain, or whole for one without a domain) or answering to the field manager that
// added it. Ties to the object do not rank another above them.
func pinnedCandidates(f *Finalizer, w ownWord, domain string, ws []workload, byRef map[string]workload) map[string]bool {
	out := map[string]bool{}
	for _, c := range f.Controllers {
		wl, ok := byRef[c.Object.String()]
		if !ok || !c.Found {
			continue
		}
		if _, named := namesFinalizerPath(f.Name, wl); named || (domain == "" && finalizerNamesWorkload(f.Name, wl)) {
			out[c.Object.String()] = true
		}
	}
	if w.obj != nil && domain != "" {
		if managers := finalizerAdders(w.obj.GetManagedFields(), f.Name); len(managers) > 0 {
			for ref := range judgeAdder(managers, domain, f.Controllers, ws).answering {
				out[ref] = true
			}
		}
	}
	return out
}

// logsFollowControllers orders the steps that read a candidate's logs as the candidates are
// ordered; the other steps keep their places.
func logsFollowControllers(f *Finalizer) {
	at := func(r Remediation) int {
		if r.Code != ReasonReadControllerLogs || r.logs == nil {
			return -1
		}
		for i, c := range f.Controllers {
			if c.Object.String() == r.logs.workload.String() {
				return i
			}
		}
		return len(f.Controllers)
	}
	var idx []int
	var logs []Remediation
	for i, r := range f.Remedies {
		if at(r) >= 0 {
			idx = append(idx, i)
			logs = append(logs, r)
		}
	}
	slices.SortStableFunc(logs, func(a, b Remediation) int { return at(a) - at(b) })
	for k, i := range idx {
		f.Remedies[i] = logs[k]
	}
}

// capTieLines keeps the first maxTies evidence lines of a candidate, and says how many more there
// are (counting those an earlier "and N more" line stood for).
func capTieLines(lines []string) []string {
	more := 0
	kept := make([]string, 0, len(lines))
	for _, l := range lines {
		var n int
		if _, err := fmt.Sscanf(l, "and %d more", &n); err == nil && strings.HasPrefix(l, "and ") {
			more += n
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) > maxTies {
		more += len(kept) - maxTies
		kept = kept[:maxTies]
	}
	if more > 0 {
		kept = append(kept, fmt.Sprintf("and %d more", more))
	}
	return kept
}
