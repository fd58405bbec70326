package allowlist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// The allow-list: without --contexts only the current context (or --context); with it, the
// contexts whose whole name matches.
func TestContextsResolve(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {}
contexts:
- {name: dev, context: {cluster: c, user: u}}
- {name: prod-eu, context: {cluster: c, user: u}}
- {name: prod-us, context: {cluster: c, user: u}}
- {name: xprod-eu, context: {cluster: c, user: u}}
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := func(context string) *genericclioptions.ConfigFlags {
		f := genericclioptions.NewConfigFlags(true)
		f.KubeConfig, f.Context = &kubeconfig, &context
		return f
	}
	for _, tc := range []struct {
		name, context, pattern, call, want string
	}{
		{"default is the current context", "", "", "", "dev"},
		{"the current context by name", "", "", "dev", "dev"},
		{"another context refused", "", "", "prod-eu", ""},
		{"--context sets the default", "prod-us", "", "", "prod-us"},
		{"--context: the current context refused", "prod-us", "", "dev", ""},
		{"pattern matches", "", "prod-.*", "prod-eu", "prod-eu"},
		{"pattern is anchored", "", "prod-.*", "xprod-eu", ""},
		{"default off the pattern refused", "", "prod-.*", "", ""},
		{"alternation is anchored as a whole", "", "dev|prod-eu", "prod-eu", "prod-eu"},
		{"a comma list, as fleet's --contexts", "", "dev,prod-eu", "prod-eu", "prod-eu"},
		{"a comma list: the first pattern", "", "dev,prod-eu", "", "dev"},
		{"an exclusion", "", "prod-.*,^prod-us", "prod-us", ""},
		{"an exclusion leaves the others", "", "prod-.*,^prod-us", "prod-eu", "prod-eu"},
		{"a comma inside braces belongs to the pattern", "", "prod-[a-z]{2,3}", "prod-eu", "prod-eu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewContexts(flags(tc.context), tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Resolve(tc.call)
			if got != tc.want || (err == nil) != (tc.want != "") {
				t.Errorf("resolve(%q) = %q, %v; want %q", tc.call, got, err, tc.want)
			}
		})
	}
	if _, err := NewContexts(flags(""), "staging-.*"); err == nil || !strings.Contains(err.Error(), "matches no context") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
	if _, err := NewContexts(flags(""), "("); err == nil {
		t.Error("a bad pattern is accepted")
	}
	// Only exclusions: refused as fleet mode refuses it, not read as "everything but".
	if _, err := NewContexts(flags(""), "^prod-us"); err == nil || !strings.Contains(err.Error(), "has no inclusion") {
		t.Errorf("only an exclusion: %v", err)
	}
	c, err := NewContexts(flags(""), "prod-.*,^prod-us")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Describe(), `contexts selected by --contexts=prod-.*,^prod-us: prod-eu`; got != want {
		t.Errorf("describe() = %q, want %q", got, want)
	}
}
