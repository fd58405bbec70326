// Package incidenttest runs a test package against one replay of the incident, started once in
// TestMain and shared by every integration test of the package.
package incidenttest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// Run sets TZ=UTC, parses the test flags and, unless -short or KF_SKIP_INTEGRATION is set,
// starts a replay of the incident and hands it to use before the tests run; it stops the
// replay afterwards. It returns the exit code for os.Exit.
func Run(m *testing.M, use func(*incident.Replay)) int {
	os.Setenv("TZ", "UTC")
	flag.Parse()
	if testing.Short() || os.Getenv("KF_SKIP_INTEGRATION") != "" {
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	replay, err := incident.StartReplay(ctx, testenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replaying the incident:", err)
		return 1
	}
	defer replay.Stop()
	use(replay)
	return m.Run()
}
