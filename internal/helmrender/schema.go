package helmrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// A chart's values.schema.json may refer to other schemas by URL (app-template 3.x refers to
// its own, published on the web). helm-controller validates the values with Helm, whose
// validator fetches every such reference over HTTP. Without the network allowed, a render here
// skips them instead: each `$ref`/`$dynamicRef` (and a `$schema` that is not a JSON Schema
// draft known without the network) leading to an http(s) URL is left out of the schema, the
// rest of the schema still applies, and the render says which were skipped (Render.Notes).
// With the network allowed, the schema is Helm's as it stands and Helm fetches them, as
// helm-controller does, within the render's bounds.

// offlineSchemas returns c, or when any schema of c or its subcharts refers to a remote URL a
// copy of c whose schemas leave those references out, with what was left out ("chart: url").
// c and its subcharts are never changed: they may be shared by other renders.
func offlineSchemas(c *chart.Chart) (*chart.Chart, []string, error) {
	var skipped []string
	var walk func(c *chart.Chart) (*chart.Chart, error)
	walk = func(c *chart.Chart) (*chart.Chart, error) {
		cp := *c
		s, urls, err := stripRemoteRefs(c.Schema)
		if err != nil {
			return nil, fmt.Errorf("chart %s: values.schema.json: %w", c.Name(), err)
		}
		cp.Schema = s
		for _, u := range urls {
			skipped = append(skipped, c.Name()+": "+u)
		}
		var deps []*chart.Chart
		for _, d := range c.Dependencies() {
			nd, err := walk(d)
			if err != nil {
				return nil, err
			}
			deps = append(deps, nd)
		}
		cp.SetDependencies(deps...)
		return &cp, nil
	}
	cp, err := walk(c)
	if err != nil || len(skipped) == 0 {
		return c, nil, err
	}
	return cp, skipped, nil
}

// stripRemoteRefs returns schema without its references to http(s) URLs, and those URLs.
func stripRemoteRefs(schema []byte) ([]byte, []string, error) {
	if len(schema) == 0 {
		return schema, nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		// Helm reports a schema that does not parse; so does the render.
		return schema, nil, nil
	}
	var urls []string
	strip(doc, false, &urls)
	if len(urls) == 0 {
		return schema, nil, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(urls)
	return out, slices.Compact(urls), nil
}

// strip walks a schema; remoteBase is whether an enclosing $id is an http(s) URL, against
// which a relative reference would be fetched too.
func strip(v any, remoteBase bool, urls *[]string) {
	switch n := v.(type) {
	case []any:
		for _, e := range n {
			strip(e, remoteBase, urls)
		}
	case map[string]any:
		if id, ok := n["$id"].(string); ok {
			if u, err := url.Parse(id); err == nil && u.IsAbs() {
				remoteBase = isRemote(u)
			}
		}
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if ref, ok := n[k].(string); ok && refersRemote(ref, remoteBase) {
				*urls = append(*urls, ref)
				delete(n, k)
			}
		}
		if s, ok := n["$schema"].(string); ok && refersRemote(s, false) && !knownDraft(s) {
			*urls = append(*urls, s)
			delete(n, "$schema")
		}
		for _, e := range n {
			strip(e, remoteBase, urls)
		}
	}
}

func refersRemote(ref string, remoteBase bool) bool {
	u, err := url.Parse(ref)
	if err != nil {
		return false
	}
	if u.IsAbs() {
		return isRemote(u)
	}
	return remoteBase && !strings.HasPrefix(ref, "#")
}

func isRemote(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

// knownDraft reports a JSON Schema meta-schema the validator holds without the network.
func knownDraft(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host == "json-schema.org" && strings.HasPrefix(u.Path, "/draft")
}
