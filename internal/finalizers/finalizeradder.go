package finalizers

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// finalizerAdders returns the field managers whose metadata.managedFields entry (of the object
// itself, not a subresource) owns the finalizer's value in metadata.finalizers
// (`f:metadata` → `f:finalizers` → `v:"<finalizer>"`): who wrote it into the list. A controller
// adds its finalizer with its own client, so the entry names the component that put it there,
// by its field manager (its `--field-manager`, FieldOwner, or the first word of its user agent:
// its binary's name). An entry that also owns fields of the spec is the object's author (a
// person's kubectl, Helm, a GitOps tool applying a manifest that lists the finalizer), whose
// writing it says nothing of who removes it, and is left out. Sorted, without repeats; none
// when no entry owns it or the fields cannot be decoded.
func finalizerAdders(mf []metav1.ManagedFieldsEntry, finalizer string) []string {
	key, err := json.Marshal(finalizer)
	if err != nil {
		return nil
	}
	value := "v:" + string(key)
	var out []string
	for _, e := range mf {
		if e.Subresource != "" || e.FieldsV1 == nil || e.Manager == "" {
			continue
		}
		var fields map[string]map[string]map[string]any
		if json.Unmarshal(e.FieldsV1.Raw, &fields) != nil {
			continue
		}
		if _, authored := fields["f:spec"]; authored {
			continue
		}
		if _, ok := fields["f:metadata"]["f:finalizers"][value]; ok && !slices.Contains(out, e.Manager) {
			out = append(out, e.Manager)
		}
	}
	sort.Strings(out)
	return out
}

// answersTo reports which of a workload's own names a field manager is: its name (or its name
// less a generated suffix: a StatefulSet `cnrm-controller-manager-1a2b3c` answers to
// `cnrm-controller-manager`, one dash-free word more), a value of its or its pods' labels, its images' last path
// segment, its containers' names or its commands' base names. Case is ignored.
func answersTo(manager string, w workload) (string, bool) {
	m := strings.ToLower(manager)
	name := strings.ToLower(w.ref.Name)
	if suffix, found := strings.CutPrefix(name, m+"-"); name == m || (found && suffix != "" && !strings.Contains(suffix, "-")) {
		return "its name " + w.ref.Name, true
	}
	for _, labels := range []map[string]string{w.labels, w.podLabels} {
		keys := make([]string, 0, len(labels))
		for k := range labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.ToLower(labels[k]) == m {
				return fmt.Sprintf("its label %s=%s", k, labels[k]), true
			}
		}
	}
	for _, img := range w.images {
		if strings.ToLower(path.Base(imageName(img))) == m {
			return "its image " + imageName(img), true
		}
	}
	for _, p := range w.processes {
		if strings.ToLower(p) == m {
			return "its container or command " + p, true
		}
	}
	return "", false
}

// templateProcesses returns a workload's container names and the base names of their commands.
func templateProcesses(obj runtime.Object) []string {
	var out []string
	for _, c := range templateContainers(obj) {
		out = append(out, c.Name)
		if len(c.Command) > 0 {
			out = append(out, path.Base(c.Command[0]))
		}
	}
	return out
}

// adderEvidence is what the object's managedFields say of who added one finalizer, against the
// workloads that run.
type adderEvidence struct {
	managers []string
	// answering maps a candidate (ObjectRef string) to the line saying which manager it is.
	answering map[string]string
	// elsewhere is set when a workload that is no candidate answers to a manager.
	elsewhere bool
	// gone is the manager that names a word of the finalizer's domain and that no workload in
	// the cluster answers to: the component that added the finalizer does not run.
	gone string
}

// judgeAdder weighs the field managers that added a finalizer against the candidates and every
// workload of the cluster.
func judgeAdder(managers []string, domain string, candidates []Controller, ws []workload) adderEvidence {
	ev := adderEvidence{managers: managers, answering: map[string]string{}}
	byRef := map[string]workload{}
	for _, w := range ws {
		byRef[w.ref.String()] = w
	}
	isCandidate := map[string]bool{}
	for _, c := range candidates {
		isCandidate[c.Object.String()] = true
		w, ok := byRef[c.Object.String()]
		if !ok || !c.Found {
			continue
		}
		for _, m := range managers {
			if what, ok := answersTo(m, w); ok {
				ev.answering[c.Object.String()] = fmt.Sprintf("it added the finalizer: the object's managedFields give its entry in metadata.finalizers to field manager %s, which it answers to (%s)", m, what)
				break
			}
		}
	}
	answered := map[string]bool{}
	for _, w := range ws {
		for _, m := range managers {
			if _, ok := answersTo(m, w); ok {
				answered[m] = true
				ev.elsewhere = ev.elsewhere || !isCandidate[w.ref.String()]
			}
		}
	}
	tokens := domainTokens(domain)
	for _, m := range managers {
		if _, names := namesDomain(m, tokens); names && !answered[m] {
			ev.gone = m
			break
		}
	}
	return ev
}

