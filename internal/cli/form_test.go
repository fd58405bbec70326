package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

func TestFormOf(t *testing.T) {
	cases := []struct {
		argv0 string
		want  cli.Form
	}{
		{"kubectl-flux_chain", cli.Kubectl},
		{"/home/u/.krew/bin/kubectl-why_terminating", cli.Kubectl},
		{"/home/u/.fluxcd/plugins/flux-chain", cli.Flux},
		{`C:\Users\u\.fluxcd\plugins\flux-safe-retire.exe`, cli.Flux},
		{"flux-why-terminating.EXE", cli.Flux},
		{"./bin/kubectl-safe_retire.exe", cli.Kubectl},
		{"fluxchain", cli.Kubectl},
	}
	for _, tc := range cases {
		t.Run(tc.argv0, func(t *testing.T) {
			if got := cli.FormOf(tc.argv0); got != tc.want {
				t.Fatalf("FormOf(%q) = %v, want %v", tc.argv0, got, tc.want)
			}
		})
	}
}

func TestPluginBinaries(t *testing.T) {
	var got []string
	for _, p := range cli.Plugins {
		got = append(got, p.KubectlBinary()+" "+p.FluxBinary())
	}
	want := "kubectl-why_terminating flux-why-terminating|kubectl-flux_chain flux-chain|kubectl-safe_retire flux-safe-retire"
	if strings.Join(got, "|") != want {
		t.Fatalf("binaries %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestAsRewritesNamesOnly checks the rewrite table on the strings a help text holds.
func TestAsRewritesNamesOnly(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"flux-chain", "kubectl flux-chain --context=prod -A -o dot", "flux chain --context=prod -A -o dot"},
		{"why-terminating", "kubectl why-terminating --context=prod pvc headlamp", "flux why-terminating --context=prod pvc headlamp"},
		{"safe-retire", "  kubectl safe-retire --dry-run", "  flux safe-retire --dry-run"},
		{"several in one text", "kubectl flux-chain, then kubectl why-terminating", "flux chain, then flux why-terminating"},
		{"remediation stays kubectl", "kubectl --context=prod -n headlamp delete pod x", "kubectl --context=prod -n headlamp delete pod x"},
		{"bare names stay", "flux-chain lays out", "flux-chain lays out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &cobra.Command{Use: "x", Long: tc.in, Example: tc.in, Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: tc.in}}
			cmd.Flags().String("f", "", tc.in)
			cli.As(cmd, cli.Flux)
			got := []string{cmd.Long, cmd.Example, cmd.Annotations[cobra.CommandDisplayNameAnnotation], cmd.Flags().Lookup("f").Usage}
			for _, g := range got {
				if g != tc.want {
					t.Fatalf("rewrote %q to %q, want %q", tc.in, g, tc.want)
				}
			}
		})
	}
}

// plugins builds each real command, as the executables do.
var plugins = []struct {
	kubectl, flux string
	newCmd        cli.NewCmdFunc
}{
	{"kubectl why-terminating", "flux why-terminating", whyterminating.NewCmdWhyTerminating},
	{"kubectl flux-chain", "flux chain", fluxchain.NewCmdFluxChain},
	{"kubectl safe-retire", "flux safe-retire", func(s genericiooptions.IOStreams) *cobra.Command {
		return saferetire.NewCmdSafeRetire(s, func(string) string { return "" })
	}},
}

// run executes the command built by newCmd in form f and returns its stdout.
func run(t *testing.T, newCmd cli.NewCmdFunc, f cli.Form, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	cmd := cli.As(newCmd(streams), f)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if code := cli.Run(context.Background(), cmd, args, &errOut); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
	}
	return out.String()
}

func TestHelpInEachForm(t *testing.T) {
	for _, p := range plugins {
		t.Run(p.flux, func(t *testing.T) {
			help := run(t, p.newCmd, cli.Flux, "--help")
			if strings.Contains(help, "kubectl "+strings.TrimPrefix(p.kubectl, "kubectl ")+" ") {
				t.Errorf("flux form help still names %q:\n%s", p.kubectl, help)
			}
			if !strings.Contains(help, "Usage:\n  "+p.flux+" ") || !strings.Contains(help, "\n  "+p.flux+" -") {
				t.Errorf("flux form help lacks the usage line or examples of %q:\n%s", p.flux, help)
			}
			if v := run(t, p.newCmd, cli.Flux, "--version"); !strings.HasPrefix(v, p.flux+" version ") {
				t.Errorf("--version = %q, want it to start with %q", v, p.flux+" version ")
			}
			kubectl := run(t, p.newCmd, cli.Kubectl, "--help")
			if !strings.Contains(kubectl, "Usage:\n  "+p.kubectl+" ") || strings.Contains(kubectl, p.flux+" ") {
				t.Errorf("kubectl form help changed:\n%s", kubectl)
			}
		})
	}
}

// TestCompleteInFluxForm is what `flux __complete chain -o ""` runs: the plugin's own hidden
// __complete command, with the Flux form applied.
func TestCompleteInFluxForm(t *testing.T) {
	for _, p := range plugins {
		t.Run(p.flux, func(t *testing.T) {
			out := run(t, p.newCmd, cli.Flux, "__complete", "-o", "")
			if !strings.Contains(out, "text\n") || !strings.Contains(out, "json\n") || !strings.Contains(out, "\n:4\n") {
				t.Fatalf("__complete -o '': want text and json and directive :4, got\n%s", out)
			}
		})
	}
}
