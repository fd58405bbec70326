package lint

import (
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ruleSourceDeadlock = Rule{
	ID: "source-deadlock", Severity: Error,
	Why:   "the source's URL is served by an HTTPRoute or Ingress that a tier built from that same source applies: once the source is down, the tier that would restore the route cannot reconcile, so the source never comes back",
	Fix:   "point the source at the in-cluster Service (http://NAME.NAMESPACE.svc.cluster.local:PORT), never at a hostname the chain itself serves",
	check: checkSourceDeadlock,
}

// checkSourceDeadlock matches each GitRepository/OCIRepository URL host against the hostnames
// of HTTPRoutes, GRPCRoutes and Ingresses in tiers that build from that source.
func checkSourceDeadlock(r *Repo, rule Rule, _ Settings) []Finding {
	type source struct {
		key, host, file string
		obj             *unstructured.Unstructured
	}
	var sources []source
	for _, t := range append([]*Tier{r.EntryBuild}, r.Built()...) {
		for i, o := range t.Objects {
			k := o.GetKind()
			if o.GroupVersionKind().Group != "source.toolkit.fluxcd.io" || (k != "GitRepository" && k != "OCIRepository") {
				continue
			}
			u, _, _ := unstructured.NestedString(o.Object, "spec", "url")
			if h := hostOf(u); h != "" {
				sources = append(sources, source{key: k + "/" + o.GetNamespace() + "/" + o.GetName(), host: h, file: fileAt(t, i), obj: o})
			}
		}
	}
	var out []Finding
	seen := map[string]bool{}
	for _, s := range sources {
		for _, t := range r.Built() {
			ks := t.Kustomization
			if ks.SourceKind+"/"+ks.SourceNamespace+"/"+ks.SourceName != s.key {
				continue
			}
			for _, o := range t.Objects {
				if !servesHost(o, s.host) || seen[s.key+objectRef(o)] {
					continue
				}
				seen[s.key+objectRef(o)] = true
				out = append(out, rule.finding(t.ID(), objectRef(s.obj), s.file, r.Locate(s.file, s.obj.GetKind(), s.obj.GetName(), "url"),
					"%s fetches from %s, which %s serves in tier %s, a tier built from that source", objectRef(s.obj), s.host, objectRef(o), t.ID()))
			}
		}
	}
	return out
}

// hostOf is the host of a source URL: https://host/…, ssh://git@host/…, or git@host:path.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return strings.ToLower(u.Hostname())
	}
	if at := strings.Index(raw, "@"); at >= 0 {
		if h, _, ok := strings.Cut(raw[at+1:], ":"); ok {
			return strings.ToLower(h)
		}
	}
	return ""
}

// servesHost reports whether an HTTPRoute/GRPCRoute (spec.hostnames) or Ingress
// (spec.rules[].host, spec.tls[].hosts) answers for host, wildcards included.
func servesHost(o *unstructured.Unstructured, host string) bool {
	var hosts []string
	switch o.GetKind() {
	case "HTTPRoute", "GRPCRoute", "TLSRoute":
		hosts, _, _ = unstructured.NestedStringSlice(o.Object, "spec", "hostnames")
	case "Ingress":
		rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "rules")
		for _, ru := range rules {
			if m, ok := ru.(map[string]any); ok {
				if h, ok := m["host"].(string); ok {
					hosts = append(hosts, h)
				}
			}
		}
	default:
		return false
	}
	for _, h := range hosts {
		h = strings.ToLower(h)
		if h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
			return true
		}
	}
	return false
}
