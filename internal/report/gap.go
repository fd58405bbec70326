package report

import "strings"

// Gap is one read, build or check that failed or was not made: what it would have shown is
// unknown, not absent. It is the one shape of an incomplete result in every report — the JSON
// key "incomplete" (and "unchecked" where a gap cannot change a verdict) holds a list of these
// — and it is typed where it arises, so a printer, a SARIF rule or a script reads what failed
// from Op, Subject and Reason, never from the wording. Any gap under "incomplete" makes the
// verdict UNKNOWN (exit 2); the Result decides that. Modelled on the typed entries of fluxcd/pkg
// ssa.ChangeSetEntry and cli-utils' apply events: an object id, an action, a typed outcome.
type Gap struct {
	// Op is what was attempted: listing a type, reading an object, building a tier.
	Op GapOp `json:"op"`
	// Subject is the object or type the attempt was about; empty fields are not known or not
	// relevant (a list has no name).
	Subject ObjectID `json:"subject"`
	// Reason is why it failed, as a code from a closed set (forbidden, not-found, timeout…).
	Reason GapReason `json:"reason"`
	// What is, for people, what is unknown because of it: "listing backups.velero.io in the
	// namespace", "reading owner apps/v1 ReplicaSet x". It may be reworded; match on Op,
	// Subject and Reason.
	What string `json:"what"`
	// Error is the error as the API server, git or the builder said it; "" when What and
	// Reason say it all (a bound reached, a Kustomization not Ready).
	Error string `json:"error,omitempty"`
}

// String is the gap on one line for text printers: "what: error", or "what" alone.
func (g Gap) String() string {
	if g.Error == "" {
		return g.What
	}
	return g.What + ": " + g.Error
}

// GapOp is what a gap's attempt was. The set is closed: a value may be added within an
// apiVersion (docs/report.md), never renamed.
type GapOp string

const (
	// OpList is listing objects of a type (in a namespace, by a selector, or everywhere).
	OpList GapOp = "list"
	// OpGet is reading one object.
	OpGet GapOp = "get"
	// OpDiscover is API discovery of a group version.
	OpDiscover GapOp = "discover"
	// OpCheck is a check made from several reads that could not be made (every APIService
	// available, an admission webhook's backend, a controller's liveness).
	OpCheck GapOp = "check"
	// OpBuild is building a Kustomization's tier (kustomize build) at a revision.
	OpBuild GapOp = "build"
	// OpRender is rendering a HelmRelease's chart.
	OpRender GapOp = "render"
	// OpDecode is decoding an object, an inventory id or a manifest read or built.
	OpDecode GapOp = "decode"
	// OpReadStorage is reading a Helm release's storage (its Secret or ConfigMap).
	OpReadStorage GapOp = "read-storage"
	// OpEvaluate is evaluating an expression (a dependsOn readyExpr).
	OpEvaluate GapOp = "evaluate"
	// OpJudge is judging a change whose effect cannot be read from what was built (an
	// uninstall whose release moved, an upgrade not rendered).
	OpJudge GapOp = "judge"
	// OpExplain is explaining why an object is Terminating (why-terminating's explanation,
	// made for an object a chain names): it could not be made, or some of its reads failed.
	OpExplain GapOp = "explain"
)

// GapOps lists every GapOp, in the order docs/report.md lists them.
func GapOps() []GapOp {
	return []GapOp{OpList, OpGet, OpDiscover, OpCheck, OpBuild, OpRender, OpDecode, OpReadStorage, OpEvaluate, OpJudge, OpExplain}
}

// GapReason is why a gap's attempt failed, from a closed set; a SARIF rule and a script match
// on it. A value may be added within an apiVersion, never renamed.
type GapReason string

const (
	// GapForbidden: the API server refused the request for the caller's RBAC.
	GapForbidden GapReason = "forbidden"
	// GapUnauthorized: the API server did not accept the credentials.
	GapUnauthorized GapReason = "unauthorized"
	// GapNotFound: the object or type was not found where it had to be.
	GapNotFound GapReason = "not-found"
	// GapTimeout: the request timed out (see --request-timeout).
	GapTimeout GapReason = "timeout"
	// GapUnreachable: the API server (or a remote source) could not be reached.
	GapUnreachable GapReason = "unreachable"
	// GapDecodeError: what was read or built does not decode (an object, an inventory id).
	GapDecodeError GapReason = "decode-error"
	// GapTooLarge: a bound was reached and the rest was not read (more objects, pages or
	// types than are looked at).
	GapTooLarge GapReason = "too-large"
	// GapUnsupported: the object is of a shape that cannot be judged (a storage driver, a CRD
	// with no served version, a change not judged object by object).
	GapUnsupported GapReason = "unsupported"
	// GapNotReady: what would be read is still changing (a Kustomization not Ready at its
	// source's revision), so a read now would not hold.
	GapNotReady GapReason = "not-ready"
	// GapNotRead: the read was not made, because the LIST that would hold the object failed
	// or the object is outside the scope read; Error says which.
	GapNotRead GapReason = "not-read"
	// GapBuildFailed: a build or render failed (a remote resource offline, a broken chart).
	GapBuildFailed GapReason = "build-failed"
	// GapFailed: any other error; Error says what.
	GapFailed GapReason = "failed"
)

// GapReasons lists every GapReason, in the order docs/report.md lists them.
func GapReasons() []GapReason {
	return []GapReason{GapForbidden, GapUnauthorized, GapNotFound, GapTimeout, GapUnreachable, GapDecodeError,
		GapTooLarge, GapUnsupported, GapNotReady, GapNotRead, GapBuildFailed, GapFailed}
}

// ObjectID names an object or a type as a gap's subject, by API group, version, kind or
// resource, namespace and name; fields that are not known are empty.
type ObjectID struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// TypeID names the resource "resource.group" (resource alone for the core group), as a
// qualified resource is written (kubectl's GroupResource.String): "backups.velero.io".
func TypeID(qualified string) ObjectID {
	resource, group, _ := strings.Cut(qualified, ".")
	return ObjectID{Group: group, Resource: resource}
}

// QualifiedType is the subject's type fully qualified: "backups.velero.io" by resource,
// "Backup.velero.io" by kind when the resource is not known, the group alone ("apps": its
// types) when neither is.
func (o ObjectID) QualifiedType() string {
	t := o.Resource
	if t == "" {
		t = o.Kind
	}
	if t == "" {
		return o.Group
	}
	if o.Group == "" {
		return t
	}
	return t + "." + o.Group
}

// String is the subject fully qualified: "backups.velero.io velero/nightly",
// "namespaces/prod", "persistentvolumeclaims" for a type.
func (o ObjectID) String() string {
	t := o.QualifiedType()
	switch {
	case o.Name == "" && o.Namespace == "":
		return t
	case o.Name == "":
		return t + " -n " + o.Namespace
	case o.Namespace == "":
		return t + "/" + o.Name
	}
	return t + " " + o.Namespace + "/" + o.Name
}

// Named is the object name of the subject's type, in the subject's namespace.
func (o ObjectID) Named(name string) ObjectID {
	o.Name = name
	return o
}

// GapLines is each gap's String, in order, for text: a printer's line or an error's message.
// A report never holds them: its gaps stay typed (incomplete[], unchecked[]).
func GapLines(gaps []Gap) []string {
	var out []string
	for _, g := range gaps {
		out = append(out, g.String())
	}
	return out
}
