package fluxchain_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// The platform repository (incident.PlatformRepoFiles): its source is the artifact pushed from
// k8s/, its root Kustomization exists only in the cluster, and its tiers' paths and timeouts
// are placeholders until the overlay patches them. --path clusters/prod draws the chain as
// rendered: effective paths and timeouts, the remote tier not built (URL named), the tenant
// not covered, and no patch file mistaken for a Kustomization.
func TestRepoPlatform(t *testing.T) {
	dir := t.TempDir()
	if err := incident.WriteFiles(dir, incident.PlatformRepoFiles()); err != nil {
		t.Fatal(err)
	}
	dir = gittest.In(t, dir, nil).Dir

	out, errOut, code := runRepo(t, "--repo", dir, "--path", incident.PlatformEntry, "-o", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (monitoring did not build)\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "source root k8s (detected: the entry path clusters/prod resolves only under k8s/), entry path clusters/prod (given with --path)") {
		t.Errorf("stderr does not say which root was used:\n%s", errOut)
	}
	var res struct {
		Layout struct{ SourceRoot, Entry string }
		Nodes  []struct {
			Namespace, Name, Path, Timeout string
			DependsOn                      []string
		} `json:"kustomizations"`
		BuildFailures []struct {
			Kustomization string
			RemoteURLs    []string
		}
		NotCovered []report.Gap
		Lint       []struct{ Rule, File string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Layout.SourceRoot != "k8s" || res.Layout.Entry != "clusters/prod" {
		t.Errorf("layout %+v", res.Layout)
	}
	got := map[string]string{}
	for _, n := range res.Nodes {
		got[n.Name] = n.Path + " " + n.Timeout + " " + strings.Join(n.DependsOn, ",")
	}
	want := map[string]string{
		"infra":      "clusters/prod/infra 20m0s ",
		"apps":       "apps 5m0s flux-system/infra",
		"monitoring": "providers/hetzner/monitoring 10m0s flux-system/infra",
		"tenant-a":   "deploy 9m30s ",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("Kustomization %s: %q, want %q (all: %v)", name, got[name], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Kustomizations %v, want exactly %v", got, want)
	}
	if len(res.BuildFailures) != 1 || res.BuildFailures[0].Kustomization != "flux-system/monitoring" ||
		len(res.BuildFailures[0].RemoteURLs) != 1 || res.BuildFailures[0].RemoteURLs[0] != incident.PlatformRemoteURL {
		t.Errorf("build failures %+v", res.BuildFailures)
	}
	if len(res.NotCovered) != 1 || res.NotCovered[0].Subject.Name != "tenant-a" || res.NotCovered[0].Subject.Kind != "Kustomization" ||
		res.NotCovered[0].Reason != report.GapNotRead || !strings.HasPrefix(res.NotCovered[0].String(), "flux-system/tenant-a: ") {
		t.Errorf("not covered %+v", res.NotCovered)
	}
	for _, f := range res.Lint {
		if f.File != "" && !strings.HasPrefix(f.File, "k8s/") {
			t.Errorf("finding %s names %s, not a path from the repository's top level", f.Rule, f.File)
		}
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--source-root", "nope"}, "--source-root nope is not a directory of the repository"},
		{[]string{"--source-root", ".", "--path", incident.PlatformEntry}, "the entry path clusters/prod is not a directory under --source-root ."},
		{[]string{"--path", "clusters/staging"}, "the entry path clusters/staging is not a directory of the repository, nor of any directory in it: give the artifact's root with --source-root"},
	} {
		out, errOut, code := runRepo(t, append([]string{"--repo", dir}, bad.args...)...)
		if code != 3 || !strings.Contains(errOut, bad.want) || out != "" {
			t.Errorf("%v: exit %d, want 3 and %q\n%s", bad.args, code, bad.want, errOut)
		}
	}

	text, _, _ := runRepo(t, "--repo", dir, "--path", incident.PlatformEntry)
	for _, w := range []string{"flux-system/infra", "clusters/prod/infra", "20m", incident.PlatformRemoteURL, "tenant-a"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q\n%s", w, text)
		}
	}
	for _, leak := range []string{"ENC[", "c2VjcmV0LXZhbHVl"} {
		if strings.Contains(out+text, leak) {
			t.Errorf("output shows SOPS ciphertext %q", leak)
		}
	}
}
