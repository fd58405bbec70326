package helmrender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DoInstalled renders the HelmRelease u as Do does, with the chart Helm stored for its deployed
// release (helmstorage.DeployedChart) in place of one from a chart source. That chart is read
// from the cluster and is untrusted: it is never fetched for, never cached (opts.Cache is not
// used, so nothing the cluster stored answers a later render of a chart source's chart), its
// values.schema.json's remote references are skipped (opts.AllowNetwork is not used) and one
// that refers to a file is refused (Helm's validator would read it from this machine), and when
// it fails to render Helm's message is not shown: it may quote the chart's values. The render
// runs in a render worker, bounded, as every render does.
func DoInstalled(ctx context.Context, u *unstructured.Unstructured, c *chart.Chart, objs []*unstructured.Unstructured, opts Options) (*Render, error) {
	// Refused even when the HelmRelease disables schema validation, unlike Do: the stored
	// chart is the cluster's, not the repository's.
	if err := refuseLocalSchemaRefs(c); err != nil {
		return nil, fmt.Errorf("the installed %w", err)
	}
	hr, err := Decode(u)
	if err != nil {
		return nil, err
	}
	vals, secret, err := ComposeValues(ctx, hr, objs)
	if err != nil {
		return nil, err // the HelmRelease's own values: their error is the repository's
	}
	opts.AllowNetwork, opts.Cache = false, nil
	p, err := prepare(hr, c, "", vals, secret, opts)
	var r *Render
	if err == nil {
		r, err = p.Render(ctx)
	}
	if err != nil && !errors.Is(err, ErrBound) {
		return nil, fmt.Errorf("rendering release %s/%s with the installed chart %s %s failed; Helm's message is not shown, as it may quote the stored chart's values", hr.GetReleaseNamespace(), ReleaseName(hr), c.Name(), c.Metadata.Version)
	}
	return r, err
}

// refuseLocalSchemaRefs refuses a chart (or a subchart of it) whose values.schema.json refers
// to files: Helm's validator would read them from this machine — a CI runner, for a chart from
// a pull request — where helm-controller would read its own container's. Charts that validate
// on a cluster refer to no file there, so nothing real is lost; the render is UNKNOWN instead.
func refuseLocalSchemaRefs(c *chart.Chart) error {
	if local := localSchemaRefs(c.Schema); len(local) > 0 {
		return fmt.Errorf("chart %s %s: values.schema.json refers to files (%d references, not relative to a remote schema), which Helm's validator would read from this machine: it is not rendered", c.Name(), c.Metadata.Version, len(local))
	}
	for _, d := range c.Dependencies() {
		if err := refuseLocalSchemaRefs(d); err != nil {
			return err
		}
	}
	return nil
}

// localSchemaRefs are the references of a values schema that Helm's validator resolves to a
// file: its loader reads file: URLs from the local file system, and the schema itself is
// registered as file:///values.schema.json, so a relative reference outside a remote $id is a
// file too. Fragments ("#/…"), http(s) URLs (skipped offline) and urn: (Helm resolves none)
// are not. A schema that does not parse is none of its business: Helm reports it.
func localSchemaRefs(schema []byte) []string {
	if len(schema) == 0 {
		return nil
	}
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil
	}
	base, _ := url.Parse("file:///values.schema.json")
	var out []string
	walkLocal(doc, base, &out)
	slices.Sort(out)
	return slices.Compact(out)
}

func walkLocal(v any, base *url.URL, out *[]string) {
	switch n := v.(type) {
	case []any:
		for _, e := range n {
			walkLocal(e, base, out)
		}
	case map[string]any:
		if id, ok := n["$id"].(string); ok {
			if u, err := base.Parse(id); err == nil {
				base = u
			}
		}
		for _, k := range []string{"$ref", "$dynamicRef", "$schema"} {
			ref, ok := n[k].(string)
			if !ok || strings.HasPrefix(ref, "#") || (k == "$schema" && knownDraft(ref)) {
				continue
			}
			u, err := base.Parse(ref)
			if err != nil || (!isRemote(u) && u.Scheme != "urn") {
				*out = append(*out, ref)
			}
		}
		for _, e := range n {
			walkLocal(e, base, out)
		}
	}
}
