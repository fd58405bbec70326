package cluster

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"
)

// InvalidName says why the API server would refuse an object of kind (Kind or Kind.group) named
// name in namespace ("" for none), or returns "" when it would accept it. Names that reach a
// plugin from a repository are not checked by anything else: one the server refuses names no
// object that can exist, and must not end up in a printed command. The rules are the server's:
// a namespace is a DNS-1123 label, a Namespace too, a Service a DNS-1035 label, RBAC objects
// only a path segment (their names hold ':'), every other object a DNS-1123 subdomain.
func InvalidName(kind, namespace, name string) string {
	if namespace != "" {
		if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
			return fmt.Sprintf("namespace %q is not a valid namespace name: %s", namespace, strings.Join(errs, "; "))
		}
	}
	if name == "" {
		return fmt.Sprintf("a %s without a name", kind)
	}
	if errs := nameRule(kind)(name); len(errs) > 0 {
		return fmt.Sprintf("%q is not a valid %s name: %s", name, kind, strings.Join(errs, "; "))
	}
	return ""
}

// nameRule is the apiserver's name validation for kind.
func nameRule(kind string) func(string) []string {
	switch kind {
	case "Namespace":
		return validation.IsDNS1123Label
	case "Service":
		return validation.IsDNS1035Label
	case "Role.rbac.authorization.k8s.io", "ClusterRole.rbac.authorization.k8s.io",
		"RoleBinding.rbac.authorization.k8s.io", "ClusterRoleBinding.rbac.authorization.k8s.io":
		return func(name string) []string { return path.IsValidPathSegmentName(name) }
	}
	return validation.IsDNS1123Subdomain
}
