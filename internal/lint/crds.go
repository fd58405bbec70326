package lint

import (
	"bytes"
	"fmt"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Bounds on reading CRD manifests: they come from the repository.
const (
	maxCRDFileBytes = 16 << 20
	maxCRDFiles     = 5000
)

// CRDSet is the CRDs declared present before Flux: whole API groups and single group/Kinds.
type CRDSet struct {
	groups, kinds map[string]bool
	// Sources say where each declaration came from, for the result ("--crds", a file).
	Sources []string
}

// Add declares a group ("monitoring.coreos.com") or a group/Kind ("cert-manager.io/Issuer").
func (s *CRDSet) Add(decl string) {
	if s.groups == nil {
		s.groups, s.kinds = map[string]bool{}, map[string]bool{}
	}
	if strings.Contains(decl, "/") {
		s.kinds[decl] = true
		return
	}
	s.groups[decl] = true
}

// Has reports whether the CRD serving group/kind is declared present.
func (s *CRDSet) Has(group, kind string) bool {
	return s != nil && (s.groups[group] || s.kinds[group+"/"+kind])
}

// Len counts the declarations.
func (s *CRDSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.groups) + len(s.kinds)
}

// AddManifests reads the CustomResourceDefinitions in path (a YAML file, or every .yaml and
// .yml file below a directory; symbolic links are not followed) and declares each one's
// group/Kind. Other documents are skipped; nothing is executed or templated. A path without
// any CRD is an error, so a wrong path is not a silent no-op.
func (s *CRDSet) AddManifests(path string) (int, error) {
	n, files := 0, 0
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != path && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case d.IsDir() || !d.Type().IsRegular():
			return nil
		case p != path && !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml"):
			return nil
		}
		if files++; files > maxCRDFiles {
			return fmt.Errorf("more than %d files", maxCRDFiles)
		}
		found, err := s.addFile(p)
		n += found
		return err
	})
	if err != nil {
		return n, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: %w", path, errNotCRD)
	}
	s.Sources = append(s.Sources, path)
	return n, nil
}

func (s *CRDSet) addFile(p string) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCRDFileBytes+1))
	if err != nil {
		return 0, err
	}
	if len(data) > maxCRDFileBytes {
		return 0, fmt.Errorf("%s: larger than %d bytes", p, maxCRDFileBytes)
	}
	n := 0
	objs, err := ssautil.ReadObjects(bytes.NewReader(data))
	for _, u := range objs {
		if g, k := crdKind(u); g != "" && k != "" {
			s.Add(g + "/" + k)
			n++
		}
	}
	if err != nil {
		return n, fmt.Errorf("%s: %s", p, oneLine(err.Error()))
	}
	return n, nil
}

// crdKind is the group and kind a CustomResourceDefinition serves; "" for other objects.
func crdKind(u *unstructured.Unstructured) (group, kind string) {
	if u.GetKind() != "CustomResourceDefinition" {
		return "", ""
	}
	group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
	kind, _, _ = unstructured.NestedString(u.Object, "spec", "names", "kind")
	return group, kind
}
