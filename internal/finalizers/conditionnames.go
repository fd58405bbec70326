package finalizers

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// maxQuotedCondition bounds, in characters, a condition message quoted as evidence (cluster
// text, untrusted: cut at a character, never inside one).
const maxQuotedCondition = 160

// workloadKindWords are how a message writes a workload's or an account's kind before its name
// (`deployment/x`, `deployments.apps/x`, `serviceaccount/x`).
var workloadKindWords = []string{
	"deployment", "deployments", "deployment.apps", "deployments.apps",
	"statefulset", "statefulsets", "statefulset.apps", "statefulsets.apps",
	"daemonset", "daemonsets", "daemonset.apps", "daemonsets.apps",
	"serviceaccount", "serviceaccounts", "sa",
}

// conditionNameTies maps each candidate that the object's own conditions name in a message to
// that tie (medium): a controller writes its own name into what it reports (`reconciled by
// x-operator`, `system:serviceaccount:ops:x` refused an update). A message names a candidate by
// a whole token — split at spaces and punctuation, never a substring of a longer name — that is
// its name or its service account's (four characters or more, `default` never), `<namespace>/<name>`,
// `<kind>/<name>` (deployment, statefulset, daemonset, serviceaccount, with or without `.apps`)
// or `system:serviceaccount:<namespace>/<account>`. A workload the object owns is its child,
// not its remover, and is never tied this way. The message is quoted, bounded, as evidence.
func conditionNameTies(conds []Condition, cands []workload, objUID types.UID) map[string]tie {
	out := map[string]tie{}
	for _, c := range conds {
		tokens := messageTokens(c.Message)
		for _, w := range cands {
			if _, seen := out[w.ref.String()]; seen || workloadOwnedBy(w, objUID) {
				continue
			}
			for _, t := range tokens {
				if how, ok := tokenNames(t, w); ok {
					msg := c.Message
					if r := []rune(msg); len(r) > maxQuotedCondition {
						msg = string(r[:maxQuotedCondition]) + "…"
					}
					out[w.ref.String()] = tie{conf: ConfidenceMedium, evidence: fmt.Sprintf("the object's condition %s (%s) names %s in its message: %q", c.Type, c.Status, how, msg)}
					break
				}
			}
		}
	}
	return out
}

// messageTokens splits a message into the tokens that may be object names: runs of letters,
// digits and `-._/:`, with leading and trailing punctuation trimmed.
func messageTokens(msg string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(msg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._/:", r))
	}) {
		if t := strings.Trim(f, "-._/:"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// tokenNames says how one token of a message names the workload w, if it does (conditionNameTies).
func tokenNames(t string, w workload) (string, bool) {
	t = strings.ToLower(t)
	name, ns := w.ref.Name, w.ref.Namespace
	sa := w.serviceAccount
	if sa == "default" || len(sa) < 4 {
		sa = ""
	}
	if len(name) >= 4 && t == name {
		return "it (" + name + ")", true
	}
	if sa != "" && t == sa {
		return "its service account (" + sa + ")", true
	}
	if rest, ok := strings.CutPrefix(t, "system:serviceaccount:"); ok && sa != "" && rest == ns+":"+sa {
		return "its service account (" + t + ")", true
	}
	prefix, last, ok := strings.Cut(t, "/")
	if !ok || strings.Contains(last, "/") {
		return "", false
	}
	switch {
	case last == name && len(name) >= 4 && (prefix == ns || slices.Contains(workloadKindWords, prefix)):
		return "it (" + t + ")", true
	case last == sa && sa != "" && (prefix == ns || slices.Contains(workloadKindWords, prefix)):
		return "its service account (" + t + ")", true
	}
	return "", false
}
