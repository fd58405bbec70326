package kbuild_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/kustomize"
	"github.com/fluxcd/pkg/sourceignore"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// TestBuildMatchesController is the fidelity claim of kbuild, checked: every path of every
// fixture repository the build and walk tests use, and of the repositories modelled on public
// ones in plugins/fluxchain/testdata/repo, is built twice, once by kbuild.Build and once the
// way kustomize-controller builds it with its own library (controllerBuild: the artifact
// source-controller makes, fluxcd/pkg/kustomize's generator written to disk and SecureBuild,
// SubstituteVariables in strict mode, ssautil.SetCommonMetadata), and the objects compared one
// by one, in order. A path one side builds and the other refuses is a difference too.
//
// The paths are every directory holding a kustomization file, built as a bootstrap
// Kustomization with only spec.path, and every Flux Kustomization those builds (and theirs,
// level by level) yield, built with its object as rendered. Substitution sources are the
// ConfigMaps the builds declare; a Secret's values are never read by kbuild, which leaves its
// variables as ${NAME}, so the controller is given each Secret key's value as that same
// literal text.
func TestBuildMatchesController(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every fixture path twice, once with kustomize-controller's library (two minutes)")
	}
	for _, tr := range fixtureTrees(t) {
		t.Run(tr.name, func(t *testing.T) {
			units := buildUnits(t, tr.root)
			if len(units) == 0 {
				t.Fatal("no path to build")
			}
			c := sourceClient(t, units)
			cms, secretKeys := kbuild.SubstitutionSources(allObjects(units))
			compared := 0
			for _, u := range units {
				ours := kbuild.Build(t.Context(), tr.root, u.ks, kbuild.Options{NoFiles: true, ConfigMaps: cms, SecretKeys: secretKeys})
				if errors.Is(ours.Err, kbuild.ErrNeedsNetwork) {
					// The controller's build would fetch what kbuild refuses offline; tests
					// never reach the network.
					t.Logf("%s: not compared, it needs the network: %v", u, ours.Err)
					continue
				}
				theirs, err := controllerBuild(t, tr.root, u.ks, c)
				switch {
				case ours.Err != nil && err != nil:
					// Both refuse it (a remote base offline, a Component built on its own).
					t.Logf("%s: refused by both\n  kbuild: %v\n  controller: %v", u, ours.Err, err)
					continue
				case ours.Err != nil:
					t.Errorf("%s: kbuild refuses what the controller builds: %v", u, ours.Err)
					continue
				case err != nil:
					t.Errorf("%s: kbuild builds what the controller refuses: %v", u, err)
					continue
				}
				compared++
				if d := cmp.Diff(objectMaps(theirs), objectMaps(ours.Objects)); d != "" {
					t.Errorf("%s: objects differ (-controller +kbuild):\n%s", u, d)
				}
			}
			if compared == 0 {
				t.Error("no path built on both sides: nothing was compared")
			}
			t.Logf("%d paths, %d compared object by object", len(units), compared)
		})
	}
}

// tree is a repository on disk.
type tree struct {
	name, root string
}

