package fluxchain_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// env is the control plane every integration test shares; nil under -short.
var env *testenv.Env

func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code) // this test binary started again as a render worker
	}
	flag.Parse()
	os.Setenv("TZ", "UTC")
	if testing.Short() || os.Getenv("KF_SKIP_INTEGRATION") != "" {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	var err error
	env, err = testenv.Start(ctx, testenv.Options{})
	if err == nil {
		err = env.InstallFluxCRDs(ctx)
	}
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the control plane:", err)
		if env != nil {
			_ = env.Stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
	}
	os.Exit(code)
}

// needEnv skips an integration test under -short.
func needEnv(t testing.TB) {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control plane (run without -short)")
	}
}

// run drives flux-chain through NewCmdFluxChain against the test control plane.
func run(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	cmd := fluxchain.NewCmdFluxChain(streams)
	full := append([]string{"--kubeconfig=" + env.Kubeconfig, "--context=" + env.Context}, args...)
	code = cli.Run(context.Background(), cmd, full, &errOut)
	return out.String(), errOut.String(), code
}

func clients(t testing.TB) (dynamic.Interface, kubernetes.Interface) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, kube
}
