package gitops

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// field records what one top-level field of d's kustomization file reads; non-empty when
// the reader does not model it.
func (s *staticReader) field(sd *staticDir, d, key string, v any) string {
	switch key {
	case "apiVersion", "kind", "metadata", "namespace", "commonLabels", "labels", "commonAnnotations",
		"images", "replicas", "buildMetadata", "sortOptions", "generatorOptions", "vars":
		return ""
	case "namePrefix", "nameSuffix":
		sd.anyName = true
		return ""
	case "resources", "bases", "components":
		return s.refs(sd, d, stringsIn(v, ""), true)
	case "generators", "transformers", "validators":
		sd.anyName = true
		for _, e := range stringsIn(v, "") {
			if strings.Contains(e, "\n") {
				return key + " holds an inline configuration"
			}
		}
		return s.refs(sd, d, stringsIn(v, ""), true)
	case "patchesStrategicMerge":
		sd.anyName = true
		var files []string
		for _, e := range stringsIn(v, "") {
			if !strings.Contains(e, "\n") { // else an inline patch
				files = append(files, e)
			}
		}
		return s.refs(sd, d, files, false)
	case "patches", "patchesJson6902", "replacements":
		sd.anyName = true
		return s.refs(sd, d, stringsIn(v, "path"), false)
	case "openapi":
		return s.refs(sd, d, stringsIn(v, "path"), false)
	case "crds", "configurations":
		return s.refs(sd, d, stringsIn(v, ""), false)
	case "configMapGenerator", "secretGenerator":
		var files []string
		for _, f := range append(append(stringsIn(v, "files"), stringsIn(v, "envs")...), stringsIn(v, "env")...) {
			if _, rhs, ok := strings.Cut(f, "="); ok {
				f = rhs // key=path
			}
			files = append(files, f)
		}
		return s.refs(sd, d, files, false)
	}
	return fmt.Sprintf("field %q is not modelled", key)
}

// refs records entries of d's kustomization: a local directory is built as a kustomization
// when asKustomization, else read whole; a file is read; a missing path may appear. A
// remote entry reads nothing local (offline it fails the same at both revisions).
func (s *staticReader) refs(sd *staticDir, d string, entries []string, asKustomization bool) string {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case asKustomization && !isLocalRef(e):
			// Offline it fails at both revisions; the recorded reads of its build say
			// whether it is unchanged (incremental.unchanged).
			return fmt.Sprintf("%q is remote", e)
		}
		j, ok := localJoin(d, e)
		if !ok {
			return fmt.Sprintf("%q lies outside the root", e)
		}
		switch s.kind(j) {
		case "dir":
			if asKustomization {
				sd.dirs = append(sd.dirs, j)
				continue
			}
			files, why := s.filesBelow(j)
			if why != "" {
				return why
			}
			sd.files = append(sd.files, files...)
		case "file":
			sd.files = append(sd.files, j)
		}
		sd.paths = append(sd.paths, j)
	}
	return ""
}

// isLocalRef is kustomize's own test of a resource entry, which fetches what it is not.
func isLocalRef(e string) bool {
	l := strings.ToLower(e)
	for _, p := range []string{"git::", "gh:", "ssh://", "https://", "http://", "git@", "github.com:", "github.com/"} {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	return true
}

// localJoin joins a kustomization's entry to its directory; ok is false for an absolute
// entry or one that leaves the root.
func localJoin(d, e string) (string, bool) {
	if path.IsAbs(e) || filepath.IsAbs(e) {
		return "", false
	}
	j := path.Join(d, e)
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	return j, true
}

// stringsIn collects the strings of v: v itself, or the items of a list, or with key set,
// the values under key in a mapping or in the mappings of a list (a string or a list of
// strings each).
func stringsIn(v any, key string) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if key == "" {
			out = append(out, x)
		}
	case []any:
		for _, e := range x {
			out = append(out, stringsIn(e, key)...)
		}
	case map[string]any:
		if key != "" {
			out = append(out, stringsIn(x[key], "")...)
		}
	}
	return out
}

// stringsAt returns the strings of the list at fields of obj.
func stringsAt(obj map[string]any, fields ...string) []string {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[f]
	}
	return stringsIn(v, "")
}
