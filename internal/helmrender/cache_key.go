package helmrender

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// renderKey is everything a render (chartrender.Spec, the values and the post-render chain)
// reads for one release, besides the chart itself, which chartDigest stands for. A field read
// there and not here would let a stale render answer: keep the two together.
type renderKey struct {
	Chart  string `json:"chart"`
	Values string `json:"values"`
	// Release, Namespace: the release's name and namespace; HelmRelease the object's
	// namespace/name (the origin labels).
	Release     string `json:"release"`
	Namespace   string `json:"namespace"`
	HelmRelease string `json:"helmRelease"`
	// KubeVersion and APIVersions are .Capabilities.
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions"`
	// PostRenderers and PostRenderStrategy are the post-render chain and where it applies.
	PostRenderers      []helmv2.PostRenderer `json:"postRenderers"`
	PostRenderStrategy string                `json:"postRenderStrategy"`
	// SkipSchema is install.disableSchemaValidation; Skipped the remote schema references
	// left out offline.
	SkipSchema bool     `json:"skipSchema"`
	Skipped    []string `json:"skipped"`
}

// cacheKey digests what rendering hr with chart c (archive digest, "" for a chart read from a
// directory) and the composed vals reads, under salt; ok is false when the render cannot be
// keyed: with the network allowed, a schema that refers to remote URLs is fetched, and what
// it says is not in the key.
func cacheKey(salt string, hr *helmv2.HelmRelease, c *chart.Chart, digest string, vals map[string]any, skipped []string, opts Options) (key string, ok bool, err error) {
	if opts.AllowNetwork && !hr.GetInstall().DisableSchemaValidation {
		if _, remote, err := offlineSchemas(c); err != nil || len(remote) > 0 {
			return "", false, err
		}
	}
	values, err := json.Marshal(vals) // map keys sorted
	if err != nil {
		return "", false, fmt.Errorf("release %s/%s: its values: %w", hr.Namespace, hr.Name, err)
	}
	kv := opts.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion
	}
	if digest == "" {
		digest = chartDigest(c)
	}
	valuesSum := sha256.Sum256(values)
	k := renderKey{
		Chart: digest, Values: hex.EncodeToString(valuesSum[:]),
		Release: ReleaseName(hr), Namespace: hr.GetReleaseNamespace(), HelmRelease: hr.Namespace + "/" + hr.Name,
		KubeVersion: kv, APIVersions: opts.APIVersions,
		PostRenderers: hr.Spec.PostRenderers, PostRenderStrategy: string(hr.GetPostRenderStrategy()),
		SkipSchema: hr.GetInstall().DisableSchemaValidation, Skipped: skipped,
	}
	data, err := json.Marshal(k)
	if err != nil {
		return "", false, fmt.Errorf("release %s/%s: its render key: %w", hr.Namespace, hr.Name, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", salt)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// chartDigest digests a chart as loaded (metadata, templates, files, values, schema, and its
// subcharts'), for a chart that has no archive digest: one read from a directory.
func chartDigest(c *chart.Chart) string {
	h := sha256.New()
	writeChart(h, c)
	return "files:sha256:" + hex.EncodeToString(h.Sum(nil))
}

func writeChart(h hash.Hash, c *chart.Chart) {
	meta, _ := json.Marshal(c.Metadata) // plain strings and slices: never fails
	values, _ := json.Marshal(c.Values)
	fmt.Fprintf(h, "chart\x00%d\x00%s\x00%d\x00%s\x00%d\x00%s\x00", len(meta), meta, len(values), values, len(c.Schema), c.Schema)
	for _, group := range [][]*common.File{c.Templates, c.Files, c.Raw} {
		fmt.Fprintf(h, "files\x00%d\x00", len(group))
		for _, f := range group {
			fmt.Fprintf(h, "%d\x00%s\x00%d\x00", len(f.Name), f.Name, len(f.Data))
			h.Write(f.Data)
		}
	}
	deps := c.Dependencies()
	fmt.Fprintf(h, "deps\x00%d\x00", len(deps))
	for _, d := range deps {
		writeChart(h, d)
	}
}
