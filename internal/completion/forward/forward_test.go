package forward

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeScript writes an executable shell script into dir and returns its path.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses shell scripts as stand-in plugins")
	}
	beside, onPath := t.TempDir(), t.TempDir()
	writeScript(t, beside, "kubectl-demo", `echo "beside $*"; exit 0`)
	writeScript(t, onPath, "kubectl-demo", `echo "path $*"; exit 0`)
	writeScript(t, onPath, "kubectl-failing", `echo "$*"; exit 3`)
	t.Setenv("PATH", onPath)
	cases := []struct {
		name, plugin, self string
		wantOut            string
		wantCode           int
	}{
		{"beside the completion executable wins", "kubectl-demo", filepath.Join(beside, "kubectl_complete-demo"), "beside __complete pvc \n", 0},
		{"bare argv[0] falls back to PATH", "kubectl-demo", "kubectl_complete-demo", "path __complete pvc \n", 0},
		{"exit code is kept", "kubectl-failing", "kubectl_complete-failing", "__complete pvc \n", 3},
		{"missing plugin", "kubectl-missing", "kubectl_complete-missing", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := Run(tc.plugin, tc.self, []string{"pvc", ""}, &out, &errOut)
			if code != tc.wantCode || out.String() != tc.wantOut {
				t.Fatalf("code %d out %q (stderr %q); want %d %q", code, out.String(), errOut.String(), tc.wantCode, tc.wantOut)
			}
		})
	}
}
