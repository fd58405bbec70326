package finalizers

import "slices"

// withoutRepeats drops a step that repeats an earlier one: the same code and the same command.
// Two rules can reach the same workload by different roads (the backend of a fail-closed
// webhook that blocks the removal, and a candidate remover that is not ready); an operator
// reading the steps in order has done the second already when reaching it. The first is kept:
// the rules that come first are the ones that say why that step unblocks this object.
func withoutRepeats(steps []Remediation) []Remediation {
	out := steps[:0:0]
	for _, s := range steps {
		if s.Command != "" && slices.ContainsFunc(out, func(o Remediation) bool { return o.Code == s.Code && o.Command == s.Command }) {
			continue
		}
		out = append(out, s)
	}
	return out
}
