package chartrender

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestParseWorkerEnv(t *testing.T) {
	if limit, err := parseWorkerEnv(WorkerTag + ":67108864"); err != nil || limit != 64<<20 {
		t.Fatalf("parse: %d %v", limit, err)
	}
	for _, bad := range []string{"1", WorkerTag + ":", WorkerTag + ":-1", "other/1:5", "kubeforensics-helmrender-worker/1:5"} {
		if _, err := parseWorkerEnv(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A worker starts with GOGC at WorkerInitGC for Go's initialisation only: ServeWorker puts
// the collector back to its default before anything else, even before it reads its bound,
// so a chart's render never runs under the looser setting.
func TestWorkerCollectorDefault(t *testing.T) {
	orig := debug.SetGCPercent(WorkerInitGC)
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

// A request with a field this build's Spec lacks (another build's) is refused, not half read.
func TestServeRefusesUnknownFields(t *testing.T) {
	res := serve(strings.NewReader(`{"spec":{"releaseName":"a","newField":true},"chart":null}`))
	if res.Err == "" || !strings.Contains(res.Err, "newField") {
		t.Fatalf("answer %+v, want the unknown field refused", res)
	}
}
