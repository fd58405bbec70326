package retire

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// customState is what deleting a custom resource of no listed kind makes its operator do with
// the state it made (a bucket, a database, a cloud volume, a backup repository), from evidence
// the repository or the cluster shows, in this order:
//
//   - the object: a deletion policy it sets (`deletionPolicy: Delete` deletes,
//     `databaseReclaimPolicy: retain` keeps), a storage request, a size of storage
//     (helmjudge.StateOnDelete); live, the live object, which carries its CRD's defaults;
//   - its CRD (in the base builds, or live on the cluster): the default of a deletion-policy
//     field the object leaves unset, and a field with no default is the operator's choice;
//   - a kind whose operator makes nothing a deletion loses (statelessGroups).
//
// A custom resource of a kind none of these show is not judged stateless: its removal is
// UNKNOWN (stateUnknown), as nothing evaluated is never SAFE. It returns the persistence (nil
// when none), what keeps the state when a policy does, and why it is unknown.
func customState(r *Removal, all []*unstructured.Unstructured) (p *Persistence, kept, unknown string) {
	o, crd := r.base, crdOf(r.Object, all)
	if r.Live != nil && r.Live.object != nil {
		o = r.Live.object
	}
	if r.Live != nil && r.Live.crd != nil {
		crd = r.Live.crd
	}
	if o == nil || !helmjudge.CustomGroup(r.Object.Group) || isTemplateKind(r.Object.Kind) {
		return nil, "", ""
	}
	d := helmjudge.StateOnDelete(o)
	if d == (helmjudge.OnDelete{}) && crd != nil {
		d = helmjudge.Decide(crdDefaults(crd, o))
	}
	switch {
	case d.Deletes != "":
		return &Persistence{Detail: d.Deletes}, "", ""
	case d.Keeps != "":
		return nil, d.Keeps, ""
	case d.Unsure != "":
		return nil, "", fmt.Sprintf("its deletion policy %s says neither delete nor keep, so what its operator does with what it made is not known", d.Unsure)
	case crd != nil || statelessGroups[r.Object.Group]:
		return nil, "", ""
	}
	return nil, "", fmt.Sprintf("nothing the gate reads shows what its operator does with what it made when it is deleted: no CRD of %s is in the repository's builds, and its spec sets no deletion policy and asks for no storage", r.Object.GroupKind())
}

// statelessGroups are the API groups of the everyday custom resources whose operators make
// nothing a deletion loses, a fact no CRD shows: Prometheus Operator's monitors and rules
// (and its Prometheus and Alertmanager, whose storage is a claim template their spec asks for,
// read above), cert-manager's certificates and issuers (a deleted Certificate's Secret stays;
// an issuer's account key is a Secret of its own), External Secrets' secrets and stores (the
// target Secret is made again from the store; a PushSecret's deletionPolicy, read above, says
// when it deletes the remote secret).
var statelessGroups = map[string]bool{
	"monitoring.coreos.com": true,
	"cert-manager.io":       true,
	"acme.cert-manager.io":  true,
	"external-secrets.io":   true,
}

// isTemplateKind is a kind that calls itself a template: it describes objects made from it
// later and holds none of their state (helmjudge.StorageRequest).
func isTemplateKind(kind string) bool { return strings.HasSuffix(kind, "Template") }

// crdOf is the CRD in objs that serves ref's kind, nil when none does.
func crdOf(ref Ref, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		if g, k := crdKind(o, o.GetName()); g == ref.Group && k == ref.Kind {
			return o
		}
	}
	return nil
}

// crdDefaults lists the deletion-policy fields of the CRD's schema for o's version (any
// version when o's is not there) that o leaves unset, each with its schema default (nil when
// the schema gives none: the operator decides).
func crdDefaults(crd, o *unstructured.Unstructured) []helmjudge.Policy {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var schema map[string]any
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		s, _, _ := unstructured.NestedMap(vm, "schema", "openAPIV3Schema", "properties", "spec")
		if s == nil {
			continue
		}
		if schema == nil || vm["name"] == o.GroupVersionKind().Version {
			schema = s
		}
	}
	var out []helmjudge.Policy
	var walk func(props map[string]any, path []string, depth int)
	walk = func(props map[string]any, path []string, depth int) {
		if depth > 6 {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			prop, _ := props[name].(map[string]any)
			p := append(slices.Clone(path), name)
			if sub, ok := prop["properties"].(map[string]any); ok {
				walk(sub, p, depth+1)
				continue
			}
			if !helmjudge.IsPolicyField(name) {
				continue
			}
			if _, set, _ := unstructured.NestedFieldNoCopy(o.Object, append([]string{"spec"}, p...)...); set {
				continue
			}
			field := "spec." + strings.Join(p, ".")
			def, ok := prop["default"]
			if !ok {
				out = append(out, helmjudge.Policy{Path: field + " (unset, and its CRD gives no default: the operator's own)", Field: name, Value: "unset"})
				continue
			}
			out = append(out, helmjudge.Policy{Path: field + " (unset, its CRD's default)", Field: name, Value: def})
		}
	}
	if schema != nil {
		props, _ := schema["properties"].(map[string]any)
		walk(props, nil, 0)
	}
	return out
}

// UnknownState names every custom resource that is pruned, or moved unprotected, and whose
// kind nothing the gate reads shows the fate of its operator's state (customState).
func UnknownState(rs []Removal) []report.Gap {
	var out []report.Gap
	for i := range rs {
		r := &rs[i]
		if r.stateUnknown == "" || r.Persistent != nil || r.OptOut != "" || (r.Outcome != Pruned && r.Outcome != Moved) {
			continue
		}
		out = append(out, notJudged(r.Object.GapID(), report.GapUnsupported, fmt.Sprintf("%s (%s)", r.Object, Applier(r.Kustomization)),
			"whether deleting it loses state: "+r.stateUnknown))
	}
	return out
}
