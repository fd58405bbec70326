package finalizers

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/report"
)

// unreachableBackend is the step for a webhook or APIService whose Service has ready endpoints,
// behind workloads that report Ready, while the API server still fails to use it: nothing is
// down, so bringing anything back is no fix. What fails is between the API server and those
// pods (a firewall or network policy in between, the port the Service targets) or what they
// answer (TLS, the server's own errors), as the blocker's own condition says. A Service that has
// no ready endpoint gets the readiness step instead; one whose endpoints could not be read, both,
// with the failed read.
func (x *Explainer) unreachableBackend(ctx context.Context, b Blocker, svc serviceRef) Remediation {
	down, gap := x.serviceDown(ctx, svc.namespace, svc.name)
	switch {
	case gap != (report.Gap{}):
		return Remediation{Summary: fmt.Sprintf("The workloads behind %s report ready replicas; whether it has a ready endpoint could not be read (%s): check their pods' readiness and the Service's ports, then the path from the control plane to them.", svc.String(), gap.String())}
	case down != "":
		return Remediation{Summary: fmt.Sprintf("The workloads behind %s report ready replicas, yet it has no ready endpoint: check their pods' readiness and the Service's ports.", svc.String())}
	}
	why := "the API server's requests to it fail"
	if len(b.Details) > 0 {
		why = fmt.Sprintf("the API server's requests to it fail (%s)", strings.Join(b.Details, "; "))
	}
	return Remediation{Summary: fmt.Sprintf("%s has ready endpoints and the workloads behind it are Ready, yet %s: nothing is down, so the fix is the path from the control plane to those pods (a firewall rule or network policy between them, the port the Service targets) or what the pods answer there (their TLS, their logs). %s answers again once the API server reaches them.",
		svc.String(), why, b.Object.String())}
}
