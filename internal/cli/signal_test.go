package cli_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// SIGTERM in the middle of a run (here: safe-retire waiting on a remote file that never
// comes, with a minute of --network-timeout) must end it within seconds, UNKNOWN, saying so,
// with both revisions' snapshots removed from TMPDIR.
func TestSignalEndsRunAndRemovesSnapshots(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	url := "http://" + ln.Addr().String() + "/never.yaml"
	r := gittest.New(t, map[string]string{
		"clusters/prod/kustomization.yaml": "resources:\n- cm.yaml\n- " + url + "\n",
		"clusters/prod/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n",
	})
	r.Commit("second", map[string]string{"clusters/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n"})
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "KF_SIGNAL_CHILD_ARGS="+strings.Join([]string{
		"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD",
		"--allow-network", "--network-timeout", "1m"}, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the run never fetched %s\n%s", url, stderr.String())
	}
	if leftovers(t, tmp) == 0 {
		t.Fatalf("no snapshot in TMPDIR mid-run: the test would not see a leak")
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running 10s after SIGTERM\n%s", stderr.String())
	}
	t.Logf("ended %s after SIGTERM: %v\n%s", time.Since(start).Round(time.Millisecond), err, stderr.String())
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit code %d, want 2 (UNKNOWN)", code)
	}
	if !strings.Contains(stderr.String(), "terminated") || !strings.Contains(stderr.String(), "stopped before the run finished") {
		t.Errorf("stderr does not say the signal stopped the run:\n%s", stderr.String())
	}
	if n := leftovers(t, tmp); n > 0 {
		t.Errorf("%d snapshot directories left in TMPDIR", n)
	}
}

func leftovers(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "gitops-snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestSignalChild is the safe-retire process of TestSignalEndsRunAndRemovesSnapshots: it runs
// MainAs as the binary's main does and exits with its code.
func TestSignalChild(t *testing.T) {
	args := os.Getenv("KF_SIGNAL_CHILD_ARGS")
	if args == "" {
		t.Skip("child process of TestSignalEndsRunAndRemovesSnapshots")
	}
	os.Args = append([]string{"kubectl-safe_retire"}, strings.Split(args, "\x1f")...)
	os.Exit(cli.MainAs(func(s genericiooptions.IOStreams) *cobra.Command {
		return saferetire.NewCmdSafeRetire(s, os.Getenv)
	}, cli.FormOf(os.Args[0])))
}
