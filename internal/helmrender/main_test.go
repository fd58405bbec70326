package helmrender_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// The control plane the differential tests read through, started by the first test that needs
// it and stopped after all have run; unit tests never start it.
var (
	envOnce sync.Once
	env     *testenv.Env
	envErr  error
)

// needEnv returns the shared control plane, skipping under -short or KF_SKIP_INTEGRATION.
func needEnv(t testing.TB) *testenv.Env {
	t.Helper()
	if testing.Short() || os.Getenv("KF_SKIP_INTEGRATION") != "" {
		t.Skip("integration test: needs the local control plane")
	}
	envOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		env, envErr = testenv.Start(ctx, testenv.Options{ContextName: "helmrender"})
	})
	if envErr != nil {
		t.Fatalf("starting the control plane: %v", envErr)
	}
	return env
}

// TestMain lets this test binary serve as the render worker its tests start.
func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	code := m.Run()
	if env != nil {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}
	os.Exit(code)
}
