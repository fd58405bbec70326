package finalizers

import (
	"fmt"
	"strings"
)

// apartSharingAccount lists apart, from tied candidates ranked strongest first, the ones that run
// as the same service account as a candidate ranked above them and that the cluster ties to the
// finalizer's domain less closely by their own evidence. Workloads sharing an account share its
// roles, so every tie through RBAC is theirs alike and says nothing about which of them removes the
// finalizer; what tells them apart is what is each one's own — its confidence once its own name,
// image and labels are weighed, and the most specific label of the domain they name (specificity:
// `dataprotection` of dataprotection.kubeblocks.io in kb-kubeblocks-dataprotection's name and
// image, where the operator kb-kubeblocks, which shares the account kb-kubeblocks, names only
// `kubeblocks`). The co-tenant is not an equal remover: it "shares its account" with the one tied
// closer (kubeblocks#10348). Candidates equal on both stay side by side; a candidate whose
// workload is not found (a bare service account) is never moved.
func apartSharingAccount(tied []Controller, byRef map[string]workload, spec map[string]int, what string) (kept, apart []Controller) {
	best := map[string]Controller{}
	for _, c := range tied {
		w, ok := byRef[c.Object.String()]
		if !ok || !c.Found {
			kept = append(kept, c)
			continue
		}
		account := saRef(w.ref.Namespace, w.serviceAccount)
		b, seen := best[account]
		if !seen {
			best[account] = c
			kept = append(kept, c)
			continue
		}
		closer := b.Confidence.rank() > c.Confidence.rank() ||
			(b.Confidence.rank() == c.Confidence.rank() && spec[b.Object.String()] > spec[c.Object.String()])
		if !closer {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("shares its account %s with %s, which the cluster ties to the finalizer's domain more closely by its own name, image and labels: the account's rights on %s are that one's, and no evidence that this one removes the finalizer", account, b.Object.String(), what)
		apart = append(apart, c)
	}
	return kept, apart
}

// sharedAccountSummary is the attribution of the one remover left after apartSharingAccount
// moved its co-tenants apart: not "one of n workloads", since they are not equal removers.
func sharedAccountSummary(apart []Controller, what string) string {
	var names []string
	for _, a := range apart {
		names = append(names, a.Object.String())
	}
	verb := "shares its account and is"
	if len(names) > 1 {
		verb = "share its account and are"
	}
	return fmt.Sprintf("the workload the cluster ties most closely to the finalizer's domain among those whose service account may update %s; %s %s listed apart", what, strings.Join(names, ", "), verb)
}

// withSharedApart makes the one tied candidate left the remover, its co-tenants of the same
// service account listed apart (sharedAccountSummary).
func withSharedApart(a attribution, tied, shared []Controller, what string) attribution {
	s := sharedAccountSummary(shared, what)
	if tied[0].Found && tied[0].Note == a.summary {
		tied[0].Note = s
	}
	a.controllers, a.summary, a.dead = tied, s, !tied[0].Healthy
	return a
}
