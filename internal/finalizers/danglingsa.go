package finalizers

import (
	"context"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
)

// serviceAccountResource is the core ServiceAccount, which `serviceAccountName` fields name.
var serviceAccountResource = kinds.Resource{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true}

// runsAsFields are the spec fields by which a custom resource names the ServiceAccount its
// controller runs the object's work as (a runner pod, a job): the pod spec's own field name.
var runsAsFields = map[string]bool{"serviceaccountname": true, "serviceaccount": true}

// runAsReferences returns the ServiceAccounts a custom resource's spec says its work runs as,
// in the object's namespace: a pod that runs as a ServiceAccount that does not exist is refused
// by the API server, so a cleanup that runs as one never starts. Only custom resources ask a
// controller to run something (a Pod's own serviceAccountName is not needed to delete it), and
// not in a namespace being deleted, where the namespace controller removes the
// ServiceAccounts first and refuses every new pod anyway (stallContext says so).
func (x *Explainer) runAsReferences(ctx context.Context, o subject, spec map[string]any) []outRef {
	ns := o.obj.GetNamespace()
	if o.res.Group == "" || ns == "" || spec == nil {
		return nil
	}
	if since, read := x.namespaceGoing(ctx, ns, nil); since != nil || !read {
		return nil
	}
	var out []outRef
	walkSpecFields(spec, func(key, path string, v any, listed bool) bool {
		s, ok := v.(string)
		if listed || !ok || !runsAsFields[strings.ToLower(key)] || !validName(s) {
			return false
		}
		out = append(out, outRef{path: path, res: serviceAccountResource, ns: ns, name: s})
		return true
	})
	sortByPath(out)
	return out
}
