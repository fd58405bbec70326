package saferetire_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/sarif/sariftest"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// TestSARIF keeps the offline gate's -o sarif in testdata/<case>.sarif, each validated against
// the SARIF 2.1.0 schema: the seed incident's pull request (the claim's manifest deleted while
// the Deployment still mounts it: UNSAFE) and an UNKNOWN gate, whose gap must be a result.
func TestSARIF(t *testing.T) {
	cases := []struct {
		name string
		code int
		repo func(t *testing.T) (*gittest.Repo, []string)
		// rules are the rule ids of the results, in order.
		rules []string
	}{
		{"seed-offline", 1, func(t *testing.T) (*gittest.Repo, []string) {
			r := incidentRepo(t)
			base := r.Git("rev-parse", "HEAD")
			removeClaim(r)
			return r, []string{"--base", base}
		}, []string{"prune-persistent"}},
		{"platform-retained-unknown", 2, func(t *testing.T) (*gittest.Repo, []string) {
			r := gittest.New(t, incident.PlatformRepoFiles())
			base := r.Commit("protect the claims of apps", incident.PlatformProtect())
			r.Write(incident.PlatformClaimRemoval(true))
			return r, []string{"--base", base, "--path", incident.PlatformEntry, "--full"}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, args := tc.repo(t)
			args = append([]string{"--dry-run", "--offline", "--repo", r.Dir, "-o", "sarif"}, args...)
			out, errOut, code := invocation{}.raw(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			sariftest.Validate(t, []byte(out))
			goldens.Assert(t, tc.name+".sarif", out, golden.Literal(r.Dir, "REPO"))
			var log sarif.Log
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatal(err)
			}
			checkSARIF(t, log, tc.code, tc.rules)
			again, _, _ := invocation{}.raw(t, args...)
			if again != out {
				t.Errorf("a second run gives another log:\n%s", again)
			}
		})
	}
}

// checkSARIF: every result is located in a file of the repository, an UNKNOWN run has a
// warning, and every rule id is a code docs/safe-retire.md or docs/sarif.md lists.
func checkSARIF(t *testing.T, log sarif.Log, code int, rules []string) {
	t.Helper()
	documented := documentedCodes(t)
	run := log.Runs[0]
	var got []string
	warned := false
	for _, res := range run.Results {
		got = append(got, res.RuleID)
		warned = warned || res.Level == sarif.Warning || res.Level == sarif.Error
		if !documented[res.RuleID] {
			t.Errorf("rule %q is in no table of docs/safe-retire.md or docs/sarif.md", res.RuleID)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result %s has no location: %+v", res.RuleID, res.Locations)
		}
	}
	if rules != nil && strings.Join(got, " ") != strings.Join(rules, " ") {
		t.Errorf("results of rules %q, want %q", got, rules)
	}
	if code == 2 && !warned {
		t.Errorf("an UNKNOWN run without a warning reads as SAFE: %+v", run.Results)
	}
	if run.AutomationDetails == nil || !strings.HasPrefix(run.AutomationDetails.ID, "kubeforensics/safe-retire/") {
		t.Errorf("automationDetails %+v", run.AutomationDetails)
	}
}

// documentedCodes are the codes in the first column of the tables of docs/safe-retire.md and
// docs/sarif.md.
func documentedCodes(t *testing.T) map[string]bool {
	t.Helper()
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|")
	out := map[string]bool{}
	for _, doc := range []string{"safe-retire.md", "sarif.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range row.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// -o sarif is the offline gate's only: elsewhere it is bad input.
func TestSARIFOnlyOffline(t *testing.T) {
	for _, args := range [][]string{
		{"--dry-run", "-o", "sarif", "--context", "prod", "--kubeconfig", "/nonexistent"},
		{"--orphans", "-o", "sarif", "--context", "prod", "--kubeconfig", "/nonexistent"},
	} {
		out, errOut, code := invocation{}.raw(t, args...)
		if code != 3 || !strings.Contains(errOut, "-o sarif is for the offline gate only") {
			t.Errorf("%q: exit %d, want 3 naming -o sarif\n%s\n%s", args, code, out, errOut)
		}
	}
}

// A result keeps its fingerprint when lines above the object move, and its region follows
// the object: the claim's manifest at base gains two comment lines and a ConfigMap before it.
func TestSARIFFingerprintSurvivesMovedLines(t *testing.T) {
	gate := func(prefix string) sarif.Result {
		r := incidentRepo(t)
		if prefix != "" {
			files := incident.RepoFiles()
			r.Commit("move the claim down", map[string]string{pvcFile: prefix + files[pvcFile]})
		}
		base := r.Git("rev-parse", "HEAD")
		removeClaim(r)
		out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "-o", "sarif")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
		}
		var log sarif.Log
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatal(err)
		}
		return log.Runs[0].Results[0]
	}
	before := gate("")
	after := gate("# the claim of headlamp's plugins\n# keep it\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: headlamp\n---\n")
	line := func(r sarif.Result) int { return r.Locations[0].PhysicalLocation.Region.StartLine }
	if line(after) != line(before)+8 {
		t.Errorf("the claim is at line %d, was %d: want %d", line(after), line(before), line(before)+8)
	}
	if a, b := after.PartialFingerprints[sarif.FingerprintKey], before.PartialFingerprints[sarif.FingerprintKey]; a != b {
		t.Errorf("the fingerprint moved with the lines: %s, was %s", a, b)
	}
}
