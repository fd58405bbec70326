package gitops

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

func TestGitURL(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"https", "https://github.com/damacus/home-ops", "github.com/damacus/home-ops"},
		{"https .git", "https://github.com/damacus/home-ops.git", "github.com/damacus/home-ops"},
		{"trailing slash", "https://github.com/damacus/home-ops/", "github.com/damacus/home-ops"},
		{"ssh", "ssh://git@github.com/damacus/home-ops.git", "github.com/damacus/home-ops"},
		{"ssh port 22", "ssh://git@github.com:22/damacus/home-ops", "github.com/damacus/home-ops"},
		{"scp-like", "git@github.com:damacus/home-ops.git", "github.com/damacus/home-ops"},
		{"host case", "https://GitHub.com/damacus/home-ops", "github.com/damacus/home-ops"},
		{"path case kept", "https://github.com/Damacus/home-ops", "github.com/Damacus/home-ops"},
		{"other port", "ssh://git@git.example.com:2222/ops/fleet", "git.example.com:2222/ops/fleet"},
		{"variable", "https://github.com/${OWNER}/home-ops", ""},
		{"file", "file:///srv/git/home-ops", ""},
		{"empty", "", ""},
		{"no path", "https://github.com/", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gitURL(c.in); got != c.want {
				t.Errorf("gitURL(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestGitRef(t *testing.T) {
	for _, c := range []struct {
		name string
		in   map[string]string
		want string
	}{
		{"branch", map[string]string{"branch": "main"}, "refs/heads/main"},
		{"name of a branch", map[string]string{"name": "refs/heads/main"}, "refs/heads/main"},
		{"tag", map[string]string{"tag": "v1"}, "refs/tags/v1"},
		{"commit wins", map[string]string{"branch": "main", "commit": "ABC123"}, "commit:abc123"},
		{"name over tag", map[string]string{"name": "refs/tags/v2", "tag": "v1"}, "refs/tags/v2"},
		{"semver over tag", map[string]string{"semver": ">=1.0", "tag": "v1"}, "semver:>=1.0"},
		{"short name", map[string]string{"name": "main"}, ""},
		{"variable", map[string]string{"branch": "${BRANCH}"}, ""},
		{"none", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gitRef(c.in); got != c.want {
				t.Errorf("gitRef(%v) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestSameRepositoryCovered: a GitRepository of the root's url and ref (the FluxInstance's
// sync) is this repository, its tiers built, wherever in the walk it is declared; another
// url, another branch or a url from a variable is another repository, not covered.
func TestSameRepositoryCovered(t *testing.T) {
	r := gittest.New(t, gitopsfixture.SameRepository())
	tree, err := Load(context.Background(), r.Dir, LoadOptions{Entry: "kubernetes/flux/cluster"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "GitRepository/flux-system/flux-system"; tree.Source != want {
		t.Fatalf("Source = %s, want %s", tree.Source, want)
	}
	forgejo := tree.Tiers["flux-system/forgejo"]
	if forgejo == nil || forgejo.NotCovered != "" || forgejo.Err != nil {
		t.Fatalf("forgejo (home-kubernetes, this repository): %+v, want built", forgejo)
	}
	if got := strings.Join(ids(forgejo.Objects), " "); !strings.Contains(got, "forgejo") {
		t.Errorf("forgejo built %s, want its claim", got)
	}
	for id, src := range map[string]string{
		"flux-system/vendored":  "GitRepository/flux-system/vendor",
		"flux-system/next":      "GitRepository/flux-system/next",
		"flux-system/templated": "GitRepository/flux-system/templated",
	} {
		if tier := tree.Tiers[id]; tier == nil || !strings.Contains(tier.NotCovered, src) || len(tier.Objects) != 0 {
			t.Errorf("tier %s: %+v, want not covered naming %s", id, tier, src)
		} else if id != "flux-system/templated" && strings.Contains(tier.NotCovered, "not known") {
			t.Errorf("tier %s: %+v, want not covered naming %s", id, tier, src)
		}
	}
}

func TestSameRepositoryRules(t *testing.T) {
	files := gitopsfixture.SameRepository()
	for _, c := range []struct {
		name, file, from, to string
		covered              bool
		why                  string
	}{
		{"as declared", "", "", "", true, ""},
		{"no FluxInstance: the root's url unknown", "kubernetes/apps/flux-system/flux-instance/instance.yaml", "kind: FluxInstance", "kind: NotAFluxInstance", false, "the repository's own url and ref are not known"},
		{"a short ref cannot be compared", "kubernetes/apps/flux-system/flux-instance/instance.yaml", `"refs/heads/main"`, `"main"`, false, "has no url and ref that compare"},
		{"ssh spelling", "kubernetes/flux/config/cluster.yaml", `"https://github.com/damacus/home-ops"`, `ssh://git@github.com/damacus/home-ops.git`, true, ""},
		{"include adds another repository", "kubernetes/flux/config/cluster.yaml", "  ignore: |", "  include:\n    - repository:\n        name: vendor\n  ignore: |", false, "content of its own"},
		{"ignore leaves the path out", "kubernetes/flux/config/cluster.yaml", "!/kubernetes", "!/docs", false, "its spec.ignore leaves out"},
		{"the source declared nowhere", "kubernetes/apps/flux-system/config/ks.yaml", "./kubernetes/flux/config", "./kubernetes/flux/nothing-here", false, "no build of the repository declares GitRepository/flux-system/home-kubernetes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := map[string]string{}
			for k, v := range files {
				fs[k] = v
			}
			if c.file != "" {
				if !strings.Contains(fs[c.file], c.from) {
					t.Fatalf("%s has no %q", c.file, c.from)
				}
				fs[c.file] = strings.Replace(fs[c.file], c.from, c.to, 1)
			}
			r := gittest.New(t, fs)
			tree, err := Load(context.Background(), r.Dir, LoadOptions{Entry: "kubernetes/flux/cluster"})
			if err != nil {
				t.Fatal(err)
			}
			forgejo := tree.Tiers["flux-system/forgejo"]
			if forgejo == nil {
				t.Fatal("no forgejo tier")
			}
			if covered := forgejo.NotCovered == ""; covered != c.covered {
				t.Errorf("forgejo covered = %v (%s), want %v", covered, forgejo.NotCovered, c.covered)
			}
			if !strings.Contains(forgejo.NotCovered, c.why) {
				t.Errorf("forgejo not covered because %q, want it to say %q", forgejo.NotCovered, c.why)
			}
		})
	}
}
