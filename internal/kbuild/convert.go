package kbuild

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	yaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// fromNode converts a built resource's YAML node into the value unstructured.Unstructured
// holds, as decoding its JSON would: mappings become map[string]any, sequences []any, integers
// int64, other numbers float64, booleans bool, null nil, timestamps their RFC 3339 string,
// everything else its string. It walks
// the node once; marshalling every resource to JSON and back cost a tenth of a large build.
// Aliases are expanded, at most maxAliasNodes nodes of them.
func fromNode(n *yaml.Node) (any, error) {
	return (&converter{}).node(n, false)
}

// converter counts the nodes it reached through an alias.
type converter struct {
	aliased int
}

func (c *converter) node(n *yaml.Node, aliased bool) (any, error) {
	if aliased {
		if c.aliased++; c.aliased > maxAliasNodes {
			return nil, fmt.Errorf("line %d: YAML aliases expand to more than %d nodes", n.Line, maxAliasNodes)
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.node(n.Content[0], aliased)
	case yaml.AliasNode:
		return c.node(n.Alias, true)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
				return nil, fmt.Errorf("line %d: merge keys are not supported", k.Line)
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a mapping key that is not a scalar", k.Line)
			}
			val, err := c.node(v, aliased)
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, ch := range n.Content {
			val, err := c.node(ch, aliased)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		return s, nil
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node kind %d", n.Line, n.Kind)
}

// scalar is one scalar's value by its resolved tag.
func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return b, nil
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return i, nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		return f, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
		}
		// JSON decoding into unstructured turns integral numbers into int64.
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return f, nil
	case "!!timestamp":
		// JSON marshals a decoded timestamp in RFC 3339: a bare date gains its midnight.
		var tm time.Time
		if err := n.Decode(&tm); err == nil {
			return tm.Format(time.RFC3339Nano), nil
		}
	}
	return n.Value, nil
}

// Limits on what one file of a repository may cost to load. kustomize expands every YAML
// alias as it reads a file (kyaml's DeAnchor), so a few hundred bytes of nested aliases (the
// "billion laughs") would become billions of nodes; the file is refused instead, with an
// error naming it, and its build fails.
const (
	// MaxFileSize is the largest file a build reads: GitHub refuses files above 100 MiB.
	MaxFileSize = 100 << 20
	// maxAliasNodes is how many nodes alias expansion may add to one YAML document. Anchors
	// in manifests share a few lines (an env list, a label set); this leaves room for
	// thousands of such uses.
	maxAliasNodes = 200_000
)

// boundedFS is a file system whose every ReadFile is bounded by MaxFileSize and refuses
// YAML whose aliases expand past maxAliasNodes.
type boundedFS struct {
	filesys.FileSystem
}

// ReadFile reads p, at most MaxFileSize bytes of it, and checks its aliases.
func (b boundedFS) ReadFile(p string) ([]byte, error) {
	f, err := b.FileSystem.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if err := CheckLoad(p, data); err != nil {
		return nil, err
	}
	return data, nil
}

// CheckLoad applies the limits to the content of one file (or remote resource) named name.
func CheckLoad(name string, data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("%s: larger than %d MiB, the limit for one file", name, MaxFileSize>>20)
	}
	if err := checkAliases(data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// checkAliases parses data as YAML documents, without expanding anything, and refuses a
// document whose aliases would add more than maxAliasNodes nodes. Content without both an
// anchor and an alias sign is not parsed; content that does not parse is left to the build
// to report.
func checkAliases(data []byte) error {
	if !bytes.ContainsRune(data, '&') || !bytes.ContainsRune(data, '*') {
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return nil
		}
		c := nodeCounter{memo: map[*yaml.Node]int64{}}
		if added := c.expanded(&doc) - c.written(&doc); added > maxAliasNodes {
			return fmt.Errorf("YAML aliases expand to more than %d extra nodes (an alias bomb?); refusing to load it", maxAliasNodes)
		}
	}
}

// nodeCounter counts a document's nodes as written and as expanded, remembering the expanded
// size of every anchored node so the count costs one pass over the written nodes.
type nodeCounter struct {
	memo map[*yaml.Node]int64
}

// limit saturates counts well above any limit, so nested aliases cannot overflow them.
const limit = int64(1) << 40

func (c nodeCounter) expanded(n *yaml.Node) int64 {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		return c.expanded(n.Alias)
	}
	if v, ok := c.memo[n]; ok {
		return v
	}
	total := int64(1)
	for _, ch := range n.Content {
		total = min(total+c.expanded(ch), limit)
	}
	if n.Anchor != "" {
		c.memo[n] = total
	}
	return total
}

func (c nodeCounter) written(n *yaml.Node) int64 {
	total := int64(1)
	for _, ch := range n.Content {
		total += c.written(ch)
	}
	return total
}
