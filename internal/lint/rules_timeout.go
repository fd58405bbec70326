package lint

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ruleTimeout = Rule{
	ID: "timeout-under-helmrelease", Severity: Warning,
	Why:   "a tier that waits (wait: true, or healthChecks, which also wait on what a HelmRelease installs) gives up at its timeout while helm-controller may legitimately run a HelmRelease longer, so a normal slow upgrade fails the tier and freezes every tier after it",
	Fix:   "raise the Kustomization's spec.timeout above the longest HelmRelease timeout it applies (or lower the HelmRelease's)",
	check: checkTimeout,
}

// helmDefaultTimeout is helm-controller's timeout when a HelmRelease sets none.
const helmDefaultTimeout = 5 * time.Minute

// checkTimeout compares each gating tier's timeout with the HelmReleases it applies: the longest
// of spec.timeout, spec.install.timeout and spec.upgrade.timeout.
func checkTimeout(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		ks := t.Kustomization
		hc, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "healthChecks")
		if !ks.Wait && len(hc) == 0 {
			continue
		}
		for _, o := range t.Objects {
			if !isHelmRelease(o) {
				continue
			}
			hr := helmTimeout(o)
			if hr <= ks.Timeout {
				continue
			}
			out = append(out, rule.finding(t.ID(), objectRef(o), ks.File, r.Locate(ks.File, "Kustomization", ks.Name, "timeout"),
				"tier %s times out after %s, but %s may run for %s", t.ID(), ks.Timeout, objectRef(o), hr))
		}
	}
	return out
}

func helmTimeout(o *unstructured.Unstructured) time.Duration {
	longest := time.Duration(0)
	for _, p := range [][]string{{"spec", "timeout"}, {"spec", "install", "timeout"}, {"spec", "upgrade", "timeout"}} {
		s, _, _ := unstructured.NestedString(o.Object, p...)
		if d, err := time.ParseDuration(s); err == nil && d > longest {
			longest = d
		}
	}
	if longest == 0 {
		return helmDefaultTimeout
	}
	return longest
}
