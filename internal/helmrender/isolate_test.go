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

// The render worker is WorkerExeEnv's executable when set, else WorkerExe beside this one
// (with .exe on Windows), else this one.
func TestChooseWorker(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "kubectl-safe_retire")
	touch := func(p string) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	touch(self)
	check := func(name, named, goos, want string, wantSelf bool) {
		t.Helper()
		if got, isSelf, err := chooseWorker(named, self, goos); err != nil || got != want || isSelf != wantSelf {
			t.Errorf("%s: %q %v %v, want %q %v", name, got, isSelf, err, want, wantSelf)
		}
	}
	check("nothing beside", "", "linux", self, true)
	if err := os.Mkdir(filepath.Join(dir, WorkerExe), 0o755); err != nil {
		t.Fatal(err)
	}
	check("a directory of the name beside", "", "linux", self, true)
	touch(filepath.Join(dir, WorkerExe+".exe"))
	check("windows", "", "windows", filepath.Join(dir, WorkerExe+".exe"), false)
	other := filepath.Join(t.TempDir(), "worker")
	touch(other)
	check("named", other, "linux", other, false)
	if _, _, err := chooseWorker(other+".missing", self, "linux"); err == nil {
		t.Error("a missing worker named by the environment was accepted")
	}
	if _, self, err := NewWorker(nil).get(); err != nil || !self && os.Getenv(WorkerExeEnv) == "" {
		t.Errorf("this test binary: self %v, %v", self, err)
	}
}