// applyFinalizerAdder uses who added each finalizer (finalizerAdders, read from the object in
// full) in the remover ranking. A running candidate that answers to the field manager that
// added the finalizer is put first among the tied candidates, with that as evidence. When no
// candidate does, no workload of the cluster answers to any of the managers, and one of them
// names a word of the finalizer's domain (`cnrm-controller-manager` for
// cnrm.cloud.google.com/finalizer), the component of the product that added the finalizer, and
// removes it, does not run: the running candidates, which write as other managers, are listed
// apart, the verdict is that its remover is gone (reinstall it, the strip as the last resort).
// A manager that names nothing of the domain (a user's `kubectl`, a Helm or GitOps client, a
// bare binary name such as `manager`) proves nothing, and nothing changes.
func (x *Explainer) applyFinalizerAdder(ctx context.Context, e *Explanation, w ownWord) {
	if w.obj == nil {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		domain := finalizerDomain(f.Name)
		if domain == "" || len(f.Controllers) == 0 || !f.Controllers[0].Found || f.Controllers[0].Confidence == ConfidenceNone {
			continue
		}
		managers := finalizerAdders(w.obj.GetManagedFields(), f.Name)
		if len(managers) == 0 {
			continue
		}
		ws, err := x.workloads(ctx)
		if err != nil {
			f.Unchecked = append(f.Unchecked, listGap(workloadsID(), "listing workloads to find which one added "+f.Name, err))
			continue
		}
		ev := judgeAdder(managers, domain, f.Controllers, ws)
		if len(ev.answering) > 0 {
			rankAdderFirst(f, ev)
			continue
		}
		if ev.gone == "" || ev.elsewhere || f.bypass == nil {
			continue
		}
		adderGone(f, ev.gone)
	}
}

// rankAdderFirst moves the first candidate that answers to the finalizer's adder to the front,
// with the line that says so; the others keep their order.
func rankAdderFirst(f *Finalizer, ev adderEvidence) {
	for i := range f.Controllers {
		if line, ok := ev.answering[f.Controllers[i].Object.String()]; ok {
			f.Controllers[i].Evidence = append(f.Controllers[i].Evidence, line)
		}
	}
	slices.SortStableFunc(f.Controllers, func(a, b Controller) int {
		_, ai := ev.answering[a.Object.String()]
		_, bi := ev.answering[b.Object.String()]
		return rankFirst(ai, bi)
	})
	// The steps that read a candidate's logs follow the candidates' new order.
	adderLogs := func(r Remediation) bool {
		if r.Code != ReasonReadControllerLogs {
			return false
		}
		for ref := range ev.answering {
			c := slices.IndexFunc(f.Controllers, func(c Controller) bool { return c.Object.String() == ref })
			if c >= 0 && strings.Contains(r.Command, f.Controllers[c].Object.QualifiedResource()+"/"+f.Controllers[c].Object.Name) {
				return true
			}
		}
		return false
	}
	slices.SortStableFunc(f.Remedies, func(a, b Remediation) int {
		if a.Code != ReasonReadControllerLogs || b.Code != ReasonReadControllerLogs {
			return 0
		}
		return rankFirst(adderLogs(a), adderLogs(b))
	})
}

// adderGone makes the verdict that the workload that added f (field manager m) does not run:
// the running candidates are listed apart, reinstalling the adder comes first, the strip last.
func adderGone(f *Finalizer, m string) {
	for _, c := range f.Controllers {
		c.Note = fmt.Sprintf("tied to the finalizer's domain and may update the object, but the finalizer was added by field manager %s (the object's managedFields), which it does not answer to by its name, labels, images, containers or commands: it is not the workload that added the finalizer, and removes it", m)
		f.Unrelated = append(f.Unrelated, c)
	}
	apart := "the one that may update the object and is tied to the domain is listed apart"
	if len(f.Controllers) > 1 {
		apart = fmt.Sprintf("the %d that may update the object and are tied to the domain are listed apart", len(f.Controllers))
	}
	note := fmt.Sprintf("the workload that added the finalizer does not run: the object's managedFields give its entry in metadata.finalizers to field manager %s, which names the finalizer's domain %s, and no workload in the cluster answers to it (by name, labels, images, containers or commands); %s", m, finalizerDomain(f.Name), apart)
	f.Controllers = []Controller{{Note: note, Evidence: []string{"field manager " + m + " added " + f.Name}}}
	f.Attribution = note
	strip := *f.bypass
	f.Remedies = []Remediation{
		{Code: ReasonReinstallController, Summary: fmt.Sprintf("Bring back the component of the product of %s that added finalizer %s (it wrote as field manager %s), if it is meant to run here: it then removes the finalizer itself.", finalizerDomain(f.Name), f.Name, m)},
		strip,
	}
}
