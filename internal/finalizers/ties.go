package finalizers

import (
	"context"
	"fmt"
	"sort"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxTies bounds the evidence lines shown per candidate, strongest first.
const maxTies = 4

// tie is one piece of evidence that a workload belongs to the product of a finalizer's domain.
type tie struct {
	conf     Confidence
	evidence string
	// group is the API group of a tie through the service account's RBAC, empty otherwise.
	group string
}

// servedGroup is an API group a Service answers for: an admission webhook whose rules name the
// group, a CRD's conversion webhook, an APIService.
type servedGroup struct {
	group string
	svc   serviceRef
	via   string
}

// productIndex is what the cluster says about which product serves which API group: the
// groups of its CustomResourceDefinitions with the product labels of each, and the Services
// behind webhooks, conversion webhooks and APIServices. Read once per command.
type productIndex struct {
	crdGroups map[string]bool
	// crdProducts maps a group to the product labels of its CRDs (productOf), with the CRD named.
	crdProducts map[string][]crdProduct
	served      []servedGroup
	// own maps group/plural to each CRD's labels and names, for the stuck object's own type
	// (owncrd.go).
	own map[string]ownCRD
}

type crdProduct struct {
	crd    string
	labels map[string]string
}

// products builds the productIndex from the CRDs, webhook configurations and APIServices.
func (x *Explainer) products(ctx context.Context) (*productIndex, error) {
	return cached(x, "products", func() (*productIndex, error) {
		idx := &productIndex{crdGroups: map[string]bool{}, crdProducts: map[string][]crdProduct{}, own: map[string]ownCRD{}}
		crds, err := x.crds(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing customresourcedefinitions.apiextensions.k8s.io: %w", err)
		}
		for _, c := range crds {
			g := c.Spec.Group
			idx.crdGroups[g] = true
			idx.own[g+"/"+c.Spec.Names.Plural] = ownCRDOf(c)
			if p := productOf(c.Labels, c.Annotations); len(p) > 0 {
				idx.crdProducts[g] = append(idx.crdProducts[g], crdProduct{crd: "customresourcedefinitions.apiextensions.k8s.io/" + c.Name, labels: p})
			}
			if conv := c.Spec.Conversion; conv != nil && conv.Webhook != nil && conv.Webhook.ClientConfig != nil && conv.Webhook.ClientConfig.Service != nil {
				s := conv.Webhook.ClientConfig.Service
				idx.served = append(idx.served, servedGroup{group: g, svc: serviceRef{s.Namespace, s.Name}, via: "the conversion webhook of customresourcedefinitions.apiextensions.k8s.io/" + c.Name})
			}
		}
		hooks, err := x.webhookConfigs(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range hooks.validating {
			for _, w := range c.Webhooks {
				idx.addWebhook("validatingwebhookconfigurations.admissionregistration.k8s.io/"+c.Name, w.ClientConfig.Service, w.Rules)
			}
		}
		for _, c := range hooks.mutating {
			for _, w := range c.Webhooks {
				idx.addWebhook("mutatingwebhookconfigurations.admissionregistration.k8s.io/"+c.Name, w.ClientConfig.Service, w.Rules)
			}
		}
		as, err := x.apiServices(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing apiservices.apiregistration.k8s.io: %w", err)
		}
		for _, a := range as {
			g, _, _ := unstructured.NestedString(a.Object, "spec", "group")
			ns, _, _ := unstructured.NestedString(a.Object, "spec", "service", "namespace")
			name, _, _ := unstructured.NestedString(a.Object, "spec", "service", "name")
			if g != "" && name != "" {
				idx.served = append(idx.served, servedGroup{group: g, svc: serviceRef{ns, name}, via: "apiservices.apiregistration.k8s.io/" + a.GetName()})
			}
		}
		return idx, nil
	})
}

// workloadTies returns every tie of w to the finalizer's domain, strongest first: the custom
// resource groups its service account's RBAC names, the groups it serves through a Service, the
// product labels it shares with the domain's CRDs, its image, labels, name and namespace.
func (x *Explainer) workloadTies(ctx context.Context, domain string, w workload, idx *productIndex, rb *rbacObjects) []tie {
	var ties []tie
	add := func(c Confidence, ev string) {
		if c.rank() > 0 {
			ties = append(ties, tie{conf: c, evidence: ev})
		}
	}
	ties = append(ties, rbacTies(domain, w.ref.Namespace, w.serviceAccount, idx, rb)...)
	for _, s := range idx.served {
		if s.svc.namespace != w.ref.Namespace {
			continue
		}
		c, why := groupTie(domain, s.group)
		if c == ConfidenceNone || !x.selects(ctx, s.svc, w) {
			continue
		}
		add(c, fmt.Sprintf("serves API group %s (%s) behind %s, through %s", s.group, why, s.via, s.svc))
	}
	mine := productOf(w.labels, w.annotations)
	for g, ps := range idx.crdProducts {
		if c, _ := groupTie(domain, g); c == ConfidenceNone {
			continue
		}
		for _, p := range ps {
			for k, v := range p.labels {
				if mine[k] == v {
					add(ConfidenceMedium, fmt.Sprintf("shares %s=%s with %s, a type of the finalizer's domain", k, v, p.crd))
				}
			}
		}
	}
	ties = append(ties, labelKeyTies(domain, w, idx)...)
	tokens := domainTokens(domain)
	for _, img := range w.images {
		if t, ok := namesDomain(imageName(img), tokens); ok {
			add(ConfidenceMedium, fmt.Sprintf("its image %s names %q, as the finalizer's domain %s does", imageName(img), t, domain))
			break
		}
	}
	for _, k := range productLabels {
		if t, ok := namesDomain(w.labels[k], tokens); ok {
			add(ConfidenceLow, fmt.Sprintf("its label %s=%s names %q, as the finalizer's domain does", k, w.labels[k], t))
		}
	}
	if t, ok := namesDomain(w.ref.Name, tokens); ok {
		add(ConfidenceLow, fmt.Sprintf("its name names %q, as the finalizer's domain does", t))
	}
	if t, ok := namesDomain(w.ref.Namespace, tokens); ok {
		add(ConfidenceLow, fmt.Sprintf("its namespace %s names %q, as the finalizer's domain does", w.ref.Namespace, t))
	}
	return sortTies(ties)
}

// rbacTies are the custom resource groups of the finalizer's domain that the service account's
// roles name (any verb): a controller is granted rights on its own product's types.
func rbacTies(domain, ns, sa string, idx *productIndex, rb *rbacObjects) []tie {
	var ties []tie
	for g, via := range rb.groupsOf(ns, sa) {
		if !idx.crdGroups[g] {
			continue
		}
		if c, why := groupTie(domain, g); c != ConfidenceNone {
			ties = append(ties, tie{c, fmt.Sprintf("its service account may act on custom resources of %s (%s) through %s", g, why, via), g})
		}
	}
	return sortTies(ties)
}

// sortTies orders ties strongest first, then by wording, and drops repeats.
func sortTies(ts []tie) []tie {
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].conf.rank() != ts[j].conf.rank() {
			return ts[i].conf.rank() > ts[j].conf.rank()
		}
		return ts[i].evidence < ts[j].evidence
	})
	out := ts[:0]
	for i, t := range ts {
		if i == 0 || t.evidence != ts[i-1].evidence {
			out = append(out, t)
		}
	}
	return out
}

