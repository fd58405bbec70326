package gitops

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// TestStaticReadsCoverRecorded checks, over every revision of the pair fixture's history,
// that the paths the static reader finds for a tier cover every path its real build read,
// listed or probed (LoadOptions.RecordInputs): that is what makes leaving a tier whose static
// paths did not change unbuilt sound. Only the remote tier is beyond the reader.
func TestStaticReadsCoverRecorded(t *testing.T) {
	ctx := context.Background()
	g, repo, baseCommit := pairRepo(t)
	for _, c := range pairCases() {
		t.Run(c.name, func(t *testing.T) {
			root := snapshot(t, repo, commitCase(g, "static", baseCommit, c.name, c.files)).Dir
			tree, err := Load(ctx, root, LoadOptions{Entry: "clusters/main", NoFiles: true, RecordInputs: true})
			if err != nil {
				t.Fatal(err)
			}
			s := newStaticReader(root, kbuild.ScanRoot(t.Context(), root).Links)
			for _, id := range tree.IDs() {
				tier := tree.Tiers[id]
				in := s.tier(tier.Kustomization)
				if in.mustBuild != "" {
					if tier.Kustomization.Name != "remote" {
						t.Errorf("%s: the static reader gives up: %s", id, in.mustBuild)
					}
					continue
				}
				for _, p := range tier.Inputs.Paths {
					if !covers(in.paths, p, false) {
						t.Errorf("%s: its build read %s, which no static path covers (%q)", id, p, in.paths)
					}
				}
				for p, kind := range tier.Inputs.Probed {
					if !covers(in.paths, p, kind == "dir") {
						t.Errorf("%s: its build probed %s (%q), which no static path covers (%q)", id, p, kind, in.paths)
					}
				}
			}
		})
	}
}

// TestStaticReaderGivesUp checks that what the reader does not model makes the tier built.
func TestStaticReaderGivesUp(t *testing.T) {
	for _, c := range []struct{ name, kustomization string }{
		{"helm chart", "helmCharts:\n- name: x\n  repo: https://example.com\n"},
		{"unknown field", "fancy: true\n"},
		{"inline transformer", "transformers:\n- |\n  apiVersion: builtin\n  kind: PrefixSuffixTransformer\n"},
		{"outside the root", "resources:\n- ../../../../../etc\n"},
		{"absolute", "resources:\n- /etc/x.yaml\n"},
		{"remote", "resources:\n- github.com/example/platform//base?ref=v1\n"},
		{"not YAML", "resources: [\n"},
		{"alias bomb", aliasBomb()},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := gittest.New(t, map[string]string{"apps/x/kustomization.yaml": c.kustomization}).Dir
			if in := newStaticReader(root, kbuild.ScanRoot(t.Context(), root).Links).tier(kbuild.Kustomization{Path: "apps/x"}); in.mustBuild == "" {
				t.Errorf("the reader bounds %q: %q", c.kustomization, in.paths)
			}
		})
	}
}

// TestFileFacts checks what a file's text may declare for the walk.
func TestFileFacts(t *testing.T) {
	refs := &refNames{names: map[string]bool{"cluster-settings": true}}
	for _, c := range []struct {
		name, text     string
		flux, declares bool
	}{
		{"a Kustomization", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n", true, false},
		{"a ResourceSet", "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\n", true, false},
		{"a HelmRelease", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nspec:\n  valuesFrom:\n  - kind: Secret\n    name: cluster-settings\n", false, false},
		{"a kind from a variable", "apiVersion: v1\nkind: ${KIND}\n", true, true},
		{"the ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n", false, true},
		{"another ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}-alerts\n", false, false},
		{"a name from a variable", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-${X}\n", false, true},
		{"second document", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n", false, true},
		{"a generator", "configMapGenerator:\n- name: cluster-settings\n  literals: [A=b]\n", false, true},
		{"a JSON patch", "- op: replace\n  path: /metadata/name\n  value: cluster-settings # of a ConfigMap\n", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ff := readFacts([]byte(c.text))
			declares := ff.anyName
			for _, n := range ff.names {
				declares = declares || refs.match(n)
			}
			if ff.flux != c.flux || declares != c.declares {
				t.Errorf("flux %t declares %t, want %t %t (%+v)", ff.flux, declares, c.flux, c.declares, ff)
			}
		})
	}
}

// aliasBomb is a kustomization whose aliases expand a billion times (billion laughs).
func aliasBomb() string {
	b := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		b += fmt.Sprintf("a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b += ", "
			}
			b += fmt.Sprintf("*a%d", i-1)
		}
		b += "]\n"
	}
	return b + "resources: []\n"
}
