package resourceset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"strings"
	"text/template"
	"unicode"

	sprig "github.com/go-task/slim-sprig/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Bounds on what a ResourceSet may make a render do: its templates are untrusted input.
const (
	maxPermutations  = 10000 // the operator's own limit
	maxRenderedBytes = 32 << 20
	maxTemplateLoop  = 10000
)

// combine turns the providers' input sets into the sets each template is rendered with:
// Flatten (the default) concatenates them; Permute scopes each provider's sets under its
// normalised name and takes every combination, each with an id.
func combine(spec rsetSpec, providers []inputSource) ([]map[string]any, error) {
	strategy := "Flatten"
	if spec.InputStrategy != nil && spec.InputStrategy.Name != "" {
		strategy = spec.InputStrategy.Name
	}
	switch strategy {
	case "Flatten":
		var out []map[string]any
		for _, p := range providers {
			out = append(out, p.inputs...)
		}
		return out, nil
	case "Permute":
		return permute(providers, spec.InputStrategy.IncludeEmptyProviders)
	}
	return nil, fmt.Errorf("unknown input strategy %q", strategy)
}

// permute is the Cartesian product of the providers' input sets, the first provider varying
// slowest; a provider without inputs is skipped unless includeEmpty (then nothing results).
func permute(providers []inputSource, includeEmpty bool) ([]map[string]any, error) {
	type scoped struct {
		key  string
		sets []map[string]any
	}
	var all []scoped
	total := 1
	for _, p := range providers {
		if len(p.inputs) == 0 && !includeEmpty {
			continue
		}
		key := normalizeKey(p.name)
		if key == "" {
			return nil, fmt.Errorf("the name of %s %s normalises to nothing", p.kind, p.name)
		}
		if total *= len(p.inputs); total > maxPermutations {
			return nil, fmt.Errorf("more than %d input permutations", maxPermutations)
		}
		all = append(all, scoped{key: key, sets: p.inputs})
	}
	if len(all) == 0 || total == 0 {
		return nil, nil
	}
	out := make([]map[string]any, 0, total)
	idx := make([]int, len(all))
	for {
		perm := map[string]any{}
		var ids []string
		for i, s := range all {
			perm[s.key] = s.sets[idx[i]]
			ids = append(ids, fmt.Sprintf("%s=%d", s.key, idx[i]))
		}
		perm["id"] = fmt.Sprint(adler32.Checksum([]byte(strings.Join(ids, "/"))))
		out = append(out, perm)
		i := len(all) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(all[i].sets) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}

// normalizeKey makes a provider name a template key as the operator does: lower case, spaces
// and punctuation as "_", other characters dropped, runs of "_" collapsed and trimmed.
func normalizeKey(name string) string {
	mapped := strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		switch {
		case unicode.IsSpace(r) || unicode.IsPunct(r):
			return '_'
		case ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
			return r
		}
		return -1
	}, name)
	var words []string
	for _, w := range strings.Split(mapped, "_") {
		if w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, "_")
}

// renderSpec renders the resources (or each step's) with every input set.
func renderSpec(spec rsetSpec, sets []map[string]any) ([]*unstructured.Unstructured, error) {
	if len(spec.Steps) > 0 && (len(spec.Resources) > 0 || spec.ResourcesTemplate != "") {
		return nil, errors.New("spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate")
	}
	if len(spec.Steps) == 0 {
		return renderResources(spec.Resources, spec.ResourcesTemplate, sets)
	}
	var out []*unstructured.Unstructured
	stepOf := map[string]string{}
	for _, st := range spec.Steps {
		objs, err := renderResources(st.Resources, st.ResourcesTemplate, sets)
		if err != nil {
			return nil, fmt.Errorf("step %q: %w", st.Name, err)
		}
		for _, o := range objs {
			if prev, ok := stepOf[objectKey(o)]; ok && prev != st.Name {
				return nil, fmt.Errorf("%s %s in step %q is already in step %q", o.GetKind(), o.GetName(), st.Name, prev)
			}
			stepOf[objectKey(o)] = st.Name
		}
		out = append(out, objs...)
	}
	return out, nil
}