// confidenceOf is the strongest tie's grade.
func confidenceOf(ts []tie) Confidence {
	if len(ts) == 0 {
		return ConfidenceNone
	}
	return ts[0].conf
}

// tieLines renders the strongest ties as evidence lines.
func tieLines(ts []tie) []string {
	var out []string
	for i, t := range ts {
		if i == maxTies {
			out = append(out, fmt.Sprintf("and %d more", len(ts)-maxTies))
			break
		}
		out = append(out, string(t.conf)+": "+t.evidence)
	}
	return out
}

// selects reports whether the Service s selects the pods of w (a failed read counts as no).
func (x *Explainer) selects(ctx context.Context, s serviceRef, w workload) bool {
	ws, _, err := x.backendWorkloads(ctx, s)
	if err != nil {
		return false
	}
	for _, b := range ws {
		if b.ref == w.ref {
			return true
		}
	}
	return false
}

// groupsOf returns every API group the roles bound to one service account name (any verb,
// wildcards and the core group left out), each with the role and binding that names it. Bindings
// to every service account of the cluster are no evidence of one product's rights.
func (o *rbacObjects) groupsOf(ns, sa string) map[string]string {
	out := map[string]string{}
	o.boundRules(ns, sa, func(rules []rbacv1.PolicyRule, via string) {
		for _, r := range rules {
			for _, g := range r.APIGroups {
				if g != "" && g != "*" {
					if _, ok := out[g]; !ok {
						out[g] = via
					}
				}
			}
		}
	})
	return out
}

// boundRules calls collect with the rules of every role bound to one service account name,
// each with the role and binding that grant them (bootstrap bindings left out).
func (o *rbacObjects) boundRules(ns, sa string, collect func(rules []rbacv1.PolicyRule, via string)) {
	bound := func(subjects []rbacv1.Subject, bindingNS string) bool {
		for _, s := range subjects {
			sns, sname, ok := serviceAccountOf(s, bindingNS)
			if ok && sns == ns && (sname == sa || sname == "*") {
				return true
			}
		}
		return false
	}
	for _, b := range o.crbs {
		if b.Labels[bootstrapLabel] == "" && b.RoleRef.Kind == "ClusterRole" && bound(b.Subjects, "") {
			collect(o.clusterRoles[b.RoleRef.Name], fmt.Sprintf("ClusterRole %s via ClusterRoleBinding %s", b.RoleRef.Name, b.Name))
		}
	}
	for _, b := range o.rbs {
		if b.Labels[bootstrapLabel] != "" || !bound(b.Subjects, b.Namespace) {
			continue
		}
		rules, kind := o.clusterRoles[b.RoleRef.Name], "ClusterRole"
		if b.RoleRef.Kind == "Role" {
			rules, kind = o.roles[b.Namespace+"/"+b.RoleRef.Name], "Role"
		}
		collect(rules, fmt.Sprintf("%s %s via RoleBinding %s -n %s", kind, b.RoleRef.Name, b.Name, b.Namespace))
	}
}

// addWebhook records the groups an admission webhook's rules name, served by its Service.
func (idx *productIndex) addWebhook(config string, s *admissionv1.ServiceReference, rules []admissionv1.RuleWithOperations) {
	if s == nil {
		return
	}
	seen := map[string]bool{}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			if g != "" && g != "*" && !seen[g] {
				seen[g] = true
				idx.served = append(idx.served, servedGroup{group: g, svc: serviceRef{s.Namespace, s.Name}, via: "the admission webhook " + config})
			}
		}
	}
}
