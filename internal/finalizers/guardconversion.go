package finalizers

import (
	"context"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// conversionGuard checks a step that updates a custom resource (a finalizer strip) against its
// definition's conversion webhook (conversionRejects): when the API server would have to
// convert the object for the update and cannot, the webhook's definition is named on the step
// (RejectedBy) and the fix of its conversion is put before it, once. Reads that failed are
// returned.
func (x *Explainer) conversionGuard(ctx context.Context, r *Remediation, out []Remediation) ([]Remediation, []report.Gap) {
	b, gaps := x.conversionRejects(ctx, *r.request)
	if b == nil {
		return out, gaps
	}
	r.RejectedBy = append(r.RejectedBy, b.Object.String()+" (conversion webhook: "+b.Reason+")")
	fixes := x.backendRemedies(ctx, *b, x.conversionRemedy(*b))
	last := fixes[len(fixes)-1].Command
	if !slices.ContainsFunc(out, func(o Remediation) bool { return o.Command == last }) {
		out = append(out, fixes...)
	}
	return out, gaps
}

// conversionRejects returns the definition of req's custom resource when the API server would
// fail the UPDATE: its conversion webhook's Service is gone or has no ready endpoint, and its
// status.storedVersions names a version other than the one the command writes, so an object
// may be stored at a version it must be converted from. nil for a built-in type, an update at
// the only stored version, or a webhook that answers.
func (x *Explainer) conversionRejects(ctx context.Context, req apiRequest) (*Blocker, []report.Gap) {
	if req.op != admissionv1.Update || req.res.Group == "" || req.res.Version == "" || req.res.Resource == "" {
		return nil, nil
	}
	name := req.res.Resource + "." + req.res.Group
	crd, err := x.crdNamed(ctx, name)
	if err != nil {
		return nil, []report.Gap{getGap(typeID(crdsResource, "").Named(name), "reading customresourcedefinitions.apiextensions.k8s.io/"+name+" for its conversion webhook", err)}
	}
	if crd == nil {
		return nil, nil
	}
	svc := conversionService(crd)
	if svc == nil || !slices.ContainsFunc(crd.Status.StoredVersions, func(v string) bool { return v != req.res.Version }) {
		return nil, nil
	}
	down, gap := x.serviceDown(ctx, svc.namespace, svc.name)
	var gaps []report.Gap
	if gap != (report.Gap{}) {
		gaps = append(gaps, gap)
	}
	if down == "" {
		return nil, gaps
	}
	return &Blocker{
		Object:  ObjectRef{Group: crdsResource.Group, Version: crdsResource.Version, Resource: crdsResource.Resource, Kind: crdsResource.Kind, Name: name},
		Code:    ReasonConversionWebhookDown,
		Reason:  fmt.Sprintf("%s; objects may be stored at %v, and one stored at another version than %s cannot be converted for the update", down, crd.Status.StoredVersions, req.res.Version),
		service: svc,
	}, gaps
}
