package flux

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
)

// decodeError is an object read that does not decode into Flux's own type.
type decodeError struct {
	gvr             schema.GroupVersionResource
	namespace, name string
	err             error
}

func (e *decodeError) Error() string {
	return fmt.Sprintf("decoding %s %s/%s: %v", e.gvr.GroupResource(), e.namespace, e.name, e.err)
}

func (e *decodeError) Unwrap() error { return e.err }

// gvrID is the gap subject of an object (or, without a name, a type) of gvr.
func gvrID(gvr schema.GroupVersionResource, namespace, name string) report.ObjectID {
	return report.ObjectID{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: namespace, Name: name}
}

// addGap records that op on subject failed with err (what says what is unknown because of
// it): a read the server refused or an object that did not decode.
func (objs *Objects) addGap(op report.GapOp, subject report.ObjectID, what string, err error) {
	g := report.Gap{Op: op, Subject: subject, Reason: cluster.GapReason(err), What: what, Error: err.Error()}
	var de *decodeError
	if errors.As(err, &de) {
		g.Op, g.Reason = report.OpDecode, report.GapDecodeError
	}
	objs.Gaps = append(objs.Gaps, g)
	objs.Incomplete = true
}

// addDecodeGap records an object of a LIST that did not decode.
func (objs *Objects) addDecodeGap(err error) {
	var de *decodeError
	if !errors.As(err, &de) {
		objs.addGap(report.OpDecode, report.ObjectID{}, "decoding", err)
		return
	}
	objs.Gaps = append(objs.Gaps, report.Gap{Op: report.OpDecode, Subject: gvrID(de.gvr, de.namespace, de.name), Reason: report.GapDecodeError,
		What: fmt.Sprintf("decoding %s %s/%s", de.gvr.GroupResource(), de.namespace, de.name), Error: de.err.Error()})
	objs.Incomplete = true
}

// addUnlisted records a LIST that failed on which only a cause that rests on it depends
// (Objects.Unlisted): what was listed, the error, and after it what was done instead ("" for
// nothing).
func (objs *Objects) addUnlisted(gvr schema.GroupVersionResource, what string, err error, instead string) {
	objs.Unlisted = append(objs.Unlisted, report.Gap{Op: report.OpList, Subject: gvrID(gvr, "", ""), Reason: cluster.GapReason(err),
		What: what, Error: err.Error() + instead})
}
