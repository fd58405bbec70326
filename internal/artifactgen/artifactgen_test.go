package artifactgen

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// copySource is a source root shaped like fluxcd/flux2-kustomize-helm-example (apps/base,
// apps/production, infrastructure/…) with the files a real checkout also holds.
var copySource = map[string]string{
	"apps/base/podinfo/kustomization.yaml":     "resources:\n- release.yaml\n",
	"apps/base/podinfo/release.yaml":           "kind: HelmRelease\n",
	"apps/base/podinfo/README.md":              "notes\n",
	"apps/base/podinfo/testdata/x.yaml":        "kind: Test\n",
	"apps/production/kustomization.yaml":       "resources:\n- ../base/podinfo\n",
	"apps/production/podinfo-values.yaml":      "a: 1\n",
	"infrastructure/controllers/cm.yaml":       "kind: ConfigMap\n",
	"infrastructure/configs/issuer.yaml":       "kind: ClusterIssuer\n",
	"values/base.yaml":                         "image:\n  tag: v1\n  pull: Always\nlist: [1, 2]\n",
	"values/prod.yaml":                         "image:\n  tag: v2\nlist: [3]\n",
	".github/workflows/ci.yaml":                "on: push\n",
	"infrastructure/configs/.sourceignore":     "skipped.yaml\n",
	"infrastructure/configs/skipped.yaml":      "kind: Skipped\n",
	"infrastructure/configs/logo.png":          "png",
	"infrastructure/controllers/sub/deep.yaml": "kind: Deep\n",
}

// runCopy applies ops to a fresh copy of copySource and returns the artifact's files.
func runCopy(t *testing.T, ops ...copyOp) (map[string]string, error) {
	t.Helper()
	src, dst := t.TempDir(), t.TempDir()
	if err := incident.WriteFiles(src, copySource); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	budget := int64(maxArtifactBytes)
	c := &copier{budget: &budget, mu: &mu, files: map[string]string{}}
	err := c.run(src, dst, ops)
	return readTree(t, dst), err
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestCopyRules follows source-watcher's documented cp-like semantics
// (https://github.com/fluxcd/source-watcher/blob/main/docs/spec/v1beta1/artifactgenerators.md).
func TestCopyRules(t *testing.T) {
	cases := []struct {
		name string
		ops  []copyOp
		want []string
	}{
		{"contents with /**, as flux2-kustomize-helm-example copies apps", []copyOp{
			{From: "@monorepo/apps/base/**", To: "@artifact/base/"},
			{From: "@monorepo/apps/production/**", To: "@artifact/production/"},
		}, []string{"base/podinfo/README.md", "base/podinfo/kustomization.yaml", "base/podinfo/release.yaml", "base/podinfo/testdata/x.yaml", "production/kustomization.yaml", "production/podinfo-values.yaml"}},
		{"a directory with trailing slash becomes a subdirectory", []copyOp{{From: "@r/infrastructure/controllers/", To: "@artifact/infra/"}},
			[]string{"infra/controllers/cm.yaml", "infra/controllers/sub/deep.yaml"}},
		// The documentation says `@source/configs/*.yaml` to `@artifact/apps/` makes
		// apps/file1.yaml; the controller's code (calculateGlobDestination) keeps the matched
		// path, which is what the cluster gets.
		{"a glob without ** matches one level and keeps its path", []copyOp{{From: "@r/infrastructure/controllers/*.yaml", To: "@artifact/x/"}},
			[]string{"x/infrastructure/controllers/cm.yaml"}},
		{"** in io/fs globs is one element, as in source-watcher", []copyOp{{From: "@r/infrastructure/**/*.yaml", To: "@artifact/"}},
			[]string{"infrastructure/configs/issuer.yaml", "infrastructure/controllers/cm.yaml"}},
		{"a file to a file name", []copyOp{{From: "@r/values/prod.yaml", To: "@artifact/app/values.yaml"}}, []string{"app/values.yaml"}},
		{"a file into a directory", []copyOp{{From: "@r/values/prod.yaml", To: "@artifact/app/"}}, []string{"app/prod.yaml"}},
		{"excludes by name and from the selection root", []copyOp{{From: "@r/apps/base/**", To: "@artifact/", Exclude: []string{"*.md", "podinfo/testdata/**"}}},
			[]string{"podinfo/kustomization.yaml", "podinfo/release.yaml"}},
		{"the source's ignore rules (.sourceignore, images) hold", []copyOp{{From: "@r/infrastructure/configs/**", To: "@artifact/"}},
			[]string{".sourceignore", "issuer.yaml"}},
		{"an ignored directory is not in the source", []copyOp{{From: "@r/.github/", To: "@artifact/"}}, nil},
		{"no match is an error", []copyOp{{From: "@r/nothing/*.yaml", To: "@artifact/"}}, nil},
		{"the whole source root", []copyOp{{From: "@r/infrastructure/configs/", To: "@artifact/"}}, []string{"configs/.sourceignore", "configs/issuer.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runCopy(t, tc.ops...)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("want an error, got files %v", keys(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(keys(got), tc.want) {
				t.Errorf("files = %v, want %v", keys(got), tc.want)
			}
		})
	}
}

