package finalizers

import (
	"strings"
)

// Confidence grades how strongly the cluster ties a workload to a finalizer's domain.
type Confidence string

// The grades, strongest first: an API group of the domain the workload acts on or serves
// (high); a parent domain shared with such a group, the product labels of the domain's CRDs,
// the image's name (medium); its name, labels or namespace naming the domain (low); nothing.
const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
	ConfidenceNone   Confidence = "none"
)

func (c Confidence) rank() int {
	switch c {
	case ConfidenceHigh:
		return 3
	case ConfidenceMedium:
		return 2
	case ConfidenceLow:
		return 1
	}
	return 0
}

// kubernetesOwnDomain reports a domain of the Kubernetes project itself (`kubernetes.io`,
// `k8s.io` and their subdomains, not SIG projects' `x-k8s.io`): its finalizers and labels are
// Kubernetes' own, served and removed by the API server and its controllers, never a product's.
func kubernetesOwnDomain(domain string) bool {
	return domain == "kubernetes.io" || domain == "k8s.io" || strings.HasSuffix(domain, ".kubernetes.io") || strings.HasSuffix(domain, ".k8s.io")
}

// sharedParents are parent domains under which unrelated owners publish their API groups: two
// groups that share only one of these are no evidence of one product.
var sharedParents = map[string]bool{
	"k8s.io": true, "kubernetes.io": true, "x-k8s.io": true, "github.io": true, "github.com": true,
	"gitlab.io": true, "googleapis.com": true, "amazonaws.com": true, "azure.com": true,
}

// genericWords are name parts that name no product (`operator`, `controller`, top-level domains):
// a token match on them is no evidence.
var genericWords = map[string]bool{
	"io": true, "com": true, "org": true, "net": true, "dev": true, "sh": true, "cloud": true, "app": true,
	"apps": true, "api": true, "apis": true, "k8s": true, "kubernetes": true, "kube": true, "operator": true,
	"operators": true, "controller": true, "controllers": true, "manager": true, "finalizer": true,
	"finalizers": true, "cleanup": true, "resource": true, "resources": true, "system": true, "protection": true,
	"delete": true, "deletion": true, "example": true, "registry": true, "latest": true, "release": true, "webhook": true, "default": true,
}

// finalizerDomain is the domain of a finalizer, "" for one without a domain. The grammar is
// Kubernetes' qualified name: `prefix/name`, whose prefix is a DNS subdomain, or a name alone,
// the legacy form, which has no prefix (the API server warns about it). So:
//   - `prefix/name`: the prefix, when it has a dot (`foo.example.com` of
//     `foo.example.com/cleanup`); a dotless prefix is no domain (`wrangler/cleanup`).
//   - a name alone has a domain only as far as its dots write one, read as `<word>.<domain>`:
//     the whole name when it is itself a DNS subdomain (`finalizers.fluxcd.io`, `hnc.x-k8s.io`,
//     an API group); else the labels after the first (`liqonet.liqo.io` of
//     `tunnelEndpointCreator-Finalizer.liqonet.liqo.io`, whose first label, with capitals, is
//     the finalizer's own word and no DNS label). Either way what is read must be a DNS
//     subdomain of at least two labels whose last is a top-level domain (letters only): a tail
//     that is not one (`grafana.cleanup`, `finalizer.kiali`) leaves the name without a domain,
//     like `foregroundDeleteVirtualMachine` and `kubernetes`.
func finalizerDomain(name string) string {
	d, _, found := strings.Cut(name, "/")
	if found {
		if !strings.Contains(d, ".") {
			return ""
		}
		return strings.ToLower(d)
	}
	if isDomain(name) {
		return name
	}
	if _, rest, ok := strings.Cut(name, "."); ok && isDomain(rest) {
		return rest
	}
	return ""
}

// isDomain reports a DNS subdomain (lowercase labels of letters, digits and inner dashes) of at
// least two labels whose last is letters only, as a top-level domain is.
func isDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 || len(s) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	for _, r := range tld {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// parents returns the parent domains of d that keep at least two labels, nearest first:
// a.b.example.com → b.example.com, example.com.
func parents(d string) []string {
	labels := strings.Split(d, ".")
	var out []string
	for i := 1; i+2 <= len(labels); i++ {
		out = append(out, strings.Join(labels[i:], "."))
	}
	return out
}

// groupTie says how an API group relates to a finalizer's domain: high when one is the other or
// a subdomain of it (`argoproj.io` and `resources-finalizer.argocd.argoproj.io`), medium when
// they share a parent domain that is not a shared one (`infrastructure.giantswarm.io` and
// `operatorkit.giantswarm.io`), none otherwise. why says which.
func groupTie(domain, group string) (Confidence, string) {
	group = strings.ToLower(group)
	if domain == "" || !strings.Contains(group, ".") || sharedParents[group] {
		return ConfidenceNone, ""
	}
	switch {
	case group == domain:
		return ConfidenceHigh, "the finalizer's domain itself"
	case strings.HasSuffix(domain, "."+group):
		return ConfidenceHigh, "a parent of the finalizer's domain " + domain
	case strings.HasSuffix(group, "."+domain):
		return ConfidenceHigh, "a subdomain of the finalizer's domain " + domain
	}
	gp := map[string]bool{}
	for _, p := range parents(group) {
		gp[p] = true
	}
	for _, p := range parents(domain) {
		if gp[p] && !sharedParents[p] {
			return ConfidenceMedium, "under " + p + ", as the finalizer's domain " + domain + " is"
		}
	}
	return ConfidenceNone, ""
}

// domainTokens are the words of a domain that may name its product: its labels but the
// top-level one, split at dashes, without generic words (`tailscale` of `tailscale.com`).
func domainTokens(domain string) map[string]bool {
	labels := strings.Split(domain, ".")
	out := map[string]bool{}
	if len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	for _, l := range labels {
		for _, t := range words(l) {
			out[t] = true
		}
	}
	return out
}

// words splits a name (label value, namespace, image path) into the words that may name a
// product: at least three characters, not generic, not a version.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@'
	}) {
		if len(w) < 3 || genericWords[w] || (w[0] == 'v' && len(w) > 1 && w[1] >= '0' && w[1] <= '9') || (w[0] >= '0' && w[0] <= '9') {
			continue
		}
		out = append(out, w)
	}
	return out
}

// namesDomain returns the first word of s that is one of the domain's tokens.
func namesDomain(s string, tokens map[string]bool) (string, bool) {
	for _, w := range words(s) {
		if tokens[w] {
			return w, true
		}
	}
	return "", false
}

// imageName is an image reference without its tag or digest: `quay.io/giantswarm/aws-operator`.
func imageName(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

// productLabels are the labels (and Helm release annotation) that name the product a workload
// or a CRD belongs to.
var productLabels = []string{"app.kubernetes.io/part-of", "app.kubernetes.io/name", "app.kubernetes.io/instance", "helm.sh/chart", "app"}

// productOf returns the product-naming labels of an object as key=value, with the Helm release
// that installed it (annotations meta.helm.sh/release-*), for comparing a workload with a CRD.
func productOf(labels, annotations map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"app.kubernetes.io/part-of", "app.kubernetes.io/instance"} {
		if v := labels[k]; v != "" {
			out[k] = v
		}
	}
	if rel := annotations["meta.helm.sh/release-name"]; rel != "" {
		out["meta.helm.sh/release-name"] = annotations["meta.helm.sh/release-namespace"] + "/" + rel
	}
	return out
}
