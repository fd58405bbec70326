package chartrender

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubeforensics/suite/internal/version"
)

// The embedded sources RenderCode digests are exactly this package's files that are not
// tests: a file added to the package and not to the list would render unseen.
func TestRenderSourcesAreThePackage(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			want = append(want, n)
		}
	}
	got, err := fs.Glob(renderSources, "*")
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("embedded %v (%v), want the package's %v", got, err, want)
	}
}

// A dev build names what it renders with: two dev builds match only when their render code
// does, whatever their commit says (none, with -buildvcs=false). A release is its version and
// commit.
func TestBuildOf(t *testing.T) {
	code := RenderCode()
	for _, tc := range []struct {
		name string
		i    version.Info
		want string
	}{
		{"release", version.Info{Version: "v1.2.3", Commit: "abc"}, "v1.2.3@abc"},
		{"go install", version.Info{Version: "v1.2.3"}, "v1.2.3@"},
		{"dev without a commit", version.Info{Version: "dev"}, "dev@+src." + code},
		{"dev of a commit", version.Info{Version: "dev", Commit: "abc"}, "dev@abc+src." + code},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BuildOf(tc.i); got != tc.want {
				t.Errorf("BuildOf = %q, want %q", got, tc.want)
			}
		})
	}
	a := fstest.MapFS{"render.go": {Data: []byte("package chartrender\n")}}
	b := fstest.MapFS{"render.go": {Data: []byte("package chartrender\n// changed\n")}}
	if codeDigest(a, "go1") == codeDigest(b, "go1") || codeDigest(a, "go1") == codeDigest(a, "go2") || codeDigest(a, "go1") != codeDigest(a, "go1") {
		t.Error("the digest does not follow the sources and the toolchain")
	}
}
