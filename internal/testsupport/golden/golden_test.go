package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestAssert(t *testing.T) {
	dir := t.TempDir()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	files := Register(fs, dir, Regexp(`:\d+`, ":PORT"))
	if err := fs.Parse([]string{"-update"}); err != nil {
		t.Fatal(err)
	}
	files.Assert(t, "out.txt", "server /tmp/x1 at :6443\n", Literal("/tmp/x1", "REPO"))
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil || string(b) != "server REPO at :PORT\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	*files.update = false
	cases := []struct {
		name, got string
		fails     bool
	}{
		{"same after normalising", "server REPO at :7000\n", false},
		{"different", "server REPO at :PORT, twice\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			files.Assert(r, "out.txt", c.got)
			if r.failed != c.fails {
				t.Errorf("failed = %v, want %v", r.failed, c.fails)
			}
		})
	}
	r := &recorder{TB: t}
	files.Assert(r, "missing.txt", "x")
	if !r.failed {
		t.Error("a missing golden file did not fail")
	}
}
