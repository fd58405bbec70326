package finalizers

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer strip of a custom resource whose definition's conversion webhook calls a Service
// that is gone fails when an object may be stored at another version than the one the patch
// writes: the conversion fix is put before it and the step names what refuses it. At the only
// stored version the patch needs no conversion and is left alone.
func TestConversionGuard(t *testing.T) {
	res := kinds.Resource{Group: "example.org", Version: "v2", Resource: "anchors", Kind: "Anchor", Namespaced: true}
	// The strip as the tool prints it: pinned to the test cluster's context, in the namespace.
	strip := func(x *Explainer) Remediation {
		cmd := x.kubectl("team-a", "patch", res.QualifiedName(), "a1", "--type=json", "-p", stripPatch([]string{"example.org/anchor"}, "example.org/anchor"))
		return Remediation{Code: ReasonStripFinalizer, Command: cmd, request: updateRequest(res, "team-a", nil)}
	}
	for _, tc := range []struct {
		name   string
		stored []string
		want   []string
	}{
		{"stored at another version too", []string{"v1", "v2"}, []string{string(ReasonDisableConversion), string(ReasonStripFinalizer)}},
		{"stored at the written version only", []string{"v2"}, []string{string(ReasonStripFinalizer)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := convertedCRD()
			crd.Status.StoredVersions = tc.stored
			x := fakeExplainer(nil, crd)
			steps, gaps := x.guard(context.Background(), []Remediation{strip(x)})
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			var codes []string
			for _, s := range steps {
				codes = append(codes, string(s.Code))
			}
			if strings.Join(codes, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("steps %v, want %v", codes, tc.want)
			}
			last := steps[len(steps)-1]
			if want := strip(x).Command; last.Command != want || !strings.Contains(want, "--context") {
				t.Errorf("strip command %q, want it kept as %q", last.Command, want)
			}
			if rejected := strings.Join(last.RejectedBy, " "); (len(tc.want) > 1) != strings.Contains(rejected, "customresourcedefinitions.apiextensions.k8s.io/anchors.example.org") {
				t.Errorf("rejectedBy %q", rejected)
			}
		})
	}
}
