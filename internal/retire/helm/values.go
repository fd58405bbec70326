package helm

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Value is one piece of persistent state a HelmRelease's inline values visibly declare.
type Value struct {
	// Path is where the values declare it, e.g. `spec.values.primary.persistence`.
	Path string `json:"path"`
	What string `json:"what"`
	// Deleted is set when the chart creates a claim that uninstalling the release deletes;
	// Orphaned when the chart's StatefulSet creates claims that the uninstall leaves behind.
	// Neither is set for a claim the chart only mounts (existingClaim) or keeps (retain).
	Deleted  bool `json:"deleted,omitempty"`
	Orphaned bool `json:"orphaned,omitempty"`
	// Claim is the name of the claim the chart makes, when the chart is known to name it so
	// (app-template); "" otherwise.
	Claim string `json:"claim,omitempty"`

	// key identifies the claim the chart creates for this value across revisions ("" when the
	// value creates none): an app-template item's name suffix, else the values path.
	key string
	// kept is set for a claim the chart creates with helm.sh/resource-policy: keep, which Helm
	// leaves when a later manifest drops it.
	kept bool
}

// Key identifies the claim the chart creates for v across revisions, "" when v creates none.
func (v Value) Key() string { return v.key }

// Declares reports whether v is state the uninstall deletes or strands.
func (v Value) Declares() bool { return v.Deleted || v.Orphaned }

// Values reads the persistent state that spec.values visibly declare, by three rules
// taken from public charts:
//
//   - a `persistence` map in the flat form most charts use (bitnami's `primary.persistence`,
//     `persistence.enabled`): `enabled: true` without `existingClaim` makes the chart create a
//     claim (`{{- if and .Values.persistence.enabled (not .Values.persistence.existingClaim) }}`);
//   - a `persistence` map of named items (bjw-s app-template and its common library,
//     lib/pod/fields/_volumes.tpl): each item enabled unless `enabled: false`, of type
//     persistentVolumeClaim unless `type` says otherwise, creates its claim unless it names an
//     `existingClaim`; `retain: true` (classes/_pvc.tpl) adds helm.sh/resource-policy: keep.
//     The same library before 2.0 (app-template 1.x, and the k8s-at-home common library it
//     came from) calls the type `pvc` and renders only items that say `enabled: true`
//     (render/_pvcs.tpl: `and $PVC.enabled (eq (default "pvc" $PVC.type) "pvc")`), so a `pvc`
//     item counts only when enabled;
//   - a non-empty `volumeClaimTemplates` list anywhere: a StatefulSet's claims, which are not
//     in the release's manifest, so an uninstall leaves them orphaned (helm/helm#5156).
//
// Chart defaults are not seen: values that say nothing declare nothing, which the caller
// reports as unknown, never as no state.
func Values(values map[string]any) []Value {
	var out []Value
	walkValues(values, "spec.values", &out)
	return out
}

func walkValues(v any, path string, out *[]Value) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := path + "." + k
			switch k {
			case "persistence":
				if m, ok := t[k].(map[string]any); ok {
					persistenceValues(m, p, out)
					continue
				}
			case "volumeClaimTemplates":
				if l, ok := t[k].([]any); ok && len(l) > 0 {
					*out = append(*out, Value{Path: p, Orphaned: true,
						What: fmt.Sprintf("%d volumeClaimTemplates: a StatefulSet's claims are not in the release's manifest, so the uninstall deletes the StatefulSet and leaves its claims orphaned", len(l))})
					continue
				}
			}
			walkValues(t[k], p, out)
		}
	case []any:
		for i, e := range t {
			walkValues(e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// flatPersistenceKeys mark the flat form of a persistence map.
var flatPersistenceKeys = []string{"enabled", "existingClaim", "size", "storageClass", "storageClassName", "accessMode", "accessModes"}

func persistenceValues(m map[string]any, path string, out *[]Value) {
	for _, k := range flatPersistenceKeys {
		if _, ok := m[k]; ok {
			if v, ok := flatPersistence(m, path); ok {
				*out = append(*out, v)
			}
			return
		}
	}
	for _, id := range slices.Sorted(maps.Keys(m)) {
		item, ok := m[id].(map[string]any)
		if !ok {
			continue
		}
		if v, ok := persistenceItem(item, path+"."+id); ok {
			*out = append(*out, v)
		}
	}
}

// flatPersistence reads `persistence: {enabled: true, ...}`; an absent `enabled` is the
// chart's default, which is not seen.
func flatPersistence(m map[string]any, path string) (Value, bool) {
	if on, _ := m["enabled"].(bool); !on {
		return Value{}, false
	}
	if claim, _ := m["existingClaim"].(string); claim != "" {
		return Value{Path: path + ".existingClaim", What: fmt.Sprintf("mounts the existing claim %q, which is not the chart's: the uninstall leaves it (its pods go)", claim)}, true
	}
	if keep(m) {
		return Value{Path: path + ".annotations", key: path, kept: true, What: "enabled: true with helm.sh/resource-policy: keep: the chart's claim is kept if the chart applies these annotations to it"}, true
	}
	return Value{Path: path + ".enabled", key: path, Deleted: true, What: "enabled: true: the chart creates a claim, which the uninstall deletes (a StatefulSet's volumeClaimTemplates claim is left orphaned instead)"}, true
}

// persistenceItem reads one bjw-s app-template persistence item.
func persistenceItem(item map[string]any, path string) (Value, bool) {
	if on, ok := item["enabled"].(bool); ok && !on {
		return Value{}, false
	}
	typ, _ := item["type"].(string)
	switch typ {
	case "", "persistentVolumeClaim":
	case "pvc":
		if on, _ := item["enabled"].(bool); !on {
			return Value{}, false
		}
	default:
		return Value{}, false
	}
	if claim, _ := item["existingClaim"].(string); claim != "" {
		return Value{Path: path + ".existingClaim", What: fmt.Sprintf("mounts the existing claim %q, which is not the chart's: the uninstall leaves it (its pods go)", claim)}, true
	}
	key := path[strings.LastIndex(path, ".")+1:]
	if o, _ := item["nameOverride"].(string); o != "" {
		key = o // app-template names the claim <fullname>-<nameOverride>, or <fullname> for "-"
	}
	if r, _ := item["retain"].(bool); r || keep(item) {
		return Value{Path: path, key: key, kept: true, What: "a persistentVolumeClaim item kept on uninstall (retain: true or helm.sh/resource-policy: keep)"}, true
	}
	return Value{Path: path, key: key, Deleted: true, What: pvcWhat(typ)}, true
}

// pvcWhat says why a persistence item of type typ makes a claim the uninstall deletes.
func pvcWhat(typ string) string {
	if typ == "pvc" {
		return "a pvc item with enabled: true (the common library before 2.0): the chart creates the claim, which the uninstall deletes"
	}
	return "a persistentVolumeClaim item (type defaults to persistentVolumeClaim): the chart creates the claim, which the uninstall deletes"
}

// keep reports whether m's annotations carry helm.sh/resource-policy: keep.
func keep(m map[string]any) bool {
	ann, _ := m["annotations"].(map[string]any)
	v, _ := ann[ResourcePolicyAnnotation].(string)
	return IsKeep(v)
}

// IsKeep is Helm's reading of helm.sh/resource-policy: "keep", trimmed, any case.
func IsKeep(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "keep") }
