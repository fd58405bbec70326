package terminating

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// apiServicesID is the subject of the check that every APIService is available.
func apiServicesID() report.ObjectID {
	return report.ObjectID{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
}

// discoveryReason classifies a failed discovery: by its error when discovery returned one; an
// APIService that is not Available, which returns none, failed to answer.
func discoveryReason(f kinds.GroupFailure) report.GapReason {
	if f.Err == nil {
		return report.GapUnreachable
	}
	return cluster.GapReason(f.Err)
}

// gvrID is the gap subject of the type gvr.
func gvrID(gvr schema.GroupVersionResource) report.ObjectID {
	return report.ObjectID{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource}
}
