package charts

import (
	"bytes"
	"fmt"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Bounds of a declaration scan: a repository is read as untrusted input.
const (
	maxScanFiles     = 50000
	maxScanFileBytes = 4 << 20
	maxScanDocs      = 100000
)

// Declared is one chart a revision's HelmReleases install from a remote source, with the
// files that declare it.
type Declared struct {
	Ref   Ref
	Files []string
}

// Skip is a HelmRelease whose chart a declaration scan does not name: a reason, and the file.
type Skip struct {
	File   string `json:"file"`
	Object string `json:"object"`
	Reason string `json:"reason"`
}

// Scan is what a directory's YAML files declare: remote charts, and the HelmReleases skipped.
type Scan struct {
	Charts  []Declared
	Skipped []Skip
	// URLs are the spec.url of every HelmRepository and OCIRepository declared.
	URLs map[string]bool
}

// ScanDeclared reads the YAML files under root (no build: the files as written, .git and
// symbolic links left alone, bounded in files and bytes) for HelmRepository, OCIRepository,
// HelmChart and HelmRelease objects, and names the chart and version each HelmRelease
// installs from a HelmRepository or an OCIRepository. A HelmRelease whose chart or source
// holds a Flux substitution (${VAR}), or whose source the files do not declare, is skipped
// with the reason; a chart from a GitRepository is read from the repository and needs nothing.
// Namespaces a kustomization sets are not known: a source is matched by kind and name when
// only one declares that name.
func ScanDeclared(root string) (*Scan, error) {
	var hrs, srcObjs []*unstructured.Unstructured
	files := map[*unstructured.Unstructured]string{}
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if !d.Type().IsRegular() || (ext != ".yaml" && ext != ".yml") {
			return nil
		}
		if n++; n > maxScanFiles {
			return fmt.Errorf("more than %d YAML files", maxScanFiles)
		}
		rel, _ := filepath.Rel(root, p)
		objs, err := readObjects(p)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
		}
		for _, o := range objs {
			files[o] = filepath.ToSlash(rel)
			if o.GetKind() == "HelmRelease" {
				hrs = append(hrs, o)
			} else {
				srcObjs = append(srcObjs, o)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return resolveDeclared(hrs, srcObjs, files), nil
}

// readObjects decodes the Flux source and HelmRelease objects of one file; a file that is no
// Kubernetes YAML (a values file, a template) yields none.
func readObjects(p string) ([]*unstructured.Unstructured, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxScanFileBytes {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte("toolkit.fluxcd.io")) {
		return nil, nil
	}
	// Not Kubernetes YAML past an error: what decoded before it is kept.
	objs, _ := ssautil.ReadObjects(bytes.NewReader(data))
	var out []*unstructured.Unstructured
	for i, u := range objs {
		if i == maxScanDocs {
			break
		}
		g := u.GroupVersionKind().Group
		switch {
		case g == "helm.toolkit.fluxcd.io" && u.GetKind() == "HelmRelease",
			g == "source.toolkit.fluxcd.io" && (u.GetKind() == "HelmRepository" || u.GetKind() == "OCIRepository" || u.GetKind() == "HelmChart"):
			out = append(out, u)
		}
	}
	return out, nil
}

// resolveDeclared names each HelmRelease's chart through the sources declared beside it.
func resolveDeclared(hrs, srcObjs []*unstructured.Unstructured, files map[*unstructured.Unstructured]string) *Scan {
	s := &Scan{URLs: map[string]bool{}}
	srcs := IndexSources(srcObjs)
	for _, o := range srcObjs {
		if u, _, _ := unstructured.NestedString(o.Object, "spec", "url"); u != "" && o.GetKind() != "HelmChart" {
			s.URLs[u] = true
		}
	}
	byKey := map[string]*Declared{}
	for _, hr := range hrs {
		file := files[hr]
		name := "HelmRelease " + strings.TrimPrefix(hr.GetNamespace()+"/"+hr.GetName(), "/")
		skip := func(reason string) { s.Skipped = append(s.Skipped, Skip{File: file, Object: name, Reason: reason}) }
		if kind := sourceKind(hr); kind == "GitRepository" || kind == "Bucket" || kind == "ExternalArtifact" {
			continue // a chart in the repository (or another artifact): nothing to fetch
		}
		hr = matchNamespaces(hr, srcs)
		ref, err := RefFor(hr, srcs, Repository{})
		if err != nil {
			skip(err.Error())
			continue
		}
		if strings.Contains(ref.Chart+ref.Version+ref.URL, "${") {
			skip(fmt.Sprintf("%s holds a Flux substitution, which only a build resolves", ref))
			continue
		}
		if ref.Type == TypeDir {
			continue
		}
		key := DeclaredID(Declared{Ref: ref})
		d := byKey[key]
		if d == nil {
			d = &Declared{Ref: ref}
			byKey[key] = d
		}
		if !slices.Contains(d.Files, file) {
			d.Files = append(d.Files, file)
		}
	}
	for _, d := range byKey {
		sort.Strings(d.Files)
		s.Charts = append(s.Charts, *d)
	}
	sort.Slice(s.Charts, func(i, j int) bool {
		a, b := s.Charts[i].Ref, s.Charts[j].Ref
		if a.Chart != b.Chart {
			return a.Chart < b.Chart
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Version < b.Version
	})
	sort.SliceStable(s.Skipped, func(i, j int) bool {
		return s.Skipped[i].File+s.Skipped[i].Object < s.Skipped[j].File+s.Skipped[j].Object
	})
	return s
}

func sourceKind(hr *unstructured.Unstructured) string {
	if k, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "kind"); k != "" {
		return k
	}
	k, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "sourceRef", "kind")
	return k
}

// matchNamespaces returns hr, or a copy whose source reference names the namespace of the one
// source of that kind and name the files declare, when the namespace it implies (often set by
// a kustomization, not in the file) declares none. A source without a namespace is indexed
// under the namespace the HelmRelease implies.
func matchNamespaces(hr *unstructured.Unstructured, srcs Sources) *unstructured.Unstructured {
	path := []string{"spec", "chart", "spec", "sourceRef"}
	if k, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "kind"); k != "" {
		path = []string{"spec", "chartRef"}
	}
	kind, _, _ := unstructured.NestedString(hr.Object, append(path, "kind")...)
	name, _, _ := unstructured.NestedString(hr.Object, append(path, "name")...)
	ns := nsOr(hr, append(path, "namespace")...)
	if _, ok := srcs[kind+"/"+ns+"/"+name]; ok {
		return hr
	}
	var found *unstructured.Unstructured
	for key, src := range srcs {
		if strings.HasPrefix(key, kind+"/") && src.GetName() == name {
			if found != nil {
				return hr // several: which one the HelmRelease means is not known
			}
			found = src
		}
	}
	if found == nil {
		return hr
	}
	out := hr.DeepCopy()
	if found.GetNamespace() == "" {
		srcs[kind+"/"+ns+"/"+name] = found
		return out
	}
	_ = unstructured.SetNestedField(out.Object, found.GetNamespace(), append(path, "namespace")...)
	return out
}
