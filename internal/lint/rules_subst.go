package lint

import (
	"strings"

	"github.com/kubeforensics/suite/internal/kbuild"
)

var ruleSubstitution = Rule{
	ID: "substitution-fails-open", Severity: Error,
	Why:   "post-build substitution of a variable no source defines fails open where strict substitution is off (an undefined ${VAR} silently becomes \"\" and the tier reports Ready) and fails the whole tier where it is on (the default since kustomize-controller v1.9)",
	Fix:   "define the variable in postBuild.substitute or a substituteFrom ConfigMap/Secret, or give the reference a default: ${VAR:=value}",
	check: checkSubstitution,
}

// checkSubstitution reports the variables Load found undefined, at the line that references
// them.
func checkSubstitution(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		for _, u := range t.Undefined {
			kind, name := gvkName(u.Object)
			file, ref := "", kind+" "+name
			for i, o := range t.Objects {
				if o.GetKind() == kind && o.GetName() == name {
					file, ref = fileAt(t, i), objectRef(o)
					break
				}
			}
			line := r.LocateText(file, "${"+u.Var+"}")
			if line == 0 {
				line = r.LocateText(file, "${"+u.Var)
			}
			msg := "%s references ${%s}, which no postBuild source of %s defines"
			if !kbuild.IsVarName(u.Var) {
				// ${1}: no source can define it (the controller refuses the name); it is text
				// meant for another program, which substitution empties or fails on.
				msg += "; no variable can have that name: write it $${%[2]s} to keep it as text, or label the object kustomize.toolkit.fluxcd.io/substitute: disabled"
			}
			out = append(out, rule.finding(t.ID(), ref, file, line, msg, ref, u.Var, t.ID()))
		}
	}
	return out
}

// gvkName splits kustomize's "Kind.version.group/name" into kind and name.
func gvkName(s string) (kind, name string) {
	gvk, name, _ := strings.Cut(s, "/")
	kind, _, _ = strings.Cut(gvk, ".")
	return kind, name
}
