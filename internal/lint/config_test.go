package lint_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
)

func TestConfig(t *testing.T) {
	head := "apiVersion: fluxchain.kubeforensics.dev/v1alpha1\nkind: Config\n"
	tests := []struct {
		name, body, wantErr string
	}{
		{"valid", head + "crds:\n  groups: [cilium.io]\n  kinds: [cert-manager.io/Issuer]\nrules:\n  crd-order:\n    severity: warning\nsuppressions:\n  - rule: remote-base\n    reason: vendored upstream weekly\n", ""},
		{"unknown top-level field", head + "rule: {}\n", `unknown field "rule"`},
		{"unknown nested field", head + "crds:\n  group: [x.io]\n", `unknown field "group"`},
		{"wrong kind", "apiVersion: fluxchain.kubeforensics.dev/v1alpha1\nkind: Konfig\n", "apiVersion"},
		{"unknown rule", head + "rules:\n  crd-ordr: {severity: error}\n", `"rules.crd-ordr": unknown rule`},
		{"bad severity", head + "rules:\n  crd-order: {severity: fatal}\n", "rules.crd-order.severity"},
		{"kind without group", head + "crds:\n  kinds: [Issuer]\n", "GROUP/Kind"},
		{"suppression without reason", head + "suppressions:\n  - rule: crd-order\n    reason: \"  \"\n", "needs a reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), lint.ConfigFile)
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := lint.ReadConfig(path)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), "\n")):
				t.Fatalf("error %v, want one line starting with the file and containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestConfigPathsStayInside: a configuration file from a fork may not make the tool read
// outside the repository.
func TestConfigPathsStayInside(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"../outside", "/etc"} {
		cfg := &lint.Config{CRDs: lint.CRDConfig{Paths: []string{p}}}
		if _, err := lint.NewSettings(root, cfg, ".flux-chain.yaml", lint.Declared{}); err == nil {
			t.Errorf("crds.paths %q accepted", p)
		}
	}
}
