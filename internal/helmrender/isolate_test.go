package helmrender

import (
	"strings"
	"testing"
)

// The render process gets none of this process's environment: no credentials, and no GOGC
// or GOMEMLIMIT that would loosen its memory bound; only the worker variable and TZ, and its
// own GOGC=off for its start (ServeWorker turns the collector on before the render).
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
	t.Setenv("GOMEMLIMIT", "off")
	t.Setenv("GOGC", "400")
	t.Setenv("TZ", "UTC")
	env := strings.Join(workerEnv(64<<20), "\n")
	if strings.Contains(env, "hunter2") || strings.Contains(env, "GOGC=400") || strings.Contains(env, "GOMEMLIMIT") {
		t.Fatalf("leaked: %s", env)
	}
	if strings.Count(env, "GOGC=") != 1 || !strings.Contains(env, "\nGOGC=off") {
		t.Fatalf("the collector's setting at the start: %s", env)
	}
	if !strings.Contains(env, WorkerEnv+"="+workerTag+":67108864") || !strings.Contains(env, "TZ=UTC") {
		t.Fatalf("env: %s", env)
	}
	if limit, err := parseWorkerEnv(workerTag + ":67108864"); err != nil || limit != 64<<20 {
		t.Fatalf("parse: %d %v", limit, err)
	}
	for _, bad := range []string{"1", workerTag + ":", workerTag + ":-1", "other/1:5"} {
		if _, err := parseWorkerEnv(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
