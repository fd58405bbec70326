package whyterminating_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/incident/incidenttest"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// env is the control plane shared by the integration tests of this package, seeded once with
// the incident; nil under -short.
var (
	env  *testenv.Env
	seed *incident.Incident
	kc   *incident.Clients
)

func TestMain(m *testing.M) {
	os.Exit(incidenttest.Run(m, func(r *incident.Replay) { env, kc, seed = r.Env, r.Clients, r.Incident }))
}

func needEnv(t *testing.T) {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control plane (not under -short)")
	}
}

// run drives the command as kubectl would, pinned to the test cluster, and returns its
// stdout, stderr and exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if env != nil {
		args = append([]string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}, args...)
	}
	return runRaw(t, args...)
}

// runRaw runs the command with exactly args.
func runRaw(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cli.Run(ctx, whyterminating.NewCmdWhyTerminating(streams), args, &errOut)
	return out.String(), errOut.String(), code
}
