package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// renamedAbsent tells a finalizer whose domain has no controller installed (controller-absent)
// but whose product runs under a new name: the same finalizer under another domain is on the
// object itself or on its type's objects that are not being deleted, every such object that
// still carries the old name carries the new one too, and a running workload tied to the new
// domain may update the type (rights that allow everything count here: the tie to the new
// domain, not the rule, says whose it is). A release that moved its finalizer to a new domain
// removes only the new name; the old one stays on what the old release made, and nothing will
// remove it. It returns why, the renamed finalizer and the workload, "" when the cluster does
// not show it.
func (x *Explainer) renamedAbsent(ctx context.Context, o subject, name string) (string, []report.Gap) {
	domain := finalizerDomain(name)
	if _, rest, ok := strings.Cut(name, "/"); !ok || rest == "" || domain == "" {
		return "", nil
	}
	newNames := map[string]bool{}
	for _, f := range renamedTo(name, o.obj.GetFinalizers()) {
		newNames[f] = true
	}
	l, err := cached(x, "renamed/"+o.res.QualifiedName(), func() (*metav1.PartialObjectMetadataList, error) {
		return x.c.Metadata.Resource(o.res.GVR()).List(ctx, metav1.ListOptions{Limit: maxRenamedItems})
	})
	if err != nil {
		return "", []report.Gap{listGap(typeID(o.res, ""), "listing "+o.res.QualifiedName()+" for the finalizer names its live objects carry", err)}
	}
	live := 0
	for _, it := range l.Items {
		if it.UID == o.obj.GetUID() || it.DeletionTimestamp != nil {
			continue
		}
		got := renamedTo(name, it.Finalizers)
		for _, f := range it.Finalizers {
			// A live object with the old name alone: something may still write it.
			if f == name && len(got) == 0 {
				return "", nil
			}
		}
		if len(got) > 0 {
			live++
		}
		for _, f := range got {
			newNames[f] = true
		}
	}
	if len(newNames) != 1 {
		return "", nil
	}
	var renamed string
	for f := range newNames {
		renamed = f
	}
	newDomain := finalizerDomain(renamed)
	rr, gaps := x.readForRanking(ctx, name)
	if len(gaps) > 0 {
		return "", gaps
	}
	what := o.ref().QualifiedResource()
	grants := rr.rb.updaters(o.res.Group, o.res.Resource, o.obj.GetNamespace(), o.obj.GetName())
	var runners []string
	for _, w := range rr.ws {
		if !w.health.Running() {
			continue
		}
		via := ""
		for _, g := range grants {
			if g.runsAs(w) {
				via = g.via
				break
			}
		}
		if via == "" {
			continue
		}
		// A strong tie (the new domain's types it acts on or serves, its product's labels or
		// image), or a weaker one (a name) while the cluster serves the new domain's own types:
		// then its product is installed.
		ts := x.workloadTies(ctx, newDomain, w, rr.idx, rr.rb)
		if len(ts) == 0 || ts[0].conf.rank() < ConfidenceMedium.rank() {
			own := rr.idx.ownGroups(newDomain)
			if len(own) == 0 {
				continue
			}
			if len(ts) == 0 {
				ts = prefixTies(newDomain, w)
			}
			if len(ts) == 0 {
				continue
			}
			ts[0].evidence += fmt.Sprintf(", and the cluster serves %s's own types (%s)", newDomain, strings.Join(own, ", "))
		}
		// A workload tied to the old domain as well would be its controller: not this rule's case.
		if old := x.workloadTies(ctx, domain, w, rr.idx, rr.rb); len(old) > 0 {
			return "", nil
		}
		runners = append(runners, fmt.Sprintf("%s runs, may update %s through %s and is tied to %s (%s confidence: %s)", w.ref.String(), what, via, newDomain, ts[0].conf, ts[0].evidence))
	}
	if len(runners) == 0 {
		return "", nil
	}
	sort.Strings(runners)
	where := fmt.Sprintf("%d of its type's objects that are not being deleted carry both %s and %s", live, name, renamed)
	if live == 0 {
		where = fmt.Sprintf("the object itself carries %s next to %s, and no live object of its type carries %s alone", renamed, name, name)
	}
	return fmt.Sprintf("the running product renamed this finalizer to %s: %s; %s: the running release writes and removes the new name only, no workload is tied to %s, and nothing will remove the old one", renamed, strings.Join(runners, "; "), where, domain), nil
}

