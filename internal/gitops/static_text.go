package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// fileFacts is what a file's text says it may declare that the walk reads, judged
// conservatively: anything unusual counts as "may".
type fileFacts struct {
	// flux: an object of a Flux API the walk reads (Kustomizations, sources, generators,
	// ResourceSets), or an apiVersion or kind a variable supplies.
	flux bool
	// anyName: a ConfigMap or Secret whose name the text does not spell out.
	anyName bool
	// names are the names of the ConfigMaps and Secrets it declares, a variable as "*".
	names []string
	// sum is the digest of the text read (contentSum), "" when it could not be read.
	sum string
}

// harmlessFluxGroups are Flux APIs whose objects the walk does not read.
var harmlessFluxGroups = []string{"helm.toolkit.fluxcd.io", "notification.toolkit.fluxcd.io", "image.toolkit.fluxcd.io"}

// varType reports whether data has an apiVersion or kind that post-build substitution fills
// in: "apiVersion" or "kind", an optional quote, white space (line breaks included), a colon,
// then "${" on the same line; the regular expression (apiVersion|kind)["']?\s*:[^\n]*\$\{
// as a scan (the expression's backtracking took a tenth of a warm gate's time, on files that
// use variables elsewhere; TestVarTypeAsRegexp holds the two together).
func varType(data []byte) bool {
	for _, word := range [][]byte{[]byte("apiVersion"), []byte("kind")} {
		for rest := data; ; {
			i := bytes.Index(rest, word)
			if i < 0 {
				break
			}
			rest = rest[i+len(word):]
			if varAfterWord(rest) {
				return true
			}
		}
	}
	return false
}

// varAfterWord reports whether rest, what follows "apiVersion" or "kind", is ["']?\s*: then
// "${" before the end of the line.
func varAfterWord(rest []byte) bool {
	j := 0
	if j < len(rest) && (rest[j] == '"' || rest[j] == '\'') {
		j++
	}
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t' || rest[j] == '\n' || rest[j] == '\r' || rest[j] == '\f') {
		j++
	}
	if j >= len(rest) || rest[j] != ':' {
		return false
	}
	line := rest[j+1:]
	if k := bytes.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	return bytes.Contains(line, []byte("${"))
}

// facts reads root-relative file f once.
func (s *staticReader) fileFacts(f string) *fileFacts {
	s.mu.Lock()
	ff, ok := s.facts[f]
	s.mu.Unlock()
	if ok {
		return ff
	}
	if ff = s.factsFromPrev(f); ff == nil && s.links.Through(f) {
		ff = &fileFacts{flux: true, anyName: true} // not read through a link: anything
	} else if ff == nil {
		data, err := s.files.ReadFile(s.abs(f))
		if err == nil {
			err = kbuild.CheckLoad(f, data) // the build's own limits: size, alias bombs
		}
		if err != nil {
			ff = &fileFacts{flux: true, anyName: true}
		} else {
			ff = factsOf(data)
		}
	}
	s.mu.Lock()
	s.facts[f] = ff
	s.mu.Unlock()
	return ff
}

// factsOf are the facts of a file's text, with its digest.
func factsOf(data []byte) *fileFacts {
	ff := readFacts(data)
	ff.sum = contentSum(data)
	return ff
}

func readFacts(data []byte) *fileFacts {
	ff := &fileFacts{}
	n := bytes.Count(data, []byte("fluxcd.io"))
	for _, g := range harmlessFluxGroups {
		n -= bytes.Count(data, []byte(g))
	}
	// The pattern needs "${": most files have none, and the scan for it is far cheaper.
	ff.anyName = bytes.Contains(data, []byte("${")) && varType(data)
	ff.flux = n > 0 || bytes.Contains(data, []byte("controlplane.io")) || ff.anyName
	lower := bytes.ToLower(data)
	if !bytes.Contains(lower, []byte("configmap")) && !bytes.Contains(lower, []byte("secret")) {
		return ff
	}
	dec := kyaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return ff
		}
		if err != nil {
			ff.anyName = true // not a mapping, or not YAML: anything
			return ff
		}
		ff.declares(doc)
	}
}

// declares adds the ConfigMaps and Secrets one document declares: itself, or those a
// kustomization's generators make.
func (ff *fileFacts) declares(doc map[string]any) {
	kind, ok := doc["kind"].(string)
	if doc["kind"] != nil && !ok {
		ff.anyName = true
		return
	}
	switch {
	case strings.Contains(kind, "${"):
		ff.anyName = true
	case kind == "ConfigMap" || kind == "Secret":
		name, _, _ := unstructured.NestedString(doc, "metadata", "name")
		ff.addName(name)
	case kind == "" || kind == "Kustomization" || kind == "Component":
		for _, gen := range []string{"configMapGenerator", "secretGenerator"} {
			list, _ := doc[gen].([]any)
			for _, g := range list {
				m, _ := g.(map[string]any)
				name, _ := m["name"].(string)
				ff.addName(name)
			}
		}
	}
}

func (ff *fileFacts) addName(name string) {
	switch {
	case name == "":
		ff.anyName = true
	case strings.Contains(name, "${"):
		ff.names = append(ff.names, varPattern.ReplaceAllString(name, "*"))
	default:
		ff.names = append(ff.names, name)
	}
}

// varPattern is a variable reference in a name.
var varPattern = regexp.MustCompile(`\$\{[^}]*\}?`)

// refNames are the ConfigMap and Secret names postBuild.substituteFrom reads, by name only
// (any namespace); any is set when one is not spelled out.
type refNames struct {
	names map[string]bool
	any   bool
}

// add records ks's substituteFrom names.
func (r *refNames) add(ks kbuild.Kustomization) {
	if ks.Object == nil {
		return
	}
	refs, _, err := unstructured.NestedSlice(ks.Object.Object, "spec", "postBuild", "substituteFrom")
	if err != nil {
		r.any = true
		return
	}
	for _, raw := range refs {
		m, _ := raw.(map[string]any)
		name, ok := m["name"].(string)
		if !ok || name == "" || strings.ContainsAny(name, "$*<{") {
			r.any = true
			continue
		}
		if r.names == nil {
			r.names = map[string]bool{}
		}
		r.names[name] = true
	}
}

func (r *refNames) empty() bool { return !r.any && len(r.names) == 0 }

// match reports whether a declared name (a variable as "*") may be one of r.
func (r *refNames) match(pattern string) bool {
	if r.any {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return r.names[pattern]
	}
	for n := range r.names {
		if globMatch(pattern, n) {
			return true
		}
	}
	return false
}

// globMatch matches s against pattern, whose only wildcard is "*" (any run of characters).
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// discovery says why a tier none of whose inputs changed must still be built: its files may
// declare what the walk reads, Flux objects or a ConfigMap or Secret that a substituteFrom
// of refs names. "" when they cannot, and the tier need not be built at either revision.
func (s *staticReader) discovery(in staticReads, refs *refNames) string {
	for _, f := range in.files {
		ff := s.fileFacts(f)
		switch {
		case ff.flux:
			return f + " may declare Flux objects"
		case refs.empty():
			continue
		case ff.anyName || (in.anyName && len(ff.names) > 0):
			return f + " may declare a ConfigMap or Secret that postBuild.substituteFrom reads"
		}
		for _, n := range ff.names {
			if refs.match(n) {
				return fmt.Sprintf("%s declares %s, which postBuild.substituteFrom reads", f, n)
			}
		}
	}
	return ""
}
