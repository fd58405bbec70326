package helmrender

import (
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
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
	if !strings.Contains(env, "GOGC="+strconv.Itoa(workerInitGC)+"\n") {
		t.Fatalf("the worker's initialisation GOGC is not set: %s", env)
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

// A worker starts with GOGC at workerInitGC for Go's initialisation only: ServeWorker puts
// the collector back to its default before anything else, even before it reads its bound,
// so a chart's render never runs under the looser setting.
func TestWorkerCollectorDefault(t *testing.T) {
	orig := debug.SetGCPercent(workerInitGC)
	defer debug.SetGCPercent(orig)
	var out strings.Builder
	code, ok := ServeWorker(func(string) string { return "not a worker's value" }, strings.NewReader(""), &out)
	if !ok || code != 3 {
		t.Fatalf("ServeWorker: %d %v, want 3 true (%s)", code, ok, out.String())
	}
	if gc := debug.SetGCPercent(orig); gc != 100 {
		t.Errorf("the worker's collector is at GOGC=%d, want 100", gc)
	}
}
