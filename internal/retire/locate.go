package retire

import (
	"bytes"
	"errors"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// The bounds of locating an object in its manifest: a file is read only up to maxLocateBytes
// and maxLocateDocs YAML documents; past them the object has no line (0), never a wrong one.
const (
	maxLocateBytes = 4 << 20
	maxLocateDocs  = 2000
)

// locateLine returns the 1-based line of the `kind:` key of the document in file that declares
// ref, or 0 when it is not found within the bounds. The file is parsed as YAML (node
// positions), not matched as text: a document is ref when its kind and metadata.name are
// ref's and its namespace, when it writes one, is ref's (kustomize's namespace transformer may
// set one the file does not write). When no document matches by name (a prefix, a patch or a
// substitution renamed it), the only document of ref's kind is taken.
func locateLine(files gitrev.Files, file string, ref Ref) int {
	if fi, err := files.Stat(file); err != nil || fi.Size() > maxLocateBytes*4 {
		return 0 // far past the bound: not read at all
	}
	data, err := files.ReadFile(file)
	if err != nil {
		return 0
	}
	dec := yaml.NewDecoder(io.LimitReader(bytes.NewReader(data), maxLocateBytes))
	named, ofKind, kinds, complete := 0, 0, 0, false
	for range maxLocateDocs {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if !errors.Is(err, io.EOF) {
				return 0 // a document cut by the bound, or not YAML: trust nothing read
			}
			complete = true
			break
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		m := doc.Content[0]
		if kind := mapValue(m, "kind"); kind == nil || kind.Value != ref.Kind {
			continue
		}
		kinds++
		ofKind = keyLine(m, "kind")
		meta := mapValue(m, "metadata")
		if meta == nil || named > 0 {
			continue
		}
		if name, ns := mapValue(meta, "name"), mapValue(meta, "namespace"); name != nil && name.Value == ref.Name && (ns == nil || ns.Value == ref.Namespace) {
			named = ofKind
		}
	}
	switch {
	case named > 0:
		return named
	case complete && kinds == 1:
		return ofKind
	}
	return 0
}

// mapValue is the value of key in mapping m, nil when absent.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// keyLine is the line of key in mapping m, 0 when absent.
func keyLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}
