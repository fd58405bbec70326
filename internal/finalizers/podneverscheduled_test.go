package finalizers

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A deleted pod that never had a node is never started nor finished by any kubelet: its running
// remover waits for ever, and nothing of it exists on a node (gitpod#7836). The strip comes first;
// a pod with a node, or one that finished, is left to the other rules.
func TestApplyPodNeverScheduled(t *testing.T) {
	for _, tc := range []struct {
		name, node, phase string
		want              bool
	}{
		{"never scheduled", "", "Pending", true},
		{"scheduled", "node-1", "Pending", false},
		{"finished", "", "Failed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(nil)
			pod := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}, "status": map[string]any{"phase": tc.phase}}}
			if tc.node != "" {
				pod.Object["spec"].(map[string]any)["nodeName"] = tc.node
			}
			pod.SetName("ws-1")
			pod.SetNamespace("default")
			pod.SetFinalizers([]string{"example.dev/finalizer"})
			o := subject{res: kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, obj: pod}
			strip := x.stripStep(o, "example.dev/finalizer", known{lost: "nothing"})
			logs := Remediation{Code: ReasonReadControllerLogs}
			e := &Explanation{Finalizers: []Finalizer{{Name: "example.dev/finalizer", Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "default", Name: "manager"}, Found: true, Healthy: true}},
				Remedies: []Remediation{logs}, bypass: &strip}}}
			x.applyPodNeverScheduled(context.Background(), o, e, ownWord{obj: pod, events: []Event{{Type: "Warning", Reason: "FailedScheduling", Source: "default-scheduler", Message: "0/1 nodes are available"}}})
			f := e.Finalizers[0]
			got := f.Orphaned && f.Remedies[0].Code == ReasonStripFinalizer && !f.Remedies[0].LastResort && strings.Contains(f.Remedies[0].Summary, "default-scheduler reports FailedScheduling")
			if got != tc.want || (!tc.want && f.Remedies[0].Code != ReasonReadControllerLogs) {
				t.Fatalf("steps %+v orphaned %v, want the strip first: %v", f.Remedies, f.Orphaned, tc.want)
			}
		})
	}
}

func TestEventByOther(t *testing.T) {
	remover := ObjectRef{Group: "apps", Resource: "deployments", Namespace: "sys", Name: "ws-manager"}
	ws := []workload{{ref: remover, processes: []string{"manager"}}, {ref: ObjectRef{Group: "apps", Resource: "daemonsets", Namespace: "sys", Name: "ws-daemon"}}}
	for _, tc := range []struct {
		source string
		other  bool
	}{
		{"default-scheduler", true},
		{"kubelet", true},
		{"ws-daemon", true},
		{"ws-manager", false},
		{"manager", false},
		{"unknown-component", false},
		{"", false},
	} {
		t.Run(tc.source, func(t *testing.T) {
			if got := eventByOther(tc.source, remover, ws) != ""; got != tc.other {
				t.Fatalf("eventByOther(%q) other = %v, want %v", tc.source, got, tc.other)
			}
		})
	}
}
