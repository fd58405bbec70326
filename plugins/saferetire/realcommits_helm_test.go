package saferetire_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// helmCommit is a row of docs/safe-retire.md's HelmRelease table: a real commit of a public
// repository and its fixture, testdata/realcommits/<dir>: base/ is the repository at the
// commit's parent trimmed to what Flux builds for the app, candidate/ the files the commit
// changes (trimmed alike), removed the paths it deletes (a directory: every file under it).
// The charts are the real ones at the declared versions (testdata/realcommits/charts,
// package.sh), given as --charts: no network.
type helmCommit struct {
	repo, commit, dir, change string
	removed                   []string
	flags                     []string
	// want is the exit code an operator wants: 0 when nothing the change deletes holds
	// state, 1 when it does.
	want int
	// miss, when the gate's code is not want, says why: the row is then a known miss, shown
	// as such; a miss that no longer happens fails the test until the field is dropped.
	miss string
}

// helmCommits are the rows; each fixture's files come from the commit named (see NOTICE).
var helmCommits = []helmCommit{
	{repo: "onedr0p/home-ops", commit: "fedfc450bd01f12710c1a6252bb03beb93473731", dir: "onedr0p-sabnzbd-image-bump",
		change: "Renovate image bump of an app-template release (sabnzbd 4.5.0 → 4.5.1; OCIRepository app-template 3.7.3)", want: 0},
	{repo: "bjw-s-labs/home-ops", commit: "42f9e7bb03df39e808e1569b18336089df6d7dde", dir: "bjw-s-manyfold-image-bump",
		change: "Renovate image bump of an app-template release (manyfold 0.102.0 → 0.103.0; OCI HelmRepository, app-template 3.7.1)", want: 0},
	{repo: "onedr0p/home-ops", commit: "41de3106938c3a2f7f065ae75dc6014bdac2a5da", dir: "onedr0p-app-template-chart-bump",
		change: "chart version bump: the shared app-template OCIRepository 3.7.2 → 3.7.3 (prowlarr, its claim made by the volsync component)", want: 0},
	{repo: "onedr0p/home-ops", commit: "69cfe1e56cf4358a125c60f8dff60887f147ddb2", dir: "onedr0p-coredns-chart-bump",
		change: "third-party chart version bump: coredns 1.39.2 → 1.40.0 (OCIRepository tag; values from a generated ConfigMap through `valuesFrom`)", want: 0},
	{repo: "onedr0p/home-ops", commit: "89c832ddd54035fbe62f1da58989e6fa99ab181f", dir: "onedr0p-unpackerr-removed",
		change:  "a stateless app removed: unpackerr's ks.yaml and app/ (HelmRelease, ExternalSecret)",
		removed: []string{"kubernetes/apps/default/unpackerr"}, want: 0},
	{repo: "bjw-s-labs/home-ops", commit: "ddd45f6fa63f0d4db5a0abfa0ae4bc023822af7d", dir: "bjw-s-vikunja-removed",
		change:  "an app removed (archived): vikunja's HelmRelease and its claim `vikunja-data` from the volsync component",
		removed: []string{"kubernetes/apps/selfhosted/vikunja"}, want: 1},
	{repo: "onedr0p/home-ops", commit: "e593045946aafcd0c4125e0d0089cf109daa7fa0", dir: "onedr0p-beets-claim-dropped",
		change: "a claim dropped: beets' `persistence.config` from `existingClaim: beets` to `emptyDir`, the volsync template (its claim) removed", want: 1},
	{repo: "bjw-s-labs/home-ops", commit: "f3e8df6eca590423a91bcef4803f800d12101192", dir: "bjw-s-suc-persistence-dropped",
		change: "a persistence block that holds no claim dropped: system-upgrade-controller's `persistence` (an `emptyDir` and three `hostPath` items; OCI HelmRepository, app-template 3.6.1)", want: 0},
	{repo: "joryirving/home-ops", commit: "1b1b932a104772c73ac3fa54264d18a34229d6bc", dir: "joryirving-archiveteam-claim-dropped", flags: []string{"--path", "kubernetes/main/flux/cluster"},
		change: "a chart-made claim dropped: archiveteam's `persistence.config` (app-template `persistentVolumeClaim`, 20Gi) replaced by `existingClaim` of a volsync claim", want: 1},
	{repo: "joryirving/home-ops", commit: "1b11a257ccdb0c1a212a2c2258df327291c1de83", dir: "joryirving-headlamp-claim-dropped", flags: []string{"--path", "kubernetes/clusters/main"},
		change: "third-party chart (headlamp 0.30.1): `persistentVolumeClaim.enabled: true` and its settings removed from the values", want: 1},
}

// realCommitsDir holds the fixtures and the charts.
const realCommitsDir = "testdata/realcommits"

// readTree is every file under dir, by its slash path relative to dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil && !(os.IsNotExist(err) && filepath.Base(dir) == "candidate") {
		t.Fatal(err)
	}
	return files
}

