package lint

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
)

var ruleDependsOnParent = Rule{
	ID: "dependson-parent", Severity: Error,
	Why:   "a child Kustomization whose dependsOn names the Kustomization that applies it waits for its parent to be Ready, while a parent with wait: true is Ready only once the child is: neither ever becomes Ready",
	Fix:   "remove the parent from the child's dependsOn; depend on the tiers the parent itself depends on instead",
	check: checkDependsOnParent,
}

var ruleHealthCheckDownstream = Rule{
	ID: "healthcheck-downstream", Severity: Error,
	Why:   "a health check on an object that only a downstream tier creates can never pass: that tier waits for this one to be Ready, which waits for the object",
	Fix:   "drop the health check, or check it in the tier that creates the object",
	check: checkHealthCheckDownstream,
}

var ruleDependencies = Rule{
	ID: "dependency-graph", Severity: Error,
	Why:   "a dependsOn cycle, or a dependsOn naming a Kustomization the repository never declares, leaves the tier waiting forever",
	Fix:   "break the cycle or correct the dependsOn name and namespace",
	check: checkDependencies,
}

func checkDependsOnParent(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.IDsTiers() {
		ks := t.Kustomization
		for _, d := range ks.DependsOn {
			if d != t.AppliedBy || t.AppliedBy == "" {
				continue
			}
			f := rule.finding(t.ID(), "Kustomization "+t.ID(), ks.File, r.Locate(ks.File, "Kustomization", ks.Name, "dependsOn"),
				"Kustomization %s depends on %s, which applies it", t.ID(), d)
			if p := r.Tiers[d]; p != nil && !p.Kustomization.Wait {
				f.Severity = Warning
				f.Message += " (no deadlock while the parent keeps wait: false)"
			}
			out = append(out, f)
		}
	}
	return out
}

// checkHealthCheckDownstream finds spec.healthChecks entries whose object only tiers that depend
// on this one create (a Kustomization health check names the tier itself).
func checkHealthCheckDownstream(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		ks := t.Kustomization
		hcs, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "healthChecks")
		for _, raw := range hcs {
			hc, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			kind, _ := hc["kind"].(string)
			name, _ := hc["name"].(string)
			ns, _ := hc["namespace"].(string)
			if ns == "" {
				ns = ks.Namespace
			}
			creators := r.creators(kind, ns, name)
			if len(creators) == 0 || slices.Contains(creators, t.ID()) {
				continue
			}
			var downstream []string
			for _, c := range creators {
				if r.dependsOn(c, t.ID()) {
					downstream = append(downstream, c)
				}
			}
			if len(downstream) == len(creators) {
				out = append(out, rule.finding(t.ID(), kind+" "+ns+"/"+name, ks.File, r.Locate(ks.File, "Kustomization", ks.Name, "healthChecks"),
					"%s health-checks %s %s/%s, which only %s creates, downstream of it", t.ID(), kind, ns, name, joinSorted(downstream)))
			}
		}
	}
	return out
}

// creators lists the tiers that create kind ns/name (a Kustomization is created by the tier
// that applies it, and is its own tier).
func (r *Repo) creators(kind, ns, name string) []string {
	var out []string
	for _, t := range r.Built() {
		for _, o := range t.Objects {
			if o.GetKind() == kind && o.GetName() == name && (o.GetNamespace() == ns || o.GetNamespace() == "") {
				out = append(out, t.ID())
				break
			}
		}
	}
	return out
}

// checkDependencies turns the chain's cycle and missing-dependency findings into lint findings.
// A dependency no tier that built declares may be declared inside a tier that did not build, or
// one built from another source, or be the root made outside the repository: then "does not
// exist" is not known, so the finding is information, saying why (Repo.unknownNotAbsent).
func checkDependencies(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for i, f := range r.Chain.Findings {
		if f.Kind != flux.FindingCycle && f.Kind != flux.FindingMissingDependency {
			continue
		}
		file, line := "", 0
		if t := r.Tiers[f.Kustomization]; t != nil {
			file = t.Kustomization.File
			line = r.Locate(file, "Kustomization", t.Kustomization.Name, "dependsOn")
		}
		finding := rule.finding(f.Kustomization, "Kustomization "+f.Kustomization, file, line, "%s %s", f.Kustomization, f.Message)
		if f.Kind == flux.FindingMissingDependency && r.unknownDeps[i] {
			finding.Severity = Info
			finding.Message = f.Kustomization + " " + f.Message // said as unknown by unknownNotAbsent
		}
		out = append(out, finding)
	}
	return out
}
