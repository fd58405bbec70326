package finalizers

import (
	"fmt"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// ID is the object as a gap's subject.
func (r ObjectRef) ID() report.ObjectID {
	return report.ObjectID{Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Resource, Namespace: r.Namespace, Name: r.Name}
}

// typeID is the type res, in namespace ns ("" for every namespace or a cluster-scoped type), as
// a gap's subject.
func typeID(res kinds.Resource, ns string) report.ObjectID {
	return report.ObjectID{Group: res.Group, Version: res.Version, Kind: res.Kind, Resource: res.Resource, Namespace: ns}
}

// objectID is the object name of group/version resource in namespace ns as a gap's subject.
func objectID(group, version, resource, ns, name string) report.ObjectID {
	return report.ObjectID{Group: group, Version: version, Resource: resource, Namespace: ns, Name: name}
}

// workloadsID is the workloads (Deployments, StatefulSets, DaemonSets) as a gap's subject.
func workloadsID() report.ObjectID { return objectID("apps", "v1", "", "", "") }

// rbacID is the RBAC roles and bindings as a gap's subject.
func rbacID() report.ObjectID { return objectID("rbac.authorization.k8s.io", "v1", "", "", "") }

// apiServicesGap is the check that every APIService is available, which g says could not be
// made; what says what is unknown because of it.
func apiServicesGap(g kinds.GroupFailure, what string) report.Gap {
	return report.Gap{Op: report.OpCheck, Subject: typeID(apiServiceResource, ""), Reason: cluster.GapReason(g.Err), What: what, Error: g.Error}
}

// getGap is a GET of subject that failed with err; what says what is unknown because of it.
func getGap(subject report.ObjectID, what string, err error) report.Gap {
	return cluster.Gap(report.OpGet, subject, what, err)
}

// listGap is a LIST of subject's type that failed with err.
func listGap(subject report.ObjectID, what string, err error) report.Gap {
	return cluster.Gap(report.OpList, subject, what, err)
}

// boundGap is a read stopped at a bound: what names what was left unread.
func boundGap(op report.GapOp, subject report.ObjectID, what string) report.Gap {
	return report.Gap{Op: op, Subject: subject, Reason: report.GapTooLarge, What: what}
}

// Gap is the failed LIST, in namespace ("" for every namespace), as a gap; what says what is
// unknown because of it.
func (f ReadFailure) Gap(namespace, what string) report.Gap {
	subject := report.TypeID(f.Resource)
	subject.Namespace = namespace
	return report.Gap{Op: report.OpList, Subject: subject, Reason: cluster.GapReason(f.Err), What: what, Error: f.Reason}
}

// failureText is a failed read in prose, "what: reason", for a sentence that is not a gap (a
// pending deletion, a remedy's summary, a type's evidence).
func failureText(what string, err error) string {
	return fmt.Sprintf("%s: %s", what, cluster.Reason(err))
}
