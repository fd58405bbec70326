package lint

import (
	"errors"
	"io"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// locateNodes finds the object kind/name in the file's text by parsing it as YAML with positions,
// so an object written in flow style ({kind: Kustomization, metadata: {name: apps}}) or with a
// flow-style list ([a, b]) is located as a block-style one is: the line of the first key named
// field within the object, else its kind. 0 when the text does not parse or holds no such object
// (Locate then reads the lines).
func locateNodes(lines []string, kind, name, field string) int {
	dec := kyaml.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
	var byName, byKind []*kyaml.Node
	for {
		var doc kyaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0
		}
		obj := &doc
		if obj.Kind == kyaml.DocumentNode && len(obj.Content) == 1 {
			obj = obj.Content[0]
		}
		if obj.Kind != kyaml.MappingNode || value(obj, "kind") == nil || value(obj, "kind").Value != kind {
			continue
		}
		byKind = append(byKind, obj)
		if md := value(obj, "metadata"); md != nil && value(md, "name") != nil && value(md, "name").Value == name {
			byName = append(byName, obj)
		}
	}
	var hit *kyaml.Node
	switch {
	case len(byName) > 0:
		hit = byName[0]
	case len(byKind) == 1:
		hit = byKind[0]
	default:
		return 0
	}
	if field != "" {
		if k := findKey(hit, field); k != nil {
			return k.Line
		}
	}
	return key(hit, "kind").Line
}

// key is the key node of k in mapping m, nil when m has none; value is its value.
func key(m *kyaml.Node, k string) *kyaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i]
		}
	}
	return nil
}

func value(m *kyaml.Node, k string) *kyaml.Node {
	if m.Kind != kyaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

// findKey is the first key named k below n, depth first in document order.
func findKey(n *kyaml.Node, k string) *kyaml.Node {
	if n.Kind == kyaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return n.Content[i]
			}
			if f := findKey(n.Content[i+1], k); f != nil {
				return f
			}
		}
		return nil
	}
	for _, c := range n.Content {
		if f := findKey(c, k); f != nil {
			return f
		}
	}
	return nil
}
