package fluxchain_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// TestGraphInjection is issue 16 item 6 for the graph printers: a Kustomization id or a
// dependency read from a repository with a newline, a workflow command or an ANSI escape in it
// stays inside its node's label in Mermaid, DOT and text output.
func TestGraphInjection(t *testing.T) {
	bad := "flux-system/apps\n::error::pwned\x1b[2J\u202e"
	res := &fluxchain.Result{Chain: flux.Chain{Tiers: [][]string{{bad}},
		Kustomizations: []*flux.Node{{ID: bad, Namespace: "flux-system", Name: "apps", State: flux.Failing, DependsOn: []string{"x\n##[group]y"}}}}}
	for name, print := range map[string]func(*strings.Builder) error{
		"mermaid": func(b *strings.Builder) error { return fluxchain.PrintMermaid(b, res) },
		"dot":     func(b *strings.Builder) error { return fluxchain.PrintDot(b, res) },
		"text":    func(b *strings.Builder) error { return fluxchain.PrintText(b, res, output.Palette{}) },
	} {
		var b strings.Builder
		if err := print(&b); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
				t.Errorf("%s: forged workflow command %q", name, l)
			}
			if strings.ContainsFunc(l, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
				t.Errorf("%s: raw control character in %q", name, l)
			}
		}
	}
}
