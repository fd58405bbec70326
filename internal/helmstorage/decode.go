package helmstorage

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// record holds the only fields of a stored release that are decoded: its values (config) and
// the chart's files and values are skipped by the JSON decoder, never held (DeployedChart
// decodes the chart apart, chart.go). A hook's manifest is read for the object it creates
// (hookObject) and then dropped.
type record struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Version   int    `json:"version"`
	Info      *struct {
		Status string `json:"status"`
	} `json:"info"`
	Chart *struct {
		Metadata *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"metadata"`
	} `json:"chart"`
	Manifest string       `json:"manifest"`
	Hooks    []recordHook `json:"hooks"`
}

// recordHook is one hook of a stored release (Helm's release.Hook), without its log policies.
type recordHook struct {
	Path           string   `json:"path"`
	Manifest       string   `json:"manifest"`
	Events         []string `json:"events"`
	DeletePolicies []string `json:"delete_policies"`
	LastRun        struct {
		Phase string `json:"phase"`
	} `json:"last_run"`
}

// tooLarge is a release whose decompressed JSON passes MaxReleaseBytes.
type tooLarge struct{}

func (*tooLarge) Error() string {
	return fmt.Sprintf("it decompresses to more than %d bytes", MaxReleaseBytes)
}

// magicGzip is the gzip header Helm's decodeRelease looks for.
var magicGzip = []byte{0x1f, 0x8b, 0x08}

// decode is Helm's storage driver decodeRelease (pkg/storage/driver/util.go, unexported):
// base64 (standard encoding), then gzip when the gzip header is there (releases stored before
// compression are plain JSON), then JSON, with the decompressed size bounded. Its errors say
// which step failed and never quote the data.
func decode(data []byte) (*record, []byte, error) {
	b, err := inflate(data)
	if err != nil {
		return nil, nil, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, nil, fmt.Errorf("its release data is not a Helm release (JSON)")
	}
	return &rec, b, nil
}

// inflate is the first two steps of decode: the release's JSON, bounded.
func inflate(data []byte) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return nil, fmt.Errorf("its release data is not base64")
	}
	if len(b) > 3 && bytes.Equal(b[:3], magicGzip) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("its release data is not gzip")
		}
		b, err = io.ReadAll(io.LimitReader(zr, MaxReleaseBytes+1))
		if err != nil {
			return nil, fmt.Errorf("its release data does not decompress (gzip)")
		}
		if len(b) > MaxReleaseBytes {
			return nil, &tooLarge{}
		}
	}
	if len(b) > MaxReleaseBytes {
		return nil, &tooLarge{}
	}
	return b, nil
}

// manifestObjects splits a release manifest as Helm's uninstall does (releaseutil.
// SplitManifests, in manifest order) into objects; an empty document is skipped.
func manifestObjects(manifest string) ([]*unstructured.Unstructured, error) {
	docs := util.SplitManifests(manifest)
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Sort(util.BySplitManifestsOrder(keys))
	var out []*unstructured.Unstructured
	for i, k := range keys {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(docs[k]), &m); err != nil {
			return nil, fmt.Errorf("document %d of its manifest is not YAML", i+1)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("document %d of its manifest has no kind or name", i+1)
		}
		out = append(out, u)
	}
	return out, nil
}
