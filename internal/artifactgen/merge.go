package artifactgen

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// mergeYAMLDocs merges every YAML document of overlay, then of base, into one mapping the way
// Helm merges values files (maps deeply, everything else replaced), overlay winning.
func mergeYAMLDocs(base, overlay []byte) ([]byte, error) {
	b, err := yamlDocsMap(base)
	if err != nil {
		return nil, err
	}
	o, err := yamlDocsMap(overlay)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(mergeValues(b, o))
}

func yamlDocsMap(data []byte) (map[string]any, error) {
	out := map[string]any{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		out = mergeValues(out, m)
	}
}

// mergeValues deep-merges overlay into a copy of base.
func mergeValues(base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(overlay))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range overlay {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}
