package whyterminating

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl why-terminating` the documents show names only flags the command has, and each
// concrete example parses, completes (against a kubeconfig naming its context; no request is
// made) and passes Validate, fleet.md's examples (--contexts, --all-contexts) included.
func TestDocExamples(t *testing.T) {
	docexamples.Check(t, "../../docs", "why-terminating", func(t *testing.T) (*cobra.Command, func(*cobra.Command) error) {
		o := NewWhyTerminatingOptions(genericiooptions.NewTestIOStreamsDiscard())
		return newCmd(o), func(cmd *cobra.Command) error {
			kubeconfig := offlineKubeconfig(t, *o.ConfigFlags.Context)
			o.ConfigFlags.KubeConfig = &kubeconfig
			if err := o.Complete(cmd.Flags().Args()); err != nil {
				return err
			}
			return o.Validate()
		}
	})
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
