package helmrender

import (
	"strings"
	"testing"
)

// The render process gets none of this process's environment: no credentials, and no GOGC
// or GOMEMLIMIT that would loosen its memory bound; only the worker variable and TZ.
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
	t.Setenv("GOMEMLIMIT", "off")
	t.Setenv("GOGC", "off")
	t.Setenv("TZ", "UTC")
	env := strings.Join(workerEnv(64<<20), "\n")
	if strings.Contains(env, "hunter2") || strings.Contains(env, "GOGC") || strings.Contains(env, "GOMEMLIMIT") {
		t.Fatalf("leaked: %s", env)
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
