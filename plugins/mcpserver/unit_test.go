package mcpserver

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

func TestCheckListenAddress(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8808", false, true},
		{"[::1]:8808", false, true},
		{"localhost:8808", false, true},
		{"127.0.0.2:0", false, true},
		{"0.0.0.0:8808", false, false},
		{":8808", false, false},
		{"10.0.0.5:8808", false, false},
		{"example.com:8808", false, false},
		{"0.0.0.0:8808", true, true},
		{"127.0.0.1", false, false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if err := checkListenAddress(tc.addr, tc.remote); (err == nil) != tc.ok {
				t.Errorf("checkListenAddress(%q, %v) = %v", tc.addr, tc.remote, err)
			}
		})
	}
}

// The output schemas are the plugins' Result types, explanations nested in explanations
// included; the JSON the plugins commit as goldens is valid under them.
func TestOutputSchemasAcceptGoldens(t *testing.T) {
	for _, tc := range []struct {
		typ   reflect.Type
		files []string
	}{
		{reflect.TypeFor[whyterminating.Result](), []string{"../whyterminating/testdata/seed-claim.json", "../whyterminating/testdata/argocd-controller-scaled-to-zero.json"}},
		{reflect.TypeFor[fluxchain.Result](), []string{"../fluxchain/testdata/seed.json"}},
		{reflect.TypeFor[fluxchain.RepoResult](), []string{"../fluxchain/testdata/repo-seeded.json"}},
		{reflect.TypeFor[saferetire.Result](), []string{"../saferetire/testdata/seed-offline.json", "../saferetire/testdata/platform-unsafe.json", "../saferetire/testdata/platform-retained-unknown.json"}},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			s, err := schemaOf(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				if err := r.Validate(v); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			// A wrong type is refused: the schema is not empty.
			if err := r.Validate(map[string]any{"verdict": 7}); err == nil {
				t.Error("the schema accepts a numeric verdict")
			}
		})
	}
}
