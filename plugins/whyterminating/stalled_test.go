package whyterminating_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// runAfter runs the command as run does, as of later than now: the object's deletion, made
// seconds ago, is judged as a report hours later would show it, with nothing done in between.
func runAfter(t *testing.T, later time.Duration, args ...string) (string, int) {
	t.Helper()
	args = append([]string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}, args...)
	var out, errOut bytes.Buffer
	o := whyterminating.NewWhyTerminatingOptions(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	o.Clock = func() time.Time { return time.Now().Add(later) }
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cli.Run(ctx, whyterminating.NewCmdWhyTerminatingFromOptions(o), args, &errOut)
	return out.String(), code
}

// An OpenTelemetryCollector keeps opentelemetrycollector.opentelemetry.io/finalizer, which the
// operator's older version added and the running, upgraded one no longer removes
// (https://github.com/open-telemetry/opentelemetry-operator/issues/4769, "Legacy Finalizer
// Blocks Namespace Deletion After Operator Upgrade"; the same class as
// https://github.com/rancher/elemental-operator/issues/391). The operator runs, Ready, may update
// the object and is tied to its domain; nothing refers to the object, nothing pauses it, and no
// event, write or condition change shows since the deletion. Hours later that is a stalled
// remover: its logs about the object first, then that one finalizer by hand, with its cost;
// seconds after the deletion it is not (yet): no strip behind a controller that may still act.
func TestRunningRemoverWithoutProgressIsStalled(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "opentelemetry-operator-system")
	ensureNamespace(t, "observability")
	gvr := applyCRD(t, crdSpec{group: "opentelemetry.io", kind: "OpenTelemetryCollector", plural: "opentelemetrycollectors", namespaced: true, versions: []string{"v1beta1"}})
	grantClusterRole(t, "opentelemetry-operator-manager", []rbacv1.PolicyRule{
		{APIGroups: []string{"opentelemetry.io"}, Resources: []string{"opentelemetrycollectors", "opentelemetrycollectors/finalizers", "opentelemetrycollectors/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "services", "serviceaccounts"}, Verbs: []string{"*"}},
	}, "opentelemetry-operator-system", "opentelemetry-operator-controller-manager", "")
	createWorkload(t, workloadSpec{ns: "opentelemetry-operator-system", name: "opentelemetry-operator-controller-manager", sa: "opentelemetry-operator-controller-manager", replicas: 1, ready: true})
	fin := "opentelemetrycollector.opentelemetry.io/finalizer"
	createStuck(t, gvr, "OpenTelemetryCollector", "observability", "otel", fin, nil, map[string]any{"mode": "deployment"})
	self := "opentelemetrycollectors.opentelemetry.io/otel -n observability"
	remover := "deployments.apps/opentelemetry-operator-controller-manager -n opentelemetry-operator-system"

	out, code := runAfter(t, 2*time.Hour, "opentelemetrycollectors.opentelemetry.io", "otel", "-n", "observability")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"stalled: " + remover + " runs but has made no progress on the object for 2h",
		"evidence: no work on the object since its deletion was requested 2h ago: no event, no write by any field manager, no condition change",
		// Said only over a search that read every type that could refer to it, with what it read.
		"evidence: no object refers to it: read ",
		"evidence: no pause marker is on it or its owners",
		"likely: its controller does not handle this finalizer any more",
		remover + " has run Ready for 2h without acting on " + self,
		"--context=" + env.Context + " -n opentelemetry-operator-system logs deployments.apps/opentelemetry-operator-controller-manager --all-containers --tail=2000 | grep -F -- otel",
		"remove finalizer " + fin + " by hand: its remover has run for 2h without acting on the object",
		`patch opentelemetrycollectors.opentelemetry.io otel --type=json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"` + fin + `"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
		"cost: left behind:",
	}, []string{"Reinstall", "orphaned"})
	js, _ := runAfter(t, 2*time.Hour, "opentelemetrycollectors.opentelemetry.io", "otel", "-n", "observability", "-o", "json")
	wantAll(t, js, []string{`"code": "remover-stalled"`, `"stalled": {`, `"likelyReasons": [`, `"code": "strip-finalizer"`}, nil)

	now, _, code := run(t, "opentelemetrycollectors.opentelemetry.io", "otel", "-n", "observability")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, now)
	}
	wantAll(t, now, []string{"read its logs"}, []string{"stalled:", "by hand"})
}
