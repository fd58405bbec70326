package lint

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// SuppressAnnotationPrefix starts the annotation that silences one rule for a Kustomization:
// suppress.flux-chain.kubeforensics.dev/<rule>: "<reason>".
const SuppressAnnotationPrefix = "suppress.flux-chain.kubeforensics.dev/"

// Settings adjust a run to what the repository's owners declared (ConfigFile and flags).
type Settings struct {
	// CRDs are declared present before Flux: crd-order says nothing about their kinds.
	CRDs *CRDSet
	// Severity replaces rules' severities, by rule id.
	Severity map[string]Severity
	// Suppressions silence findings (Config.Suppressions).
	Suppressions []Suppression
	// SuppressionsFrom names where the suppressions come from, for the output.
	SuppressionsFrom string
	// TopPath turns a file relative to the source root into one relative to the repository's
	// top level, which suppressions' file selectors use; nil when the two are the same.
	TopPath func(string) string
}

// Suppressed says why a finding was silenced and by what.
type Suppressed struct {
	Reason string `json:"reason"`
	// By is the annotation (with its Kustomization) or the configuration file.
	By string `json:"by"`
}

// Outcome is a run's findings: those that stand and those a suppression silenced, each list
// with one finding per cause and sorted by severity, file, line and rule.
type Outcome struct {
	Findings   []Finding
	Suppressed []Finding
}

// Check applies every rule with the settings, then the suppressions (annotations on
// Kustomizations, then s.Suppressions), and merges the findings one cause yields in several
// tiers. An annotation naming an unknown rule or giving no reason is an error: a typo must
// not silently suppress nothing, nor a suppression go without its reason. The settings are
// passed to the rules, never kept on r, so one Repo can be checked with several.
func Check(r *Repo, s Settings) (Outcome, error) {
	notes, err := r.annotations()
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Findings: []Finding{}, Suppressed: []Finding{}}
	for _, f := range runRules(r, s) {
		if sev, ok := s.Severity[f.Rule]; ok {
			f.Severity = sev
		}
		if why := suppressedBy(f, notes, s); why != nil {
			f.Suppressed = why
			out.Suppressed = append(out.Suppressed, f)
			continue
		}
		out.Findings = append(out.Findings, f)
	}
	out.Findings, out.Suppressed = merge(out.Findings), merge(out.Suppressed)
	return out, nil
}

// annotations reads the suppression annotations of every Kustomization, keyed by
// "namespace/name rule".
func (r *Repo) annotations() (map[string]*Suppressed, error) {
	out := map[string]*Suppressed{}
	for _, t := range r.IDsTiers() {
		k := t.Kustomization
		if k.Object == nil {
			continue
		}
		for key, reason := range k.Object.GetAnnotations() {
			rule, ok := strings.CutPrefix(key, SuppressAnnotationPrefix)
			if !ok {
				continue
			}
			where := fmt.Sprintf("annotation %s on Kustomization %s", key, t.ID())
			if k.File != "" {
				where += " (" + k.File + ")"
			}
			switch {
			case !KnownRule(rule):
				return nil, fmt.Errorf("%s: unknown rule %q", where, rule)
			case strings.TrimSpace(reason) == "":
				return nil, fmt.Errorf("%s: a suppression needs a reason as its value", where)
			}
			out[t.ID()+" "+rule] = &Suppressed{Reason: reason, By: where}
		}
	}
	return out, nil
}

// suppressedBy is what silences f, or nil.
func suppressedBy(f Finding, notes map[string]*Suppressed, s Settings) *Suppressed {
	if n := notes[f.Kustomization+" "+f.Rule]; n != nil && f.Kustomization != "" {
		return n
	}
	file := f.File
	if s.TopPath != nil {
		file = s.TopPath(file)
	}
	for i, sup := range s.Suppressions {
		if sup.Rule != f.Rule || (sup.Kustomization != "" && sup.Kustomization != f.Kustomization) || (sup.Object != "" && sup.Object != f.Object) {
			continue
		}
		if ok, _ := path.Match(sup.File, file); sup.File != "" && !ok {
			continue
		}
		return &Suppressed{Reason: sup.Reason, By: fmt.Sprintf("%s suppressions[%d]", cmp.Or(s.SuppressionsFrom, ConfigFile), i)}
	}
	return nil
}

// merge folds the findings one cause yields several times into one that lists the tiers and
// objects, and sorts the result. The cause is the rule at one line of one file: a component
// or file that several kustomizations include, in one tier or in several, whose objects may
// differ by namespace, or by name from one tier to the next. Two findings of one tier at one
// place about differently named objects (two HelmReleases over one tier's timeout) are two
// causes. Without a line, only the same object and message fold. The first finding's message
// stands for all.
func merge(fs []Finding) []Finding {
	type key struct {
		rule, file, object, message string
		sev                         Severity
		line                        int
	}
	groups := map[key][]int{}
	out := []Finding{}
next:
	for _, f := range fs {
		k := key{rule: f.Rule, file: f.File, object: f.Object, message: f.Message, sev: f.Severity, line: f.Line}
		if f.File != "" && f.Line > 0 {
			k.object, k.message = "", ""
		}
		for _, i := range groups[k] {
			if !slices.Contains(out[i].Tiers(), f.Kustomization) || kindName(out[i].Object) == kindName(f.Object) {
				out[i] = fold(out[i], f)
				continue next
			}
		}
		groups[k] = append(groups[k], len(out))
		out = append(out, f)
	}
	sortFindings(out)
	return out
}

// fold adds f's tier and object to the merged finding m.
func fold(m, f Finding) Finding {
	tiers := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(m.Tiers()), f.Tiers()...))))
	if len(tiers) > 1 {
		m.Kustomizations, m.Kustomization = tiers, tiers[0]
	}
	objects := m.Objects
	if len(objects) == 0 {
		objects = []string{m.Object}
	}
	m.Objects = slices.Compact(slices.Sorted(slices.Values(append(objects, f.Object))))
	if len(m.Objects) < 2 {
		m.Objects = nil
	}
	return m
}

// kindName is "Kind name" of an object named "Kind namespace/name".
func kindName(object string) string {
	kind, ref, _ := strings.Cut(object, " ")
	_, name, found := strings.Cut(ref, "/")
	if !found {
		name = ref
	}
	return kind + " " + name
}
