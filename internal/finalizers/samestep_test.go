package finalizers

import (
	"reflect"
	"testing"
)

// The db-operator report (https://github.com/db-operator/db-operator/issues/68) printed two
// restore-controller steps for the one webhook Deployment: once as the blocking webhook's
// backend, once as a candidate remover that is not ready.
func TestWithoutRepeats(t *testing.T) {
	webhook := Remediation{Code: ReasonRestoreController, Command: "kubectl --context=c -n x describe deployments.apps hook", Summary: "Bring it back: the webhook answers again"}
	again := Remediation{Code: ReasonRestoreController, Command: webhook.Command, Summary: "Bring it back to ready replicas"}
	logs := Remediation{Code: ReasonReadControllerLogs, Command: webhook.Command}
	prose1 := Remediation{Summary: "clear each dependent"}
	prose2 := Remediation{Summary: "clear each dependent"}
	got := withoutRepeats([]Remediation{webhook, prose1, again, logs, prose2})
	want := []Remediation{webhook, prose1, logs, prose2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
