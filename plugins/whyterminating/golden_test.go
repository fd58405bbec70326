package whyterminating_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// normalisers make outputs of different runs comparable: ports, times, ages and counts that
// depend on how many types the test cluster serves at that moment.
var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`https://127\.0\.0\.1:\d+`), "https://127.0.0.1:PORT"},
	{regexp.MustCompile(`--kubeconfig=\S*/kubeconfig\b`), "--kubeconfig=KUBECONFIG"},
	{regexp.MustCompile(`"deletionTimestamp": "[^"]*"`), `"deletionTimestamp": "TIME"`},
	{regexp.MustCompile(`deletion requested [0-9-]+ [0-9:]+Z`), "deletion requested TIME"},
	{regexp.MustCompile(`(?i)(terminating ?for"?:? "?)\d+[smhd](\d+m)?`), "${1}AGE"},
	{regexp.MustCompile(`"listRequests": \d+`), `"listRequests": N`},
	{regexp.MustCompile(`\bage \d+[smhd]\b`), "age AGE"},
	{regexp.MustCompile(`headlamp-[a-z0-9]{8,10}-[a-z0-9]{5}\b`), "headlamp-HASH-POD"},
	{regexp.MustCompile(`headlamp-[a-z0-9]{8,10}\b`), "headlamp-HASH"},
}

// golden compares got with testdata/name after normalising; -update rewrites the file.
func golden(t *testing.T, name, got string) {
	t.Helper()
	for _, n := range normalisers {
		got = n.re.ReplaceAllString(got, n.with)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
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
