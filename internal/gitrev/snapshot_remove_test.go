package gitrev

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Removing a snapshot takes about removeWait at most; what is left then is removed by a
// process of its own, soon after.
func TestRemoveSnapshotIsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gitops-snapshot-x")
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 500 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	if err := removeSnapshot(dir); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("removeSnapshot returned after %s", took.Round(time.Millisecond))
	if took > removeWait+500*time.Millisecond {
		t.Errorf("removeSnapshot took %s, want about %s at most", took.Round(time.Millisecond), removeWait)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			t.Logf("gone after %s", time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s still there a minute later", dir)
}
