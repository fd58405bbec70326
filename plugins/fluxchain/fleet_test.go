package fluxchain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// In fleet mode a context whose chain is STALE (its source-controller crash-looping) shows
// STALE, as the chain itself says, not the UNKNOWN its exit code 2 is named in general; the
// fleet's verdict is STALE too when it is the worst. Before, the per-context verdict was
// derived from the exit code alone.
func TestFleetCarriesStale(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-fleet-stale")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.breakController("source-controller", ctrlState{down: true, restarts: 40, waiting: "CrashLoopBackOff",
		lastReason: "OOMKilled", lastExit: 137, since: time.Now().Add(-24 * time.Hour)})
	var out, errOut bytes.Buffer
	cmd := fluxchain.NewCmdFluxChain(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	code := cli.Run(context.Background(), cmd, []string{"--kubeconfig=" + env.Kubeconfig,
		"--contexts=" + regexp.QuoteMeta(env.Context), "-n", f.ns, "-o", "json"}, &errOut)
	var rep struct {
		Verdict  string `json:"verdict"`
		Contexts []struct {
			Verdict  string `json:"verdict"`
			ExitCode int    `json:"exitCode"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	if code != 2 || len(rep.Contexts) != 1 || rep.Contexts[0].Verdict != "STALE" || rep.Contexts[0].ExitCode != 2 || rep.Verdict != "STALE" {
		t.Errorf("exit %d, report %+v, want the context and the run STALE (exit 2)\n%s", code, rep, out.String())
	}
}
