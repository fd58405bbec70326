package saferetire_test

import (
	"flag"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// goldens are the files under testdata/; the normalisers make a run's output independent of
// the temporary repository's commits (each case replaces the repository's directory with REPO).
var goldens = golden.Register(flag.CommandLine, "testdata",
	golden.Regexp(`\b[0-9a-f]{40}\b`, "COMMIT"),
	golden.Regexp(`\([0-9a-f]{12}\)`, "(COMMIT)"),
	// The report's envelope: when it was written (docs/report.md).
	golden.Regexp(`"timestamp": "[^"]*"`, `"timestamp": "2026-01-01T00:00:00Z"`),
	golden.Regexp(`(?m)^(\s*)timestamp: .*$`, `${1}timestamp: "2026-01-01T00:00:00Z"`),
)

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
			goldens.Assert(t, tc.name+".txt", out+"--- stderr\n"+errOut, golden.Literal(r.Dir, "REPO"))
			out, _, _ = invocation{}.raw(t, append(args, "-o", "json")...)
			goldens.Assert(t, tc.name+".json", out, golden.Literal(r.Dir, "REPO"))
		})
	}
}
