package finalizers

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// offFlag is a container argument that switches a feature off: `--enable-<feature>=false` or
// `--<feature>-enabled=false` (the feature's words joined by dashes).
var offFlag = regexp.MustCompile(`^--?(?:enable-([a-z0-9-]+)|([a-z0-9-]+)-enabled)=(?:false|False|FALSE|0)$`)

// switchedOffFeatures names, for a finalizer nothing running may remove, the workloads of its
// domain that run with the feature for the stuck object's type switched off by their own
// arguments: `--enable-network-policy=false` on a workload tied to the finalizer's domain, for a
// NetworkPolicy. The product runs, but the part of it that handled such objects (and removed
// their finalizer) was turned off after the finalizer was added: that switch, not a missing
// controller, is why the finalizer stays. A flag counts only when its feature's words, joined,
// are the stuck type's resource name or its singular (network-policy for networkpolicies); any
// other switched-off feature says nothing about this object. The result is sorted.
func switchedOffFeatures(resource string, tied []workload) []string {
	var out []string
	for _, w := range tied {
		for _, a := range w.args {
			m := offFlag.FindStringSubmatch(a)
			if m == nil {
				continue
			}
			feature := m[1] + m[2]
			if namesResource(feature, resource) {
				out = append(out, fmt.Sprintf("%s runs with %s", w.ref.String(), a))
			}
		}
	}
	sort.Strings(out)
	return out
}

// namesResource reports whether a feature's dashed words name resource (a plural, lower case):
// joined, they are the resource itself or one of its singulars.
func namesResource(feature, resource string) bool {
	joined := strings.ReplaceAll(feature, "-", "")
	return joined != "" && (joined == resource || slices.Contains(singulars(resource), joined))
}

// switchedOffSummary words the strip of an orphaned finalizer whose product runs with the
// feature for the object's type switched off: the switch is the cause, turning it back on lets
// the product finish its cleanup, and the strip skips that cleanup.
func switchedOffSummary(finalizer, what string, off []string) string {
	return fmt.Sprintf("Remove finalizer %s by hand, or first switch the feature back on so that the product finishes its own cleanup and removes it (then delete such objects before switching it off again): %s, so nothing running handles %s any more, and nothing will ever remove the finalizer. The patch removes only this entry, and the API server refuses it if the list changed since it was read.",
		finalizer, strings.Join(off, "; "), what)
}