// renderResources renders the JSON resource templates, then the multi-document template, per
// input set (once without inputs when there are none); with inputs, objects annotated
// reconcile: disabled are left out and the first of duplicates kept.
func renderResources(resources []json.RawMessage, yamlTemplate string, sets []map[string]any) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	add := func(objs []*unstructured.Unstructured, withInputs bool) {
		for _, o := range objs {
			k := objectKey(o)
			if withInputs && (o.GetAnnotations()[resourceSetReconcileAnnotation] == "disabled" || seen[k]) {
				continue
			}
			seen[k] = true
			out = append(out, o)
		}
	}
	runs := sets
	if len(runs) == 0 {
		runs = []map[string]any{nil}
	}
	for i, raw := range resources {
		text, err := yaml.JSONToYAML(raw)
		if err != nil {
			return nil, fmt.Errorf("resources[%d]: %w", i, err)
		}
		for _, in := range runs {
			objs, err := renderTemplate(string(text), in)
			if err != nil {
				return nil, fmt.Errorf("resources[%d]: %w", i, err)
			}
			add(objs, len(sets) > 0)
		}
	}
	if yamlTemplate == "" {
		return out, nil
	}
	var fromTemplate []*unstructured.Unstructured
	for _, in := range runs {
		objs, err := renderTemplate(yamlTemplate, in)
		if err != nil {
			return nil, fmt.Errorf("resourcesTemplate: %w", err)
		}
		fromTemplate = append(fromTemplate, objs...)
	}
	add(fromTemplate, true)
	return out, nil
}

// renderTemplate executes one template with the operator's delimiters and functions (Go
// templates with slim-sprig's hermetic functions, toYaml, inputs) and decodes its documents.
// Loops and output are bounded.
func renderTemplate(text string, in map[string]any) ([]*unstructured.Unstructured, error) {
	funcs := template.FuncMap{
		"inputs":     func() any { return in },
		"toYaml":     func(v any) string { b, _ := yaml.Marshal(v); return string(b) },
		"mustToYaml": func(v any) (string, error) { b, err := yaml.Marshal(v); return string(b), err },
		"until":      boundedUntil,
		"untilStep":  func(a, b, s int) ([]int, error) { return boundedRange(a, b, s) },
		"repeat":     boundedRepeat,
	}
	t, err := template.New("resourceset").Delims("<<", ">>").Funcs(sprig.HermeticTxtFuncMap()).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("parsing the template: %w", err)
	}
	w := &limitedBuffer{left: maxRenderedBytes}
	if err := t.Execute(w, nil); err != nil {
		return nil, fmt.Errorf("rendering the template: %w", err)
	}
	return decodeDocs(w.Bytes())
}

// decodeDocs reads every non-empty YAML document as an object with apiVersion, kind and name.
func decodeDocs(data []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("decoding a rendered object: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			return nil, errors.New("a rendered object without apiVersion, kind or name")
		}
		out = append(out, u)
	}
}

// objectKey is an object's identity for de-duplication: group, kind, namespace, name.
func objectKey(o *unstructured.Unstructured) string {
	return strings.Join([]string{o.GroupVersionKind().Group, o.GetKind(), o.GetNamespace(), o.GetName()}, "/")
}

// limitedBuffer fails a render that writes more than its limit.
type limitedBuffer struct {
	bytes.Buffer
	left int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.left -= len(p); b.left < 0 {
		return 0, fmt.Errorf("the rendered output exceeds %d MiB", maxRenderedBytes>>20)
	}
	return b.Buffer.Write(p)
}

func boundedUntil(n int) ([]int, error) {
	if n < 0 {
		return boundedRange(0, n, -1)
	}
	return boundedRange(0, n, 1)
}

func boundedRange(start, stop, step int) ([]int, error) {
	if step == 0 || (stop-start)/step > maxTemplateLoop {
		return nil, fmt.Errorf("a range of more than %d values", maxTemplateLoop)
	}
	var out []int
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		out = append(out, i)
	}
	return out, nil
}

func boundedRepeat(count int, s string) (string, error) {
	if count < 0 || count*len(s) > maxRenderedBytes {
		return "", fmt.Errorf("repeat of %d", count)
	}
	return strings.Repeat(s, count), nil
}
