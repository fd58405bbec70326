package charts_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// chartView is what a loaded chart holds, for comparing two loads.
type chartView struct {
	Meta                   string
	Values, Schema         string
	Templates, Files, Raw  map[string]string
	Lock                   string
	Dependencies           []chartView
	TemplateCount, FileCnt int
}

func viewOf(t *testing.T, c *chart.Chart) chartView {
	t.Helper()
	enc := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	byName := func(files []*common.File) map[string]string {
		out := map[string]string{}
		for _, f := range files {
			out[f.Name] = string(f.Data)
		}
		return out
	}
	v := chartView{Meta: enc(c.Metadata), Values: enc(c.Values), Schema: string(c.Schema), Lock: enc(c.Lock),
		Templates: byName(c.Templates), Files: byName(c.Files), Raw: byName(c.Raw), TemplateCount: len(c.Templates), FileCnt: len(c.Files)}
	for _, d := range c.Dependencies() {
		v.Dependencies = append(v.Dependencies, viewOf(t, d))
	}
	return v
}

// A chart directory read from a revision's git objects (never written out) loads as Helm's own
// loader.LoadDir loads it from the disk: .helmignore and Helm's default rules (a dotfile under
// templates/), a byte order mark, values, schema, crds/, a subchart in charts/, and a local
// dependency (file://) from outside the chart built in as from the disk.
func TestLoadChartDirAsHelm(t *testing.T) {
	files := map[string]string{
		"charts/app/Chart.yaml":               "apiVersion: v2\nname: app\nversion: 1.2.3\ndependencies:\n- {name: common, version: 1.0.0, repository: \"file://../common\"}\n- {name: sub, version: 0.1.0}\n",
		"charts/app/values.yaml":              "image: {tag: v1}\nlist: [a, b]\n",
		"charts/app/values.schema.json":       `{"type": "object"}`,
		"charts/app/.helmignore":              "*.md\nignored/\n",
		"charts/app/README.md":                "not loaded\n",
		"charts/app/ignored/x.yaml":           "not loaded\n",
		"charts/app/templates/cm.yaml":        "\xEF\xBB\xBFapiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n",
		"charts/app/templates/_helpers.tpl":   "{{- define \"x\" }}x{{ end }}\n",
		"charts/app/templates/.hidden.yaml":   "not loaded\n",
		"charts/app/crds/widget.yaml":         "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n",
		"charts/app/files/data.txt":           "data\n",
		"charts/app/charts/sub/Chart.yaml":    "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/app/charts/sub/values.yaml":   "sub: true\n",
		"charts/app/charts/sub/templates/s.y": "s\n",
		"charts/common/Chart.yaml":            "apiVersion: v2\nname: common\nversion: 1.0.0\ntype: library\n",
		"charts/common/templates/_lib.tpl":    "{{- define \"lib\" }}lib{{ end }}\n",
	}
	r := gittest.New(t, files)
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.OpenTree(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tree.Close() })

	helmApp, err := loader.LoadDir(filepath.Join(r.Dir, "charts/app"))
	if err != nil {
		t.Fatal(err)
	}
	helmCommon, err := loader.LoadDir(filepath.Join(r.Dir, "charts/common"))
	if err != nil {
		t.Fatal(err)
	}
	helmApp.AddDependency(helmCommon)
	want := viewOf(t, helmApp)
	if want.Raw["README.md"] != "" || want.Templates["templates/.hidden.yaml"] != "" || len(want.Dependencies) != 2 {
		t.Fatalf("the fixture does not exercise the ignore rules and dependencies: %+v", want)
	}

	root := tree.Root()
	ref := charts.Ref{Chart: "app", Source: "GitRepository/flux-system/flux-system", Type: charts.TypeDir, Dir: filepath.Join(root, "charts/app"), Root: root, Files: tree}
	got, err := (&charts.Getter{}).Get(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, viewOf(t, got.Chart)); d != "" {
		t.Fatalf("the chart read from git's objects differs from Helm's load of the disk (-helm +ours):\n%s", d)
	}
	if got.Version != "1.2.3" {
		t.Fatalf("version %q", got.Version)
	}
	// Nothing was written out for it.
	if entries, err := filepath.Glob(filepath.Join(root, "*")); err != nil || len(entries) != 0 {
		t.Fatalf("the revision was written out: %v %v", entries, err)
	}
}
