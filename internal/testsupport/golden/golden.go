// Package golden compares a test's output with a file under testdata/ and rewrites the file when
// the test binary runs with -update (go test ./plugins/fluxchain -update). Outputs are normalised
// first (ports, times, temporary directories), so every golden file can be regenerated.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Normaliser rewrites what differs between runs in an output.
type Normaliser func(string) string

// Regexp replaces every match of pattern with with (which may use ${1} and the like).
func Regexp(pattern, with string) Normaliser {
	re := regexp.MustCompile(pattern)
	return func(s string) string { return re.ReplaceAllString(s, with) }
}

// Literal replaces every occurrence of old (a temporary directory, say) with with.
func Literal(old, with string) Normaliser {
	return func(s string) string { return strings.ReplaceAll(s, old, with) }
}

// Files are one test package's golden files: a directory and the normalisers every output goes
// through.
type Files struct {
	dir         string
	normalisers []Normaliser
	update      *bool
}

// Register defines the -update flag on fs (flag.CommandLine in a test binary) and returns the
// golden files under dir. Call it once per test package, from a package-level variable's
// initialiser so the flag exists before the test binary parses its flags.
func Register(fs *flag.FlagSet, dir string, normalisers ...Normaliser) *Files {
	return &Files{dir: dir, normalisers: normalisers,
		update: fs.Bool("update", false, "rewrite the golden files under "+dir+"/")}
}

// Assert compares got with the file name under the directory after normalising it (extra
// first, then the package's normalisers), and reports the difference; with -update it writes
// the file instead.
func (f *Files) Assert(t testing.TB, name, got string, extra ...Normaliser) {
	t.Helper()
	for _, n := range append(append([]Normaliser{}, extra...), f.normalisers...) {
		got = n(got)
	}
	path := filepath.Join(f.dir, name)
	if *f.update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
