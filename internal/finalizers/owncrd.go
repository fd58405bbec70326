package finalizers

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ownCRD is what the ranking reads of one CustomResourceDefinition: the labels it was installed
// with (and its Helm release, from the meta.helm.sh/release-* annotations) and the names of its
// type (kind, singular, plural, lower case).
type ownCRD struct {
	name   string
	labels map[string]string
	names  []string
}

func ownCRDOf(c apiextensionsv1.CustomResourceDefinition) ownCRD {
	labels := map[string]string{}
	for k, v := range c.Labels {
		labels[k] = v
	}
	if rel := c.Annotations["meta.helm.sh/release-name"]; rel != "" {
		labels["meta.helm.sh/release-name"] = c.Annotations["meta.helm.sh/release-namespace"] + "/" + rel
	}
	var names []string
	for _, n := range []string{c.Spec.Names.Kind, c.Spec.Names.Singular, c.Spec.Names.Plural} {
		if n != "" {
			names = append(names, strings.ToLower(n))
		}
	}
	return ownCRD{name: "customresourcedefinitions.apiextensions.k8s.io/" + c.Name, labels: labels, names: names}
}

// ownTypeFinalizer reports whether the finalizer's domain is the object's own API group, or
// the group under the type's own name (`openstackcluster.infrastructure.cluster.x-k8s.io` on an
// OpenStackCluster of infrastructure.cluster.x-k8s.io): the finalizer is then the one the type's
// own controller sets, and what installed the type says who that controller is. A finalizer of
// another product set on the type (`chains.tekton.dev` on a TaskRun of tekton.dev) is not.
func ownTypeFinalizer(domain, group string, c ownCRD) bool {
	if group == "" || domain == "" {
		return false
	}
	if domain == strings.ToLower(group) {
		return true
	}
	for _, n := range c.names {
		if domain == n+"."+strings.ToLower(group) {
			return true
		}
	}
	return false
}

// roleLabel reports label keys that say what part an object plays or which release it came
// from, not which product it is: a CRD and its controller differ there by design.
func roleLabel(k string) bool {
	_, name, ok := strings.Cut(k, "/")
	if !ok {
		name = k
	}
	switch name {
	case "component", "version", "managed-by", "chart":
		return true
	}
	return false
}

// versionLike matches a label value that is a version (`v1.2.3`, `0.3.15`), which many
// unrelated products share and an upgrade changes.
var versionLike = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)*([-+].*)?$`)

// ownLabelAgreement compares the labels of the object's own CRD with a candidate's (its
// Helm release included): a key both carry with the same non-empty value says they were
// installed as one product (`cluster.x-k8s.io/provider=infrastructure-openstack` on the CRD and
// on the provider's manager); a key both carry with different values says the candidate is
// another product (`cluster.x-k8s.io/provider=cluster-api`). Keys that say an object's part or
// version, empty values and version-like values are left out. It returns 1 when some key
// agrees, -1 when keys only differ, 0 when none is shared, with the evidence lines.
func ownLabelAgreement(c ownCRD, w workload) (int, []string) {
	mine := map[string]string{}
	for k, v := range w.labels {
		mine[k] = v
	}
	if rel := w.annotations["meta.helm.sh/release-name"]; rel != "" {
		mine["meta.helm.sh/release-name"] = w.annotations["meta.helm.sh/release-namespace"] + "/" + rel
	}
	keys := slices.Sorted(maps.Keys(c.labels))
	var agree, differ []string
	for _, k := range keys {
		v, theirs := c.labels[k], mine[k]
		if roleLabel(k) || v == "" || theirs == "" || versionLike.MatchString(v) {
			continue
		}
		if v == theirs {
			agree = append(agree, fmt.Sprintf("its label %s=%s is also on %s, the object's own type, whose finalizer this is", k, v, c.name))
		} else {
			differ = append(differ, fmt.Sprintf("its label %s=%s differs from %s=%s on %s, the object's own type, whose finalizer this is", k, theirs, k, v, c.name))
		}
	}
	switch {
	case len(agree) > 0:
		return 1, agree
	case len(differ) > 0:
		return -1, differ
	}
	return 0, nil
}
