package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kubeforensics/suite/internal/report"
)

// repoRoot is the repository's top level, from this package's directory.
const repoRoot = "../../.."

// The committed schemas are what the Result types generate: a field added to a Result without
// `go run ./hack/release/schemagen` fails here.
func TestSchemasUpToDate(t *testing.T) {
	files, err := render(kinds())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repoRoot, "docs", "schema")
	committed, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range committed {
		names = append(names, filepath.Base(f))
	}
	var want []string
	for name := range files {
		want = append(want, name)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("docs/schema holds other files than the kinds (-generated +committed):\n%s", diff)
	}
	for name, b := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%v (run go run ./hack/release/schemagen)", err)
			continue
		}
		if diff := cmp.Diff(string(b), string(got)); diff != "" {
			t.Errorf("docs/schema/%s is stale: run go run ./hack/release/schemagen (-generated +committed):\n%s", name, diff)
		}
	}
}

// compile compiles every committed schema, by kind, with formats asserted (the timestamp is
// a date-time).
func compile(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, k := range kinds() {
		path := filepath.Join(repoRoot, "docs", "schema", k.Name+".json")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(k.Name+".json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(k.Name + ".json")
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[k.Name] = s
	}
	return out
}

// golden is one JSON golden of a plugin: its path and decoded value.
type golden struct {
	path string
	doc  any
	kind string
}

// goldens reads every JSON file directly under plugins/*/testdata/ that is a report (its
// apiVersion is one of the suite's).
func goldens(t *testing.T) []golden {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(repoRoot, "plugins", "*", "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []golden
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		top, _ := doc.(map[string]any)
		api, _ := top["apiVersion"].(string)
		kind, _ := top["kind"].(string)
		if !strings.Contains(api, ".kubeforensics.dev/") {
			continue
		}
		out = append(out, golden{path: p, doc: doc, kind: kind})
	}
	return out
}

// Every JSON golden of the three plugins is a report of a published kind and valid under its
// schema.
func TestGoldensMatchSchemas(t *testing.T) {
	schemas := compile(t)
	all := goldens(t)
	seen := map[string]int{}
	for _, g := range all {
		s, ok := schemas[g.kind]
		if !ok {
			t.Errorf("%s: kind %q has no schema in docs/schema", g.path, g.kind)
			continue
		}
		seen[g.kind]++
		if err := s.Validate(g.doc); err != nil {
			t.Errorf("%s does not match docs/schema/%s.json: %v", g.path, g.kind, err)
		}
	}
	for _, k := range kinds() {
		if seen[k.Name] == 0 {
			t.Errorf("no JSON golden of kind %s was validated", k.Name)
		}
	}
}

// The schemas are closed: a golden with a renamed or removed field, at the top or nested, or
// with another apiVersion, fails validation.
func TestSchemasRefuseChangedFields(t *testing.T) {
	schemas := compile(t)
	for _, g := range goldens(t) {
		s := schemas[g.kind]
		if s == nil {
			continue
		}
		for name, mutate := range map[string]func(map[string]any) bool{
			"verdict renamed": func(m map[string]any) bool { return rename(m, "verdict", "verdicts") },
			"summary removed": func(m map[string]any) bool { return remove(m, "summary") },
			"reporter name renamed": func(m map[string]any) bool {
				r, ok := m["reporter"].(map[string]any)
				return ok && rename(r, "name", "tool")
			},
			"apiVersion v1alpha1":    func(m map[string]any) bool { m["apiVersion"] = "x.kubeforensics.dev/v1alpha1"; return true },
			"timestamp not RFC 3339": func(m map[string]any) bool { m["timestamp"] = "yesterday"; return true },
			"a nested field renamed": func(m map[string]any) bool { return renameDeep(m) },
		} {
			doc := clone(t, g.doc).(map[string]any)
			if !mutate(doc) {
				continue
			}
			if err := s.Validate(doc); err == nil {
				t.Errorf("%s with %s still validates", g.path, name)
			}
		}
	}
}

func rename(m map[string]any, from, to string) bool {
	v, ok := m[from]
	if ok {
		delete(m, from)
		m[to] = v
	}
	return ok
}

func remove(m map[string]any, key string) bool {
	_, ok := m[key]
	delete(m, key)
	return ok
}

// renameDeep renames the first field (in key order) of the first object found below the top
// level, inside an array: a finalizer, a removal, a Kustomization.
func renameDeep(m map[string]any) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		arr, ok := m[k].([]any)
		if !ok {
			continue
		}
		for _, e := range arr {
			if obj, ok := e.(map[string]any); ok && len(obj) > 0 {
				inner := make([]string, 0, len(obj))
				for f := range obj {
					inner = append(inner, f)
				}
				sort.Strings(inner)
				return rename(obj, inner[0], inner[0]+"Renamed")
			}
		}
	}
	return false
}

func clone(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every reason code the goldens show is a row of docs/report.md's table: a code emitted without
// its line, or renamed, fails here as well as in the package that declares it.
func TestGoldenCodesDocumented(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(repoRoot, "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented, err := report.Documented(md)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range goldens(t) {
		for _, c := range codesIn(g.doc) {
			n++
			if _, ok := documented[report.Reason(c)]; !ok {
				t.Errorf("%s: code %q is not in docs/report.md's reason table", g.path, c)
			}
		}
	}
	if n == 0 {
		t.Error("no golden carries a reason code")
	}
}

// codesIn collects the values of every "code" key in a decoded JSON document.
func codesIn(v any) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if s, ok := e.(string); ok && k == "code" {
				out = append(out, s)
				continue
			}
			out = append(out, codesIn(e)...)
		}
	case []any:
		for _, e := range t {
			out = append(out, codesIn(e)...)
		}
	}
	return out
}