// fixtureTrees writes every fixture repository into a directory of its own.
func fixtureTrees(t *testing.T) []tree {
	t.Helper()
	repos := []struct {
		name  string
		files map[string]string
	}{
		{"gitopsfixture.Repo", gitopsfixture.Repo()},
		{"gitopsfixture.HomeOpsTop", gitopsfixture.HomeOpsTop()},
		{"gitopsfixture.HomeOps", gitopsfixture.HomeOps()},
		{"gitopsfixture.Pair", gitopsfixture.Pair()},
		{"gitopsfixture.ResourceSets", gitopsfixture.ResourceSets()},
		{"gitopsfixture.ExternalArtifacts", gitopsfixture.ExternalArtifacts()},
		{"gitopsfixture.SpecFields", gitopsfixture.SpecFields()},
		{"incident.RepoFiles", incident.RepoFiles()},
		{"boolLabel", boolLabelRepo()},
	}
	var out []tree
	for _, m := range repos {
		root := t.TempDir()
		if err := incident.WriteFiles(root, m.files); err != nil {
			t.Fatal(err)
		}
		out = append(out, tree{m.name, root})
	}
	generated := t.TempDir()
	if _, _, _, err := floor.HomeOps(generated, 3); err != nil {
		t.Fatal(err)
	}
	out = append(out, tree{"floor.HomeOps", generated})
	// plugins/fluxchain's repositories: base, and base with each overlay copied over it.
	testdata := filepath.Join("..", "..", "plugins", "fluxchain", "testdata", "repo")
	overlays, err := os.ReadDir(filepath.Join(testdata, "overlays"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{""}
	for _, o := range overlays {
		names = append(names, o.Name())
	}
	for _, name := range names {
		root := t.TempDir()
		copyTree(t, filepath.Join(testdata, "base"), root, nil)
		if name != "" {
			copyTree(t, filepath.Join(testdata, "overlays", name), root, nil)
		}
		out = append(out, tree{"fluxchain/" + strings.TrimSuffix("base+"+name, "+"), root})
	}
	return out
}

// boolLabelRepo is a repository whose Kustomizations carry an unquoted boolean label, which a
// patch in the parent selects on, as a public home-ops repository Flux reconciled kept for
// months: the labels are not strings in kustomize's output, and kustomize-controller applies
// the Kustomizations all the same.
func boolLabelRepo() map[string]string {
	ks := func(name, extra string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\n" + extra + "spec:\n  interval: 10m\n  path: ./apps/" + name +
			"\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
	}
	return map[string]string{
		"clusters/main/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [settings.yaml, plain.yaml, literal.yaml]
patches:
- target: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization, labelSelector: substitution.flux/enabled notin (false)}
  patch: |
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata: {name: not-used}
    spec:
      postBuild:
        substituteFrom: [{kind: ConfigMap, name: cluster-settings}]
`,
		"clusters/main/settings.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\ndata: {DOMAIN: example.org}\n",
		"clusters/main/plain.yaml":        ks("plain", ""),
		"clusters/main/literal.yaml":      ks("literal", "  labels:\n    substitution.flux/enabled: false\n"),
		"apps/plain/cm.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\ndata: {host: \"app.${DOMAIN}\"}\n",
		"apps/literal/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: literal, namespace: default}\ndata: {host: \"app.${DOMAIN}\"}\n",
		"apps/plain/kustomization.yaml":   "resources: [cm.yaml]\n",
		"apps/literal/kustomization.yaml": "resources: [cm.yaml]\n",
	}
}

// unit is one path to build: a Kustomization, or a plain path as a bootstrap one.
type unit struct {
	ks      kbuild.Kustomization
	objects []*unstructured.Unstructured // what kbuild built, for the substitution sources
}

func (u unit) String() string {
	if u.ks.Name == "" {
		return "path " + u.ks.Path
	}
	return "Kustomization " + u.ks.ID() + " (path " + u.ks.Path + ")"
}

// buildUnits lists the root and every directory of root holding a kustomization file, then,
// level by level, every Flux Kustomization the builds yield (the same object at the same path
// once).
func buildUnits(t *testing.T, root string) []unit {
	t.Helper()
	level := []kbuild.Kustomization{{Path: "."}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		for _, name := range konfig.RecognizedKustomizationFileNames() {
			if fi, err := os.Stat(filepath.Join(p, name)); err == nil && fi.Mode().IsRegular() && p != root {
				rel, _ := filepath.Rel(root, p)
				level = append(level, kbuild.Kustomization{Path: kbuild.CleanPath(filepath.ToSlash(rel))})
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []unit
	for len(level) > 0 {
		var next []kbuild.Kustomization
		for _, ks := range level {
			key := fmt.Sprintf("%s %s %v", ks.ID(), ks.Path, kbuild.Object(ks).Object)
			if seen[key] {
				continue
			}
			seen[key] = true
			res := kbuild.Build(context.Background(), root, ks, kbuild.Options{NoFiles: true})
			out = append(out, unit{ks: ks, objects: res.Objects})
			found, err := kbuild.KustomizationsIn(res.Objects)
			if err != nil {
				// kustomize-controller applies every Kustomization it builds: one left out
				// here would go uncompared.
				t.Errorf("%s: a Kustomization it builds does not decode: %v", ks.Path, err)
			}
			next = append(next, found...)
		}
		level = next
	}
	return out
}

func allObjects(units []unit) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range units {
		out = append(out, u.objects...)
	}
	return out
}

// sourceClient holds what the controller reads for postBuild.substituteFrom: the ConfigMaps
// the builds declare, and each Secret they declare with every key's value the literal ${KEY}.
func sourceClient(t *testing.T, units []unit) client.Client {
	t.Helper()
	cms, secretKeys := kbuild.SubstitutionSources(allObjects(units))
	var objs []client.Object
	for id, data := range cms {
		ns, name, _ := strings.Cut(id, "/")
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data})
	}
	for id, keys := range secretKeys {
		ns, name, _ := strings.Cut(id, "/")
		data := map[string][]byte{}
		for _, k := range keys {
			data[k] = []byte("${" + k + "}")
		}
		objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data})
	}
	return fake.NewClientBuilder().WithObjects(objs...).Build()
}

// controllerBuild builds ks the way kustomize-controller does, with its own library: the
// repository as source-controller's artifact holds it (its .sourceignore rules, or the default
// ones, applied) in a fresh directory, the Kustomization's spec written into the path's
// kustomization file by the generator, SecureBuild on the artifact, every resource checked
// for apiVersion, kind and name and, when the Kustomization has postBuild, substituted in
// strict mode, then the output read as objects and spec.commonMetadata set on them.
func controllerBuild(t *testing.T, root string, ks kbuild.Kustomization, c client.Client) ([]*unstructured.Unstructured, error) {
	t.Helper()
	work := t.TempDir()
	copyTree(t, root, work, artifactFilter(t, root))
	obj := kbuild.Object(ks)
	dir := filepath.Join(work, filepath.FromSlash(ks.Path))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("path %s not found", ks.Path)
	}
	if _, err := kustomize.NewGenerator(work, *obj).WriteFile(dir); err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	m, err := kustomize.SecureBuild(work, dir, false)
	if err != nil {
		return nil, err
	}
	_, hasPostBuild, _ := unstructured.NestedMap(obj.Object, "spec", "postBuild")
	for _, res := range m.Resources() {
		if res.GetName() == "" || res.GetKind() == "" || res.GetApiVersion() == "" {
			return nil, errors.New("a resource without apiVersion, kind or name")
		}
		if !hasPostBuild {
			continue
		}
		out, err := kustomize.SubstituteVariables(context.Background(), c, *obj, res, kustomize.SubstituteWithStrict(true))
		if err != nil {
			return nil, fmt.Errorf("post build failed for '%s/%s': %w", res.GetGvk(), res.GetName(), err)
		}
		if out != nil {
			if _, err := m.Replace(res); err != nil {
				return nil, err
			}
		}
	}
	data, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	objs, err := ssautil.ReadObjects(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	labels, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "commonMetadata", "labels")
	annotations, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "commonMetadata", "annotations")
	ssautil.SetCommonMetadata(objs, labels, annotations)
	return objs, nil
}

// artifactFilter reports the root-relative paths source-controller leaves out of the artifact
// of root: the .sourceignore files' rules after the VCS ones, or with none the default rules.
func artifactFilter(t *testing.T, root string) func(rel string, dir bool) bool {
	t.Helper()
	ps, err := sourceignore.LoadIgnorePatterns(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	matcher := sourceignore.NewDefaultMatcher(ps, nil)
	if len(ps) > 0 {
		matcher = sourceignore.NewMatcher(append(sourceignore.VCSPatterns(nil), ps...))
	}
	return func(rel string, dir bool) bool { return matcher.Match(strings.Split(rel, "/"), dir) }
}

// copyTree copies the regular files under src into dst, leaving out what skip matches.
func copyTree(t *testing.T, src, dst string, skip func(rel string, dir bool) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case skip != nil && skip(rel, d.IsDir()) && d.IsDir():
			return filepath.SkipDir
		case skip != nil && skip(rel, d.IsDir()):
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// objectMaps are objs as plain maps, in order, with each object's id first so a difference
// names it.
func objectMaps(objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, map[string]any{"id": kbuild.ObjectID(o), "object": o.Object})
	}
	return out
}
