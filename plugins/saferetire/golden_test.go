package saferetire_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// normalisers make a run's output independent of the temporary repository and its commits.
var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b[0-9a-f]{40}\b`), "COMMIT"},
	{regexp.MustCompile(`\([0-9a-f]{12}\)`), "(COMMIT)"},
}

// golden compares got with testdata/name after replacing dir with REPO and commit ids with
// COMMIT; -update rewrites it.
func golden(t *testing.T, name, got, dir string) {
	t.Helper()
	got = strings.ReplaceAll(got, dir, "REPO")
	for _, n := range normalisers {
		got = n.re.ReplaceAllString(got, n.with)
	}
	path := filepath.Join("testdata", name)
	if *update {
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

// goldenCase is one offline gate whose text (stdout, then stderr) and json are kept in
// testdata/<name>.txt and testdata/<name>.json.
type goldenCase struct {
	name string
	code int
	// repo builds the repository and returns it with the arguments after --repo.
	repo func(t *testing.T) (*gittest.Repo, []string)
}

func TestGoldens(t *testing.T) {
	cases := []goldenCase{
		{"seed-offline", 1, func(t *testing.T) (*gittest.Repo, []string) {
			r := incidentRepo(t)
			base := r.Git("rev-parse", "HEAD")
			removeClaim(r)
			return r, []string{"--base", base, "--context", "prod"}
		}},
		{"two-stage-retained", 0, func(t *testing.T) (*gittest.Repo, []string) {
			r := incidentRepo(t)
			base := r.Commit("protect", map[string]string{pvcFile: claim("headlamp", "headlamp", "kustomize.toolkit.fluxcd.io/prune: disabled")})
			removeClaim(r)
			r.Write(map[string]string{deployFile: deployment("headlamp", false)})
			return r, []string{"--base", base}
		}},
		{"platform-unsafe", 1, func(t *testing.T) (*gittest.Repo, []string) {
			r := gittest.New(t, incident.PlatformRepoFiles())
			base := r.Git("rev-parse", "HEAD")
			r.Write(incident.PlatformClaimRemoval(false))
			return r, []string{"--base", base, "--path", incident.PlatformEntry}
		}},
		// --full builds the monitoring tier too, which needs the network: UNKNOWN.
		{"platform-retained-unknown", 2, func(t *testing.T) (*gittest.Repo, []string) {
			r := gittest.New(t, incident.PlatformRepoFiles())
			base := r.Commit("protect the claims of apps", incident.PlatformProtect())
			r.Write(incident.PlatformClaimRemoval(true))
			return r, []string{"--base", base, "--path", incident.PlatformEntry, "--full"}
		}},
		// Without --full the change leaves the monitoring tier's inputs alone: it is listed as
		// unchanged, not UNKNOWN, and the retained claim is SAFE.
		{"platform-retained", 0, func(t *testing.T) (*gittest.Repo, []string) {
			r := gittest.New(t, incident.PlatformRepoFiles())
			base := r.Commit("protect the claims of apps", incident.PlatformProtect())
			r.Write(incident.PlatformClaimRemoval(true))
			return r, []string{"--base", base, "--path", incident.PlatformEntry}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, args := tc.repo(t)
			args = append([]string{"--dry-run", "--offline", "--repo", r.Dir}, args...)
			out, errOut, code := invocation{}.raw(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			golden(t, tc.name+".txt", out+"--- stderr\n"+errOut, r.Dir)
			out, _, _ = invocation{}.raw(t, append(args, "-o", "json")...)
			golden(t, tc.name+".json", out, r.Dir)
		})
	}
}
