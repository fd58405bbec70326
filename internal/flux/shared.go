package flux

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sharedCause is the object a Failing node fails on when other tiers may fail on it too: its
// source when kustomize-controller reports no artifact from it (reason ArtifactFailed), or a
// Secret or ServiceAccount its message says is not found. It returns the cause's key, the
// object fully qualified, and the reason and message the cause shows; "" when there is none.
func sharedCause(n *Node) (key, object, reason, message string) {
	if n.Ready == nil {
		return "", "", "", ""
	}
	src := n.Source
	if n.Ready.Reason == meta.ArtifactFailedReason && src.Kind != "" && !src.Unread &&
		(!src.Found || (src.Ready != nil && src.Ready.Status != string(metav1.ConditionTrue))) {
		key = src.Kind + "/" + src.Namespace + "/" + src.Name
		object = objectRef(sourceResource(src.Kind), src.Namespace, src.Name)
		if !src.Found {
			return key, object, ReasonNotFound, fmt.Sprintf("%s %s/%s does not exist", src.Kind, src.Namespace, src.Name)
		}
		return key, object, src.Ready.Reason, src.Ready.Message
	}
	if n.Ready.Reason == meta.HealthCheckFailedReason {
		return "", "", "", "" // the objects a health check names are the drill-down's
	}
	if m := notFoundRe.FindStringSubmatch(n.Ready.Message); m != nil {
		kind := map[string]string{"secrets": "Secret", "serviceaccounts": "ServiceAccount"}[m[1]]
		ns := n.Namespace
		if q := qualifiedRe.FindStringSubmatch(n.Ready.Message); q != nil && q[2] == m[2] {
			ns = q[1]
		}
		return kind + "/" + ns + "/" + m[2], objectRef(m[1], ns, m[2]), ReasonNotFound,
			fmt.Sprintf("kustomize-controller did not find %s %s/%s: %s", kind, ns, m[2], n.Ready.Message)
	}
	return "", "", "", ""
}

// notFoundRe finds the API server's NotFound error for a Secret or ServiceAccount in a
// Kustomization's message (a decryption Secret, a substituteFrom Secret, an impersonated
// ServiceAccount, a kubeConfig Secret). They live in the Kustomization's namespace, unless
// the message names another (qualifiedRe: the controller's own SOPS age Secret, `Secret
// 'flux-system/sops-age'`).
var (
	notFoundRe  = regexp.MustCompile(`\b(secrets|serviceaccounts) "([^"]+)" not found`)
	qualifiedRe = regexp.MustCompile(`(?:Secret|ServiceAccount) '([^'/]+)/([^']+)'`)
)

// sourceResource is the qualified resource of a source kind.
func sourceResource(kind string) string {
	if gvr, ok := graphResources[kind]; ok {
		return gvr.GroupResource().String()
	}
	return strings.ToLower(kind)
}

// objectRef renders an object fully qualified, the way kubectl accepts it back.
func objectRef(resource, namespace, name string) string {
	return resource + "/" + name + " -n " + namespace
}
