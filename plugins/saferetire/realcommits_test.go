package saferetire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// realCommit is a row of docs/safe-retire.md's table of commits of public repositories: a
// fixture in this repository modelled on the commit (its layout and its change), and the
// flags the run takes besides --dry-run --offline --repo --base.
type realCommit struct {
	repo, commit, change string
	flags                []string
	// build commits the fixture's base and applies the change (committed or in the working
	// tree); it returns the base commit.
	build func(t *testing.T) (dir, base string)
}

// undeployedFromHomeOps builds homeOpsUndeploy's repository and removes app from it in the
// working tree.
func undeployedFromHomeOps(app string) func(t *testing.T) (string, string) {
	return func(t *testing.T) (string, string) {
		files := homeOpsUndeploy("default", "")
		r := gittest.New(t, files)
		base := r.Git("rev-parse", "HEAD")
		r.Write(undeploy(files, "default", app))
		return r.Dir, base
	}
}

// realCommits are the rows, each modelled on the commit it names (see each fixture's comment).
var realCommits = []realCommit{
	{repo: "onedr0p/home-ops", commit: "45fa022975", change: "an app undeployed: its ks.yaml and app/ directory removed together, its claim made by the volsync component (`${VOLSYNC_CLAIM:=${APP}}`, as bjw-s-labs/home-ops 9013c3b915)",
		build: undeployedFromHomeOps("zigbee")},
	{repo: "onedr0p/home-ops", commit: "45fa022975", change: "a stateless app undeployed the same way (a ConfigMap only)",
		build: undeployedFromHomeOps("echo")},
	{repo: "krobertson/home-ops", commit: "ec9f5d8", change: "a file outside Flux's input changed; the bootstrap syncs `setup/flux/config` and no `clusters/` or `flux/cluster` directory exists",
		build: func(t *testing.T) (string, string) {
			r := gittest.New(t, krobertsonLater)
			base := r.Git("rev-parse", "HEAD")
			r.Write(map[string]string{"setup/omni/cluster.yaml": "installer: v1.10.1\n"})
			return r.Dir, base
		}},
	{repo: "fluxcd/flux2-kustomize-helm-example", commit: "4f1a5b1", change: "a claim removed from an app an ArtifactGenerator's ExternalArtifact carries", flags: []string{"--path", "clusters/production"},
		build: func(t *testing.T) (string, string) {
			r := gittest.New(t, externalArtifactRepo)
			base := r.Git("rev-parse", "HEAD")
			r.Write(map[string]string{
				"apps/base/podinfo/kustomization.yaml": "namespace: podinfo\nresources:\n- namespace.yaml\n",
				"apps/base/podinfo/data.yaml":          "",
			})
			return r.Dir, base
		}},
}

// krobertsonLater is laid out as https://github.com/krobertson/home-ops is at ec9f5d89f9: a
// FluxInstance syncs setup/flux/config, whose Kustomization builds ./kubernetes; no clusters/
// or flux/cluster directory; the top level holds a Taskfile, not a kustomization.yaml.
var krobertsonLater = map[string]string{
	"setup/flux/config/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: cluster-apps
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	"kubernetes/media/plex/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: plex
  namespace: flux-system
spec:
  interval: 1h
  path: ./kubernetes/media/plex/app
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	"kubernetes/media/plex/app/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: media\n",
	".taskfiles/bootstrap/Taskfile.yaml":       "version: '3'\n",
	"setup/omni/cluster.yaml":                  "installer: v1.10.0\n",
}

// The table of commits of public repositories in docs/safe-retire.md is what safe-retire says
// on the fixtures modelled on them, run here: the test fails when the table differs, and -update
// rewrites it.
func TestRealCommitTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| repository | commit | the fixture's change | flags | verdict |\n| --- | --- | --- | --- | --- |\n")
	for _, rc := range realCommits {
		dir, base := rc.build(t)
		verdict := offlineVerdict(t, dir, base, rc.flags)
		fmt.Fprintf(&b, "| [%s](https://github.com/%s) | `%s` | %s | %s | %s |\n", rc.repo, rc.repo, rc.commit, rc.change, flagsCell(rc.flags), cell(verdict))
	}
	checkDocTable(t, "real-commit-table", "TestRealCommitTable", b.String())
}

// runOffline runs `safe-retire --dry-run --offline` with flags on dir against base: the
// result and exit code, or for a refused run (exit 3) its error with dir written REPO.
func runOffline(t *testing.T, dir, base string, flags []string) (res *saferetire.Result, refused string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
	args := append([]string{"--dry-run", "--offline", "--repo", dir, "--base", base, "-o", "json"}, flags...)
	code = cli.Run(ctx, cmd, args, &errOut)
	if code == 3 {
		msg := strings.TrimSpace(errOut.String())
		if i := strings.LastIndex(msg, "\nerror: "); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, strings.ReplaceAll(msg, dir, "REPO"), code
	}
	res = &saferetire.Result{}
	if err := json.Unmarshal(out.Bytes(), res); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	return res, "", code
}

// offlineVerdict runs `safe-retire --dry-run --offline` with flags on dir against base and
// says what it decided: the verdict and exit code, then the unsafe removals, or the error of
// a refused run.
func offlineVerdict(t *testing.T, dir, base string, flags []string) string {
	t.Helper()
	res, refused, code := runOffline(t, dir, base, flags)
	if res == nil {
		return fmt.Sprintf("bad input (%d): `%s`", code, strings.ReplaceAll(refused, "`", "'"))
	}
	var unsafe, other []string
	for _, rm := range res.Removals {
		name := "`" + rm.Object.Kind + " " + strings.TrimPrefix(rm.Object.Namespace+"/", "/") + rm.Object.Name + "`"
		if rm.Unsafe {
			unsafe = append(unsafe, name)
		} else {
			other = append(other, name+" "+string(rm.Outcome))
		}
	}
	sort.Strings(unsafe)
	sort.Strings(other)
	s := fmt.Sprintf("%s (%d)", res.Verdict, res.ExitCode)
	switch {
	case len(unsafe) > 0:
		s += ": unsafe " + strings.Join(unsafe, ", ")
	case len(other) > 0:
		s += ": " + strings.Join(other, ", ")
	case len(res.Removals) == 0:
		s += ": nothing removed"
	}
	for _, g := range res.Incomplete {
		s += "; incomplete: " + g.What
	}
	return s
}

// flagsCell is a row's flags as its table shows them: "detected" (the layout) when none.
func flagsCell(flags []string) string {
	if len(flags) == 0 {
		return "detected"
	}
	return "`" + strings.Join(flags, " ") + "`"
}

// checkDocTable compares docs/safe-retire.md's generated block named block (between
// `<!-- block: generated by test … -->` and `<!-- end block -->`) with table, and rewrites it
// under -update.
func checkDocTable(t *testing.T, block, test, table string) {
	t.Helper()
	const path = "../../docs/safe-retire.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)(<!-- ` + block + `: generated by ` + test + `[^\n]*-->\n).*?(<!-- end ` + block + ` -->)`)
	if !re.Match(doc) {
		t.Fatalf("%s has no generated %s block", path, block)
	}
	want := re.ReplaceAllString(string(doc), "${1}"+strings.ReplaceAll(table, "$", "$$")+"${2}")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, string(doc)); diff != "" {
		t.Errorf("%s: the %s block is not what the runs give (go test -short ./plugins/saferetire -run %s -update) (-runs +doc):\n%s", path, block, test, diff)
	}
}

// cell is s as one markdown table cell: on one line, its pipes escaped.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
