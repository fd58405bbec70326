package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The live tools and their commands build one Request and run one Plan: for the same
// arguments on the same cluster, the tool's structured content and the command's json output
// are the same report, but for what differs between two reads of one cluster. why_terminating
// checks its object through terminating.NewRequest as the command does, for an object, an
// inventory id, a type and a sweep; flux_chain checks its scope (chain.CheckFocus) and settles
// its namespace (chain.NamespaceOf) as the command does, for flux-system and one Kustomization.
// (Every namespace at once holds the Kustomization whose status TestClusterTextEscaped writes
// control characters into: the tool escapes them and json does not.)
func TestLiveToolsSameAsCommand(t *testing.T) {
	needEnv(t)
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	why, chain := whyterminating.NewCmdWhyTerminating, fluxchain.NewCmdFluxChain
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		newCmd     func(genericiooptions.IOStreams) *cobra.Command
		cmd        []string
	}{
		{"object", "why_terminating", map[string]any{"object": "pvc headlamp", "namespace": incident.Namespace}, why, []string{"pvc", "headlamp", "-n", incident.Namespace}},
		{"inventory id", "why_terminating", map[string]any{"object": "headlamp_headlamp__PersistentVolumeClaim"}, why, []string{"headlamp_headlamp__PersistentVolumeClaim"}},
		{"namespace sweep", "why_terminating", map[string]any{"namespace": incident.Namespace}, why, []string{"-n", incident.Namespace}},
		{"one type", "why_terminating", map[string]any{"object": "pvc", "namespace": incident.Namespace}, why, []string{"pvc", "-n", incident.Namespace}},
		{"flux-system", "flux_chain", map[string]any{}, chain, nil},
		{"focused", "flux_chain", map[string]any{"name": incident.AppsKS, "namespace": incident.FluxNS}, chain, []string{incident.AppsKS, "-n", incident.FluxNS}},
	} {
		t.Run(tc.tool+" "+tc.name, func(t *testing.T) {
			tool := call(t, cs, tc.tool, tc.args)
			command := runPlugin(t, tc.newCmd, append(tc.cmd, "--kubeconfig", env.Kubeconfig, "--context", env.Context, "-o", "json"))
			sameReport(t, tool, command)
		})
	}
}

// flux_chain_lint and `kubectl flux-chain --repo` open the repository, read its configuration
// and --fail-on through the same functions and run one PlanRepo: the same report for the
// detected layout, an entry path and a stricter failOn. No cluster is involved.
func TestFluxChainLintSameAsCommand(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	root := t.TempDir()
	r := lintRepo(t, root)
	cs := connect(t, config(emptyKubeconfig(t), root))
	for _, tc := range []struct {
		name string
		args map[string]any
		cmd  []string
	}{
		{"detected layout", map[string]any{}, nil},
		{"entry path", map[string]any{"path": "clusters/prod"}, []string{"--path", "clusters/prod"}},
		{"fail on warning", map[string]any{"path": "clusters/prod", "failOn": "warning"}, []string{"--path", "clusters/prod", "--fail-on", "warning"}},
		{"declared CRDs", map[string]any{"crds": []any{"monitoring.coreos.com"}}, []string{"--crds", "monitoring.coreos.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["repo"] = r.Dir
			tool := call(t, cs, "flux_chain_lint", tc.args)
			command := runPlugin(t, fluxchain.NewCmdFluxChain, append(tc.cmd, "--repo", r.Dir, "-o", "json"))
			sameReport(t, tool, command)
		})
	}
}

// runPlugin runs a plugin's command with args and returns its json output; a verdict's exit
// code is not an error, bad input is.
func runPlugin(t *testing.T, newCmd func(genericiooptions.IOStreams) *cobra.Command, args []string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newCmd(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	cmd.SilenceErrors = true
	var coded *exitcode.Error
	if err := cmd.Execute(); err != nil && (!errors.As(err, &coded) || coded.Code == exitcode.Usage) {
		t.Fatalf("%s %v: %v\n%s", cmd.Name(), args, err, errOut.String())
	}
	return out.Bytes()
}

// varying are the fields of a report that differ between two reads of one cluster (the time
// it was written, how long an object has been Terminating or a reconciliation has left, how
// many LIST requests were made), and ages in the details of a blocker or a status.
var (
	varying = regexp.MustCompile(`"(timestamp|terminatingFor|listRequests|remaining|age)":\s*("[^"]*"|\d+)`)
	ages    = regexp.MustCompile(`\bage \d+[smhd]\b`)
)

// sameReport fails t unless the tool's structured content and the command's json output are
// the same report, but for what varies between reads.
func sameReport(t *testing.T, tool *mcp.CallToolResult, command []byte) {
	t.Helper()
	if tool.IsError {
		t.Fatalf("tool error: %s", text(tool))
	}
	b, err := json.Marshal(tool.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	for _, p := range []struct {
		raw []byte
		v   *any
	}{{b, &got}, {command, &want}} {
		stable := ages.ReplaceAll(varying.ReplaceAll(p.raw, []byte(`"$1":"-"`)), []byte("age AGE"))
		if err := json.Unmarshal(stable, p.v); err != nil {
			t.Fatalf("not a report: %v\n%s", err, p.raw)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the tool's report differs from the command's (-command +tool):\n%s", diff)
	}
}
