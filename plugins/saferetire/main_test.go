package saferetire_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/incident/incidenttest"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// env is the control plane shared by the integration tests, with the Flux CRDs and the
// incident seeded once in flux-system; nil under -short.
var (
	env  *testenv.Env
	seed *incident.Incident
	kc   *incident.Clients
)

func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code) // this test binary started again as a render worker
	}
	os.Exit(incidenttest.Run(m, func(r *incident.Replay) { env, kc, seed = r.Env, r.Clients, r.Incident }))
}

func needEnv(t *testing.T) {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control plane (not under -short)")
	}
}

// invocation is one run of the command; with terminal, stdin stands for a terminal a person
// answers the prompts on (otherwise it is a pipe, as in CI).
type invocation struct {
	stdin    string
	env      map[string]string
	terminal bool
}

// run drives the command pinned to the test cluster.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return invocation{}.live(t, args...)
}

func (iv invocation) live(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if env != nil {
		args = append([]string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}, args...)
	}
	return iv.raw(t, args...)
}

// raw runs the command with exactly args.
func (iv invocation) raw(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(iv.stdin), Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	getenv := func(k string) string { return iv.env[k] }
	cmd := saferetire.NewCmdSafeRetire(streams, getenv)
	if iv.terminal {
		cmd = saferetire.NewCmdOnTerminal(streams, getenv)
	}
	code := cli.Run(ctx, cmd, args, &errOut)
	return out.String(), errOut.String(), code
}

func contains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q\n%s", w, out)
		}
	}
}
