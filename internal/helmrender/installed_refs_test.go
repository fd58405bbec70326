package helmrender

import (
	"slices"
	"testing"
)

// A schema reference Helm's validator would resolve to a file of this machine is found; a
// fragment, a remote URL (skipped offline), one relative to a remote $id, a known draft and a
// urn are not.
func TestLocalSchemaRefs(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   []string
	}{
		{`{"properties":{"a":{"$ref":"#/$defs/a"}}}`, nil},
		{`{"properties":{"a":{"$ref":"other.json"}}}`, []string{"other.json"}},
		{`{"properties":{"a":{"$ref":"file:///etc/passwd"}}}`, []string{"file:///etc/passwd"}},
		{`{"$id":"https://example.com/s.json","properties":{"a":{"$ref":"z.json"}}}`, nil},
		{`{"$id":"file:///tmp/s.json","properties":{"a":{"$ref":"https://example.com/z.json"},"b":{"$dynamicRef":"y.json"}}}`, []string{"y.json"}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"$ref":"urn:x"}}}`, nil},
		{`{"$schema":"/etc/schema.json"}`, []string{"/etc/schema.json"}},
		{`not json`, nil},
	} {
		if got := localSchemaRefs([]byte(tc.schema)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.schema, got, tc.want)
		}
	}
}