// applyRenamedAbsent makes a controller-absent finalizer orphaned when its product runs under a
// renamed finalizer (renamedAbsent): removing the old entry by hand is the way out, not
// reinstalling a product that already runs.
func (x *Explainer) applyRenamedAbsent(ctx context.Context, o subject, f *Finalizer, k known, a attribution) {
	if f.Orphaned || !a.noTie || a.unread || a.guessed || len(f.Blockers) > 0 || len(f.Paused) > 0 {
		return
	}
	why, gaps := x.renamedAbsent(ctx, o, f.Name)
	f.Unchecked = append(f.Unchecked, gaps...)
	if why == "" {
		return
	}
	x.markOrphaned(o, f, k, "a name its running product no longer uses", why)
	// What was seen is a rename by a product that runs, not a product that is not installed:
	// the attribution says that, in place of "no controller of the domain is installed".
	f.Attribution = why
	f.Controllers = []Controller{{Note: why}}
}

// Bounds of the prefix tie (prefixTies).
const (
	// minPrefixWord is the shortest word of a workload that may name a domain's word it begins
	// (`harvester` of `harvesterhci`): shorter ones begin too many words to tell anything.
	minPrefixWord = 6
	// maxPrefixTail is the longest tail the domain's word may add to it (`hci`, `hq`, `io`): a
	// longer one makes another word (`server` of `serverless`).
	maxPrefixTail = 3
	// minPrefixSources is how many of the workload's own names (its name, an image's name, a
	// product label) must name the word: one name alone coincides too easily.
	minPrefixSources = 2
)

// inflections are tails that make the same English word, not a product's name: `monitor` of
// `monitoring`, `scheduler` of `schedulers`.
var inflections = map[string]bool{"s": true, "es": true, "ed": true, "er": true, "ers": true, "ing": true, "ion": true, "or": true, "ors": true}

// prefixTies is a low tie of a workload to a domain whose word begins with one of the
// workload's words: a product's domain often adds a short suffix to its name (`harvesterhci.io`
// of Harvester). The rule, stated: the word has at least minPrefixWord letters and is not
// generic, the domain's word adds at most maxPrefixTail letters that are not an inflection, and
// at least minPrefixSources of the workload's names (its own name, its images' names, its
// product labels, each counted once) hold the word. The caller asks for the domain's own types
// served as well.
func prefixTies(domain string, w workload) []tie {
	// Each of the workload's names, by where it is said.
	said := [][2]string{{"its name " + w.ref.Name, w.ref.Name}}
	for _, img := range w.images {
		said = append(said, [2]string{"its image " + imageName(img), imageName(img)})
	}
	for _, k := range productLabels {
		if v := w.labels[k]; v != "" {
			said = append(said, [2]string{"its label " + k + "=" + v, v})
		}
	}
	var tokens []string
	for t := range domainTokens(domain) {
		tokens = append(tokens, t)
	}
	sort.Strings(tokens)
	for _, t := range tokens {
		var sources []string
		var word string
		for _, s := range said {
			for _, wd := range words(s[1]) {
				if prefixOf(wd, t) && !slices.Contains(sources, s[0]) {
					sources = append(sources, s[0])
					word = wd
				}
			}
		}
		if len(sources) < minPrefixSources {
			continue
		}
		return []tie{{conf: ConfidenceLow, evidence: fmt.Sprintf("%s name %q, the beginning of %q in the domain %s", strings.Join(sources, " and "), word, t, domain)}}
	}
	return nil
}

// prefixOf reports a word that begins token as prefixTies asks: long enough, with a short tail
// that is no inflection.
func prefixOf(word, token string) bool {
	tail := strings.TrimPrefix(token, word)
	return len(word) >= minPrefixWord && strings.HasPrefix(token, word) && tail != "" && len(tail) <= maxPrefixTail && !inflections[tail]
}
