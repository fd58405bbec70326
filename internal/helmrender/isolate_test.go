package helmrender

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// The render process gets none of this process's environment: no credentials, and no GOGC
// or GOMEMLIMIT that would loosen its memory bound; only the worker variable, TZ, and its
// own GOGC for initialisation (TestWorkerCollectorDefault).
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
	t.Setenv("GOMEMLIMIT", "off")
	t.Setenv("GOGC", "off")
	t.Setenv("TZ", "UTC")
	env := strings.Join(workerEnv(64<<20), "\n")
	if strings.Contains(env, "hunter2") || strings.Contains(env, "GOGC=off") || strings.Contains(env, "GOMEMLIMIT") {
		t.Fatalf("leaked: %s", env)
	}
	if !strings.Contains(env, "GOGC="+strconv.Itoa(chartrender.WorkerInitGC)+"\n") {
		t.Fatalf("the worker's initialisation GOGC is not set: %s", env)
	}
	if !strings.Contains(env, WorkerEnv+"="+chartrender.WorkerTag+":67108864") || !strings.Contains(env, "TZ=UTC") {
		t.Fatalf("env: %s", env)
	}
}

// The render worker is WorkerExeEnv's executable when set, else WorkerExe beside this one,
// else this one.
func TestWorkerExe(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(WorkerExeEnv, "")
	if exe, isSelf, err := workerExe(); err != nil || exe != self || !isSelf {
		t.Errorf("unset: %q %v %v, want this executable", exe, isSelf, err)
	}
	other := filepath.Join(t.TempDir(), "worker")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(WorkerExeEnv, other)
	if exe, isSelf, err := workerExe(); err != nil || exe != other || isSelf {
		t.Errorf("set: %q %v %v, want %s", exe, isSelf, err, other)
	}
	t.Setenv(WorkerExeEnv, other+".missing")
	if _, _, err := workerExe(); err == nil {
		t.Error("a missing worker named by the environment was accepted")
	}
}
