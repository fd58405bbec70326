package helmrender

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// builtinClusterScoped reports the built-in kinds ("Kind.group") without a namespace that
// charts commonly create.
func builtinClusterScoped(gk string) bool {
	switch gk {
	case "Namespace",
		"Node",
		"PersistentVolume",
		"ComponentStatus",
		"CustomResourceDefinition.apiextensions.k8s.io",
		"ClusterRole.rbac.authorization.k8s.io",
		"ClusterRoleBinding.rbac.authorization.k8s.io",
		"StorageClass.storage.k8s.io",
		"CSIDriver.storage.k8s.io",
		"CSINode.storage.k8s.io",
		"VolumeAttachment.storage.k8s.io",
		"PriorityClass.scheduling.k8s.io",
		"IngressClass.networking.k8s.io",
		"RuntimeClass.node.k8s.io",
		"APIService.apiregistration.k8s.io",
		"MutatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicy.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"MutatingAdmissionPolicy.admissionregistration.k8s.io",
		"MutatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"FlowSchema.flowcontrol.apiserver.k8s.io",
		"PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
		"VolumeSnapshotClass.snapshot.storage.k8s.io",
		"VolumeSnapshotContent.snapshot.storage.k8s.io",
		"CertificateSigningRequest.certificates.k8s.io",
		"ClusterIssuer.cert-manager.io",
		"GatewayClass.gateway.networking.k8s.io",
		"ClusterPolicy.kyverno.io",
		"ClusterSecretStore.external-secrets.io",
		"ClusterExternalSecret.external-secrets.io":
		return true
	}
	return false
}

// scoper tells namespaced kinds from cluster-scoped ones: the built-in list and extra, the
// kinds of CRDs with scope Cluster.
type scoper struct {
	extra map[string]bool
}

func groupKind(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	if gvk.Group == "" {
		return gvk.Kind
	}
	return gvk.Kind + "." + gvk.Group
}

// place sets ns on a namespaced object that names none; a cluster-scoped one keeps none.
func (s scoper) place(u *unstructured.Unstructured, ns string) *unstructured.Unstructured {
	gk := groupKind(u)
	if builtinClusterScoped(gk) || s.extra[gk] {
		u.SetNamespace("")
		return u
	}
	if u.GetNamespace() == "" && ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

// ClusterScopedKinds lists the "Kind.group" of every CRD among objs whose scope is Cluster.
func ClusterScopedKinds(objs []*unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if groupKind(o) != "CustomResourceDefinition.apiextensions.k8s.io" {
			continue
		}
		if scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope"); scope == "Cluster" {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			out[kind+"."+group] = true
		}
	}
	return out
}

// APIVersions lists "group/version" and "group/version/Kind" of every served version of every
// CRD among objs, for .Capabilities.APIVersions.
func APIVersions(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		if groupKind(o) != "CustomResourceDefinition.apiextensions.k8s.io" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, v := range versions {
			m, _ := v.(map[string]any)
			name, _ := m["name"].(string)
			if served, ok := m["served"].(bool); name == "" || (ok && !served) {
				continue
			}
			out = append(out, group+"/"+name, group+"/"+name+"/"+kind)
		}
	}
	return out
}
