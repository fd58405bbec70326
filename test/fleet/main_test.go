// Package fleet_test runs the plugins' fleet mode (--contexts, --all-contexts) against three
// contexts of one kubeconfig at once: a healthy control plane, a control plane with the
// incident replayed on it (a claim stuck Terminating, a failing Flux chain), and a context
// whose server is a closed port on 127.0.0.1. Both control planes are real
// (internal/testsupport/testenv) and start once, together, in TestMain.
package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The three contexts of the fleet kubeconfig, in the order a report lists them.
const (
	downCtx    = "fleet-down"
	healthyCtx = "fleet-healthy"
	stuckCtx   = "fleet-stuck"
)

// fleetEnv is what TestMain set up; nil under -short.
type fleetEnv struct {
	healthy *testenv.Env
	stuck   *incident.Replay
	// kubeconfig holds the three contexts; downServer is the closed port's URL.
	kubeconfig string
	downServer string
}

var env *fleetEnv

func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code) // this test binary started again as a render worker
	}
	flag.Parse()
	os.Setenv("TZ", "UTC")
	if testing.Short() || os.Getenv("KF_SKIP_INTEGRATION") != "" {
		os.Exit(m.Run())
	}
	e, err := start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	if err := errors.Join(e.healthy.Stop(), e.stuck.Stop(), os.RemoveAll(filepath.Dir(e.kubeconfig))); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	os.Exit(code)
}

// start brings up both control planes at once and writes the fleet kubeconfig.
func start() (*fleetEnv, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	type started struct {
		healthy *testenv.Env
		stuck   *incident.Replay
		err     error
	}
	healthyDone, stuckDone := make(chan started, 1), make(chan started, 1)
	go func() {
		h, err := startHealthy(ctx, healthyCtx)
		healthyDone <- started{healthy: h, err: err}
	}()
	go func() {
		r, err := incident.StartReplay(ctx, testenv.Options{ContextName: stuckCtx})
		stuckDone <- started{stuck: r, err: err}
	}()
	h, s := <-healthyDone, <-stuckDone
	e := &fleetEnv{healthy: h.healthy, stuck: s.stuck}
	err := errors.Join(h.err, s.err)
	if err == nil {
		e.downServer, err = closedPort()
	}
	if err == nil {
		e.kubeconfig, err = writeFleetKubeconfig(e)
	}
	if err != nil {
		if h.healthy != nil {
			err = errors.Join(err, h.healthy.Stop())
		}
		if s.stuck != nil {
			err = errors.Join(err, s.stuck.Stop())
		}
		return nil, err
	}
	return e, nil
}

// closedPort returns the URL of a 127.0.0.1 port that was just free and is closed now.
func closedPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return "https://" + addr, l.Close()
}

// writeFleetKubeconfig merges the two control planes' kubeconfigs and adds the unreachable
// context, in a directory of its own.
func writeFleetKubeconfig(e *fleetEnv) (string, error) {
	merged := clientcmdapi.NewConfig()
	for _, path := range []string{e.healthy.Kubeconfig, e.stuck.Env.Kubeconfig} {
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			return "", err
		}
		for k, v := range cfg.Clusters {
			merged.Clusters[k] = v
		}
		for k, v := range cfg.AuthInfos {
			merged.AuthInfos[k] = v
		}
		for k, v := range cfg.Contexts {
			merged.Contexts[k] = v
		}
	}
	merged.Clusters[downCtx] = &clientcmdapi.Cluster{Server: e.downServer, InsecureSkipTLSVerify: true}
	merged.AuthInfos[downCtx+"-admin"] = &clientcmdapi.AuthInfo{Token: "not-a-real-token"}
	merged.Contexts[downCtx] = &clientcmdapi.Context{Cluster: downCtx, AuthInfo: downCtx + "-admin"}
	merged.CurrentContext = healthyCtx
	dir, err := os.MkdirTemp("", "kubeforensics-fleet-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*merged, path)
}

// needEnv skips an integration test under -short.
func needEnv(t testing.TB) {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control planes (not under -short)")
	}
}

// newCmd builds one of the plugins' commands.
type newCmd func(genericiooptions.IOStreams) *cobra.Command

var (
	whyTerminating newCmd = whyterminating.NewCmdWhyTerminating
	fluxChain      newCmd = fluxchain.NewCmdFluxChain
)

// run drives a plugin as kubectl would, with exactly args, and returns stdout, stderr and
// the exit code.
func run(t testing.TB, cmd newCmd, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code := cli.Run(ctx, cmd(streams), args, &errOut)
	return out.String(), errOut.String(), code
}
