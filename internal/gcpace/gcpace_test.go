package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func gogc(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitFor polls until want is GOGC, collecting meanwhile (a cleanup runs after a collection).
func waitFor(t *testing.T, want uint64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if gogc(t) == want {
			return
		}
		runtime.GC()
	}
	t.Fatalf("GOGC is %d, want %d", gogc(t), want)
}

// The looser pace holds while the live heap is small, across collections, and ends for good
// at the first collection that finds more than the bound live; a GOGC of the environment is
// left alone. The tests run one after another: the collector is the process's.
func TestLoosen(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	Loosen(func(string) string { return "" }, 400, 1<<40)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gogc(t); got != 400 {
		t.Fatalf("with a small live heap GOGC is %d, want 400", got)
	}

	debug.SetGCPercent(100)
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB live
	}
	Loosen(func(string) string { return "" }, 400, 16<<20)
	if got := gogc(t); got != 400 {
		t.Fatalf("after Loosen GOGC is %d, want 400", got)
	}
	waitFor(t, 100)
	runtime.KeepAlive(keep)
	keep = nil
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gogc(t); got != 100 {
		t.Fatalf("once past the bound GOGC went back to %d, want 100 for good", got)
	}

	Loosen(func(k string) string { return map[string]string{"GOGC": "50"}[k] }, 400, 1<<40)
	if got := gogc(t); got != 100 {
		t.Fatalf("with GOGC in the environment Loosen set %d", got)
	}
}