// build commits hc's base and then its candidate, and returns both commits.
func (hc helmCommit) build(t *testing.T) (dir, base, candidate string) {
	t.Helper()
	fixture := filepath.Join(realCommitsDir, hc.dir)
	baseFiles := readTree(t, filepath.Join(fixture, "base"))
	change := readTree(t, filepath.Join(fixture, "candidate"))
	for _, rm := range hc.removed {
		n := 0
		for p := range baseFiles {
			if p == rm || strings.HasPrefix(p, rm+"/") {
				change[p] = ""
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: removed %s is no file of the base", hc.dir, rm)
		}
	}
	if len(change) == 0 {
		t.Fatalf("%s: the candidate changes nothing", hc.dir)
	}
	r := gittest.New(t, baseFiles)
	base = r.Git("rev-parse", "HEAD")
	candidate = r.Commit(hc.change, change)
	return r.Dir, base, candidate
}

// The HelmRelease table of docs/safe-retire.md is what safe-retire says, offline with the
// real charts, on fixtures taken from real commits; the test fails when a verdict is not the
// one an operator wants (unless recorded as a known miss) and when the table differs, and
// -update rewrites it.
func TestHelmReleaseCommitTable(t *testing.T) {
	charts, err := filepath.Abs(filepath.Join(realCommitsDir, "charts"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| repository | commit | the change | flags | verdict |\n| --- | --- | --- | --- | --- |\n")
	for _, hc := range helmCommits {
		dir, base, candidate := hc.build(t)
		flags := append([]string{"--candidate", candidate, "--charts", charts}, hc.flags...)
		verdict, code := helmVerdict(t, dir, base, flags)
		switch {
		case hc.miss == "" && code != hc.want:
			t.Errorf("%s %s: exit %d, an operator wants %d: %s", hc.repo, hc.commit, code, hc.want, verdict)
		case hc.miss != "" && code == hc.want:
			t.Errorf("%s %s: the known miss (%s) is gone: exit %d; drop the row's miss", hc.repo, hc.commit, hc.miss, code)
		case hc.miss != "":
			verdict = fmt.Sprintf("**known miss** (an operator wants exit %d: %s): %s", hc.want, hc.miss, verdict)
		}
		fmt.Fprintf(&b, "| [%s](https://github.com/%s) | [`%.10s`](https://github.com/%s/commit/%s) | %s | %s | %s |\n",
			hc.repo, hc.repo, hc.commit, hc.repo, hc.commit, hc.change, flagsCell(hc.flags), cell(verdict))
	}
	checkDocTable(t, "helmrelease-commit-table", "TestHelmReleaseCommitTable", b.String())
}

// helmVerdict runs the offline gate with flags on dir against base and says what it decided
// and what that rests on: the verdict and exit code; each removal (unsafe ones first) with
// what Helm does to it — a HelmRelease's uninstall and its base render, an object an upgrade
// drops and the charts rendered on each side — or, when nothing is removed, how many
// HelmRelease renders were compared; then the warnings and anything incomplete. A tier that
// did not build, or a run that rendered nothing, fails the test: the fixture is broken.
func helmVerdict(t *testing.T, dir, base string, flags []string) (string, int) {
	t.Helper()
	flags = append([]string{"--render-cache", t.TempDir()}, flags...)
	res, refused, code := runOffline(t, dir, base, flags)
	if res == nil {
		return fmt.Sprintf("bad input (%d): `%s`", code, strings.ReplaceAll(refused, "`", "'")), code
	}
	for _, u := range res.Unbuilt {
		t.Errorf("%s: Kustomization %s did not build at the %s: %s", dir, u.Kustomization, u.Side, u.Error)
	}
	var unsafe, other []string
	for _, rm := range res.Removals {
		s := "`" + rm.Object.String() + "` " + removalText(rm)
		if rm.Unsafe {
			unsafe = append(unsafe, "unsafe "+s+" ["+string(rm.Reason)+"]")
		} else {
			other = append(other, s)
		}
	}
	sort.Strings(unsafe)
	sort.Strings(other)
	parts := append(unsafe, other...)
	if len(res.Removals) == 0 {
		parts = append(parts, "nothing removed")
	}
	if rc := res.RenderCache; rc == nil || rc.Built+rc.FromCache == 0 {
		t.Errorf("%s: no HelmRelease was rendered: the row would not rest on its chart", dir)
	} else {
		parts = append(parts, fmt.Sprintf("%d HelmRelease render(s) compared", rc.Built+rc.FromCache))
	}
	schemas := 0
	for _, g := range res.Unchecked {
		parts = append(parts, "warning: "+g.String())
	}
	for _, w := range res.Warnings {
		if w.Code == report.NoteHelmSchemaNotFetched {
			schemas++
			continue
		}
		parts = append(parts, "warning: "+w.Message)
	}
	if schemas > 0 {
		parts = append(parts, fmt.Sprintf("values validated without the remote schemas values.schema.json refers to, not fetched offline (%d warning(s))", schemas))
	}
	for _, g := range res.Incomplete {
		parts = append(parts, "incomplete: "+g.String())
	}
	return fmt.Sprintf("%s (%d): %s", res.Verdict, res.ExitCode, strings.Join(parts, "; ")), code
}

// removalText says how a removal goes: Helm drops it in an upgrade (the charts rendered), a
// HelmRelease's deletion uninstalls its release (what the base render holds), or its outcome.
func removalText(rm retire.Removal) string {
	if d := rm.HelmDrop; d != nil {
		return fmt.Sprintf("deleted by Helm upgrading release %s (HelmRelease %s rendered with %s, then %s)", d.Release, d.HelmRelease, d.From, d.To)
	}
	h := rm.Helm
	if h == nil {
		return string(rm.Outcome)
	}
	if h.Rendered == "" {
		return fmt.Sprintf("%s, release %s not rendered: %s", rm.Outcome, h.Release, strings.Join(h.NotSeen, "; "))
	}
	s := []string{}
	for _, o := range h.Deleted {
		s = append(s, "deletes `"+o.Object.String()+"`")
	}
	for _, o := range h.Left {
		s = append(s, "leaves `"+o.Object.String()+"`")
	}
	if len(h.Deleted)+len(h.Left) == 0 {
		s = append(s, "no persistent object")
	}
	kinds := make([]string, 0, len(h.Others))
	for k, n := range h.Others {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	s = append(s, kinds...)
	return fmt.Sprintf("%s, uninstalling release %s (%s: %s)", rm.Outcome, h.Release, h.Rendered, strings.Join(s, ", "))
}
