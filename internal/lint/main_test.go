package lint_test

import (
	"os"
	"testing"

	"github.com/kubeforensics/suite/internal/helmrender"
)

// TestMain lets this test binary serve as the render worker its tests start.
func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
