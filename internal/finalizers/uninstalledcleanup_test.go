package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

func TestReinstallForRecordedCleanup(t *testing.T) {
	steps := func() []Remediation {
		return []Remediation{
			{Code: ReasonStripFinalizer, Summary: "Remove finalizer x.example.com/cleanup by hand: nothing of the product's install is left."},
			{Code: ReasonReinstallController, Summary: "Only if the product is meant to run here: reinstall it."},
		}
	}
	for _, c := range []struct {
		name        string
		obj         map[string]any
		uninstalled bool
		first       report.Reason
	}{
		{"the status records an instance the controller made", map[string]any{
			"spec":   map[string]any{"size": "large"},
			"status": map[string]any{"providerID": "aws:///eu-central-1c/i-0bbed26474395ec00"},
		}, true, ReasonReinstallController},
		{"only the spec names where it writes", map[string]any{
			"spec": map[string]any{"backend": map[string]any{"s3": map[string]any{"bucket": "stash-backup-demo", "endpoint": "s3.amazonaws.com"}}},
		}, true, ReasonStripFinalizer},
		{"not an uninstalled product's order", map[string]any{
			"status": map[string]any{"providerID": "aws:///eu-central-1c/i-0bbed26474395ec00"},
		}, false, ReasonStripFinalizer},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Explanation{Finalizers: []Finalizer{{Name: "x.example.com/cleanup", Remedies: steps(), uninstalled: c.uninstalled}}}
			obj := &unstructured.Unstructured{Object: c.obj}
			reinstallForRecordedCleanup(e, obj)
			got := e.Finalizers[0].Remedies
			if got[0].Code != c.first {
				t.Fatalf("first step %s, want %s: %+v", got[0].Code, c.first, got)
			}
			if c.first == ReasonReinstallController {
				if !strings.Contains(got[0].Summary, "i-0bbed26474395ec00") || !got[1].LastResort || !strings.HasPrefix(got[1].Summary, "If the product is not to be installed again") {
					t.Errorf("steps %+v: want the reinstall naming the instance, the strip after it as a last resort", got)
				}
			}
		})
	}
}
