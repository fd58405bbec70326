package whyterminating

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl why-terminating` the documents show names only flags the command has, and each
// concrete example parses, completes (against a kubeconfig naming its context; no request is
// made) and passes Validate. fleet.md is fleet mode's, checked with it.
func TestDocExamples(t *testing.T) {
	exs, err := docexamples.Find("../../docs", "why-terminating", "fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	concrete := 0
	for _, ex := range exs {
		o := NewWhyTerminatingOptions(genericiooptions.NewTestIOStreamsDiscard())
		cmd := newCmd(o)
		if unknown := docexamples.UnknownFlags(cmd, ex); len(unknown) > 0 {
			t.Errorf("%s: %s: the command has no %v", ex.Where(), ex.Text, unknown)
			continue
		}
		if !ex.Concrete {
			continue
		}
		concrete++
		if err := docexamples.Parse(cmd, ex); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
			continue
		}
		kubeconfig := offlineKubeconfig(t, *o.ConfigFlags.Context)
		o.ConfigFlags.KubeConfig = &kubeconfig
		if err := o.Complete(cmd.Flags().Args()); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
			continue
		}
		if err := o.Validate(); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
		}
	}
	if concrete < 3 {
		t.Fatalf("found %d concrete examples of why-terminating in docs/ (of %d), want at least 3: is the extraction broken?", concrete, len(exs))
	}
}

// offlineKubeconfig writes a kubeconfig whose current context is name (or "docs"), on a server
// nothing listens on: Complete builds clients from it without a request.
func offlineKubeconfig(t *testing.T, name string) string {
	t.Helper()
	if name == "" {
		name = "docs"
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: %q
  context: {cluster: c, user: u}
current-context: %q
`, name, name)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
