package helmjudge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// StorageRequest says, for a custom resource whose spec asks its operator for persistent
// storage, where it asks ("spec.storage.size: 5Gi"); "" for any other object. Database and
// broker operators take their volumes from their custom resource, not from a claim in the
// repository: a MariaDB or CloudNativePG cluster's `spec.storage.size`, an EMQX's
// `coreTemplate.spec.volumeClaimTemplates`, a Prometheus's `storage.volumeClaimTemplate`, a
// Dragonfly's `snapshot.persistentVolumeClaimSpec`. Deleting such a resource lets its operator
// delete what it made from it, and whether the claims go too is the operator's choice, which
// the repository does not say: the resource holds state as a claim does.
//
// Only custom resources are read (a built-in kind's claims are judged by their own rules), and
// not Flux's or the Flux Operator's objects, whose specs carry other objects' templates and Helm
// values, nor a kind that calls itself a template (`…Template`: Tekton's TriggerTemplate, Argo's
// WorkflowTemplate, Cluster API's machine templates): it describes objects made from it later,
// as a pod template does, and holds none of their storage; deleting it deletes none of them
// (tyriis/home-ops 4f994fbaa: a TriggerTemplate's PipelineRun workspace claim template). Under the spec, Helm values and pod volumes (notRequests) are not the resource's own
// request and are not read either, nor is a claim named by `claimName`.
func StorageRequest(o *unstructured.Unstructured) string {
	if o == nil || !CustomGroup(o.GroupVersionKind().Group) || strings.HasSuffix(o.GetKind(), "Template") {
		return ""
	}
	spec, ok := o.Object["spec"].(map[string]any)
	if !ok {
		return ""
	}
	return findStorage(spec, "spec", 0)
}

// maxStorageDepth bounds the walk of a spec: the requests above are a few levels down.
const maxStorageDepth = 8

// CustomGroup is an API group whose kinds come from a CRD and may ask an operator for storage.
func CustomGroup(g string) bool {
	switch {
	case g == "" || !strings.Contains(g, "."):
		return false // the core group and apps, batch, policy, autoscaling …
	case strings.HasSuffix(g, ".k8s.io") && !strings.HasSuffix(g, ".x-k8s.io"):
		return false // Kubernetes' own groups (a CRD's group ends in x-k8s.io)
	case strings.HasSuffix(g, ".toolkit.fluxcd.io"), g == "fluxcd.controlplane.io":
		return false // Flux objects: their specs hold templates and Helm values
	}
	return true
}

// notRequests are keys whose subtree is not the resource's own request: Helm values for a
// chart, and a pod's volumes, which name claims made elsewhere (`persistentVolumeClaim:
// {claimName: …}`, as grafana-operator's `deployment.spec.template.spec.volumes` on
// devantler-tech/platform) or ephemeral ones deleted with the pod.
var notRequests = map[string]bool{"values": true, "valuesObject": true, "volumes": true}

// findStorage walks m for a storage request and returns where it is, "" when there is none.
func findStorage(m map[string]any, path string, depth int) string {
	if depth > maxStorageDepth {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := path + "." + k
		switch v := m[k].(type) {
		case map[string]any:
			if notRequests[k] {
				continue
			}
			if d := requestIn(k, v, p); d != "" {
				return d
			}
			if d := findStorage(v, p, depth+1); d != "" {
				return d
			}
		case []any:
			if notRequests[k] {
				continue
			}
			if k == "volumeClaimTemplates" && len(v) > 0 {
				return fmt.Sprintf("%s (%d claim template(s))", p, len(v))
			}
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					if d := findStorage(em, fmt.Sprintf("%s[%d]", p, i), depth+1); d != "" {
						return d
					}
				}
			}
		}
	}
	return ""
}

// requestIn says whether key k with map value v is itself a storage request.
func requestIn(k string, v map[string]any, p string) string {
	switch k {
	case "volumeClaimTemplate", "volumeClaimTemplates", "persistentVolumeClaimSpec", "persistentVolumeClaim":
		if _, ref := v["claimName"]; len(v) > 0 && !ref {
			return p
		}
	case "storage":
		if s, ok := v["size"]; ok && s != nil && fmt.Sprint(s) != "" {
			return fmt.Sprintf("%s.size: %v", p, s)
		}
	}
	return ""
}
