package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/progress"
)

// kustomize's deprecation lines are dropped from stderr, everything else passes as written,
// a last line without a newline included.
func TestFilterLinesDropsKustomizeDeprecations(t *testing.T) {
	in := "# building\n" +
		"# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n" +
		"panic: something else\n" +
		"# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n" +
		"# Warning: 'commonLabels' is deprecated, said someone else\n" +
		"tail"
	var out strings.Builder
	if err := filterLines(strings.NewReader(in), &out, kbuild.IsKustomizeDeprecation); err != nil {
		t.Fatal(err)
	}
	want := "# building\npanic: something else\n# Warning: 'commonLabels' is deprecated, said someone else\ntail"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}

// A warning raised on every build is said once at the end, with how many builds raised it
// and where, escaped as all text from a repository.
func TestRunSaysEachWarningOnce(t *testing.T) {
	cmd := &cobra.Command{Use: "x", RunE: func(c *cobra.Command, _ []string) error {
		for range 57 {
			progress.Warn(c.Context(), "kustomize: 'commonLabels' is deprecated.", "bases/a/kustomization.yaml", "evil\x1b[2J/kustomization.yaml")
		}
		progress.Warn(c.Context(), "kustomize: 'vars' is deprecated.", "b/kustomization.yaml")
		return nil
	}}
	var errOut strings.Builder
	if got := Run(context.Background(), cmd, nil, &errOut); got != 0 {
		t.Fatalf("code %d", got)
	}
	want := "# warning: kustomize: 'commonLabels' is deprecated. (57 builds: bases/a/kustomization.yaml, evil\\x1b[2J/kustomization.yaml)\n" +
		"# warning: kustomize: 'vars' is deprecated. (1 build: b/kustomization.yaml)\n"
	if errOut.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut.String(), want)
	}
}

// A long-lived command (the MCP server, whose tool calls build kustomizations) gets the same
// filter as the plugins: kustomize's deprecation lines written to the process's stderr are
// dropped, every other line passes, and the command's own stderr is the real one.
func TestServeDropsKustomizeDeprecations(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	realErr, realArgs := os.Stderr, os.Args
	os.Stderr, os.Args = w, []string{"kubeforensics-mcp"}
	defer func() { os.Stderr, os.Args = realErr, realArgs }()
	deprecation := "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically."
	code := Serve(func(s genericiooptions.IOStreams) *cobra.Command {
		return &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error {
			for range 3 {
				fmt.Fprintln(os.Stderr, deprecation) // as kustomize writes it, once per build
			}
			fmt.Fprintln(os.Stderr, "# a library's own line")
			fmt.Fprintln(s.ErrOut, "# serving")
			return nil
		}}
	})
	os.Stderr = realErr
	_ = w.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	// The copied lines and the command's own reach stderr in either order.
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(lines)
	if want := []string{"# a library's own line", "# serving"}; code != 0 || !slices.Equal(lines, want) {
		t.Errorf("exit %d, stderr %q; want 0, the lines %q", code, out, want)
	}
}