func TestCopyStrategies(t *testing.T) {
	got, err := runCopy(t, copyOp{From: "@r/values/base.yaml", To: "@artifact/values.yaml"},
		copyOp{From: "@r/values/prod.yaml", To: "@artifact/values.yaml", Strategy: strategyMerge})
	if err != nil {
		t.Fatal(err)
	}
	if want := "image:\n  pull: Always\n  tag: v2\nlist:\n- 3\n"; got["values.yaml"] != want {
		t.Errorf("merged = %q, want %q", got["values.yaml"], want)
	}
	got, err = runCopy(t, copyOp{From: "@r/values/base.yaml", To: "@artifact/values.yaml"},
		copyOp{From: "@r/values/prod.yaml", To: "@artifact/values.yaml"})
	if err != nil || got["values.yaml"] != copySource["values/prod.yaml"] {
		t.Errorf("overwrite = %q, %v; want the later file", got["values.yaml"], err)
	}
}

// TestCopyConfinement: a generator is untrusted input; nothing outside the source root is read
// and nothing outside the artifact is written, whatever the paths or symlinks say.
func TestCopyConfinement(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("kind: Secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		op      copyOp
		symlink string // a symlink at src/link pointing here
	}{
		{"dot-dot in a path", copyOp{From: "@r/../" + filepath.Base(outside) + "/secret.yaml", To: "@artifact/"}, ""},
		{"dot-dot in a glob", copyOp{From: "@r/../*/secret.yaml", To: "@artifact/"}, ""},
		{"an absolute path", copyOp{From: "@r//" + strings.TrimPrefix(outside, "/") + "/secret.yaml", To: "@artifact/"}, ""},
		{"a symlinked directory", copyOp{From: "@r/link/", To: "@artifact/"}, outside},
		{"a symlinked file through a glob", copyOp{From: "@r/link/*.yaml", To: "@artifact/"}, outside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, dst := t.TempDir(), t.TempDir()
			if err := incident.WriteFiles(src, copySource); err != nil {
				t.Fatal(err)
			}
			if tc.symlink != "" {
				if err := os.Symlink(tc.symlink, filepath.Join(src, "link")); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			budget := int64(maxArtifactBytes)
			err := (&copier{budget: &budget, mu: &mu, files: map[string]string{}}).run(src, dst, []copyOp{tc.op})
			for name, content := range readTree(t, dst) {
				if strings.Contains(content, "Secret") {
					t.Fatalf("read outside the source root into %s (err %v)", name, err)
				}
			}
			if err == nil {
				t.Fatal("want an error")
			}
		})
	}
	t.Run("a destination that climbs stays in the artifact", func(t *testing.T) {
		parent := t.TempDir()
		src, dst := filepath.Join(parent, "src"), filepath.Join(parent, "dst")
		if err := incident.WriteFiles(src, copySource); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		budget := int64(maxArtifactBytes)
		_ = (&copier{budget: &budget, mu: &mu, files: map[string]string{}}).run(src, dst, []copyOp{{From: "@r/values/prod.yaml", To: "@artifact/../../escaped.yaml"}})
		if _, err := os.Stat(filepath.Join(parent, "escaped.yaml")); err == nil {
			t.Fatal("wrote outside the artifact")
		}
	})
	t.Run("the size budget", func(t *testing.T) {
		src, dst := t.TempDir(), t.TempDir()
		if err := incident.WriteFiles(src, copySource); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		budget := int64(10)
		err := (&copier{budget: &budget, mu: &mu, files: map[string]string{}}).run(src, dst, []copyOp{{From: "@r/apps/**", To: "@artifact/"}})
		if err == nil || !strings.Contains(err.Error(), "size limit") {
			t.Fatalf("err = %v, want the size limit", err)
		}
	})
}

// TestPathPattern follows the pathPattern example of source-watcher's ArtifactGenerator
// documentation: one artifact per matching directory, named from the lower-cased captures.
func TestPathPattern(t *testing.T) {
	root := t.TempDir()
	if err := incident.WriteFiles(root, map[string]string{
		"apps/Auth/envs/dev/cm.yaml":      "kind: ConfigMap\n",
		"apps/payments/envs/prod/cm.yaml": "kind: ConfigMap\n",
		"apps/payments/base/cm.yaml":      "kind: ConfigMap\n",
		".github/apps/x/envs/y/cm.yaml":   "kind: ConfigMap\n",
	}); err != nil {
		t.Fatal(err)
	}
	gen := decodeObject(t, `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: apps
  namespace: apps
spec:
  sources:
    - alias: monorepo
      kind: GitRepository
      name: monorepo
  pathPattern: "@monorepo/apps/{app}/envs/{env}"
  artifacts:
    - name: "{app}-{env}"
      copy:
        - from: "@monorepo/apps/{app}/envs/{env}/**"
          to: "@artifact/"
`)
	var got []string
	for _, g := range generatorArtifacts(gen, root) {
		got = append(got, g.Artifact+" "+g.Copy[0].From+" "+strings.Join(g.Sources, ","))
	}
	want := []string{
		"apps/auth-dev @monorepo/apps/Auth/envs/dev/** GitRepository/apps/monorepo",
		"apps/payments-prod @monorepo/apps/payments/envs/prod/** GitRepository/apps/monorepo",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("artifacts = %q, want %q", got, want)
	}
}

// decodeObject reads one object written as YAML.
func decodeObject(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}
